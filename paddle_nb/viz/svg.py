"""A dataflow graph as SVG: ``dot`` lays out the Digraph that ``viz.graph`` draws.

``svg_of`` runs Graphviz's ``dot`` and puts each node's ``data-block`` / ``data-op`` /
``data-var`` attributes (kept by the drawing on ``dot.paddle_nodes``) on its SVG group, so a
page or widget can tell what was clicked. ``graph_html`` is what a notebook shows: the SVG, or,
when ``dot`` is missing, the DOT source and how to install it. Both the graph (its own
``_repr_mimebundle_``) and the rest of the viewer (``display``, the widgets) use these, so
they live here, below all of them.
"""

import html
import pathlib
import re

from paddle_nb.viz.style import esc

__all__ = ["svg_of", "graph_html", "fitted", "NO_DOT", "HOW_TO_MOVE"]

NO_DOT = ("The Graphviz program `dot` is not installed, so here is the DOT source instead of a "
          "picture. To get pictures: `apt-get install graphviz` (Debian/Ubuntu), "
          "`conda install -c conda-forge graphviz`, or `brew install graphviz` (macOS).")


# A graph fits its box without any script (an untrusted notebook, GitHub, a static export):
# never wider than the box, never taller than most of the window, the whole drawing scaled
# to fit (preserveAspectRatio). static/panzoom.js then adds the wheel, the drag and a "fit"
# button; it is inlined in each picture, so nothing is fetched.
FIT_STYLE = "max-width:100%;max-height:80vh;height:auto;display:block;margin:0 auto"
BOX_STYLE = ("position:relative;border:1px solid #dde;border-radius:4px;padding:2px;"
             "overflow:hidden")
MESSAGE_STYLE = "font-size:11px;color:#666;min-height:1.3em"
PANZOOM_JS = (pathlib.Path(__file__).parent / "static" / "panzoom.js").read_text().replace(
    "</", "<\\/")         # (inside a script, "</script" would end it)
HOW_TO_MOVE = ("wheel: zoom · drag: pan · fit: the whole graph · hover a node (or click an op): "
               "its details · "
               "click a folded node: how to open it")


def fitted(svg, style=True):
    """Graphviz's ``<svg width="..pt" height="..pt">`` sized in CSS pixels, scaling the whole
    drawing into whatever box it gets (``preserveAspectRatio``), its viewBox unchanged; with
    ``style``, also styled inline to fit its box (FIT_STYLE), which no stylesheet overrides."""
    def size(match):
        width, height = (float(v) * 4 / 3 for v in match.groups())
        inline = f' style="{FIT_STYLE}"' if style else ""
        return (f'<svg width="{width:.0f}" height="{height:.0f}" '
                f'preserveAspectRatio="xMidYMin meet"{inline}')
    return re.sub(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', size, svg, count=1)


def svg_of(dot, style=False):
    """The SVG of ``dot`` (runs `dot`), with data-block, data-op, data-var on its nodes,
    sized in CSS pixels (:func:`fitted`; ``style=True`` adds the inline fit that
    :func:`graph_html` uses; a widget sizes it with its own stylesheet)."""
    svg = dot.pipe(format="svg", quiet=True).decode("utf-8")
    svg = fitted(svg[svg.find("<svg"):], style)
    data = getattr(dot, "paddle_nodes", {})

    def add(match):
        attrs = data.get(html.unescape(match.group(1)))
        if not attrs:
            return match.group(0)
        return match.group(0) + "".join(f' data-{k}="{esc(v)}"' for k, v in attrs.items())
    return re.sub(r'<g id="([^"]*)" class="[^"]*"', add, svg)


def graph_html(dot):
    """``dot`` as inline SVG in a box that pans and zooms (static/panzoom.js, inlined), or
    its DOT source and how to get `dot` when `dot` is missing."""
    import graphviz
    try:
        svg = svg_of(dot, style=True)
    except (graphviz.ExecutableNotFound, OSError):
        note = getattr(dot, "paddle_note", "")
        return (f'<div data-graph="dot-source"><p class="pnb-muted">{esc(NO_DOT)}</p>'
                f"<details><summary>DOT source</summary><pre>{esc(dot.source)}</pre></details>"
                "</div>" + (f'<div class="pnb-muted">{esc(note)}</div>' if note else ""))
    note = getattr(dot, "paddle_note", "")
    note = f'<div class="pnb-graph-note pnb-muted" style="font-size:11px">{esc(note)}</div>' \
        if note else ""
    return (f'<div class="pnb-graphbox" data-graph="svg" style="{BOX_STYLE}">{svg}{note}'
            f'<div class="pnb-graph-msg pnb-muted" style="{MESSAGE_STYLE}" '
            f'data-hint="{esc(HOW_TO_MOVE)}"></div></div>'
            f"<script>{PANZOOM_JS}\n"
            "document.querySelectorAll('.pnb-graphbox:not([data-panzoom])')"
            ".forEach((box) => pnbPanZoom(box));</script>")
