"""One palette for every picture: op roles, variable kinds, variable states; and HTML helpers.

The graph, the block tree and the scope tree use the same colours, so a reader
learns them once: blue ops run forward, orange ones backward, green ones
update parameters; a variable's state goes from grey (declared, created)
through yellow (typed) to green (allocated) and red (freed). The CSS is
inline and scoped under ``.pnb``: no network, no CDN, nothing global.
"""

import html

__all__ = ["ROLE_COLOURS", "STATE_COLOURS", "STATE_MEANINGS", "VAR_STYLES", "VAR_MEANINGS", "CSS",
           "NEST_STYLE", "OPS_STYLE", "View", "esc", "chip", "state_chip", "legend", "fmt_bytes",
           "fmt_shape", "page", "dot_text", "dot_label"]

# Op roles (paddle_nb.framework.operator.OpRole.name) -> fill colour.
ROLE_COLOURS = {
    "forward": "#cfe2f3",
    "backward": "#f9cb9c",
    "optimize": "#b6d7a8",
    "lr_sched": "#d9d2e9",
}

# A variable's life (docs/design.md): declared, created, typed, allocated, freed.
STATE_COLOURS = {
    "declared": "#ffffff",
    "created": "#e6e6e6",
    "typed": "#fff2cc",
    "allocated": "#b6d7a8",
    "freed": "#f4cccc",
}
STATE_MEANINGS = {
    "declared": "a VarDesc in a block; nothing in any scope",
    "created": "the scope holds a Variable that holds nothing (or a non-tensor value)",
    "typed": "the Variable holds an empty LoDTensor: no shape, no memory",
    "allocated": "the tensor has memory on a place",
    "freed": "its memory was released (temporary after its last use, or scope destroyed)",
}

# Variable kinds in the graph -> graphviz node attributes.
VAR_STYLES = {
    # (a cylinder's rims take room from its label: a wider margin keeps the name inside)
    "parameter": {"shape": "cylinder", "style": "filled", "fillcolor": "#ffe599",
                  "margin": "0.12,0.1"},
    "persistable": {"shape": "cylinder", "style": "filled", "fillcolor": "#d9d9d9",
                    "margin": "0.12,0.1"},
    "data": {"shape": "ellipse", "style": "filled", "fillcolor": "#d0e0e3"},
    "grad": {"shape": "ellipse", "style": "filled", "fillcolor": "#ffffff", "color": "#e69138"},
    "temp": {"shape": "ellipse", "style": "filled", "fillcolor": "#ffffff"},
    "scopes": {"shape": "folder", "style": "filled", "fillcolor": "#ead1dc"},
    "other": {"shape": "note", "style": "filled", "fillcolor": "#ffffff"},
}
VAR_MEANINGS = {
    "parameter": "parameter (persistable, trainable)",
    "persistable": "persistable (optimizer state, counters)",
    "data": "data: fed by the user",
    "grad": "gradient (@GRAD)",
    "temp": "temporary",
    "scopes": "step scopes (the scopes of a sub-block's runs)",
}

# The nesting marks and the op list's numbering also as inline styles: an untrusted notebook
# (JupyterLab, nbviewer) drops the <style> sheet but keeps inline styles, and without them a
# block tree read flat with lettered ops.
NEST_STYLE = "border-left: 3px solid; padding-left: 6px; margin: 4px 0 4px 6px; border-color: "
OPS_STYLE = "list-style: none; padding-left: 12px; margin: 2px 0"

CSS = """
.pnb { font-family: var(--jp-content-font-family, -apple-system, "Segoe UI", sans-serif);
       font-size: 12px; color: var(--jp-content-font-color1, #222); line-height: 1.4; }
.pnb details { margin: 2px 0 2px 10px; }
.pnb summary { cursor: pointer; }
.pnb table { border-collapse: collapse; margin: 2px 0 4px 10px; }
.pnb td, .pnb th { border: 1px solid #ccc; padding: 1px 6px; text-align: left !important;
                   font-family: var(--jp-code-font-family, monospace); font-size: 11px; }
.pnb th { background: #f3f3f3; color: #222; }
.pnb .pnb-chip { display: inline-block; padding: 0 5px; margin: 0 2px; border-radius: 7px;
                 border: 1px solid #999; color: #222; font-size: 11px; }
.pnb ol.pnb-ops { list-style: none; padding-left: 12px; margin: 2px 0; }
.pnb .pnb-block, .pnb .pnb-scope { border-left: 3px solid #9fc5e8; padding-left: 6px;
                                   margin: 4px 0 4px 6px; }
.pnb .pnb-scope { border-left-color: #b4a7d6; }
.pnb .pnb-muted { color: #777; }
.pnb .pnb-name { font-family: var(--jp-code-font-family, monospace); font-weight: 600; }
.pnb .pnb-user-name { border-bottom: 1px dotted #999; cursor: help; }
.pnb .pnb-legend { margin: 4px 0; }
.pnb .pnb-error { color: #a00; }
.pnb .pnb-nan { background: #ff00ff; color: #fff; }
.pnb .pnb-inf { background: #222; color: #fff; }
.pnb img.pnb-heat { image-rendering: pixelated; border: 1px solid #999; }
.pnb tr[data-state="freed"] .pnb-name { text-decoration: line-through; }
.pnb svg { max-width: 100%; height: auto; }
.pnb svg a, .pnb svg a:hover { text-decoration: none; }
"""


