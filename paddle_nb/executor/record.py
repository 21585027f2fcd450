"""Run records: what one run did, as plain data for whoever listens.

A :class:`RunRecord` holds the ops that ran (block, index, type, time), the
lifecycle events of the run's scopes, variables and tensors in order (each
tagged with the op that caused it), and a snapshot of the scope hierarchy
taken at the end of the run: every scope, every variable with its state
(declared, created, typed, allocated, freed), shape, dtype, place and bytes,
and values when the executor's ``record_values`` is on. Recording runs only
when someone subscribed to the executor, and a Recorder observes the run where
its values are:

- the global block runs on an env of arrays: the interpreter calls the hooks of an
  ``EnvWatch`` (executor/env_watch.py) around each op; no Variable is made, and the
  events and the ``run`` scope's variables are written from the env itself;
- when the block has raw ops (control flow), their sub-blocks run on cells in scopes
  under the run scope: the Recorder listens to the core's events in the run's own
  thread for the run's duration (so another thread's runs neither reach the record
  nor are watched), the scope loop calls ``op_started`` and ``op_finished`` around
  each sub-block op, and the block's own ops are noted as they go (``LiveWatch``).

``snapshot_scope`` is also the picture of a live scope that the viewers draw
(``pd.viz.html_of(scope)``): a snapshot that other threads may be changing as
it is taken, which leaves out what they destroy meanwhile.
"""

import dataclasses
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

import numpy

from paddle_nb.core.events import EVENTS, Event
from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable
from paddle_nb.errors import ScopeDestroyedError

__all__ = ["RunRecord", "OpRecord", "ScopeRecord", "VarRecord", "Recorder", "snapshot_scope",
           "allocated_record",
           "var_record", "fmt_dims", "host_copy"]


@dataclasses.dataclass(slots=True)
class VarRecord:
    name: str
    state: str
    shape: tuple | None = None
    dtype: str | None = None
    place: str | None = None
    nbytes: int = 0
    holder: str | None = None      # the held type's name, when not a tensor
    value: Any = None                 # a host copy, when values were asked for


@dataclasses.dataclass
class ScopeRecord:
    id: int
    label: str | None
    vars: list[VarRecord]
    kids: list["ScopeRecord"]

    def walk(self) -> Iterator["ScopeRecord"]:
        """This scope and every scope below it, depth first."""
        yield self
        for kid in self.kids:
            yield from kid.walk()

    def nbytes(self) -> int:
        return sum(v.nbytes for v in self.vars)

    def find(self, label: str) -> list["ScopeRecord"]:
        return [s for s in self.walk() if s.label == label]


@dataclasses.dataclass(slots=True)
class OpRecord:
    block: int
    index: int
    type: str
    seconds: float
    scope_id: int
    skipped: bool = False


class RunRecord:
    """Everything one ``Executor.run`` did; ``scopes`` is the user's scope, as it stood.

    ``ops`` (OpRecords in the order they ran), ``events`` ((op position in ``ops`` or -1,
    kind, scope id, name, nbytes, place), in order) and ``scopes`` (a ScopeRecord) may be
    written out when first read: a run on an env of arrays leaves ``pending``, a function
    that makes them from what its hooks noted (executor/env_watch.py), then and not during
    the run. It gives (the events before the first op, the ops' events, the OpRecords, the
    ``run`` scope's record), which are put in their places."""

    def __init__(self, program: Any, place: str, ops: list | None = None,
                 events: list | None = None, scopes: ScopeRecord | None = None,
                 failed: bool = False, seconds: float = 0.0) -> None:
        self.program = program
        self.place = place
        self._ops: list[OpRecord] = [] if ops is None else ops
        self._events: list[tuple] = [] if events is None else events
        self._scopes = scopes
        self.failed = failed
        self.seconds = seconds
        self.pending: Callable[[], tuple] | None = None

    def _settled(self) -> "RunRecord":
        pending = self.pending
        if pending is not None:
            self.pending = None
            before, events, ops, run_scope = pending()
            self._events[:0] = before
            self._events.extend(events)
            self._ops.extend(ops)
            if self._scopes is not None:
                self._scopes.kids.append(run_scope)
        return self

    @property
    def ops(self) -> list[OpRecord]:
        return self._settled()._ops

    @property
    def events(self) -> list[tuple]:
        return self._settled()._events

    @property
    def scopes(self) -> ScopeRecord | None:
        return self._settled()._scopes

    @scopes.setter
    def scopes(self, value: ScopeRecord | None) -> None:
        self._scopes = value

    def __repr__(self) -> str:
        return (f"RunRecord({len(self.ops)} ops, {len(self.events)} events, place={self.place}, "
                f"failed={self.failed}, seconds={self.seconds:.6f})")

    def step_scopes(self) -> list[ScopeRecord]:
        """The scopes made for sub-block runs (RNN steps, loop iterations, branches)."""
        if self.scopes is None:
            return []
        return [s for s in self.scopes.walk() if s.label and s.label not in ("run", "global")
                and not s.label.startswith("user")]


