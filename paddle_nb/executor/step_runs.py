"""What a control-flow op sees of the executor's step scopes: reads and step runs on frames.

A control-flow kernel (ops/recurrent.py, ops/control_flow.py, ops/rnn.py) reaches
its scopes through a RawContext. The executor gives it a :class:`FramedContext`,
whose reads go through the step scopes' frames (executor/frames.py) without making
Variables, and whose ``step_runner`` hands out a :class:`FramedSteps`: an RNN's
step run as array moves. Where a plain step run looks up each input's and output's
Variable by name in every step scope, a FramedSteps finds once per op run where each
name sits in the block's env, what the block reads from above, and (for a grad
block run in a kid of a forward step scope) where the forward step's values lie in
that scope's frame; a step is then a copy of the env's template, a few array
moves, the block's compiled ops, and a new step scope holding the env as its frame.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from typing import Any

from paddle_nb.core.events import EVENTS
from paddle_nb.core.scope import Scope
from paddle_nb.executor.frames import Frame, FramedBlock, FrameScope, find_array, local_array
from paddle_nb.ops.machinery.context import RawContext, StepRunner

__all__ = ["FramedContext", "FramedSteps"]

NONE = -1       # the position of an out the block never names: a None after the env's values


class FramedContext(RawContext):
    """The RawContext the executor gives a control-flow op: its reads of step scopes'
    arrays go through frames without making Variables. ``framed_of(block_idx)`` is the
    executor's FramedBlock of a sub-block when this run's sub-blocks run framed, else None."""

    __slots__ = ("framed_of",)
    framed_of: Callable[[int], FramedBlock | None]

    def find_array(self, name: str, scope: Scope | None = None) -> Any:
        return find_array(self.scope if scope is None else scope, name)

    local_array = staticmethod(local_array)     # (scope, name): the same function

    def local_names(self, scope: Scope) -> list[str]:
        if scope.holds_elsewhere and isinstance(scope, FrameScope):
            return list(scope.frame.index)  # type: ignore[union-attr]
        return scope.local_var_names()

    def new_scope_holding(self, label: str, index: dict[str, int], arrays: list[Any],
                          nbytes: int) -> Scope:
        if not isinstance(self.scope, FrameScope):     # (its kids are of its class)
            return super().new_scope_holding(label, index, arrays, nbytes)
        kid = typing.cast(FrameScope, self.scope.new_scope(label=label))
        kid.attach_frame(Frame(index, arrays, self.place, nbytes))
        return kid

    def elsewhere_bytes(self, scope: Scope) -> int:
        frame = scope.frame if isinstance(scope, FrameScope) else None
        return frame.nbytes if frame is not None else 0

    def step_runner(self, block_idx: int, ins: Sequence[str], outs: Sequence[str]) -> StepRunner:
        framed = self.framed_of(block_idx) if isinstance(self.scope, FrameScope) else None
        if framed is None:
            return StepRunner(self, block_idx, ins, outs)
        return FramedSteps(self, block_idx, ins, outs, framed)


class FramedSteps(StepRunner):
    """A StepRunner over frames: each step's env made from a template by array moves.

    It takes the plain way (Variables) for a call it cannot do on frames: a block
    whose ``ins`` or ``outs`` are not all its own variables or that writes outer
    variables, a parent scope that is not a step scope of this run's kind (or whose
    frame someone turned into Variables), or while someone watches scope events.
    """

    __slots__ = ("block", "in_pos", "out_pos", "fast", "cached")

    def __init__(self, ctx: RawContext, block_idx: int, ins: Sequence[str],
                 outs: Sequence[str], block: FramedBlock) -> None:
        super().__init__(ctx, block_idx, ins, outs)
        own, plan = block.local_index, block.plan
        self.block = block
        # an out the block never names is None at every step (an input's gradient that
        # nothing needs); an in or out that is an outer variable takes the plain way
        absent = [n for n in self.outs if plan.position(n) is None]
        self.fast = not block.written_outer and all(
            n in own for n in self.ins + [n for n in self.outs if n not in absent])
        self.in_pos = [own.get(n, -1) for n in self.ins]
        self.out_pos = [own.get(n, NONE) for n in self.outs]
        # (anchor scope, parent frame layout, links, template): what the last call found
        self.cached: tuple = (None, None, (), [])

    def __call__(self, parent: Scope, label: str, arrays: Sequence[Any]) -> tuple[Scope, list]:
        if not self.fast or EVENTS.active or not isinstance(parent, FrameScope):
            return super().__call__(parent, label, arrays)
        frame = parent.frame
        if frame is not None and parent.own_vars:    # half turned into Variables: rare
            return super().__call__(parent, label, arrays)
        anchor = parent if frame is None else parent.up
        layout = frame.index if frame is not None else None
        cached_anchor, cached_layout, links, template = self.cached
        if cached_anchor is not anchor or cached_layout is not layout:
            links, template = self._template(anchor, layout)
            self.cached = (anchor, layout, links, template)
        env = template.copy()
        if links:
            values = frame.arrays               # type: ignore[union-attr]
            for pos, at in links:
                env[pos] = values[at]
        for pos, array in zip(self.in_pos, arrays):
            if array is not None:
                env[pos] = array
        block = self.block
        made = block.run_env(env, None)       # (the step scope is made once it has run)
        kid = parent.framed_kid(label, Frame(block.local_index, env, self.ctx.place, made))
        return kid, [env[pos] for pos in self.out_pos]

    def _template(self, anchor: Scope | None, layout: dict[str, int] | None) -> tuple:
        """(links, template): the block's outer values found from ``anchor``, and the
        (position in the env, position in the parent's frame) pairs of those that a
        parent frame of layout ``layout`` holds."""
        block = self.block
        names = block.plan.names
        if layout is None:
            links, positions = (), block.outer
        else:
            _, links, positions = block.outer_layout(layout)
        template = [None] * (len(names) + 1)      # (the last: NONE's)
        for pos in positions:
            template[pos] = find_array(anchor, names[pos])
        return links, template
