"""What a kernel sees besides its arrays: the array module, the place, randomness.

One :class:`KernelContext` serves every plain kernel run on a place, so
passing it costs nothing. Raw kernels (control flow, feed and fetch, LoD
ops) get a :class:`RawContext`, which also reaches the running scope, the
op's slots and attributes, and a callback that runs a sub-block: that
callback is how ``ops`` runs blocks without importing the executor.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy

from paddle_nb.core.events import EVENTS
from paddle_nb.core.place import Place
from paddle_nb.core.scope import StepScopes
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import VarNotFoundError

if TYPE_CHECKING:
    from paddle_nb.core.scope import Scope

__all__ = ["KernelContext", "RawContext", "SCOPE_RULES", "StepRunner", "back_ins", "held_bytes",
           "op_slots", "scope_rules"]

# whose rules a control-flow op follows for its step and grad scopes (an Executor's
# ``scopes=``): paddle_nb's own (a step scope per step kept until the run ends, grad blocks
# in a "grad" kid) or PaddlePaddle 2.6's (docs/design_notes.md, "Where paddle_nb differs")
SCOPE_RULES = ("paddle_nb", "paddle")


def scope_rules(value: str) -> str:
    """``value`` checked to be one of :data:`SCOPE_RULES` (else a ValueError saying so)."""
    if value not in SCOPE_RULES:
        raise ValueError(f"Executor: scopes={value!r}; expected one of "
                         + ", ".join(repr(v) for v in SCOPE_RULES)
                         + " (whose step-scope rules control-flow ops follow)")
    return value


class KernelContext:
    """``xp`` (numpy or cupy), ``place``, a seeded random generator, and ``wanted``.

    ``wanted`` is None (every output is used) or a tuple of booleans, one per
    output slot, so that a grad kernel can skip a gradient nobody reads.
    ``scope_rules`` (one of :data:`SCOPE_RULES`) is what control-flow kernels
    read to follow paddle_nb's step-scope rules or PaddlePaddle's.
    """

    __slots__ = ("xp", "place", "rng", "wanted", "scope_rules")
    xp: ModuleType
    place: Place
    rng: numpy.random.Generator
    wanted: Sequence[bool] | None

    def __init__(self, place: Place, seed: int | None = None) -> None:
        self.place = place
        self.xp = place.xp
        self.rng = numpy.random.default_rng(seed)
        self.wanted = None
        self.scope_rules = "paddle_nb"

    def for_outputs(self, wanted: Sequence[bool] | None) -> KernelContext:
        """A copy of this context whose ``wanted`` says which output slots are used."""
        other = KernelContext.__new__(KernelContext)
        other.place, other.xp, other.rng, other.wanted = self.place, self.xp, self.rng, wanted
        other.scope_rules = self.scope_rules
        return other

    def want(self, k: int) -> bool:
        return self.wanted is None or self.wanted[k]

    def generator(self, seed: int) -> numpy.random.Generator:
        """The generator for an op's ``seed`` attribute: fixed when seed != 0."""
        return numpy.random.default_rng(seed) if seed else self.rng

    def to_device(self, host_array: numpy.ndarray) -> Any:
        """Move a NumPy array made on the host to this place."""
        if self.xp is numpy:
            return host_array
        with self.place.device_guard():
            return self.xp.asarray(host_array)


