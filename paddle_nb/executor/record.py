"""Run records: what one run did, as plain data for whoever listens.

A :class:`RunRecord` holds the ops that ran (block, index, type, time), the
lifecycle events of the run's scopes, variables and tensors in order (each
tagged with the op that caused it), and a snapshot of the scope hierarchy
taken just before the run's scopes were destroyed: every scope, every
variable with its state (declared, created, typed, allocated, freed), shape,
dtype, place and bytes, and values when the executor's ``record_values`` is
on. Recording runs only when someone subscribed: it is a listener on the
core's events plus a timed copy of the run loop, never a branch in the
plain loop.
"""

import dataclasses
import time
from typing import Any, List, Optional

from paddle_nb.core.events import EVENTS
from paddle_nb.core.tensor import LoDTensor

__all__ = ["RunRecord", "OpRecord", "ScopeRecord", "VarRecord", "Recorder", "snapshot_scope",
           "var_record"]

STATES = ("declared", "created", "typed", "allocated", "freed")


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
    holder = var._holder
    if holder is None:
        return VarRecord(var.name, "created")
    if isinstance(holder, LoDTensor):
        array = holder._array
        if array is None:
            state = "freed" if (id(holder) in released) else "typed"
            return VarRecord(var.name, state)
        value = None
        if with_values:
            value = holder.numpy()
        return VarRecord(var.name, "allocated", tuple(array.shape), str(array.dtype),
                         repr(holder._place), int(array.nbytes), value=value)
    return VarRecord(var.name, "created", holder=type(holder).__name__)


def snapshot_scope(scope, released=(), with_values=False):
    """A ScopeRecord of ``scope`` and everything below it."""
    names = scope.local_var_names()        # (a frame's values become Variables first)
    records = [var_record(scope._vars[n], released, with_values) for n in names]
    kids = [snapshot_scope(k, released, with_values) for k in scope._kids]
    return ScopeRecord(scope.id, scope.label, records, kids)


class Recorder:
    """Collects one run's record; the executor calls it only when someone listens."""

    def __init__(self, program, user_scope, executor):
        self.record = RunRecord(program, repr(executor.place), [], [])
        self.user_scope = user_scope
        self.with_values = executor.record_values
        self.released = set()
        self._current = -1
        self._t0 = time.perf_counter()

    def start(self):
        EVENTS.subscribe(self._on_event)

    def _on_event(self, event):
        if event.kind == "scope_created" and event.scope.label is None:
            return
        if event.kind == "tensor_freed":
            pass
        self.record.events.append((self._current, event.kind, getattr(event.scope, "id", None),
                                   event.name, event.nbytes, repr(event.place) if event.place else None))

    def run_steps(self, executor, plan, cells, scope):
        """The executor's loop, timed op by op, marking released temporaries."""
        from paddle_nb.executor.executor import _allocated, _gather
        from paddle_nb.errors import OpRunError
        ctx = executor.ctx
        ops = self.record.ops
        for step in plan.steps:
            self._current = len(ops)
            t0 = time.perf_counter()
            rec = OpRecord(plan.block.idx, step.index, step.op.type, 0.0, scope.id)
            ops.append(rec)
            if step.initializer and _allocated(cells, step.outs):
                rec.skipped = True
                continue
            try:
                if step.raw:
                    executor._run_raw(step, scope)
                    self._current = ops.index(rec)
                    rec.seconds = time.perf_counter() - t0
                    continue
                kctx = ctx if step.wanted is None else ctx.for_outputs(step.wanted)
                out = step.kernel(kctx, *_gather(cells, step.ins), **step.attrs)
            except OpRunError:
                raise
            except Exception as err:
                raise executor._op_error(step, plan, cells, err) from err
            executor._store(step, cells, out)
            for pos in step.release:
                self.released.add(id(cells[pos]))
                cells[pos]._free()
            rec.seconds = time.perf_counter() - t0

    def finish(self, run_scope, failed=False):
        EVENTS.unsubscribe(self._on_event)
        self._current = -1
        self.record.failed = failed
        self.record.seconds = time.perf_counter() - self._t0
        if self.user_scope.is_alive():    # (a listener may have destroyed it mid-run)
            self.record.scopes = snapshot_scope(self.user_scope, self.released, self.with_values)
