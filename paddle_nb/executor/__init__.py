"""The executor layer: run blocks in scopes, record what happened.

``Executor`` is an interpreter (``run → run_block → run_op``) with plans
cached per program version; ``reference.evaluate`` is the same meaning in
thirty lines; ``record`` turns a run into plain data for the widgets.
"""

from paddle_nb.executor.executor import Executor
from paddle_nb.executor.record import OpRecord, RunRecord, ScopeRecord, VarRecord, snapshot_scope
from paddle_nb.executor.reference import evaluate

__all__ = ["Executor", "RunRecord", "OpRecord", "ScopeRecord", "VarRecord",
           "snapshot_scope", "evaluate"]
