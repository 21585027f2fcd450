"""The run's scope over the env: how ops that read scopes run on an env of arrays.

The global block always runs on an env (a list of arrays, executor/interpreter.py).
A *raw* op (control flow, the fused ``rnn``, feed and fetch, tensor arrays) reads
and writes variables through a scope instead, so a block holding one gets a
``run`` kid scope of the user's that shows the env, and the raw ops run in a kid of
it (the block's own scope, where its sub-blocks' scopes hang):

- the names in a raw op's slots are Variables of that kid, given the env's values
  (and the LoDs beside them) before the op runs (:meth:`Lending.lend`) and read back
  into the env after (:meth:`Lending.take_back`);
- every other tensor of the block is in the run scope's frame (executor/frames.py):
  the env itself, turned into Variables only if a sub-block looks one up.

(The raw ops' scope holds no frame of its own: a control-flow op's step runner reads a
frame in the scope it runs in as a forward step's values.) A watched run's record
shows the two as one ``run`` scope.

A persistable a raw op writes comes back to the env and goes through the run's one
commit, as every other write does (executor/staging.py); a failed run leaves the
user's scope as it was, since nothing was written into it.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.executor.frames import Frame, FrameScope
from paddle_nb.executor.feeds import lod_fits, to_place
from paddle_nb.executor.plan import SLOTS_ALONE, BlockPlan, Step, check_persistable_dtype
from paddle_nb.framework.variable import VarType

__all__ = ["RawSlots", "Lending", "shadow", "hold_value"]


class RawSlots:
    """What a raw step's slots name: ``lent`` the (name, position) of its tensors (less
    the persistables it only reads that no op of the block writes, when no sub-block may:
    the op then finds the user's own), ``taken`` those of its outputs, ``others`` its
    names of other kinds (a feed list, step scopes, a tensor array); ``slot_only`` when
    the op touches nothing but its slots (feed, fetch, the fused rnn)."""

    __slots__ = ("slot_only", "lent", "lent_names", "taken", "others")

    def __init__(self, plan: BlockPlan, step: Step, skip_read_only: bool) -> None:
        op = step.op
        outs = set(op.output_arg_names)
        self.slot_only = op.type in SLOTS_ALONE
        lent: list[tuple[str, int]] = []
        self.others: list[str] = []
        for name in dict.fromkeys(op.input_arg_names + op.output_arg_names):
            pos = plan.position(name)
            if pos is None or not plan.tensor[pos]:
                self.others.append(name)
            elif not (skip_read_only and plan.persistable[pos] and name not in outs and
                      not plan.written[pos]):
                lent.append((name, pos))
        self.lent = tuple(lent)
        self.lent_names = frozenset(n for n, _ in lent)
        self.taken = tuple((n, p) for n, p in lent if n in outs)


class Lending:
    """How one plan's raw steps see its env: each step's RawSlots and the layout of the
    run scope's frame (every tensor no raw op is lent, less, when the raw ops touch only
    their slots, the persistables nobody writes: the raw ops find the user's own)."""

    def __init__(self, plan: BlockPlan) -> None:
        self.plan = plan
        raw = [s for s in plan.steps if s.raw]
        self.only_slots = only_slots = all(s.op.type in SLOTS_ALONE for s in raw)
        self.slots = {s.index: RawSlots(plan, s, only_slots) for s in raw}
        self.lent = lent = {n for slots in self.slots.values() for n, _ in slots.lent}
        self.tensor_index = {n: p for p, n in enumerate(plan.names) if plan.tensor[p]}
        # the run scope's frame: the block's tensors but those lent to raw ops and the user's
        # persistables no op of the block writes (a sub-block finds those in the user's scope,
        # where they are shown, once; a fed one joins the frame for its run: Lending.open)
        self.frame_index = {n: p for n, p in self.tensor_index.items() if n not in lent and
                            not (plan.persistable[p] and not plan.written[p])}
        # the program's persistable tensor arrays: its sub-blocks write them in place, in the
        # user's scope, so the run keeps them as found (RunState.keep_arrays)
        self.arrays = [v.name for v in plan.block.vars.values()
                       if v.persistable and v.type == VarType.LOD_TENSOR_ARRAY]

    def open(self, state: Any, env: list, fed: list, elsewhere: Iterable[tuple[str, Any]],
             fed_persistables: Iterable[int] = ()) -> FrameScope:
        """Open the run's scopes (``state.run_scope``, a kid of the user's scope holding
        ``env`` as its frame, and its kid ``state.op_scope``, in which the raw ops run, given
        the feeds ``elsewhere`` that no op of the block reads); return the latter. When the
        raw ops touch only their slots and nobody watches, nothing looks at the frame: the
        run scope is the raw ops' scope, without one. ``fed_persistables`` (env positions)
        join the frame for this run: their new values, not the user's. ``fed`` are the
        caller's arrays the env holds: a raw op is lent a copy of one (no scope keeps a
        caller's array, which the caller may change before the next run: a raw op may cache
        what it made of an array it was lent, by the array's identity, as ``rnn`` does its
        weights' layout)."""
        # (the run scope is the RunState's as soon as it exists: an interrupt after that
        # finds it, and the run's end destroys it)
        run = state.run_scope = state.user_scope.new_scope(label="run", kind=FrameScope)
        place = state.place
        if self.only_slots and state.recorder is None:
            ops = state.op_scope = typing.cast(FrameScope, run)
        else:
            index = self.frame_index
            fed_names = {self.plan.names[p]: p for p in fed_persistables
                         if self.plan.names[p] in self.tensor_index
                         and self.plan.names[p] not in self.lent}
            if fed_names:       # (the run's new value, not the user's: in the frame)
                index = {**index, **fed_names}
            run.attach_frame(Frame(index, env, place, 0))
            ops = state.op_scope = typing.cast(FrameScope, run.new_scope(label="run"))
        state.raw_written, state.shadows = set(), []
        state.fed_ids = {id(array) for array in fed}
        state.keep_arrays(self.arrays)
        for name, value in elsewhere:
            hold_value(ops.var(name), to_place(value, place), state.lods.get(name), place)
        return ops

    def lend(self, step: Step, env: list, ops: FrameScope, state: Any, executor: Any) -> None:
        """Give the Variables of the raw ops' scope ``ops`` the env's values (and LoDs) for
        ``step``: those of its slots' tensors, and unless it touches only its slots, every
        tensor Variable of the run's scopes (the frame turned into Variables, if a
        sub-block looked one up)."""
        slots, place, lods = self.slots[step.index], state.place, state.lods
        for name in slots.others:
            # another kind is found where it lives or made now (a persistable in the
            # user's scope), as a sub-block binds it
            pos = self.plan.position(name)
            if pos is not None and self.plan.persistable[pos]:
                executor.bound_var(self.plan, pos, ops)
            elif ops.find_var(name) is None:
                ops.var(name)
        own, fed = ops.own_vars, state.fed_ids
        for name, pos in slots.lent:
            value = env[pos]
            if fed and id(value) in fed:       # (a copy of the caller's array, once a run)
                value = env[pos] = _copy(value, place)
            hold_value(own.get(name) or ops.var(name), value, lods.get(name), place)
        if not slots.slot_only:     # (the others: what a sub-block may read)
            skip = slots.lent_names
            for name, var, pos in self._tensor_vars(ops, state):
                if name not in skip:
                    holder = var.holder
                    if not isinstance(holder, LoDTensor) or holder.data is not env[pos]:
                        hold_value(var, env[pos], lods.get(name), place)

    def take_back(self, step: Step, env: list, ops: FrameScope, state: Any) -> int:
        """Put in ``env`` (and the LoDs beside it) what the Variables hold after ``step``:
        its outputs, and unless it touches only its slots, whatever its sub-blocks wrote;
        return the bytes of the new values. The persistables among them are noted for the
        commit (``state.raw_written``)."""
        slots, plan, made = self.slots[step.index], self.plan, 0
        taken: list[tuple[str, Variable | None, int]]
        if slots.slot_only:
            own = ops.own_vars
            taken = [(n, own.get(n), p) for n, p in slots.taken]
        else:
            taken = list(self._tensor_vars(ops, state))
        for name, var, pos in taken:
            holder = var.holder if var is not None else None
            if not isinstance(holder, LoDTensor):
                continue
            value = holder.data
            if value is not env[pos]:
                env[pos] = value
                if value is not None:
                    made += value.nbytes
                    lod = holder.lod()
                    if lod:
                        state.note_lod(name, lod)
                if plan.persistable[pos]:
                    state.raw_written.add(pos)
        return made

    def settle(self, env: list, ops: FrameScope, state: Any) -> None:
        """Give every tensor Variable of the run's scopes its env value (a watched run's
        record shows them as the run left them)."""
        for name, var, pos in self._tensor_vars(ops, state):
            hold_value(var, env[pos], state.lods.get(name), state.place)

    def raw_writes(self, env: list, state: Any, ops: FrameScope) -> list[tuple[str, Any]]:
        """(name, array) of the persistables raw ops wrote outside their output slots (their
        sub-blocks, seen through the run scope), and of those their sub-blocks wrote in
        ``ops`` (``state.shadows``): what the commit writes besides the block's own."""
        plan = self.plan
        writes = [(plan.names[pos], env[pos]) for pos in sorted(state.raw_written)
                  if not plan.written[pos] and env[pos] is not None]
        own = ops.own_vars
        for name in dict.fromkeys(state.shadows):
            var = own.get(name)
            holder = var.holder if var is not None else None
            if isinstance(holder, LoDTensor) and holder.data is not None:
                writes.append((name, holder.data))
                lod = holder.lod()
                if lod:
                    state.note_lod(name, lod)
        return writes

    def _tensor_vars(self, ops: FrameScope, state: Any) -> list[tuple[str, Variable, int]]:
        """(name, Variable, position) of the plan's tensors that are Variables of the raw
        ops' scope ``ops``, or of the run scope above it (its frame turned into Variables)."""
        index, own = self.tensor_index, ops.own_vars
        found = [(n, v, index[n]) for n, v in own.items() if n in index]
        run = state.run_scope
        if run is not ops and not run.holds_elsewhere:
            found += [(n, v, index[n]) for n, v in run.own_vars.items()
                      if n in index and n not in own]
        return found


