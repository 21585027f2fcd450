"""Seeing paddle_nb: graphs, block trees, scope trees, rich display, widgets.

The viewer is a leaf (docs/design.md): it imports the rest of paddle_nb, and
nothing else imports it. ``import paddle_nb`` does not load it; the first
use of ``pd.viz`` does (``paddle_nb.__getattr__``), and so does
``%load_ext paddle_nb.viz``. Loading it registers HTML formatters with the
running IPython, so that a Program, Block, Scope, Variable, LoDTensor or
RunRecord on the last line of a cell shows itself. See docs/viz.md.
"""

from paddle_nb.viz.display import (
    html_of, load_ipython_extension, register, unload_ipython_extension, unregister,
)
from paddle_nb.viz.frames_figure import frames_figure
from paddle_nb.viz.graph import graph
from paddle_nb.viz.pass_view import pass_view
from paddle_nb.viz.preview import preview
from paddle_nb.viz.trees import block_tree, scope_tree

__all__ = [
    "graph", "block_tree", "scope_tree", "preview", "html_of", "frames_figure", "pass_view",
    "register", "unregister", "load_ipython_extension", "unload_ipython_extension",
    "Dashboard", "run_replay", "rnn_explorer", "memory_timeline",
]

# The widgets need the notebook extra (anywidget, ipywidgets, traitlets); the pictures above need
# only graphviz. Without the extra, each widget's name is a function that says what to install.
NOTEBOOK_EXTRA = ("pip install 'paddle_nb[notebook]' (or: pip install anywidget ipywidgets), "
                  "then restart the kernel")


def _needs_notebook_extra(name, err):
    def unavailable(*args, **kwargs):
        raise ImportError(f"pd.viz.{name} is a notebook widget and needs the notebook extra, "
                          f"which is not installed ({err}): {NOTEBOOK_EXTRA}. The pictures "
                          "(pd.viz.graph, block_tree, scope_tree) work without it.")
    unavailable.__name__ = name
    return unavailable


try:
    from paddle_nb.viz.dashboard import Dashboard
    from paddle_nb.viz.replay import run_replay
    from paddle_nb.viz.rnn_explorer import rnn_explorer
    from paddle_nb.viz.timeline import memory_timeline
except ModuleNotFoundError as _err:
    Dashboard, run_replay, rnn_explorer, memory_timeline = (  # type: ignore[misc]
        _needs_notebook_extra(n, _err)
        for n in ("Dashboard", "run_replay", "rnn_explorer", "memory_timeline"))


register()   # inside IPython: show paddle_nb's objects as HTML (nothing happens elsewhere)
