"""Cells: a block's values kept in the Variables of the scope it runs in.

The global block runs on an env of arrays, and so does a sub-block that can run on a
frame (executor/frames.py). The others keep their values in *cells*: a sub-block with
control flow of its own, any sub-block of a watched run (its record shows its scopes'
Variables), and a block run in a scope the caller gives (``Executor.run_block``). The
``ScopeInterpreter`` (executor/interpreter.py) reads and writes each name's cell, which
:func:`bind` finds or makes: the block's own variables in its scope, the others where
they live up the scopes (:func:`bound_var`).
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.executor.env_scope import shadow
from paddle_nb.executor.frames import FrameScope
from paddle_nb.executor.plan import BlockPlan, check_persistable_dtype

__all__ = ["bind", "bound_var"]


def bind(plan: BlockPlan, scope: Scope, state: Any) -> list:
    """The tensor (or Variable, for non-tensor kinds) of each of the plan's names, for a
    run in ``scope`` within the run whose RunState is ``state`` (None: outside a run)."""
    cells: list[Any] = []
    for pos, (name, local, persistable, tensor) in enumerate(
            zip(plan.names, plan.local, plan.persistable, plan.tensor)):
        if local and not persistable:
            if tensor:
                cells.append(scope.local_tensor(name) if isinstance(scope, FrameScope)
                             else scope.var(name).get_tensor())
                continue
            var = scope.var(name)
        else:
            var = bound_var(plan, pos, scope, state)
        cells.append(var.get_tensor() if tensor else var)
    return cells


def bound_var(plan: BlockPlan, pos: int, scope: Scope, state: Any) -> Variable:
    """The Variable that a block run in ``scope`` reads and writes for a name it does not
    make itself: found up the scopes, else made where it belongs (a persistable tensor of
    the user's, within a run with raw ops, stands in the raw ops' scope: see
    env_scope.shadow; another in the scope of the block that declares it)."""
    name = plan.names[pos]
    var = scope.find_var(name)
    if plan.persistable[pos]:
        if state is not None and state.op_scope is not None and plan.tensor[pos] and (
                var is None or state.user_scope.find_var(name) is var):
            return shadow(state, plan, pos, var)
        if var is None:
            var = (state.user_scope if state is not None else scope).var(name)
        elif isinstance(var.holder, LoDTensor):
            check_persistable_dtype(plan, pos, var.holder.data)
    elif var is None:
        var = _outer_scope(plan, name, scope).var(name)
    return var


def _outer_scope(plan: BlockPlan, name: str, scope: Scope) -> Scope:
    """The scope that runs the ancestor block declaring ``name`` (one kid scope per block)."""
    block = plan.block
    while block is not None and name not in block.vars:
        block = block.parent
        scope = scope.parent if scope.parent is not None else scope
    return scope