def shadow(state: Any, plan: BlockPlan, pos: int, var: Variable | None) -> Variable:
    """The Variable, in the raw ops' scope, standing for user persistable tensor ``var``
    (None: absent) of ``plan``, holding what it holds: a sub-block writes it there, and the
    commit writes it to the user's scope with the run's other writes. (A persistable of
    another kind, a tensor array, is the user's own, written in place.)"""
    holder = var.holder if var is not None else None
    if holder is not None and not isinstance(holder, LoDTensor):
        return var       # type: ignore[return-value]
    name = plan.names[pos]
    made = state.op_scope.var(name)
    if holder is not None and holder.data is not None:
        check_persistable_dtype(plan, pos, holder.data)
        hold_value(made, holder.data, holder.lod(), state.place)
    state.shadows.append(name)
    return made


def _copy(array: Any, place: Any) -> Any:
    if place.is_gpu():
        with place.device_guard():
            return array.copy()
    return array.copy()


def hold_value(var: Variable, value: Any, lod: Any, place: Any) -> None:
    """Give ``var``'s tensor ``value`` (None: empty) and ``lod``, unless it holds another kind
    (a raw op may have put one there: left alone)."""
    holder = var.holder
    if holder is not None and not isinstance(holder, LoDTensor):
        return
    tensor = var.get_tensor()
    if tensor.data is not value:
        if value is None:
            tensor.free()
        else:
            tensor.hold(value, place)
    if lod_fits(lod, value):
        tensor.set_lod(lod)
