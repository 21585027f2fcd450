"""A block prepared for running: kernels resolved, attributes completed, slots bound.

Preparing a block once per program version keeps the per-op cost of a run
small: each :class:`Step` holds its kernel with its attributes, and the
positions of its inputs and outputs in the block's list of variable names.
At run time an env holds each name's value by position (executor/interpreter.py),
and each step reads and writes the env by position.
The plan also knows each temporary's last use, so the executor can release
it right after (PaddlePaddle's eager deletion).
"""

from __future__ import annotations

from typing import Any

from paddle_nb.errors import OpBuildError, OpNotFoundError, OpRunError
from paddle_nb.executor.failures import missing_persistable
from paddle_nb.executor.feeds import scalar_shape
from paddle_nb.framework.validate import check_op_types
from paddle_nb.framework.variable import VarType
from paddle_nb.ops.machinery import registry


__all__ = ["Step", "BlockPlan", "SLOTS_ALONE", "check_persistable_dtype", "flat_positions",
           "output_values"]


class Step:
    """One op of a plan. ``ins`` / ``outs`` hold variable positions per slot
    (an int, a tuple for a duplicable slot, or -1 for an absent slot)."""

    __slots__ = ("index", "op", "opdef", "kernel", "attrs", "raw", "ins", "outs", "simple_in",
                 "release", "initializer", "wanted")

    def __init__(self, index: int, op: Any, opdef: Any, attrs: dict, ins: tuple, outs: tuple,
                 initializer: bool) -> None:
        self.index = index
        self.op = op
        self.opdef = opdef
        self.kernel = opdef.kernel
        self.attrs = attrs
        self.raw = opdef.raw
        self.ins = ins
        self.outs = outs
        self.simple_in = all(isinstance(i, int) for i in ins)
        self.release: tuple[int, ...] = ()
        self.initializer = initializer
        absent = [pos == -1 for pos in outs]
        self.wanted = tuple(not a for a in absent) if any(absent) else None


