"""What a Recorder hears of a run on an env of arrays, and the record made from it.

A watched run on an env goes as an unwatched one does: the same interpreter, the same
values in the same list, no Variable made. Its interpreter (``WatchedInterpreter``, or the
watched compiled form) calls an :class:`EnvWatch`'s hooks around each op, which note the
step, the clock, and an event tuple for each value made or released. When the record is
first read, the rest is written out from those notes and the env as it was left: the
OpRecords, the events before the first op, and the ``run`` scope Variables would have
shown (executor/record.py's RunRecord.pending). A block with raw ops has a real run scope
(executor/env_scope.py): its :class:`LiveWatch` writes into the record as the run goes,
beside the events of the sub-blocks' scopes.
"""

from __future__ import annotations

import time
from typing import Any

import numpy

from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.executor.record import (OpRecord, Recorder, ScopeRecord, VarRecord,
                                       allocated_record, host_copy)

__all__ = ["EnvWatch", "LiveWatch"]


class EnvWatch:
    """What a Recorder hears of a run on an env of arrays (the observer of a
    WatchedInterpreter, executor/interpreter.py), put in the same record Variables in a
    run scope would give: an OpRecord per op, the events a scope's tensors would have emitted (the
    feeds and the block's variables made before the first op, each value an op made,
    each temporary released after its last use), and at the end the ``run`` scope's
    variables, made from the env rather than from Variables that never existed.

    The run scope of the record is a detached Scope, made for its id alone: the user's
    scope gets no kid, and nothing is bound to it.
    """

    def __init__(self, recorder: Recorder, plan: Any, env: list, feed: dict) -> None:
        self.recorder = recorder
        self.plan = plan
        self.env: list | None = env
        self.run = Scope(None, "run")
        self.events: list[tuple] = []       # the ops' events (those before them: complete)
        self.place = repr(recorder.place)
        user = recorder.user_scope.id
        self.scope_ids = [user if p else self.run.id for p in plan.persistable]
        self.block = plan.block.idx
        self.names = plan.names
        self.steps: list[int] = []          # the plan's step of each op run (or skipped)
        self.starts: list[float | None] = []     # when it started (None: skipped)
        self.ends: list[float | None] = []       # when it and its releases were done
        # the names the run scope holds: the fed data variables, then the temporaries
        self.fed = [n for n in feed if plan.position(n) is None or
                    not plan.persistable[plan.position(n)]]
        self.temporaries = [p for p, is_p in enumerate(plan.persistable) if not is_p]
        self.feed: dict | None = feed
        self.fed_names = set(feed)
        self.left: dict[str, Any] = {}       # (close: the run scope's values at the end)
        self.fed_bytes = {n: (env[p] if p is not None else _as_array(v)).nbytes
                          for n, v in feed.items() for p in (plan.position(n),)}
        user_scope = recorder.user_scope       # (as the run starts: which it has)
        self.new_persistables = [
            pos for pos in plan.persistables if env[pos] is None and
            user_scope.find_var(plan.names[pos]) is None] + [
            plan.position(n) for n in feed if plan.position(n) is not None and
            plan.persistable[plan.position(n)] and user_scope.find_var(n) is None]
        recorder.watch = self

    def complete(self) -> tuple:
        """The record's share of this run, written out (RunRecord.pending): the events
        before the first op, the ops' events, the OpRecords, the ``run`` scope's record."""
        return (self._made_before_ops(), self.events, self.op_records(),
                self.run_scope_record())

    def _made_before_ops(self) -> list[tuple]:
        """The events Variables in a run scope would show before the first op: the feeds'
        variables and tensors, then the block's variables (made empty where absent)."""
        plan, feed, run, place = self.plan, self.fed_names, self.run.id, self.place
        names, sids = plan.names, self.scope_ids
        events: list[tuple] = []
        add = events.append
        for pos in self.new_persistables:
            add((-1, "var_created", sids[pos], names[pos], 0, None))
        for name, nbytes in self.fed_bytes.items():
            pos = plan.position(name)
            if pos is not None and plan.persistable[pos]:
                add((-1, "tensor_allocated", sids[pos], name, nbytes, place))
                continue
            add((-1, "var_created", run, name, 0, None))
            add((-1, "var_typed", run, name, 0, None))
            add((-1, "tensor_allocated", run, name, nbytes, place))
        for pos in self.temporaries:
            name = names[pos]
            if name not in feed:
                add((-1, "var_created", run, name, 0, None))
                add((-1, "var_typed", run, name, 0, None))
        return events

    # -- the interpreter's hooks (WatchedInterpreter, or its compiled form) -------------------
    # (kept to list appends: the OpRecords are made from them when the run ends)
    def op_started(self, k: int) -> None:
        self.steps.append(k)
        self.starts.append(time.perf_counter())

    def allocated(self, pos: int, value: Any, old: Any) -> None:
        """An op's output ``value`` went to ``pos`` (which held ``old``)."""
        at, name = len(self.steps) - 1, self.names[pos]
        if old is not None:
            self.events.append((at, "tensor_freed", self.scope_ids[pos], name, old.nbytes,
                                self.place))
        self.events.append((at, "tensor_allocated", self.scope_ids[pos], name, value.nbytes,
                            self.place))

    def freed(self, pos: int, value: Any) -> None:
        """The temporary at ``pos`` was released after its last use."""
        self.events.append((len(self.steps) - 1, "tensor_freed", self.scope_ids[pos],
                            self.names[pos], value.nbytes, self.place))

    def op_finished(self) -> None:
        self.ends.append(time.perf_counter())

    def skipped(self, k: int) -> None:
        self.steps.append(k)
        self.starts.append(None)
        self.ends.append(None)

    def op_records(self) -> list[OpRecord]:
        """An OpRecord for each op started or skipped (one that failed: no time)."""
        steps, block, run = self.plan.steps, self.block, self.run.id
        starts, ends = self.starts, self.ends
        n = len(ends)                       # (an interrupt may have cut the last one short)
        records = [OpRecord(block, steps[k].index, steps[k].opdef.type,
                            0.0 if start is None or end is None else end - start, run,
                            start is None)
                   for k, start, end in zip(self.steps, starts, ends)]
        for k in self.steps[n:]:
            records.append(OpRecord(block, steps[k].index, steps[k].opdef.type, 0.0, run))
        return records

    # -- the end ------------------------------------------------------------------------------
    def close(self) -> None:
        """The run has ended: keep the values its ``run`` scope would still hold (the fetch
        targets, a feed no op read), copied when values are recorded, and let go of the
        env and the feeds, so that the record keeps no other array alive."""
        env, feed, plan, names = self.env, self.feed, self.plan, self.plan.names
        if env is None or feed is None:       # (closed already: the end was repeated)
            return
        left = {names[pos]: env[pos] for pos in self.temporaries if env[pos] is not None}
        for name in self.fed:
            pos = plan.position(name)
            array = env[pos] if pos is not None else _as_array(feed.get(name))
            if array is not None:
                left[name] = array
        if self.recorder.with_values:         # (the caller may change a fed array later)
            left = {name: host_copy(array) for name, array in left.items()}
        self.left = left
        self.env = self.feed = None

    def run_scope_record(self) -> ScopeRecord:
        """The ``run`` scope as Variables would have shown it: the fed data variables,
        then the block's other temporaries, each allocated, freed (released after an op
        that ran) or typed."""
        plan, left, with_values = self.plan, self.left, self.recorder.with_values
        place, names, steps = self.recorder.place, plan.names, plan.steps
        released = {pos for k in set(self.steps) for pos in steps[k].release}
        records = []
        for name in self.fed:
            array = left.get(name)
            records.append(allocated_record(name, array, place, with_values) if array is not None
                           else VarRecord(name, "freed"))
        for pos in self.temporaries:
            name = names[pos]
            if name in self.fed_names:
                continue
            array = left.get(name)
            if array is not None:
                records.append(allocated_record(name, array, place, with_values))
            else:
                records.append(VarRecord(name, "freed" if pos in released else "typed"))
        return ScopeRecord(self.run.id, "run", records, [])


