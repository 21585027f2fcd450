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
An RNN's whole forward pass (``run_steps``) and backward pass (``run_back``) are
each one loop, written out for the block's positions (executor/step_loops.py).
"""

from __future__ import annotations

import operator
import typing
from collections.abc import Callable, Sequence
from typing import Any

from paddle_nb.core.events import EVENTS
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.scope import Scope
from paddle_nb.executor.frames import (Frame, FramedBlock, FrameScope, StepFrame, find_array,
                                       local_array)
from paddle_nb.executor.step_loops import backward_loop, forward_loop
from paddle_nb.executor.unroll import compiled
from paddle_nb.ops.machinery.context import RawContext, StepRunner

__all__ = ["FramedContext", "FramedSteps"]


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

    def step_runner(self, block_idx: int, ins: Sequence[str], outs: Sequence[str],
                    read_once: bool = False) -> StepRunner:
        framed = self.framed_of(block_idx) if isinstance(self.scope, FrameScope) else None
        if framed is None:
            return StepRunner(self, block_idx, ins, outs)
        return FramedSteps(self, block_idx, ins, outs, framed, read_once)


class FramedSteps(StepRunner):
    """A StepRunner over frames: each step's env a copy of a template plus a few stores.

    Per op run (and per parent frame layout) it finds ``template`` (the outer values,
    found once from the scope above) and an env maker written out for the block
    (``_env_maker``: the parent frame's values the block reads and the step's inputs put
    in). A step is then that copy, the block's compiled ops, and a step scope holding the
    env as its frame; ``run_steps`` and ``run_back`` do all the steps of a pass in one
    written-out loop (executor/step_loops.py).

    With ``read_once`` (a grad pass, which reads each step's outs at once and never its
    scope) no step scope is made in a run nobody watches: the step runs on its env alone,
    its bytes noted as a transient peak, and the call returns ``(None, outs)``. (Nobody
    could see that scope: a watched run takes the plain way, and the run's scopes go when
    it ends; PaddlePaddle's ``recurrent_grad`` makes none either.)

    It takes the plain way (Variables) for a call it cannot do on frames: a block
    whose ``ins`` or ``outs`` are not all its own variables or that writes outer
    variables, a parent scope that is not a step scope of this run's kind (or whose
    frame someone turned into Variables), or while someone watches scope events.
    """

    __slots__ = ("block", "in_pos", "out_pos", "take", "fast", "cached", "read_once")

    def __init__(self, ctx: RawContext, block_idx: int, ins: Sequence[str],
                 outs: Sequence[str], block: FramedBlock, read_once: bool = False) -> None:
        super().__init__(ctx, block_idx, ins, outs)
        self.read_once = read_once
        self.block = block
        key = (tuple(self.ins), tuple(self.outs))
        self.fast, self.in_pos, self.out_pos, self.take = block.written(
            ("slots",) + key, lambda: _slots(block, *key))
        # (anchor scope, parent frame layout, env maker, template): the last found
        self.cached: tuple = (None, None, None, [])

    def __call__(self, parent: Scope, label: str,
                 arrays: Sequence[Any]) -> tuple[Scope | None, list]:
        if not self.fast or EVENTS.active or not isinstance(parent, FrameScope) or \
                len(arrays) != len(self.in_pos):
            return super().__call__(parent, label, arrays)
        frame = parent.frame
        if frame is not None and parent.own_vars:      # half turned into Variables: rare
            return super().__call__(parent, label, arrays)
        make, template = self._maker(parent, frame)
        env = make(frame.arrays if frame is not None else (), arrays, template)
        block = self.block
        made = block.run_env(env, None)       # (the step scope is made once it has run)
        if self.read_once:
            MEMORY.transient_peak(self.ctx.place, made)
            return None, self.take(env)
        kid = parent.framed_kid(label, Frame(block.local_index, env, self.ctx.place, made))
        return kid, self.take(env)

    def _maker(self, parent: Scope, frame: StepFrame | None) -> tuple:
        """(make, template) for a step under ``parent`` (holding ``frame`` or none):
        ``make(frame's arrays, ins, template)`` gives the step's env."""
        anchor, layout = (parent, None) if frame is None else (parent.up, frame.index)
        cached_anchor, cached_layout, make, template = self.cached
        if cached_anchor is not anchor or cached_layout is not layout:
            make, template = self._gather(anchor, frame)
            self.cached = (anchor, layout, make, template)
        return make, template

    def run_steps(self, parent: Scope, order: Sequence[int], rows: Sequence[Any],
                  carried: list, kids: list, fail: Callable[..., Exception]) -> list[list]:
        """StepRunner.run_steps as one loop over arrays: step t's env is a copy of the
        template (the outer values, found once) with its row and carried values put in,
        the block's compiled ops run on it, and kept as a Frame in the step's scope."""
        block = self.block
        if not self.fast or EVENTS.active or not isinstance(parent, FrameScope) or \
                parent.holds_elsewhere or len(rows) + len(carried) != len(self.in_pos):
            return super().run_steps(parent, order, rows, carried, kids, fail)
        names = block.plan.names
        template = [None] * (len(names) + 1)        # (a None last: an out the block never names)
        for pos in block.outer:
            template[pos] = find_array(parent, names[pos])
        in_pos, out_pos, n_rows = self.in_pos, self.out_pos, len(rows)
        loop = block.written(("forward", in_pos, n_rows, out_pos),
                             lambda: forward_loop(in_pos, n_rows, out_pos))
        outputs: list[list] = [[None] * len(order) for _ in range(len(out_pos) - len(carried))]
        # every step scope made first, as PaddlePaddle's recurrent makes them (a view of a
        # paused run shows the steps done so far holding their values, the others empty)
        made = parent.new_scopes([f"step {t}" for t in order])
        kids.extend(made)
        frames: list[StepFrame] = []
        place = self.ctx.place
        try:
            loop(order, rows, carried, template, block.env_runner(), StepFrame, block.local_index,
                 place, outputs, made, frames, fail)
        finally:       # (the frames' bytes counted at once)
            MEMORY.allocate(place, sum([frame.nbytes for frame in frames]))
        return outputs

    def _gather(self, anchor: Scope | None, frame: StepFrame | None) -> tuple:
        """(make, template): ``template`` holds the block's outer values found from
        ``anchor`` (and a None last); ``make(arrays, ins, template)`` copies it, puts in
        the outer names that ``frame`` holds (from ``arrays``, its arrays), then the ins."""
        block = self.block
        names = block.plan.names
        links: Sequence[tuple[int, int]]
        if frame is None:
            links, positions = (), block.outer
        else:
            _, links, positions = block.outer_layout(frame.index)
        template = [None] * (len(names) + 1)
        for pos in positions:
            template[pos] = find_array(anchor, names[pos])
        links, in_pos = tuple(links), self.in_pos
        return block.written(("env", links, in_pos), lambda: _env_maker(links, in_pos)), template

    def run_back(self, parents: Sequence[Scope], order: Sequence[int],
                 rows: Sequence[tuple[int, Any]], links: Sequence[int],
                 zero: Callable[[int, int], Any], n_each: int,
                 n_sum: int) -> tuple[list[list], list, list]:
        """StepRunner.run_back as one loop over arrays (``read_once``, unwatched): each
        run's env made from its step scope's frame, its ins and the template, the block's
        compiled ops run on it, no scope made; the largest run's bytes noted once as a
        transient peak."""
        if not (self.read_once and self.fast) or EVENTS.active:
            return super().run_back(parents, order, rows, links, zero, n_each, n_sum)
        block, out_pos = self.block, self.out_pos
        # the forward steps' frames share one layout (the step block's): where the grad
        # block's outer names lie in it is written into the loop
        layout = next((scope.frame.index for scope in reversed(parents)
                       if isinstance(scope, FrameScope) and scope.frame is not None), None)
        env_links = tuple(block.outer_layout(layout)[1]) if layout is not None else ()
        key = (len(self.in_pos), tuple(slot for slot, _ in rows), tuple(links), out_pos,
               n_each, n_sum, env_links, self.in_pos)
        loop = block.written(("backward",) + key, lambda: backward_loop(*key))
        each: list[list] = [[None] * len(parents) for _ in range(n_each)]
        place = self.ctx.place
        sums, carried = loop(parents, order, [row for _, row in rows], zero, block.env_runner(),
                             lambda parent, frame: self._maker(parent, frame)[1], self,
                             FrameScope, each, lambda peak: MEMORY.transient_peak(place, peak),
                             layout)
        return each, sums, carried


def _slots(block: FramedBlock, ins: tuple, outs: tuple) -> Any:
    """(fast, in_pos, out_pos, take) of a step runner of ``block`` with ``ins`` and
    ``outs``: found once per block and names (``FramedBlock.written`` keeps them)."""
    own, plan = block.local_index, block.plan
    # an out the block never names is None at every step (an input's gradient that
    # nothing needs); an in or out that is an outer variable takes the plain way
    absent = [n for n in outs if plan.position(n) is None]
    fast = not block.written_outer and all(
        n in own for n in ins + tuple(n for n in outs if n not in absent))
    # the outs from an env: a None after the block's values stands for the absent ones
    out_pos = tuple(own.get(n, len(plan.names)) for n in outs)
    return fast, tuple(own.get(n, -1) for n in ins), out_pos, _taker(list(out_pos))


def _env_maker(links: Sequence[tuple[int, int]], in_pos: Sequence[int]) -> Callable:
    """``make(arrays, ins, template)``: a copy of ``template`` with ``arrays[at]`` put at
    ``pos`` for each link, then ``ins[k]`` at ``in_pos[k]``, written out as one function
    (a step's env costs a list copy and a few stores)."""
    lines = ["def make(arrays, ins, template):", "    env = template.copy()"]
    lines += [f"    env[{int(pos)}] = arrays[{int(at)}]" for pos, at in links]
    lines += [f"    env[{int(pos)}] = ins[{k}]" for k, pos in enumerate(in_pos)]
    lines.append("    return env")
    return compiled("make", "\n".join(lines), {})


def _taker(positions: list[int]) -> Callable[[list], list]:
    """A function giving ``[env[p] for p in positions]`` (in one C call when it can)."""
    if len(positions) > 1:
        pick = operator.itemgetter(*positions)
        return lambda env: list(pick(env))
    return lambda env: [env[p] for p in positions]