class RawContext(KernelContext):
    """A KernelContext plus the scope, the op and the sub-block runner."""

    __slots__ = ("scope", "op", "attrs", "run_block", "state", "slots_in", "slots_out")
    scope: Scope
    op: Any
    attrs: dict[str, Any]
    run_block: Callable[..., Any]
    state: Any

    def __init__(self, base: KernelContext, scope: Scope, op: Any, attrs: dict[str, Any],
                 run_block: Callable[..., Any], state: Any = None) -> None:
        self.place, self.xp, self.rng, self.wanted = base.place, base.xp, base.rng, None
        self.scope_rules = base.scope_rules
        self.scope = scope          # the Scope that runs the op
        self.op = op                # an object with .type, .inputs, .outputs (slot -> names)
        self.attrs = attrs          # the op's declared attributes, defaults filled in
        # run_block(block_idx, scope, values=None, same_outer=False) runs a sub-block in a
        # scope, ``values`` (name -> array) put there first; ``same_outer=True`` promises that
        # between this op's block runs only the blocks themselves change outer variables
        self.run_block = run_block
        self.state = state          # executor-owned state a raw op may need (run options)
        # the op's {slot: names} (op_slots: read from its desc once per program version)
        self.slots_in: dict[str, list[str]] | None = None
        self.slots_out: dict[str, list[str]] | None = None

    def input_names(self, slot: str) -> list[str]:
        slots = self.slots_in
        if slots is None:       # (both sides at once: a stand-in op is read once)
            slots, outs = op_slots(self.op)
            self.slots_in, self.slots_out = slots, outs
        return list(slots.get(slot, ()))

    def output_names(self, slot: str) -> list[str]:
        slots = self.slots_out
        if slots is None:
            ins, slots = op_slots(self.op)
            self.slots_in, self.slots_out = ins, slots
        return list(slots.get(slot, ()))

    def out_tensor(self, name: str) -> LoDTensor:
        """The tensor of output ``name``: found from the running scope, or made there."""
        var = self.scope.find_var(name) or self.scope.var(name)
        return var.get_tensor()

    def tensor(self, name: str) -> LoDTensor:
        """The tensor of variable ``name`` found from the running scope."""
        var = self.scope.find_var(name)
        if var is None:
            raise VarNotFoundError(f"op '{self.op.type}': variable '{name}' is not in any scope "
                                   "the op can see")
        return var.get_tensor()

    # -- reading and filling step scopes (the executor's context reads its frames) --------------
    def find_array(self, name: str, scope: Scope | None = None) -> Any:
        """The array of tensor variable ``name`` seen from ``scope`` (the running scope by
        default), or None when it is absent or holds nothing."""
        var = (self.scope if scope is None else scope).find_var(name)
        holder = var.holder if var is not None else None
        return holder.data if isinstance(holder, LoDTensor) else None

    def local_array(self, scope: Scope, name: str) -> Any:
        """The array of ``scope``'s own tensor variable ``name``, or None."""
        var = scope.find_local_var(name) if scope.is_alive() else None
        holder = var.holder if var is not None else None
        return holder.data if isinstance(holder, LoDTensor) else None

    def local_names(self, scope: Scope) -> list[str]:
        """The names of ``scope``'s own variables, in order."""
        return scope.local_var_names()

    def run_unwatched(self) -> bool:
        """True when nobody can see the scopes this op makes: no one listens to scope events
        (a recorded or explored run does) and the op runs under an executor's run scope, which
        goes when the run ends. A kernel may then leave out what it keeps only for watchers
        (the ``rnn`` op's step scopes in a test-mode run, which no backward pass reads)."""
        state = self.state                  # (an executor's RunState, or None)
        if EVENTS.active or getattr(state, "recorder", None) is not None:
            return False
        run_scope = getattr(state, "run_scope", None)
        scope: Scope | None = self.scope
        while scope is not None and scope is not run_scope:
            scope = scope.up
        return scope is not None

    def new_scope_holding(self, label: str, index: dict[str, int], arrays: list[Any],
                          nbytes: int) -> Scope:
        """A new kid of the running scope whose variables are ``index``'s names (name ->
        position in ``arrays``; None: declared, no value). ``nbytes``: the bytes the op made
        for them (an executor counts those while the scope lives)."""
        kid = self.scope.new_scope(label=label)
        for name, pos in index.items():
            tensor = kid.var(name).get_tensor()
            if arrays[pos] is not None:
                tensor.hold(arrays[pos], self.place)
        return kid

    def elsewhere_bytes(self, scope: Scope) -> int:
        """The bytes ``scope`` holds outside its Variables (``scope.holds_elsewhere``: the
        executor's step scopes, whose context counts them); none that this context knows."""
        return 0

    def step_runner(self, block_idx: int, ins: Sequence[str], outs: Sequence[str],
                    read_once: bool = False) -> StepRunner:
        """A :class:`StepRunner` of sub-block ``block_idx``: what an RNN calls once per time
        step (an executor's context gives one that skips the Variables). ``read_once``:
        the caller reads the outs at once and never the step's scope (a grad pass)."""
        return StepRunner(self, block_idx, ins, outs)


