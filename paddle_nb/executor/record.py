"""Run records: what one run did, as plain data for whoever listens.

A :class:`RunRecord` holds the ops that ran (block, index, type, time), the
lifecycle events of the run's scopes, variables and tensors in order (each
tagged with the op that caused it), and a snapshot of the scope hierarchy
taken just before the run's scopes were destroyed: every scope, every
variable with its state (declared, created, typed, allocated, freed), shape,
dtype, place and bytes, and values when the executor's ``record_values`` is
on. Recording runs only when someone subscribed: it is a listener on the
core's events, and the executor's scope loop calls ``op_started`` and
``op_finished`` around each op (the unobserved fast path never records).
"""

import dataclasses
import time
from typing import Any, List, Optional

from paddle_nb.core.events import EVENTS
from paddle_nb.core.tensor import LoDTensor

__all__ = ["RunRecord", "OpRecord", "ScopeRecord", "VarRecord", "Recorder", "snapshot_scope",
           "var_record", "fmt_dims"]

@dataclasses.dataclass
class VarRecord:
    name: str
    state: str
    shape: Optional[tuple] = None
    dtype: Optional[str] = None
    place: Optional[str] = None
    nbytes: int = 0
    holder: Optional[str] = None      # the held type's name, when not a tensor
    value: Any = None                 # a host copy, when values were asked for


@dataclasses.dataclass
class ScopeRecord:
    id: int
    label: Optional[str]
    vars: List[VarRecord]
    kids: List["ScopeRecord"]

    def walk(self):
        """This scope and every scope below it, depth first."""
        yield self
        for kid in self.kids:
            yield from kid.walk()

    def nbytes(self):
        return sum(v.nbytes for v in self.vars)

    def find(self, label):
        return [s for s in self.walk() if s.label == label]


@dataclasses.dataclass
class OpRecord:
    block: int
    index: int
    type: str
    seconds: float
    scope_id: int
    skipped: bool = False


@dataclasses.dataclass
class RunRecord:
    """Everything one ``Executor.run`` did; ``scopes`` is the user's scope, as it stood."""

    program: Any
    place: str
    ops: List[OpRecord]
    events: List[tuple]          # (op position in `ops` or -1, kind, scope id, name, nbytes, place)
    scopes: Optional[ScopeRecord] = None
    failed: bool = False
    seconds: float = 0.0

    def step_scopes(self):
        """The scopes made for sub-block runs (RNN steps, loop iterations, branches)."""
        if self.scopes is None:
            return []
        return [s for s in self.scopes.walk() if s.label and s.label not in ("run", "global")
                and not s.label.startswith("user")]


def var_record(var, released, with_values):
    holder = var.holder
    if holder is None:
        return VarRecord(var.name, "created")
    if isinstance(holder, LoDTensor):
        array = holder.data
        if array is None:
            state = "freed" if (id(holder) in released) else "typed"
            return VarRecord(var.name, state)
        value = None
        if with_values:
            value = holder.numpy()
        return VarRecord(var.name, "allocated", tuple(array.shape), str(array.dtype),
                         repr(holder.place), int(array.nbytes), value=value)
    shapes = getattr(holder, "shapes", None)     # a tensor array: its elements' shapes
    if shapes is not None:
        listed = ", ".join("empty" if s is None else fmt_dims(s) for s in shapes())
        nbytes = sum(t.data.nbytes for t in holder if t.data is not None)
        return VarRecord(var.name, "allocated" if nbytes else "created", nbytes=nbytes,
                         holder=f"{type(holder).__name__} of {len(holder)}"
                                f"{': ' + listed if listed else ''}")
    return VarRecord(var.name, "created", holder=type(holder).__name__)


def fmt_dims(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def snapshot_scope(scope, released=(), with_values=False):
    """A ScopeRecord of ``scope`` and everything below it."""
    names = scope.local_var_names()        # (a frame's values become Variables first)
    records = [var_record(scope.find_local_var(n), released, with_values) for n in names]
    kids = [snapshot_scope(k, released, with_values) for k in scope.kids]
    return ScopeRecord(scope.id, scope.label, records, kids)


class Recorder:
    """Collects one run's record; the executor calls it only when someone listens."""

    def __init__(self, program, user_scope, executor):
        self.record = RunRecord(program, repr(executor.place), [], [])
        self.user_scope = user_scope
        self.with_values = executor.record_values
        self.released = set()
        self._current = -1
        self._starts = []          # when each op of record.ops started
        self._t0 = time.perf_counter()
        self._stop = None          # removes the subscription `start` made

    def start(self):
        """Listen to the core's events, in the calling thread only: the run's own thread.
        Another thread's scopes never reach this record, and another thread's runs stay
        unobserved (core/events.py keeps listeners per execution context)."""
        if self._stop is None:
            self._stop = EVENTS.subscribe(self._on_event)

    def _on_event(self, event):
        if event.kind == "scope_created" and event.scope.label is None:
            return
        self.record.events.append((self._current, event.kind, getattr(event.scope, "id", None),
                                   event.name, event.nbytes, repr(event.place) if event.place else None))

    def op_started(self, plan, step, scope):
        """An OpRecord for ``step``, now running; the events until the next op are its."""
        ops = self.record.ops
        self._current = len(ops)
        rec = OpRecord(plan.block.idx, step.index, step.op.type, 0.0, scope.id)
        ops.append(rec)
        self._starts.append(time.perf_counter())
        return rec

    def op_finished(self, rec, step):
        """``rec``'s op has run (and its temporaries were released): time it."""
        at = len(self._starts) - 1
        if step.raw:          # its sub-blocks' ops were recorded after it: events are its again
            at = self._current = self.record.ops.index(rec)
        rec.seconds = time.perf_counter() - self._starts[at]

    def finish(self, failed=False):
        """Stop listening (in the run's thread, as ``start``) and snapshot the user's scope."""
        if self._stop is not None:
            self._stop()
            self._stop = None
        self._current = -1
        self.record.failed = failed
        self.record.seconds = time.perf_counter() - self._t0
        if self.user_scope.is_alive():    # (a listener may have destroyed it mid-run)
            self.record.scopes = snapshot_scope(self.user_scope, self.released, self.with_values)
