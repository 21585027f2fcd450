"""What every paddle_nb widget shares: one anywidget front end and plain-data helpers.

A widget here is a Python object whose synced traits hold plain JSON data
(lists, dicts, numbers, strings) describing what is shown; one ES module,
``static/widgets.js``, draws that data in the browser and picks a renderer
by the ``kind`` trait. Because everything shown lives in the model state,
a notebook saved with its widget state shows the same picture without a
kernel, and a test can read ``widget.get_state()`` instead of a screen.

The helpers below turn run records (``paddle_nb.executor.record``) into
that plain data: scope trees, value previews, byte counts, graph pictures.
"""

import math
import pathlib
import weakref

import numpy
import traitlets

try:                                     # anywidget is in the `notebook` extra
    import anywidget
    _WidgetBase = anywidget.AnyWidget
except ImportError:                      # pragma: no cover - exercised without the extra
    anywidget = None  # type: ignore[assignment]
    _WidgetBase = object  # type: ignore[assignment,misc]

from paddle_nb.viz import style
from paddle_nb.viz.graph import graph
from paddle_nb.viz.svg import svg_of

__all__ = ["PaddleWidget", "scope_dict", "walk_dicts", "value_preview", "jsonable",
           "format_bytes", "graph_picture", "weak_method", "on_cell_executed", "GRAPHVIZ_HINT"]

STATIC = pathlib.Path(__file__).parent / "static"
GRAPHVIZ_HINT = ("No Graphviz layout engine ('dot') was found, so the graph is shown as DOT "
                 "text. To get pictures: `make lab` installs Debian's graphviz (or run "
                 "`sudo apt-get install graphviz`); with conda: `conda install -c conda-forge "
                 "graphviz`.")
format_bytes = style.fmt_bytes


if anywidget is not None:
    class PaddleWidget(_WidgetBase):
        """Base of the paddle_nb widgets: one front end, a ``kind`` saying which view to draw.

        Invariant: every synced trait holds JSON-ready data (see :func:`jsonable`), so the
        model state alone can redraw the widget (a static HTML export has no kernel).
        """

        # One ES module: the graph's pan and zoom (static/panzoom.js, shared with the rich
        # display) first, then the widgets' views (static/widgets.js).
        _esm = "\n".join((STATIC / name).read_text(encoding="utf-8")
                          for name in ("panzoom.js", "widgets.js"))
        _css = STATIC / "widgets.css"
        kind = traitlets.Unicode("").tag(sync=True)
        palette = traitlets.Dict().tag(sync=True)         # viz.style's state colours, meanings
        theme_css = traitlets.Unicode("").tag(sync=True)  # viz.style's stylesheet, shared
        message = traitlets.Unicode("").tag(sync=True)    # a line for the user, when needed

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.palette = {"colours": dict(style.STATE_COLOURS),
                            "meanings": dict(style.STATE_MEANINGS)}
            self.theme_css = style.CSS

        def state(self):
            """The synced model state without anywidget's own keys: what the view draws."""
            return {k: v for k, v in self.get_state().items()
                    if not k.startswith("_") and k not in _DOM_TRAITS}

        def picture_line(self):
            """One line on what this widget shows, and what running the notebook adds to the
            picture stored of it (each widget says it better)."""
            return "Run the notebook (Run > Run All Cells) to use this widget."

        def _repr_mimebundle_(self, **kwargs):
            """The widget's view, with its picture line as ``text/plain`` instead of a
            Python repr: a viewer without widgets shows the line (and ``make notebooks``
            stores a picture of the widget beside it: tools/static_outputs.py)."""
            bundle = super()._repr_mimebundle_(**kwargs)
            if isinstance(bundle, tuple):
                data, meta = bundle
                return {**data, "text/plain": f"[{self.picture_line()}]"}, meta
            return bundle
else:                                    # pragma: no cover
    class PaddleWidget:  # type: ignore[no-redef]
        def __init__(self, **kwargs):
            raise ImportError("paddle_nb's widgets need anywidget: pip install "
                              "'paddle_nb[notebook]' (or pip install anywidget ipywidgets)")


_DOM_TRAITS = {"layout", "tabbable", "tooltip", "comm", "keys", "log"}


# -- plain data -----------------------------------------------------------------------------------
def jsonable(x):
    """``x`` with NumPy scalars, tuples and non-finite floats made JSON-safe.

    >>> jsonable({"a": (numpy.int64(2), float("nan")), "b": numpy.float32(0.5)})
    {'a': [2, 'nan'], 'b': 0.5}
    """
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, numpy.bool_)):
        return bool(x)
    if isinstance(x, (int, numpy.integer)):
        return int(x)
    if isinstance(x, (float, numpy.floating)):
        x = float(x)
        return x if math.isfinite(x) else str(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)


