"""Seeing paddle_nb: graphs, block trees, scope trees, rich display, widgets.

The viewer is a leaf (DESIGN.md): it imports the rest of paddle_nb, and
nothing else imports it. ``import paddle_nb`` does not load it; the first
use of ``pd.viz`` does (``paddle_nb.__getattr__``), and so does
``%load_ext paddle_nb.viz``. Loading it registers HTML formatters with the
running IPython, so that a Program, Block, Scope, Variable, LoDTensor or
RunRecord on the last line of a cell shows itself. See docs/viz.md.
"""

from paddle_nb.viz.display import (
    html_of, load_ipython_extension, register, unload_ipython_extension, unregister,
)
from paddle_nb.viz.graph import graph
from paddle_nb.viz.preview import preview
from paddle_nb.viz.trees import block_tree, scope_tree
from paddle_nb.viz.dashboard import Dashboard
from paddle_nb.viz.replay import run_replay
from paddle_nb.viz.rnn_explorer import rnn_explorer
from paddle_nb.viz.timeline import memory_timeline

__all__ = [
    "graph", "block_tree", "scope_tree", "preview", "html_of",
    "register", "unregister", "load_ipython_extension", "unload_ipython_extension",
    "Dashboard", "run_replay", "rnn_explorer", "memory_timeline",
]

register()   # inside IPython: show paddle_nb's objects as HTML (nothing happens elsewhere)