class View:
    """A drawing as HTML for notebooks and as text for everything else.

    Jupyter calls ``_repr_html_``; ``repr``/``str`` give the text form.

    >>> v = View("<b>hi</b>", "hi")
    >>> v
    hi
    >>> v._repr_html_()
    '<b>hi</b>'
    """

    def __init__(self, html_text, text):
        self.html = html_text
        self.text = text

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.text

    __str__ = __repr__


def esc(value):
    """HTML-escaped text of ``value`` (quotes too: safe inside attributes)."""
    return html.escape(str(value), quote=True)


def chip(text, colour, title="", **data):
    """A small rounded label; ``data`` become ``data-*`` attributes."""
    attrs = "".join(f' data-{k.replace("_", "-")}="{esc(v)}"' for k, v in data.items())
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="pnb-chip" style="background:{colour}"{tip}{attrs}>{esc(text)}</span>'


def state_chip(state):
    return chip(state, STATE_COLOURS.get(state, "#fff"), STATE_MEANINGS.get(state, ""),
                state=state)


def legend(kind, only=None):
    """The legend of ``"states"``, ``"roles"`` or ``"vars"`` as one HTML line; ``only`` (a
    collection of states, roles or kinds) keeps just those (a legend lists what is drawn),
    and an empty ``only`` gives no line at all."""
    if only is not None and not only:
        return ""
    keep = (lambda k: True) if only is None else (lambda k: k in only)
    if kind == "states":
        items = [state_chip(s) for s in STATE_COLOURS if keep(s)]
        head = "variable states"
    elif kind == "roles":
        items = [chip(r, c, f"ops with op_role {r}", role=r) for r, c in ROLE_COLOURS.items()
                 if keep(r)]
        head = "op roles"
    else:
        items = [chip(VAR_MEANINGS[k], VAR_STYLES[k]["fillcolor"], kind=k) for k in VAR_MEANINGS
                 if keep(k)]
        head = "variables"
    return f'<div class="pnb-legend" data-legend="{kind}"><span class="pnb-muted">{head}:</span> ' \
           f'{" ".join(items)}</div>'


def fmt_bytes(n):
    """``1536`` -> ``'1.5 KiB'``.

    >>> fmt_bytes(24), fmt_bytes(1536), fmt_bytes(3 * 2**20)
    ('24 B', '1.5 KiB', '3.0 MiB')
    """
    n = int(n or 0)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def dot_text(text):
    r"""``text`` as literal text inside a DOT label or tooltip: a backslash stays a backslash
    (DOT reads ``\n``, ``\l`` as line breaks, and a final backslash would escape the closing
    quote), a newline or carriage return is a line break.

    >>> dot_text("a\\"), dot_text("x\ny")
    ('a\\\\', 'x\\ny')
    """
    text = str(text).replace("\\", "\\\\")
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def dot_label(text):
    """A finished label (user text already passed through :func:`dot_text`), never read as
    one of Graphviz's HTML-like labels even when it looks like ``<b>``."""
    import graphviz
    return graphviz.nohtml(text)


def fmt_shape(shape):
    return "?" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"


def page(body, *legends):
    """Wrap ``body`` in the scoped stylesheet and the legends asked for: each a kind
    (``"roles"``), or a ``(kind, only)`` pair listing only what is drawn."""
    return (f'<div class="pnb"><style>{CSS}</style>'
            + "".join(legend(*k) if isinstance(k, tuple) else legend(k) for k in legends)
            + body + "</div>")
