"""Stored notebook outputs that show right unopened and untrusted: PNG pictures, widget notes.

A notebook that JupyterLab has not been told to trust (every notebook someone downloads or
clones) shows each output through a *safe* renderer only. There, HTML is sanitized (an
``<svg>`` in it falls apart into a page of loose words; a ``<style>`` element goes, while
tables, text and inline colours stay), ``image/svg+xml`` is not shown at all, and a widget
is not drawn, so its ``text/plain`` (``<...RNNExplorerWidget object at 0x...>``) shows.
``image/png`` is shown everywhere: untrusted JupyterLab, GitHub, nbviewer. So, after a
notebook has run for committing (tools/run_notebooks.py):

- each picture (``image/svg+xml``, or HTML with an SVG in it: paddle_nb's graphs) becomes
  the PNG that Chromium draws of it; the HTML is dropped, so that no viewer prefers it, and
  ``text/plain`` stays beside it, unless it is an object's repr; other HTML (scope and
  block trees, tables) is kept;
- each widget gets a picture of its first state (``image/png``, beside its view): paddle_nb's
  widgets drawn by their own front end (``static/widgets.js``, the ``_esm`` in their saved
  state) from that state, the RNN explorer at its first step; a progress bar as it ended.
  Its ``text/plain`` is the widget's own line on what running adds (paddle_nb's widgets say
  it in their ``_repr_mimebundle_``), or a note to run the notebook instead of a repr. The
  widget's view and its saved state stay, for viewers that can draw widgets from saved
  state: those (a trusted JupyterLab) draw the live widget, the others the picture.

Once the notebook runs, the kernel's live outputs replace all of these.
"""
import base64
import html
import io
import re

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "[{what}. Run the notebook (Run > Run All Cells) to use it here.]"
PROGRESS_NOTE = ("[A progress bar, as it stood when the notebook was saved. Run the notebook "
                 "(Run > Run All Cells) to watch it move.]")
OBJECT_REPR = re.compile(r"<(?:[\w.]+\.)?(\w+) object(?: at 0x[0-9a-f]+)?>")
# The page a picture is drawn on: JupyterLab's light theme, a white background, no margins.
PAGE = ("<!doctype html><html><head><meta charset='utf-8'><style>"
        "body {{ margin: 0; background: #fff; font-family: 'DejaVu Sans', sans-serif; }}"
        "#picture {{ display: inline-block; max-width: 1092px; padding: 4px; }}</style></head>"
        "<body><div id='picture'>{html}</div></body></html>")
VIEWPORT = {"width": 1100, "height": 800}     # about a JupyterLab output area's width
# Draw a widget as a widget manager would: its ES module's render() on a model that holds
# the saved state (get / set / on / off / save_changes; nothing is sent anywhere).
CAPTION = ("<div style='margin-top:4px;padding:3px 8px;border-left:3px solid #f0d58c;"
           "background:#fff8e1;color:#5d4300;font-size:12px'>{line}</div>")
DRAW_WIDGET = """async ([state, caption]) => {
  const css = document.createElement("style");
  css.textContent = state._css || "";
  document.head.append(css);
  const url = URL.createObjectURL(new Blob([state._esm], { type: "text/javascript" }));
  const module = await import(url);
  const model = { get: (k) => state[k], set: (k, v) => { state[k] = v; }, save_changes() {},
                  on() {}, off() {} };
  const view = module.default.render || module.render;
  const picture = document.getElementById("picture"), el = document.createElement("div");
  picture.append(el);
  await view({ model, el });
  picture.insertAdjacentHTML("beforeend", caption);
  await document.fonts.ready;
  window.pnbDrawn = true;
}"""


def make_static(notebook):
    """Rewrite ``notebook``'s outputs in place as the module docstring says; return it."""
    pictures = [output for cell in notebook.cells if cell.cell_type == "code"
                for output in cell.outputs if "data" in output]
    drawn = [output for output in pictures if picture_markup(output.data) is not None]
    states = saved_widgets(notebook)
    widgets = [(output, widget_picture(output.data, states)) for output in pictures]
    widgets = [(output, what) for output, what in widgets if what is not None]
    if drawn or widgets:
        with Painter() as painter:
            for output in drawn:
                markup = picture_markup(output.data)
                output.data.pop("text/html", None)
                output.data.pop("image/svg+xml", None)
                output.data["image/png"] = painter.png(markup)
                if OBJECT_REPR.search(output.data.get("text/plain", "")):
                    output.data["text/plain"] = "[a picture]"    # IPython's SVG object's repr
            for output, (how, what) in widgets:
                output.data.pop("text/html", None)
                if how == "html":
                    output.data["text/plain"] = PROGRESS_NOTE
                line = widget_note(output.data.get("text/plain", "")).strip("[]")
                output.data["image/png"] = painter.widget_png(what, line) if how == "esm" else \
                    painter.png(what + CAPTION.format(line=html.escape(line)))
    for output in pictures:
        if WIDGET_VIEW in output.data:
            output.data["text/plain"] = widget_note(output.data.get("text/plain", ""))
    return notebook