def var_record(var: Variable, released: Collection[int], with_values: bool) -> VarRecord:
    """A VarRecord of ``var`` as it stands. Safe while another thread changes it: the held
    value is read once, and a variable destroyed meanwhile reads as "freed"."""
    holder = var.holder
    if holder is None:
        return VarRecord(var.name, "freed" if var.destroyed_why is not None else "created")
    if isinstance(holder, LoDTensor):
        return _tensor_record(var.name, holder, released, with_values)
    shapes = getattr(holder, "shapes", None)     # a tensor array: its elements' shapes
    if shapes is not None:
        return _array_record(var.name, holder)
    return VarRecord(var.name, "created", holder=type(holder).__name__)


def _tensor_record(name: str, tensor: LoDTensor, released: Collection[int],
                   with_values: bool) -> VarRecord:
    array = tensor.data                  # (read once: another thread may free it meanwhile)
    if array is None:
        state = "freed" if (id(tensor) in released or tensor.destroyed_why is not None) \
            else "typed"
        return VarRecord(name, state)
    try:
        place = tensor.place
    except ScopeDestroyedError:          # destroyed since `array` was read
        return VarRecord(name, "freed")
    return allocated_record(name, array, place, with_values)


def allocated_record(name: str, array: Any, place: object, with_values: bool) -> VarRecord:
    """The VarRecord of a variable holding ``array`` on ``place``."""
    value = host_copy(array) if with_values else None
    dtype = array.dtype
    text = _DTYPE_TEXT.get(dtype)
    if text is None:                     # (str of a NumPy dtype takes a microsecond or two)
        text = _DTYPE_TEXT[dtype] = str(dtype)
    return VarRecord(name, "allocated", tuple(array.shape), text,
                     repr(place) if place is not None else None, int(array.nbytes),
                     value=value)


_DTYPE_TEXT: dict[Any, str] = {}


def _array_record(name: str, holder: Any) -> VarRecord:
    elements = list(holder)              # (a copy: a loop may be appending to it)
    arrays = [t.data for t in elements]
    listed = ", ".join("empty" if a is None else fmt_dims(a.shape) for a in arrays)
    nbytes = sum(int(a.nbytes) for a in arrays if a is not None)
    return VarRecord(name, "allocated" if nbytes else "created", nbytes=nbytes,
                     holder=f"{type(holder).__name__} of {len(elements)}"
                            f"{': ' + listed if listed else ''}")


def host_copy(array: Any) -> numpy.ndarray:
    """A NumPy copy of a NumPy or CuPy array."""
    if not isinstance(array, numpy.ndarray) and hasattr(array, "get"):
        return array.get()
    return numpy.array(array, copy=True)


