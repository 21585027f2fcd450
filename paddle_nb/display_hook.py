"""Rich display from the first ``import paddle_nb``, without loading the viewer until needed.

The core never imports the viewer (docs/design.md: ``viz`` is a leaf), and ``import paddle_nb``
stays light. So when ``paddle_nb`` is imported inside a running IPython, this module
registers each displayed type *by name* with IPython's HTML formatter
(``for_type_by_name``): IPython keeps the names, and only when an object of one of those
types is the last value of a cell does it call :func:`html`, which then loads
``paddle_nb.viz`` (and graphviz) and draws it. Outside IPython nothing happens; IPython
itself is never imported here.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["DISPLAYED_NAMES", "html", "install"]

# (module, class) of every type paddle_nb.viz draws; tests/viz checks it against viz's list
DISPLAYED_NAMES = (
    ("paddle_nb.framework.program", "Program"), ("paddle_nb.framework.block", "Block"),
    ("paddle_nb.framework.operator", "Operator"), ("paddle_nb.framework.variable", "Variable"),
    ("paddle_nb.core.scope", "Scope"), ("paddle_nb.core.variable", "Variable"),
    ("paddle_nb.core.tensor", "LoDTensor"), ("paddle_nb.executor.record", "RunRecord"),
    ("paddle_nb.executor.record", "ScopeRecord"),
)


def html(obj: Any) -> Any:
    """The HTML of ``obj``; loads the viewer on first use. Never raises (see viz.display)."""
    from paddle_nb.viz.display import format_html
    return format_html(obj)


def install(shell: Any = None) -> Any:
    """Register :data:`DISPLAYED_NAMES` with ``shell`` (default: the running IPython, if any).

    Returns True when a shell was found.
    """
    if shell is None:
        ipython = sys.modules.get("IPython")      # nobody imported IPython: no shell runs
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False
    formatter = shell.display_formatter.formatters["text/html"]
    for module, name in DISPLAYED_NAMES:
        formatter.for_type_by_name(module, name, html)
    return True
