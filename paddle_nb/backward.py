"""Backward as a program transformation (docs/style.md rule 7).

``append_backward(loss)`` appends, after the forward ops, one group of grad
ops per forward op in reverse order, each made by the forward op's gradient
maker (see paddle_nb.ops.machinery.grad). Grad ops are ordinary registered ops, so
printing, running and drawing them needs nothing special. The steps:

1. Which variables need a gradient: trainable parameters (and any variable
   marked ``stop_gradient=False`` that no op writes), and everything computed
   from them, except names in ``no_grad_set`` or marked ``stop_gradient``.
2. Seed ``loss@GRAD`` with ones, then walk the forward ops backwards; an op
   whose outputs have gradients and whose inputs need them gets its grad ops.
3. A variable used several times gets several gradient contributions. As in
   PaddlePaddle 2.6, when a second grad op writes ``x@GRAD`` the first one's
   output is renamed ``x@GRAD@RENAME@block0@0`` and the second's is ``@1``
   (then ``@2``...); one ``sum`` adds the parts into ``x@GRAD`` right before
   the first grad op that reads it (or at the end of the pass). A gradient a
   grad op reads and nothing wrote (an unused output's) is ``fill_any_like``
   zeros, made right before it.
4. A second backward pass on the same block (another loss) must not overwrite
   the first one's gradients: a gradient whose name the block already has is
   written as ``grad/grad/x@GRAD`` (``grad/`` once more for each later pass,
   as PaddlePaddle's ``_rename_grad_name_`` does), and read under that name by
   the rest of the pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from paddle_nb.errors import BackwardError
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.variable import Parameter, Variable
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.grad import GradContext
from paddle_nb.ops.machinery.registry import EMPTY_VAR, GRAD_SUFFIX, grad_var_name
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block

__all__ = ["append_backward", "gradients", "grad_var_name"]


def append_backward(loss: Variable, parameter_list: Iterable[Variable | str] | None = None,
                    no_grad_set: Iterable[Variable | str] | None = None,
                    ) -> list[tuple[Variable, Variable | None]]:
    """Append the backward pass of ``loss``; return ``[(parameter, gradient), ...]``.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[3])
    ...     loss = pd.layers.mean(pd.layers.fc(x, 2))
    ...     pairs = pd.append_backward(loss)
    >>> [(p.name, g.name) for p, g in pairs]
    [('fc_0.w_0', 'fc_0.w_0@GRAD'), ('fc_0.b_0', 'fc_0.b_0@GRAD')]
    """
    if not isinstance(loss, Variable):
        raise TypeError(f"append_backward: expected the loss Variable, got {loss!r}")
    block = loss.block
    program = block.program
    params = _parameters(program, parameter_list)
    others = [p.name for p in program.all_parameters() if p.name not in params]
    no_grad = _names(no_grad_set) | set(others)
    leaves = set(params) | _marked_leaves(block, no_grad)
    grads = _backward(block, [loss], None, leaves, no_grad)
    return [(program.global_block().var(p), block.find_var(grads[p]))
            for p in params if p in grads]


def gradients(targets: Variable | Sequence[Variable],
              inputs: Variable | Sequence[Variable],
              target_gradients: Any = None,
              no_grad_set: Iterable[Variable | str] | None = None) -> list[Variable | None]:
    """Gradients of the sum of ``targets`` with respect to each of ``inputs`` (None where
    no path leads). ``target_gradients`` seeds them instead of ones."""
    targets = [targets] if isinstance(targets, Variable) else list(targets)
    inputs = [inputs] if isinstance(inputs, Variable) else list(inputs)
    block = targets[0].block
    names = [v.name for v in inputs]
    no_grad = _names(no_grad_set) - set(names)
    grads = _backward(block, targets, target_gradients, set(names), no_grad)
    return [block.find_var(grads[n]) if n in grads else None for n in names]


def _names(items: Any) -> Any:
    return {v.name if isinstance(v, Variable) else v for v in (items or ())}


def _parameters(program: Any, parameter_list: Any) -> Any:
    if parameter_list is None:
        return [p.name for p in program.all_parameters() if p.trainable]
    return [p.name if isinstance(p, Variable) else p for p in parameter_list]


def _marked_leaves(block: Any, no_grad: Any) -> Any:
    """Non-parameter variables the user marked ``stop_gradient=False`` that no op writes."""
    written = {n for op in block.ops for n in op.output_arg_names}
    return {name for name, v in block.vars.items()
            if not v.stop_gradient and not isinstance(v, Parameter) and name not in written
            and name not in no_grad and v.is_tensor()}


def _forward_ops(block: Any, targets: Any) -> Any:
    """The forward ops up to the last one writing a target."""
    last = -1
    names = {t.name for t in targets}
    for k, op in enumerate(block.ops):
        if names.intersection(op.output_arg_names):
            last = k
    if last < 0:
        raise BackwardError(f"no op of block {block.idx} computes {sorted(names)}: nothing "
                            "to differentiate")
    return [op for op in block.ops[:last + 1]
            if not op.role & (OpRole.BACKWARD | OpRole.OPTIMIZE)]


def _needs_grad(block: Any, ops: Any, leaves: Any, no_grad: Any) -> Any:
    """Names whose gradient is needed: the leaves and what ops compute from them."""
    needs = set(leaves) - no_grad
    for op in ops:
        reads = set(op.input_arg_names) | set(_sub_block_reads(op))
        if needs.intersection(reads):
            for name in op.output_arg_names:
                var = block.find_var(name)
                if name not in no_grad and var is not None and not var.stop_gradient:
                    needs.add(name)
    return needs


def _sub_block_reads(op: Any) -> Any:
    program = op.block.program
    names = []
    for idx in op.sub_block_ids():
        for inner in program.block(idx).ops:
            names.extend(inner.input_arg_names)
    return names


def _backward(block: Any, targets: Any, target_gradients: Any, leaves: Any, no_grad: Any) -> Any:
    ops = _forward_ops(block, targets)
    needs = _needs_grad(block, ops, leaves, no_grad)
    program = block.program
    state = _State(block, no_grad)
    with program.role_guard(OpRole.BACKWARD):
        _seed(block, targets, target_gradients, state)
        for op in reversed(ops):
            _append_grad_ops(op, needs, state)
        state.add_up()
    return {name: state.read(grad_var_name(name)) for name in leaves
            if grad_var_name(name) in state.written}


class _State:
    """One backward pass over one block. Gradients are tracked under their own names
    (``x@GRAD``); ``write``/``read`` give the names the ops use (see step 4 above)."""

    def __init__(self, block: Block, no_grad: Iterable[str] = (), sub: bool = False) -> None:
        self.block = block
        self.written: set[str] = set()      # gradient names some grad op has written
        self.parts: dict[str, list[str]] = {}   # gradient -> its parts' names not yet summed
        self.start: dict[str, int] = {}     # gradient -> index of the op that first wrote it
        self.counts: dict[str, int] = {}    # gradient -> how many part names it has had
        self.no_grad = set(no_grad)
        self.sub = sub            # a grad block: every gradient it writes is its own variable
        self.read_only: set[str] = set()    # outer gradients a grad block reads but must not write
        self.final: dict[str, Any] = {}     # gradient name -> the variable that ends up holding it
        self.before = set(block.vars)     # what earlier passes (and the forward) declared
        self.renamed: dict[str, str] = {}   # (a grad block is new: inside it, names are never
        self.prefix: str | None = None      # renamed; the grad op hands its block the outer
        #                                     values by position)

    def write(self, name: str) -> str:
        """The name this pass writes gradient ``name`` under."""
        if name in self.renamed or GRAD_SUFFIX not in name or name not in self.before:
            return self.renamed.get(name, name)
        if self.prefix is None:
            times = 2
            while any(n.startswith("grad/" * times) for n in self.before):
                times += 1
            self.prefix = "grad/" * times
        new = self.renamed[name] = self.prefix + name
        return new

    def read(self, name: str) -> str:
        return self.renamed.get(name, name)

    def wrote(self, name: str) -> None:
        """Note that the op just appended wrote gradient ``name`` whole (a seed, zeros)."""
        if name not in self.parts:
            self.parts[name] = [name]
            self.start[name] = len(self.block.ops) - 1

    def part_name(self, name: str) -> str:
        """The next ``x@GRAD@RENAME@block<b>@<k>`` name for a part of gradient ``name``."""
        k = self.counts.get(name, 0)
        self.counts[name] = k + 1
        return f"{name}@RENAME@block{self.block.idx}@{k}"

    def add_up(self, name: str | None = None) -> None:
        """Append the ``sum`` of gradient ``name``'s parts into it (of every gradient with
        parts when ``name`` is None: the end of the pass)."""
        for grad in ([name] if name is not None else list(self.parts)):
            parts = self.parts.get(grad)
            if parts is not None and len(parts) > 1:
                self.block.append_op("sum", {"X": list(parts)}, {"Out": grad})
                self.parts[grad] = [grad]


def _seed(block: Any, targets: Any, target_gradients: Any, state: Any) -> None:
    for k, target in enumerate(targets):
        name = grad_var_name(target.name)
        out = state.write(name)
        given = target_gradients[k] if target_gradients else None
        if given is not None:
            block.append_op("assign", {"X": given}, {"Out": out})
        elif all(d > 0 for d in target.shape):
            block.append_op("fill_constant", outputs={"Out": out},
                            attrs={"shape": list(target.shape), "value": 1.0,
                                   "dtype": target.dtype,
                                   "op_role": OpRole.BACKWARD | OpRole.LOSS})
        else:
            zeros = block.append_op("fill_zeros_like", {"X": target}, {"Out": out + "@ZERO"})
            block.append_op("scale", {"X": zeros.output("Out")[0]}, {"Out": out},
                            {"scale": 0.0, "bias": 1.0})
        state.wrote(out)
        state.written.add(name)


def _append_grad_ops(op: Any, needs: Any, state: Any) -> None:
    opdef = op.opdef
    if opdef is None or opdef.grad is None:
        return
    outputs_with_grad = [n for n in op.output_arg_names if grad_var_name(n) in state.written]
    inputs_needing = [n for n in op.input_arg_names + _sub_block_reads(op) if n in needs]
    if not outputs_with_grad or not inputs_needing:
        return
    attrs = opdef.complete_attrs(op.attrs, strict=False)
    def backward_block(idx: int, seeds: Sequence[str], local_seeds: bool = False,
                       extra_needs: Sequence[Any] = ()) -> tuple[dict[Any, Any] | int, ...]:
        return _sub_backward(op.block.program, idx, seeds, needs | set(extra_needs), state,
                             local_seeds)
    g = GradContext(op.type, op.inputs, op.outputs, attrs, op=op, backward_block=backward_block)
    for spec in opdef.grad(g):
        _append_spec(spec, needs, state)


def _sub_backward(program: Any, fwd_idx: int, seeds: Any, needs: Any, outer: Any, local_seeds: bool
                 ) -> Any:
    """Build the grad block of sub-block ``fwd_idx``; return (its index, {name: inner grad}).

    The grad block is a kid of the forward block (so its ops see the forward
    variables, as at run time its scope is a kid of the forward step scope).
    ``seeds`` are the gradients available at its start: outer variables it
    reads, or (``local_seeds``) its own variables the owning op fills in.
    """
    fwd = program.block(fwd_idx)
    if not local_seeds:       # outer gradients nothing computed: zeros, before the grad block
        for name in seeds:
            outer.add_up(outer.read(name))     # the grad block reads it whole
            base = outer.block.find_var(_base(name))
            if name not in outer.written and base is not None and base.is_tensor():
                outer.block.append_op("fill_zeros_like", {"X": base}, {"Out": outer.write(name)})
                outer.wrote(outer.write(name))
                outer.written.add(name)
    with program.block_guard(parent_idx=fwd_idx) as gblock:
        gblock.desc.forward_block_idx = fwd_idx
        state = _State(gblock, outer.no_grad, sub=True)
        for name in seeds:
            state.written.add(name)
            if local_seeds:
                _declare_grad(gblock, fwd, name)
            else:
                state.read_only.add(name)
        inner_needs = _needs_grad(fwd, fwd.ops, needs, outer.no_grad)
        for op in reversed(fwd.ops):
            _append_grad_ops(op, inner_needs, state)
        state.add_up()
    produced = {}
    for name in inner_needs:
        grad = state.final.get(grad_var_name(name), grad_var_name(name))
        if grad in gblock.vars:
            produced[name] = grad
    return gblock.idx, produced


def _declare_grad(gblock: Any, fwd: Any, name: str) -> None:
    """Declare gradient ``name`` as a variable of the grad block, shaped like its base."""
    if name in gblock.vars:
        return
    own = name.split("@RENAME@")[0].replace("@INNER", "")
    while own.startswith("grad/"):
        own = own[len("grad/"):]
    base = fwd.find_var(_base(own))
    if base is not None and base.is_tensor():
        gblock.create_var(name=name, shape=base.shape, dtype=base.dtype)
    else:
        gblock.create_var(name=name)


def _append_spec(spec: Any, needs: Any, state: Any) -> None:
    block = state.block
    outputs = {}
    for slot, names in spec.outputs.items():
        kept = [n if _base(n) in needs else EMPTY_VAR for n in names]
        if all(n == EMPTY_VAR for n in kept):
            continue
        if len(kept) > 1:   # a list slot: compute unneeded entries too, under their own names
            kept = [n if n != EMPTY_VAR else names[i] for i, n in enumerate(kept)]
        outputs[slot] = kept
    if not outputs:
        return
    _fill_unwritten(spec, state)
    reads = {n for names in spec.inputs.values() for n in names}
    for names in outputs.values():
        for i, name in enumerate(names):
            if name in state.read_only:          # an outer gradient: accumulate beside it
                state.final[name] = names[i] = name + "@INNER"
    gdef = registry.get(spec.type)
    written = [n for names in outputs.values() for n in names
               if n != EMPTY_VAR and not (n in reads and n in state.written)]
    inputs = {slot: [state.read(n) for n in names] for slot, names in spec.inputs.items()}
    outputs = {slot: [state.write(n) if n != EMPTY_VAR else n for n in names]
               for slot, names in outputs.items()}
    for name in {n for names in inputs.values() for n in names}:
        state.add_up(name)                       # a gradient read whole: sum its parts first
    _rename_repeated(outputs, {n for names in inputs.values() for n in names}, state)
    if state.sub or gdef.infer is None:      # no shape rule (a raw grad op): shape it like its base
        fwd = block.program.block(block.desc.forward_block_idx) if state.sub else block
        for names in outputs.values():
            for name in names:
                _declare_grad(block, fwd, name)
    attrs = {k: v for k, v in spec.attrs.items() if k in gdef.attrs}
    block.append_op(spec.type, inputs, outputs, attrs)
    state.written.update(written)


def _fill_unwritten(spec: Any, state: Any) -> None:
    """Zeros (``fill_any_like``, as 2.6 makes them) for each gradient the grad op reads
    and nothing wrote: an output of the forward op that nothing used."""
    block = state.block
    for name in (n for names in spec.inputs.values() for n in names):
        if not name.endswith(GRAD_SUFFIX) or name in state.written:
            continue
        base = block.find_var(_base(name))
        if base is None:
            raise BackwardError(f"grad op '{spec.type}' reads '{name}', and no variable "
                                f"'{_base(name)}' exists")
        out = state.write(name)
        if state.sub:
            _declare_grad(block, block.program.block(block.desc.forward_block_idx), out)
        block.append_op("fill_any_like", {"X": base}, {"Out": out}, {"value": 0.0, "dtype": -1})
        state.wrote(out)
        state.written.add(name)


def _rename_repeated(outputs: Any, reads: Any, state: Any) -> None:
    """Give each gradient a grad op writes again a part name (PaddlePaddle's
    ``_addup_repetitive_outputs_``): the first writer's output becomes
    ``x@GRAD@RENAME@block<b>@0``, the next ones ``@1``, ``@2``...; ``add_up`` sums them
    into ``x@GRAD`` right before the first op that reads it (or at the end of the pass).
    An in-place grad op (one reading the gradient it writes) is left as it is."""
    seen = []                                    # (names, i) of this op's outputs so far
    for names in outputs.values():
        for i, name in enumerate(names):
            seen.append((names, i))
            if name == EMPTY_VAR or GRAD_SUFFIX not in name or name in reads:
                continue
            parts = state.parts.get(name)
            if parts is None:
                state.parts[name] = [name]
                state.start[name] = len(state.block.ops)
                continue
            if len(parts) == 1:
                parts[0] = state.part_name(name)
                _rename_in_ops(state.block, state.start[name], name, parts[0])
                for earlier, k in seen[:-1]:         # an earlier output of this very op
                    if earlier[k] == name:
                        earlier[k] = parts[0]
            names[i] = state.part_name(name)
            parts.append(names[i])


def _rename_in_ops(block: Any, start: int, old: str, new: str) -> None:
    """Rename ``old`` to ``new`` in every op of ``block`` from ``start`` on."""
    _declare_like(block, old, new)
    for op in block.ops[start:]:
        for slots in (op.desc.inputs, op.desc.outputs):
            for slot in slots:
                if old in slot.arguments:
                    renamed = [new if n == old else n for n in slot.arguments]
                    del slot.arguments[:]
                    slot.arguments.extend(renamed)
        var = block.vars.get(new)
        if var is not None and new in op.output_arg_names:
            var.writer = op
    block.program.bump_version()


def _declare_like(block: Any, name: str, new: str) -> None:
    """Declare ``new`` shaped and typed as ``name`` (when ``name`` is declared)."""
    if new in block.vars:
        return
    var = block.vars.get(name)
    if var is not None and var.is_tensor():
        block.create_var(name=new, shape=var.shape, dtype=var.dtype)
    else:
        block.create_var(name=new)


def _base(grad_name: str) -> str:
    """``x@GRAD`` -> ``x``."""
    return grad_name[:-len(GRAD_SUFFIX)] if grad_name.endswith(GRAD_SUFFIX) else grad_name