# -- widgets: a picture of each from its saved state ---------------------------------------------
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# The first state a picture shows, where the saved state may have moved on.
FIRST_STATE = {"rnn": {"step": 0}, "timeline": {"position": -1}}


def saved_widgets(notebook):
    """``{model id: {"model_name", "state"}}`` that the run saved (nbclient's
    ``store_widget_state``); empty when it saved none."""
    return notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def widget_picture(data, states):
    """``("esm", state)`` for a widget that draws itself (anywidget, with its ``_esm``),
    ``("html", markup)`` for a progress bar, or None: what to draw for an output's bundle."""
    view = data.get(WIDGET_VIEW)
    entry = states.get(view.get("model_id")) if isinstance(view, dict) else None
    if entry is None:
        return None
    state = entry.get("state", {})
    if isinstance(state.get("_esm"), str) and state.get("kind"):
        return "esm", {**state, **FIRST_STATE.get(state["kind"], {})}
    markup = progress_markup(entry, states)
    return None if markup is None else ("html", markup)


def progress_markup(entry, states):
    """A progress bar (tqdm's: an HBox of an HTML label, a progress bar and an HTML count)
    as plain HTML, as it stood when the notebook was saved; None for other widgets.

    >>> box = {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_a", "IPY_MODEL_b"]}}
    >>> parts = {"a": {"model_name": "HTMLModel", "state": {"value": "SGD: 100%"}},
    ...          "b": {"model_name": "FloatProgressModel", "state": {"value": 20, "max": 20}}}
    >>> "width:100.0%" in progress_markup(box, parts)
    True
    """
    if entry.get("model_name") != "HBoxModel":
        return None
    kids = [states.get(str(k).replace("IPY_MODEL_", ""), {})
            for k in entry.get("state", {}).get("children", [])]
    bars = [k for k in kids if k.get("model_name") in ("FloatProgressModel", "IntProgressModel")]
    if not bars:
        return None
    parts = []
    for kid in kids:
        state = kid.get("state", {})
        if kid in bars:
            low, high = state.get("min", 0), state.get("max", 100) or 1
            share = max(0.0, min(1.0, (state.get("value", 0) - low) / ((high - low) or 1)))
            colour = {"success": "#4caf50", "danger": "#e53935"}.get(state.get("bar_style"),
                                                                      "#2196f3")
            parts.append("<span style='display:inline-block;width:300px;height:14px;"
                         "background:#eee;border-radius:2px;vertical-align:middle'>"
                         f"<span style='display:block;height:100%;width:{share * 100:.1f}%;"
                         f"background:{colour}'></span></span>")
        elif kid.get("model_name") == "HTMLModel":
            parts.append(f"<span style='margin:0 6px'>{state.get('value', '')}</span>")
    return "<div style='font-size:13px;padding:2px'>" + "".join(parts) + "</div>"


def picture_markup(data):
    """The HTML to draw for an output's ``data`` bundle, or None when it is no picture.

    >>> picture_markup({"text/plain": "3"}) is None
    True
    >>> picture_markup({"text/html": "<style>td {}</style><table><tr><td>1</td></tr></table>"})
    >>> picture_markup({"text/html": "<div><svg/></div>"})
    '<div><svg/></div>'
    >>> picture_markup({"image/svg+xml": "<svg/>"})
    '<svg/>'
    """
    if "image/png" in data or WIDGET_VIEW in data:
        return None
    html = data.get("text/html", "")
    # The sanitizer leaves tables, text and inline colours readable (it drops only the
    # <style> element: scope and block trees lose their borders), but not an inline SVG.
    if re.search(r"<svg\b", html):
        return html
    return data.get("image/svg+xml")