def _as_array(value: Any) -> Any:
    if value is None:
        return None
    return value.array() if isinstance(value, LoDTensor) else numpy.asarray(value)


class LiveWatch:
    """What a Recorder hears of a run on an env whose block has raw ops, written into the
    record as the run goes: the raw ops' sub-blocks run in scopes under the run scope
    (executor/env_scope.py), whose events and ops the Recorder hears as they happen
    (``Recorder.start``), so the block's own ops and the events of its env values are put
    in the same order. The run scope is the real one, snapshotted with the user's; the
    raw ops' scope under it (``ops``) is shown as part of it (``Recorder.fold``)."""

    def __init__(self, recorder: Recorder, plan: Any, run: Scope, ops: Scope, env: list,
                 feed: dict) -> None:
        self.recorder = recorder
        self.plan = plan
        self.run = run
        recorder.fold(ops, run)
        self.place = repr(recorder.place)
        user = recorder.user_scope.id
        self.scope_ids = [user if p else run.id for p in plan.persistable]
        self.current: list[tuple[OpRecord, Any]] = []
        for name, value in feed.items():       # (the feeds: in the env before any op)
            pos = plan.position(name)
            if pos is None:
                continue
            nbytes = env[pos].nbytes if env[pos] is not None else _as_array(value).nbytes
            if not plan.persistable[pos]:
                recorder.event("var_created", run.id, name, 0, None)
            recorder.event("tensor_allocated", self.scope_ids[pos], name, nbytes, self.place)
        recorder.start()

    def op_started(self, k: int) -> None:
        step = self.plan.steps[k]
        self.current.append((self.recorder.op_started(self.plan, step, self.run), step))

    def allocated(self, pos: int, value: Any, old: Any) -> None:
        event, name, sid = self.recorder.event, self.plan.names[pos], self.scope_ids[pos]
        if old is not None:
            event("tensor_freed", sid, name, old.nbytes, self.place)
        event("tensor_allocated", sid, name, value.nbytes, self.place)

    def freed(self, pos: int, value: Any) -> None:
        self.recorder.event("tensor_freed", self.scope_ids[pos], self.plan.names[pos],
                            value.nbytes, self.place)

    def op_finished(self) -> None:
        rec, step = self.current.pop()
        self.recorder.op_finished(rec, step)

    def skipped(self, k: int) -> None:
        self.recorder.op_started(self.plan, self.plan.steps[k], self.run).skipped = True
