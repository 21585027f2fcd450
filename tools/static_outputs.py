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
- each widget's ``text/plain`` becomes a note to run the notebook; the widget's view and its
  saved state stay, for viewers that can draw widgets from saved state.

Once the notebook runs, the kernel's live outputs replace all of these.
"""
import base64
import io
import re

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "[{what}. Run the notebook (Run > Run All Cells) to use it here.]"
OBJECT_REPR = re.compile(r"<(?:[\w.]+\.)?(\w+) object(?: at 0x[0-9a-f]+)?>")
# The page a picture is drawn on: JupyterLab's light theme, a white background, no margins.
PAGE = ("<!doctype html><html><head><meta charset='utf-8'><style>"
        "body {{ margin: 0; background: #fff; font-family: 'DejaVu Sans', sans-serif; }}"
        "#picture {{ display: inline-block; max-width: 1092px; padding: 4px; }}</style></head>"
        "<body><div id='picture'>{html}</div></body></html>")
VIEWPORT = {"width": 1100, "height": 800}     # about a JupyterLab output area's width


def make_static(notebook):
    """Rewrite ``notebook``'s outputs in place as the module docstring says; return it."""
    pictures = [output for cell in notebook.cells if cell.cell_type == "code"
                for output in cell.outputs if "data" in output]
    drawn = [output for output in pictures if picture_markup(output.data) is not None]
    if drawn:
        with Painter() as painter:
            for output in drawn:
                markup = picture_markup(output.data)
                output.data.pop("text/html", None)
                output.data.pop("image/svg+xml", None)
                output.data["image/png"] = painter.png(markup)
                if OBJECT_REPR.search(output.data.get("text/plain", "")):
                    output.data["text/plain"] = "[a picture]"    # IPython's SVG object's repr
    for output in pictures:
        if WIDGET_VIEW in output.data:
            output.data["text/plain"] = widget_note(output.data.get("text/plain", ""))
    return notebook


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
    """
    found = OBJECT_REPR.search(text)
    what = f"{found.group(1)}: an interactive widget" if found else "An interactive widget"
    return WIDGET_NOTE.format(what=what)


def fewer_colours(png, colours=32):
    """``png`` with a palette of ``colours``: a third of the bytes, the same look for diagrams.

    Diagrams are flat fills and anti-aliased text, which 32 colours keep; no dithering, so
    that flat areas stay flat. Without Pillow (the test extra has it) ``png`` is kept as is.
    """
    try:
        from PIL import Image
    except ImportError:
        return png
    image = Image.open(io.BytesIO(png)).convert("RGB")
    fewer = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT,
                           dither=Image.Dither.NONE)
    out = io.BytesIO()
    fewer.save(out, "PNG", optimize=True)
    return out.getvalue()


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

    def __exit__(self, *exc):
        self._browser.close()
        self._playwright.stop()
