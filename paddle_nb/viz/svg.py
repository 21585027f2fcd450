"""A dataflow graph as SVG: ``dot`` lays out the Digraph that ``viz.graph`` draws.

``svg_of`` runs Graphviz's ``dot`` and puts each node's ``data-block`` / ``data-op`` /
``data-var`` attributes (kept by the drawing on ``dot.paddle_nodes``) on its SVG group, so a
page or widget can tell what was clicked. ``graph_html`` is what a notebook shows: the SVG, or,
when ``dot`` is missing, the DOT source and how to install it. Both the graph (its own
``_repr_mimebundle_``) and the rest of the viewer (``display``, the widgets) use these, so
they live here, below all of them.
"""

import html
import re

from paddle_nb.viz.style import esc

__all__ = ["svg_of", "graph_html", "NO_DOT"]

NO_DOT = ("The Graphviz program `dot` is not installed, so here is the DOT source instead of a "
          "picture. To get pictures: `apt-get install graphviz` (Debian/Ubuntu), "
          "`conda install -c conda-forge graphviz`, or `brew install graphviz` (macOS).")


def svg_of(dot):
    """The SVG of ``dot`` (runs `dot`), with data-block, data-op, data-var on its nodes."""
    svg = dot.pipe(format="svg", quiet=True).decode("utf-8")
    svg = svg[svg.find("<svg"):]
    data = getattr(dot, "paddle_nodes", {})

    def add(match):
        attrs = data.get(html.unescape(match.group(1)))
        if not attrs:
            return match.group(0)
        return match.group(0) + "".join(f' data-{k}="{esc(v)}"' for k, v in attrs.items())
    return re.sub(r'<g id="([^"]*)" class="[^"]*"', add, svg)


def graph_html(dot):
    """``dot`` as inline SVG, or its DOT source and how to get `dot` when `dot` is missing."""
    import graphviz
    try:        # (a folded graph's note is drawn in the picture, under the graph)
        return f'<div data-graph="svg">{svg_of(dot)}</div>'
    except (graphviz.ExecutableNotFound, OSError):
        note = getattr(dot, "paddle_note", "")
        return (f'<div data-graph="dot-source"><p class="pnb-muted">{esc(NO_DOT)}</p>'
                f"<details><summary>DOT source</summary><pre>{esc(dot.source)}</pre></details>"
                "</div>" + (f'<div class="pnb-muted">{esc(note)}</div>' if note else ""))