class BlockPlan:
    """The steps of one block and the variables they touch.

    ``names`` lists every variable the block's ops read or write; ``local``
    marks those the block declares itself (made in the scope that runs the
    block), ``persistable`` those that live in the user's scope.
    """

    def __init__(self, program: Any, block_idx: int) -> None:
        block = program.block(block_idx)
        self.block = block
        self.names: list[str] = []
        self._pos: dict[str, int] = {}
        self.steps = []
        if block_idx == 0:
            check_op_types(program)   # every block: one error naming all, before any run
        missing = []
        for k, op in enumerate(block.ops):
            opdef = registry.lookup(op.type)
            if opdef is None:
                missing.append(op.type)
                continue
            _refuse_unknown_inputs(op, opdef, block_idx, k)
            attrs = _completed_attrs(op, opdef, block_idx, k)
            ins = tuple(self._slot(s, op.input(s.name)) for s in opdef.inputs)
            outs = tuple(self._slot(s, op.output(s.name)) for s in opdef.outputs)
            init = block_idx == 0 and program.initializes_once(op)
            self.steps.append(Step(k, op, opdef, attrs, ins, outs, init))
        if missing:
            unique = list(dict.fromkeys(missing))
            raise OpNotFoundError(f"block {block_idx} uses op types paddle_nb does not have: "
                                  f"{', '.join(unique)}; nothing was run")
        self.vars = [block.find_var(n) for n in self.names]
        self.local = [n in block.vars for n in self.names]
        self.persistable = [v is not None and v.persistable for v in self.vars]
        self.tensor = [v is None or v.type == VarType.LOD_TENSOR for v in self.vars]
        self.dtypes = [_declared_dtype(v) for v in self.vars]
        # what each LoDTensor declares, (dtype, shape) or None: results are checked against
        # it (executor/declared.py); check_only_used leaves out the values nothing reads
        self.declared = [(d, v.shape) if d is not None and t else None
                         for v, d, t in zip(self.vars, self.dtypes, self.tensor)]
        self.verified = False      # a run has passed, every result checked (interpreter.py)
        self.has_raw = any(step.raw for step in self.steps)
        # a sub-block without control flow may run on a Frame (see executor/frames.py)
        # (a persistable it declares itself lives in the user's scope: not in a frame)
        self.framed = block_idx > 0 and not self.has_raw and all(self.tensor) and \
            not any(p and here for p, here in zip(self.persistable, self.local))
        self.feed_ops = [s.op for s in self.steps if s.op.type == "feed"]
        # the executor's interpreters of this plan (executor/interpreter.py, frames.py)
        self.interpreter: Any = None
        self.scope_interpreter: Any = None
        self.framed_block: Any = None
        self.lending: Any = None     # how its raw ops see its env (executor/env_scope.py)
        written = {p for step in self.steps for p in flat_positions(step.outs)}
        self.persistables = [p for p, is_p in enumerate(self.persistable) if is_p]
        self.written_persistables = sorted(p for p in written if self.persistable[p])
        self.written = [p in written for p in range(len(self.names))]
        # fetch position -> its [1] shape or None (scalar_shape)
        self._scalar_shapes: dict[int, tuple | None] = {}
        self.first_reads = self._reads_before_writes()
        # for checking feeds: data variables' (dtype, shape) as read, the feed ops' targets,
        # and the temporaries some op reads before any op writes them (feeds to ask for)
        self.feed_meta: dict[str, tuple] = {}
        self.program_ref: Any = None   # the program, held while the executor caches the plan
        self.fed_by_op = {op.output("Out")[0]: op for op in self.feed_ops}
        self.must_feed = [pos for pos in self.first_reads
                          if not self.persistable[pos] and self.vars[pos] is not None
                          and self.vars[pos].is_tensor() and self.names[pos] not in self.fed_by_op
                          # a tensor array starts empty: its first write_to_array may be in a loop
                          and self.vars[pos].type != VarType.LOD_TENSOR_ARRAY]

    def _index(self, name: str) -> int:
        pos = self._pos.get(name)
        if pos is None:
            pos = self._pos[name] = len(self.names)
            self.names.append(name)
        return pos

    def _slot(self, slot: Any, names: list[str]) -> int | tuple[int, ...]:
        if not names:
            return -1
        if slot.duplicable:
            return tuple(self._index(n) for n in names)
        return self._index(names[0])

    def position(self, name: str) -> int | None:
        return self._pos.get(name)

    def scalar_shape(self, pos: int) -> tuple | None:
        """The [1] shape a 0-D value at ``pos`` is fetched as (feeds.scalar_shape), or None;
        read from the desc once per plan."""
        cache = self._scalar_shapes
        if pos not in cache:
            cache[pos] = scalar_shape(self.vars[pos])
        return cache[pos]

    def first_reader(self, pos: int) -> Step:
        """The first step that reads position ``pos``."""
        return next(s for s in self.steps if pos in flat_positions(s.ins))

    def check_persistables_ready(self, env: list) -> None:
        """Refuse to run when a persistable some op reads has no value (``env[pos]`` None)."""
        for pos in self.first_reads:
            # (a raw op's sub-block says which of its ops reads it, if one does)
            if self.persistable[pos] and env[pos] is None and self.tensor[pos] and \
                    not self.first_reader(pos).raw:
                raise OpRunError(missing_persistable(self.names[pos], self.first_reader(pos)))

    def _reads_before_writes(self) -> list[int]:
        written, first_reads = set(), []
        for step in self.steps:
            for pos in flat_positions(step.ins):
                if pos not in written and pos not in first_reads:
                    first_reads.append(pos)
            written.update(flat_positions(step.outs))
        return first_reads

    def check_only_used(self, keep: set) -> None:
        """Check no value that nothing can see: not read by any op of the program (a grad
        block reads its forward block's values), not kept (``keep``: the fetch targets), not
        persistable. (PaddlePaddle's inference ``batch_norm`` declares and makes a 0-D
        ``SavedMean`` that no op reads; paddle_nb's is the [C] statistics its grad would use.)"""
        read = {n for block in self.block.program.blocks for op in block.ops
                for n in op.input_arg_names}
        for pos, name in enumerate(self.names):
            if name not in read and name not in keep and not self.persistable[pos]:
                self.declared[pos] = None

    def plan_releases(self, keep: set) -> None:
        """Give each step the temporaries whose last use it is (never those in ``keep``)."""
        last, kept = {}, set()
        for k, step in enumerate(self.steps):
            # a raw op may read anything through the scope: keep all alive; but feed, fetch
            # and the fused rnn read and write only their slots (a saved model has feed and
            # fetch around every run)
            if step.raw and step.op.type not in SLOTS_ALONE:
                return
            if step.op.type in INPUTS_SHOWN:
                kept.update(flat_positions(step.ins))
            for pos in flat_positions(step.ins) + flat_positions(step.outs):
                last[pos] = k
        by_step: dict[int, list[int]] = {}
        for pos, k in last.items():
            if self.local[pos] and self.tensor[pos] and not self.persistable[pos] \
                    and pos not in kept and self.names[pos] not in keep:
                by_step.setdefault(k, []).append(pos)
        for k, step in enumerate(self.steps):
            step.release = tuple(by_step.get(k, ()))