def fmt_dims(shape: Collection[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def snapshot_scope(scope: Scope, released: Collection[int] = (),
                   with_values: bool = False) -> ScopeRecord:
    """A ScopeRecord of ``scope`` and everything below it, as it stands now.

    A snapshot of live state: other threads may be changing the scope while it is read. Each
    scope's variables and kids are listed once (a copy); a variable erased or a kid scope
    destroyed while the snapshot is taken is left out, so the record holds only what was
    really there, and reading never fails for it. ``scope`` itself must be alive (else
    ScopeDestroyedError, as any use of a destroyed scope)."""
    record = _snapshot(scope, released, with_values)
    if record is None:
        raise ScopeDestroyedError(f"snapshot_scope: scope {scope.id} was destroyed; expected a "
                                  "live scope (exe.subscribe gives a snapshot of each run's)")
    return record


def _snapshot(scope: Scope, released: Collection[int],
              with_values: bool) -> ScopeRecord | None:
    """``scope``'s ScopeRecord, or None when it was destroyed before or while it was read."""
    if not scope.is_alive():
        return None
    try:
        kids = scope.kids
        found, framed = _local_vars(scope)
    except ScopeDestroyedError:
        return None
    records = []
    for var in found:
        if var is None:                  # erased meanwhile
            continue
        rec = var_record(var, released, with_values)
        if var.destroyed_why is None:    # (still there once read)
            records.append(rec)
    records += [allocated_record(name, array, place, with_values) if array is not None
                else VarRecord(name, "typed") for name, array, place in framed]
    kid_records = [_snapshot(kid, released, with_values) for kid in kids]
    return ScopeRecord(scope.id, scope.label, records, [k for k in kid_records if k is not None])


def _local_vars(scope: Scope) -> tuple[Sequence[Variable | None], list[tuple[str, Any, Any]]]:
    """``scope``'s own Variables, and ``(name, array or None, place)`` of the values a block
    run left in it as a frame (executor/frames.py), read as they are: a view never turns a
    frame into Variables, since the run that made it (in another thread, perhaps) may be
    reading it at that moment."""
    frame = getattr(scope, "frame", None)      # (only scopes a framed block ran in have one)
    if frame is None:
        return [scope.find_local_var(n) for n in scope.local_var_names()], []
    own = list(scope.own_vars.values())
    arrays, place = frame.arrays, frame.place
    taken = {var.name for var in own}
    return own, [(name, arrays[pos], place) for name, pos in frame.index.items()
                 if name not in taken]


def _fold(record: RunRecord, folded: dict[int, int]) -> None:
    """Show each scope of ``folded`` (id -> its parent's id) as its parent: its variables
    and kids in the parent's record, its events and ops with the parent's id. The user's
    variables (a parameter a raw op was lent, a persistable a sub-block wrote) are shown
    where they live, in the user's scope, not again in the run's."""
    users = {v.name for v in record._scopes.vars} if record._scopes is not None else set()

    def merge(scope: ScopeRecord) -> None:
        kids = []
        for kid in scope.kids:
            merge(kid)
            if kid.id in folded:
                shown = users | {w.name for w in scope.vars}
                scope.vars[:] = [v for v in scope.vars if v.name not in users]
                scope.vars.extend(v for v in kid.vars if v.name not in shown)
                kids.extend(kid.kids)
            else:
                kids.append(kid)
        scope.kids = kids
    if record._scopes is not None:
        merge(record._scopes)
    record._events[:] = [(e[0], e[1], folded.get(e[2], e[2])) + e[3:] for e in record._events]
    for op in record._ops:
        op.scope_id = folded.get(op.scope_id, op.scope_id)


class Recorder:
    """Collects one run's record; the executor calls it only when someone listens."""

    def __init__(self, program: Any, user_scope: Scope, executor: Any) -> None:
        self.record = RunRecord(program, repr(executor.place), [], [])
        self.place = executor.place
        self.user_scope = user_scope
        # a run on an env: what heard it, and writes out the rest of its record when the
        # record is first read (env_watch.EnvWatch: close(), then complete())
        self.watch: Any = None
        self.with_values = executor.record_values
        self.released: set[int] = set()   # ids of tensors the run freed after their last use
        self.current = -1                  # the position in record.ops of the op running
        self._starts: list[float] = []     # when each op of record.ops started
        self._t0 = time.perf_counter()
        self._stop: Callable[[], None] | None = None   # ends the subscription `start` made
        self.folded: dict[int, int] = {}   # scope id -> the id of the scope it is shown in

    def fold(self, kid: Scope, parent: Scope) -> None:
        """Show ``kid``'s variables, kids and events as ``parent``'s (the run's scope and
        the one its raw ops run in are one ``run`` scope to whoever reads the record)."""
        self.folded[kid.id] = parent.id

    def start(self) -> None:
        """Listen to the core's events, in the calling thread only: the run's own thread.
        Another thread's scopes never reach this record, and another thread's runs stay
        unobserved (core/events.py keeps listeners per execution context)."""
        if self._stop is None:
            self._stop = EVENTS.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if event.kind == "scope_created" and getattr(event.scope, "label", None) is None:
            return                          # (a scope made by hand, not by the run)
        place = repr(event.place) if event.place else None
        self.record._events.append((self.current, event.kind, getattr(event.scope, "id", None),
                                   event.name, event.nbytes, place))

    def event(self, kind: str, scope_id: int, name: str, nbytes: int, place: str | None
              ) -> None:
        """Note an event the core did not emit (a value of a run's env), as the op running's."""
        self.record._events.append((self.current, kind, scope_id, name, nbytes, place))

    def op_started(self, plan: Any, step: Any, scope: Scope) -> OpRecord:
        """An OpRecord for ``step``, now running; the events until the next op are its."""
        ops = self.record._ops
        self.current = len(ops)
        rec = OpRecord(plan.block.idx, step.index, step.op.type, 0.0, scope.id)
        ops.append(rec)
        self._starts.append(time.perf_counter())
        return rec

    def op_finished(self, rec: OpRecord, step: Any) -> None:
        """``rec``'s op has run (and its temporaries were released): time it."""
        at = len(self._starts) - 1
        if step.raw:          # its sub-blocks' ops were recorded after it: events are its again
            at = self.current = self.record._ops.index(rec)
        rec.seconds = time.perf_counter() - self._starts[at]

    def finish(self, failed: bool = False) -> None:
        """Stop listening (in the run's thread, as ``start``) and snapshot the user's scope."""
        if self._stop is not None:
            self._stop()
            self._stop = None
        self.current = -1
        self.record.failed = failed
        self.record.seconds = time.perf_counter() - self._t0
        # (None when the user's scope is gone: a listener or a thread may destroy it mid-run)
        self.record.scopes = _snapshot(self.user_scope, self.released, self.with_values)
        if self.folded:
            _fold(self.record, self.folded)
        if self.watch is not None:      # (the rest when the record is first read)
            self.watch.close()
            self.record.pending = self.watch.complete