# op -> (its program's version, {slot: names} in, out): an op's slots read from its desc
# once per version of its program, not at each run of the op (a desc walk costs as much as
# a small RNN step)
_SLOTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def op_slots(op: Any) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``(op.inputs, op.outputs)``, kept per op while its program's version stays the same
    (every edit of a program changes it). The dicts are shared: read them, never change
    them. An op without a program (a stand-in) is read each time."""
    try:
        version = op.block.program.version
    except AttributeError:
        return op.inputs, op.outputs
    kept = _SLOTS.get(op)
    if kept is None or kept[0] != version:
        kept = (version, op.inputs, op.outputs)
        try:
            _SLOTS[op] = kept
        except TypeError:            # not weakly referable: read each time
            pass
    return kept[1], kept[2]


class StepRunner:
    """Runs one sub-block again and again, each run in a new kid scope: an RNN's step.

    ``runner(parent, label, arrays)`` makes a kid of ``parent`` labelled ``label``,
    puts ``arrays`` there under the names ``ins`` (None: nothing put), runs the block
    in it and returns ``(kid, values)``: the arrays of the names ``outs`` that the run
    left in the kid (None where there is none). A runner asked for with ``read_once``
    may make no kid (then None) where nobody could see it. Between two calls only the
    block's own runs may change the variables it reads from above (an RNN's promise, so
    what it reads there may be found once). ``run_steps`` and ``run_back`` run a whole
    forward or backward pass of an RNN through such calls.

    This plain form goes through the scopes' Variables; the executor's context hands
    out one that fills its step scopes' frames directly and runs each pass as one loop
    (executor/step_runs.py).
    """

    __slots__ = ("ctx", "block_idx", "ins", "outs")

    def __init__(self, ctx: RawContext, block_idx: int, ins: Sequence[str],
                 outs: Sequence[str]) -> None:
        self.ctx, self.block_idx = ctx, block_idx
        self.ins, self.outs = list(ins), list(outs)

    def __call__(self, parent: Scope, label: str,
                 arrays: Sequence[Any]) -> tuple[Scope | None, list]:
        kid = parent.new_scope(label=label)
        values = {name: a for name, a in zip(self.ins, arrays) if a is not None}
        self.ctx.run_block(self.block_idx, kid, values, same_outer=True)
        local_array = self.ctx.local_array
        return kid, [local_array(kid, name) for name in self.outs]

    def run_steps(self, parent: Scope, order: Sequence[int], rows: Sequence[Any],
                  carried: list, kids: list, fail: Callable[..., Exception]) -> list[list]:
        """Run the block once per time step ``t`` of ``order`` (an RNN's forward pass), each
        run in a new kid of ``parent`` labelled ``step t``, appended to ``kids``.

        Step t's ins are ``[row[t] for row in rows] + carried``; its outs are the step's
        outputs, then (the last ``len(carried)``) the values carried to the next step in
        place of ``carried``. Returns the outputs, ``outputs[j][t]``. ``fail(kid, k)`` makes
        the error raised when step scope ``kid`` lacks out ``k`` (an output, or a carried
        value that a next step needs) or holds a carried value whose shape is not its
        first's. (An executor's runner does this loop on arrays alone: step_runs.py.)"""
        n_out = len(self.outs) - len(carried)
        shapes = [value.shape for value in carried]
        outputs: list[list] = [[None] * len(order) for _ in range(n_out)]
        kid = None
        for t in order:
            if kid is not None:            # each carried value, as the step before left it
                for k, (value, shape) in enumerate(zip(carried, shapes)):
                    if value is None or value.shape != shape:
                        raise fail(kid, n_out + k)
            kid, got = self(parent, f"step {t}", [row[t] for row in rows] + carried)
            for k in range(n_out):
                if got[k] is None:
                    raise fail(kid, k)
                outputs[k][t] = got[k]
            kids.append(kid)
            carried = got[n_out:]
        return outputs

    def run_back(self, parents: Sequence[Scope], order: Sequence[int],
                 rows: Sequence[tuple[int, Any]], links: Sequence[int],
                 zero: Callable[[int, int], Any], n_each: int,
                 n_sum: int) -> tuple[list[list], list, list]:
        """Run the block once per step scope of ``parents``, the last first (an RNN's
        backward pass): step k's run is labelled ``grad``, under ``parents[k]``, for time
        step ``t = order[k]``, its ins (:func:`back_ins`) from ``rows`` (in ``slot`` gets
        ``row[t]``) and ``links`` (the j-th value carried from the step after goes to in
        ``links[j]``, added to what is there; ``zero(k, j)`` where neither gave one).

        Its outs are ``n_each`` values kept per time step, ``n_sum`` values summed over
        the steps (None where no step gave one), then the values carried to the step before
        (all None before the first run). Returns ``(each, sums, carried)``:
        ``each[j][t]``, the sums (arrays of this call's own), the last run's carried."""
        each: list[list] = [[None] * len(parents) for _ in range(n_each)]
        sums: list = [None] * n_sum
        carried: list = [None] * (len(self.outs) - n_each - n_sum)
        for k in reversed(range(len(parents))):
            t = order[k]
            ins = back_ins(len(self.ins), rows, links, zero, k, t, carried)
            _, got = self(parents[k], "grad", ins)
            for j in range(n_each):
                each[j][t] = got[j]
            for j in range(n_sum):
                value = got[n_each + j]
                if value is not None:
                    total = sums[j]
                    if total is None:
                        sums[j] = value.copy()
                    else:
                        total += value
            carried = got[n_each + n_sum:]
        return each, sums, carried


def back_ins(n_in: int, rows: Sequence[tuple[int, Any]], links: Sequence[int],
             zero: Callable[[int, int], Any], k: int, t: int, carried: Sequence[Any]) -> list:
    """The ins of a backward step (StepRunner.run_back): each row's slice at ``t`` in its
    slot, then each carried value added to its link's slot, ``zero(k, j)`` in a slot
    that neither filled when link j carried nothing."""
    ins: list = [None] * n_in
    for slot, row in rows:
        ins[slot] = row[t]
    for j, slot in enumerate(links):
        value = carried[j]
        if value is not None:
            ins[slot] = value if ins[slot] is None else ins[slot] + value
        elif ins[slot] is None:
            ins[slot] = zero(k, j)
    return ins


def held_bytes(scope: Scope) -> int:
    """The bytes of the tensors in ``scope``'s Variables (a list holder, such as a tensor
    array, counts each tensor in it; step scopes are counted where they are)."""
    total = 0
    for var in scope.own_vars.values():
        holder = var.holder
        if isinstance(holder, LoDTensor):
            total += holder.data.nbytes if holder.data is not None else 0
        elif isinstance(holder, list) and not isinstance(holder, StepScopes):
            total += sum(t.data.nbytes for t in holder
                         if isinstance(t, LoDTensor) and t.data is not None)
    return total