#: raw ops that read and write only the variables their slots name (the run scope lends
#: them only those: executor/env_scope.py)
SLOTS_ALONE = frozenset({"feed", "fetch", "fetch_v2", "rnn"})
#: ops whose inputs stay to the run's end: the RNN explorer compares each step scope of the
#: fused rnn with the rows of its inputs, read from the finished run
INPUTS_SHOWN = frozenset({"rnn"})


def _refuse_unknown_inputs(op: Any, opdef: Any, block_idx: int, k: int) -> None:
    """A filled input slot the op type does not declare would be ignored: refuse it."""
    for slot, names in op.inputs.items():
        if names and slot not in opdef.input_index:
            raise OpBuildError(
                f"op #{k} '{op.type}' in block {block_idx} fills input slot '{slot}' "
                f"({', '.join(names)}), which paddle_nb's '{op.type}' does not support (it "
                f"takes {[s.name for s in opdef.inputs]}); nothing was run")


def _completed_attrs(op: Any, opdef: Any, block_idx: int, k: int) -> dict:
    """The op's attributes completed for its kernel; a refused one names the op's place."""
    try:
        return opdef.complete_attrs(op.attrs, strict=False)
    except OpBuildError as err:
        raise type(err)(f"op #{k} '{op.type}' in block {block_idx} (built at {op.site()}): "
                        f"{err}; nothing was run") from None


def _declared_dtype(var: Any) -> Any:
    """The dtype ``var`` declares, or None where there is nothing to check (no variable, not a
    tensor, a dtype paddle_nb does not know)."""
    return None if var is None else var.dtype_or_none()


def check_persistable_dtype(plan: BlockPlan, pos: int, array: Any) -> None:
    """A persistable must hold what the program declares: the ops were chosen (and their
    outputs' dtypes inferred) for that dtype."""
    want = plan.dtypes[pos]
    if want is not None and array is not None and array.dtype != want:
        raise OpRunError(
            f"persistable variable '{plan.names[pos]}' holds {array.dtype} values but the "
            f"program declares it {want}: set it with an array of {want} "
            f"(value.astype('{want}')), or declare it {array.dtype}; nothing was run")


def flat_positions(slots: tuple) -> list[int]:
    out: list[int] = []
    for s in slots:
        if isinstance(s, tuple):
            out.extend(s)
        elif s >= 0:
            out.append(s)
    return out


# -- a kernel's results, by position ----------------------------------------------------------

def output_values(outs: tuple, out: Any) -> list[tuple[int, Any]]:
    """[(position, value)] for each value a step's kernel returned (``out``: one value for
    one output slot, else a tuple; a list for a duplicable slot), absent ones skipped."""
    if len(outs) == 1:
        pos = outs[0]
        if not isinstance(pos, tuple):       # one output, the usual op: no loop
            return [(pos, out)] if pos >= 0 and out is not None else []
        out = (out,)
    pairs: list[tuple[int, Any]] = []
    for pos, value in zip(outs, out):
        if value is None:
            continue
        if isinstance(pos, tuple):
            pairs.extend((p, v) for p, v in zip(pos, value) if v is not None)
        elif pos >= 0:
            pairs.append((pos, value))
    return pairs