def value_preview(value, rows=6, cols=8, digits=4):
    """A small table of ``value``: at most ``rows`` x ``cols`` numbers, rounded.

    >>> value_preview(numpy.arange(6, dtype="float32").reshape(2, 3))
    {'rows': [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 'truncated': False}
    """
    if value is None:
        return None
    array = numpy.asarray(value)
    if array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim == 1:
        array = array.reshape(1, -1)
    else:
        array = array.reshape(-1, array.shape[-1])
    part = array[:rows, :cols]
    if part.dtype.kind in "fc":
        part = numpy.round(part.real.astype("float64"), digits)
    truncated = part.shape != array.shape
    return {"rows": jsonable(part.tolist()), "truncated": bool(truncated)}


def scope_dict(record, path="", parent=None):
    """A ScopeRecord as nested plain dicts: id, label, path, parent, vars, kids.

    ``path`` names a scope by the labels from the root ("user/run/step 0"), which
    stays the same from one run to the next while scope ids do not (a kid without a label
    is named in the path by its place among its siblings, "#2").
    """
    return _scope_dict(record, path, parent, 0)


def _scope_dict(record, path, parent, position):
    label = record.label or ("user" if parent is None else f"scope {record.id}")
    name = label if record.label or parent is None else f"#{position}"
    here = f"{path}/{name}" if path else name
    return {
        "id": int(record.id), "label": label, "path": here, "parent": parent,
        "nbytes": int(record.nbytes()),
        "vars": [_var_dict(v) for v in record.vars],
        "kids": [_scope_dict(k, here, int(record.id), n) for n, k in enumerate(record.kids)],
    }


def _var_dict(v):
    return {"name": v.name, "state": v.state,
            "shape": list(v.shape) if v.shape is not None else None,
            "dtype": v.dtype, "place": v.place, "nbytes": int(v.nbytes or 0),
            "holder": v.holder}


def walk_dicts(tree):
    """Each scope dict of a tree from :func:`scope_dict`, depth first."""
    yield tree
    for kid in tree["kids"]:
        yield from walk_dicts(kid)


# -- pictures made by the rest of paddle_nb.viz ---------------------------------------------------
def graph_picture(block, expand=()):
    """The dataflow graph of ``block`` as ``{"block", "svg", "dot", "hint", "note"}``.

    Drawn by ``paddle_nb.viz.graph`` (with the folded nodes ``expand`` names opened) and laid
    out by ``svg.svg_of`` (one drawing for the whole package: its SVG nodes carry
    data-op/data-var/data-fold-id); ``svg`` is empty and ``hint`` says how to get pictures
    when no Graphviz layout engine is installed.
    """
    digraph = graph(block, expand=expand)
    picture = {"block": int(block.idx), "svg": "", "dot": digraph.source, "hint": "",
               "note": getattr(digraph, "paddle_note", "") or ""}
    try:
        picture["svg"] = svg_of(digraph)
    except Exception as err:     # graphviz.ExecutableNotFound, or a failing `dot`
        picture["hint"] = GRAPHVIZ_HINT if "ExecutableNotFound" in type(err).__name__ else \
            f"Graphviz could not lay out this graph ({type(err).__name__}); showing DOT text."
    return picture


# -- listening without keeping a widget alive ---------------------------------------------------
def weak_method(method, registry=None):
    """A function calling ``method`` while its object lives, then leaving ``registry``.

    Listeners go into an executor's list (``exe.listeners``) and IPython's event hooks;
    holding the widget weakly lets a widget that nobody shows any more be collected.
    """
    ref = weakref.WeakMethod(method)

    def call(*args):
        bound = ref()
        if bound is None:
            if registry is not None and call in registry:
                registry.remove(call)
            return None
        return bound(*args)
    return call


def on_cell_executed(method):
    """Call ``method()`` after each notebook cell runs (IPython's ``post_run_cell``).

    Returns a function that unregisters it, or None outside IPython.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    ref = weakref.WeakMethod(method)

    def hook(*_):
        bound = ref()
        if bound is None:
            _unregister(shell, hook)
            return
        bound()
    shell.events.register("post_run_cell", hook)
    return lambda: _unregister(shell, hook)


def _unregister(shell, hook):
    try:
        shell.events.unregister("post_run_cell", hook)
    except ValueError:
        pass