def widget_note(text):
    """The note that replaces a widget's ``text/plain`` (its Python repr).

    >>> widget_note("<paddle_nb.viz.replay.ReplayWidget object at 0x7f8e0840c5d0>")
    '[ReplayWidget: an interactive widget. Run the notebook (Run > Run All Cells) to use it here.]'
    >>> widget_note("SGD:   0%|          | 0/20")      # tqdm's bar, at the moment it was shown
    '[An interactive widget. Run the notebook (Run > Run All Cells) to use it here.]'
    >>> widget_note("[RNN explorer: step 0 of 3 shown. Run the notebook to slide.]")
    '[RNN explorer: step 0 of 3 shown. Run the notebook to slide.]'
    """
    if text.startswith("[") and text.endswith("]") and not OBJECT_REPR.search(text):
        return text                                    # the widget's own line
    found = OBJECT_REPR.search(text)
    what = f"{found.group(1)}: an interactive widget" if found else "An interactive widget"
    return WIDGET_NOTE.format(what=what)


def fewer_colours(png, colours=32, tolerance=12, least=8):
    """``png`` with a palette: a third of the bytes, and the colours the drawing uses kept.

    Diagrams are flat fills and anti-aliased text; no dithering, so that flat areas stay
    flat. A palette of ``colours`` chosen by pixel count (median cut) can merge a colour few
    pixels use, a thin purple edge, into the grey beside it. So every colour of at least
    ``least`` pixels that the palette misses by more than ``tolerance`` (in some channel)
    joins the palette as it is, the most used first, up to 256 colours in all.
    Without Pillow (the test extra has it) ``png`` is kept as is.
    """
    try:
        import numpy
        from PIL import Image
    except ImportError:
        return png
    image = Image.open(io.BytesIO(png)).convert("RGB")
    fewer = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT,
                           dither=Image.Dither.NONE)
    palette = numpy.array(fewer.getpalette()[:3 * colours], numpy.int32).reshape(-1, 3)
    missed = missed_colours(numpy.asarray(image), palette, tolerance, least)
    if len(missed):
        palette = numpy.concatenate([palette, missed[:256 - len(palette)]])
        holder = Image.new("P", (1, 1))
        holder.putpalette(palette.astype(numpy.uint8).ravel().tolist())
        fewer = image.quantize(palette=holder, dither=Image.Dither.NONE)
    out = io.BytesIO()
    fewer.save(out, "PNG", optimize=True)
    return out.getvalue()


def missed_colours(pixels, palette, tolerance, least):
    """The colours of ``pixels`` (H x W x 3) used by ``least`` pixels or more that no colour
    of ``palette`` comes within ``tolerance`` of, the most used first."""
    import numpy
    codes = pixels.reshape(-1, 3).astype(numpy.int32) @ numpy.array([65536, 256, 1])
    values, counts = numpy.unique(codes, return_counts=True)
    values, counts = values[counts >= least], counts[counts >= least]
    rgb = numpy.stack([values >> 16, (values >> 8) & 255, values & 255], 1)
    gap = numpy.abs(rgb[:, None, :] - palette[None, :, :]).max(2).min(1)
    order = numpy.argsort(-counts[gap > tolerance], kind="stable")
    return rgb[gap > tolerance][order]


class Painter:
    """Chromium, through Playwright, drawing HTML into PNG: the same engine that shows it live."""

    def __enter__(self):
        from playwright.sync_api import sync_playwright
        self._playwright = sync_playwright().start()
        # Debian's chromium (`make sysdeps`), never a downloaded one: see tests/browser.
        self._browser = self._playwright.chromium.launch(executable_path="/usr/bin/chromium")
        self._page = self._browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
        return self

    def png(self, markup):
        """Base64 of the PNG of ``markup`` (HTML or SVG), cropped to what it draws."""
        self._page.set_content(PAGE.format(html=markup))
        shot = self._page.locator("#picture").screenshot(type="png")
        return base64.b64encode(fewer_colours(shot)).decode("ascii")

    def widget_png(self, state, line="", window_height=VIEWPORT["height"]):
        """Base64 of the PNG of a widget drawn by its own ES module from ``state``, with
        ``line`` (what running adds) under it, in a window ``window_height`` pixels tall
        (a widget's panes size themselves by the window's height)."""
        self._page.set_viewport_size({"width": VIEWPORT["width"], "height": window_height})
        self._page.set_content(PAGE.format(html=""))
        caption = CAPTION.format(line=html.escape(line)) if line else ""
        self._page.evaluate(DRAW_WIDGET, [state, caption])
        self._page.wait_for_function("window.pnbDrawn === true", timeout=30_000)
        shot = self._page.locator("#picture").screenshot(type="png")
        return base64.b64encode(fewer_colours(shot)).decode("ascii")

    def __exit__(self, *exc):
        self._browser.close()
        self._playwright.stop()
