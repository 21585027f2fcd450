"""Training programs in PaddlePaddle 2.6's forms: the grad ops and control-flow blocks.

``export26.normalize`` puts each op in 2.6's form one by one; a training program needs more,
because its backward pass has a shape of its own in 2.6 (learned from the programs 2.6.2's
``append_backward`` writes, see ``interop/export/``):

- a grad block (``conditional_block_grad`` / ``while_grad`` / ``recurrent_grad``'s sub-block)
  does not declare the gradients its op brings in from outside (``Out@GRAD``): 2.6 makes every
  variable a block declares afresh in the scope the block runs in, so a declared copy would
  hide the value the op was given;
- ``batch_norm`` writes a ``ReserveSpace`` and its grad reads ``MeanOut`` / ``VarianceOut`` /
  ``ReserveSpace`` (2.6's names for the running statistics) instead of ``Mean`` / ``Variance``;
- ops 2.6 does not register are written as the ops 2.6's backward uses for them:
  ``rnn_memory_helper_grad`` (copy the gradient back, zeros when none came) becomes ``assign``
  when its ``Out@GRAD`` is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from paddle_nb.framework.attrs import read_attr
from paddle_nb.proto import framework_pb2

__all__ = ["normalize_training", "GRAD_BLOCK_OPS"]

GRAD_BLOCK_OPS = ("conditional_block_grad", "while_grad", "recurrent_grad")
VarType = framework_pb2.VarType
EMPTY = "@EMPTY@"               # 2.6's name for a gradient nobody computes


def normalize_training(desc: Any) -> Any:
    """Rewrite ``desc`` (a ProgramDesc already in 2.6's op forms) in place: see the module."""
    for block in desc.blocks:
        for op in block.ops:
            if op.type == "while_grad":
                _while_grad_linked(desc, op)
            elif op.type == "recurrent_grad":
                _every_grad_slot(op, ("inputs", "initial_states", "parameters"))
            elif op.type == "rnn_memory_helper_grad":
                _memory_grad_as_assign(op)
            if op.type in GRAD_BLOCK_OPS:
                _outside_grads(desc, op)
            elif op.type == "batch_norm":
                _reserve_space(block, op)
            elif op.type == "batch_norm_grad":
                _batch_norm_grad(block, op)
    return desc


def _while_grad_linked(desc: Any, op: Any) -> None:
    """paddle_nb's while_grad (its grad block writes ``<X>@GRAD@INNER``, listed in
    ``inner_grads``) -> 2.6's: the block reads the output gradients under the names
    ``original_output_grad`` lists and writes ``<X>@GRAD``; ``Out`` is the forward while's whole
    ``Out`` (2.6 finds the forward op by it); an X with no gradient has ``@EMPTY@``."""
    inner = attr_value(op, "inner_grads") or []
    if not inner:
        return                                  # already in 2.6's form
    xs = list(_slot(op.inputs, "X").arguments)
    outs = _slot(op.outputs, "X@GRAD")
    old_out = list(_slot(op.inputs, "Out").arguments)
    _set_attr_strings(op, "original_output_grad", [f"{o}@GRAD" for o in old_out])
    forward = _forward_while(desc, _slot(op.inputs, "StepScopes").arguments[0])
    if forward is not None:
        _set_slot(op.inputs, "Out", list(_slot(forward.outputs, "Out").arguments))
    outs_now = list(outs.arguments)
    del outs.arguments[:]
    outs.arguments.extend(EMPTY if not name else out for name, out in zip(inner, outs_now))
    renames = {name: f"{x}@GRAD" for x, name in zip(xs, inner) if name and name != f"{x}@GRAD"}
    for idx in _sub_blocks(op):
        _rename_in_block(desc.blocks[idx], renames)
    _drop_attr(op, "inner_grads")


def _every_grad_slot(op: Any, slots: Iterable[str]) -> None:
    """2.6's grad op lists a gradient for every forward argument: ``@EMPTY@`` for one not
    computed (its recurrent_grad looks each slot up)."""
    for slot in slots:
        forward = _slot(op.inputs, slot)
        count = len(forward.arguments) if forward is not None else 0
        grads = _slot(op.outputs, f"{slot}@GRAD")
        if grads is None or len(grads.arguments) != count:
            have = list(grads.arguments) if grads is not None else []
            if len(have) != count:         # which forward argument each belongs to is lost
                have = [f"{n}@GRAD" if f"{n}@GRAD" in have else EMPTY
                        for n in (forward.arguments if forward is not None else [])]
            _set_slot(op.outputs, f"{slot}@GRAD", have)


def _forward_while(desc: Any, step_scopes: str) -> Any:
    for block in desc.blocks:
        for op in block.ops:
            scopes = _slot(op.outputs, "StepScopes")
            if op.type == "while" and scopes is not None and step_scopes in scopes.arguments:
                return op
    return None


def _rename_in_block(block: Any, renames: Mapping[str, str]) -> None:
    for op in block.ops:
        for slot in list(op.inputs) + list(op.outputs):
            names = [renames.get(n, n) for n in slot.arguments]
            del slot.arguments[:]
            slot.arguments.extend(names)
    for var in block.vars:
        var.name = renames.get(var.name, var.name)


def _memory_grad_as_assign(op: Any) -> None:
    """rnn_memory_helper_grad(Out@GRAD) -> X@GRAD is a copy: 2.6's assign."""
    source = list(_slot(op.inputs, "Out@GRAD").arguments)
    target = list(_slot(op.outputs, "X@GRAD").arguments)
    op.type = "assign"
    del op.inputs[:]
    del op.outputs[:]
    _set_slot(op.inputs, "X", source)
    _set_slot(op.outputs, "Out", target)
    _drop_attr(op, "dtype")


def _set_attr_strings(op: Any, name: str, values: Iterable[str]) -> None:
    _drop_attr(op, name)
    attr = op.attrs.add()
    attr.name = name
    attr.type = framework_pb2.AttrType.STRINGS
    attr.strings.extend(values)


def _drop_attr(op: Any, name: str) -> None:
    for k in reversed(range(len(op.attrs))):
        if op.attrs[k].name == name:
            del op.attrs[k]


def _sub_blocks(op: Any) -> Iterator[int]:
    for attr in op.attrs:
        if attr.name == "sub_block" and attr.HasField("block_idx"):
            yield attr.block_idx


def _outside_grads(desc: Any, op: Any) -> None:
    """Drop the grad block's own declarations of the gradients ``op`` is given."""
    given = {n for slot in op.inputs if slot.parameter.endswith("@GRAD") for n in slot.arguments}
    given |= set(attr_value(op, "original_output_grad") or [])
    for idx in _sub_blocks(op):
        block = desc.blocks[idx]
        kept = [v for v in block.vars if v.name not in given]
        if len(kept) != len(block.vars):
            del block.vars[:]
            block.vars.extend(kept)


def _slot(slots: Any, name: str) -> Any:
    return next((s for s in slots if s.parameter == name), None)


def _set_slot(slots: Any, name: str, arguments: Iterable[str]) -> None:
    found = _slot(slots, name)
    if found is None:
        found = slots.add()
        found.parameter = name
    del found.arguments[:]
    found.arguments.extend(arguments)


def _reserve_name(op: Any) -> str:
    y = _slot(op.outputs, "Y").arguments[0]
    return f"{y}.reserve_space"


def _reserve_space(block: Any, op: Any) -> None:
    """2.6's batch_norm writes ReserveSpace (its grad reads it): one more variable."""
    found = _slot(op.outputs, "ReserveSpace")
    if found is not None and found.arguments:
        return
    name = _reserve_name(op)
    _set_slot(op.outputs, "ReserveSpace", [name])
    if not any(v.name == name for v in block.vars):
        var = block.vars.add()
        var.name = name
        var.type.type = VarType.LOD_TENSOR
        var.type.lod_tensor.tensor.data_type = _dtype_of(block, _slot(op.outputs, "Y")
                                                         .arguments[0])
        var.type.lod_tensor.tensor.dims.extend([-1])
        var.persistable = False
        var.stop_gradient = True


def _batch_norm_grad(block: Any, op: Any) -> None:
    """Mean/Variance -> MeanOut/VarianceOut (the same running variables), plus ReserveSpace."""
    for old, new in (("Mean", "MeanOut"), ("Variance", "VarianceOut")):
        found = _slot(op.inputs, old)
        if found is not None:
            if not (_slot(op.inputs, new) and _slot(op.inputs, new).arguments):
                _set_slot(op.inputs, new, list(found.arguments))
            op.inputs.remove(found)
    reserve = _slot(op.inputs, "ReserveSpace")
    if reserve is None or not reserve.arguments:
        y_grad = _slot(op.inputs, "Y@GRAD").arguments[0]
        _set_slot(op.inputs, "ReserveSpace", [f"{y_grad[:-len('@GRAD')]}.reserve_space"])
    for k in reversed(range(len(op.attrs))):
        if op.attrs[k].name == "fuse_with_relu":
            del op.attrs[k]


def _dtype_of(block: Any, name: str) -> int:
    for var in block.vars:
        if var.name == name and var.type.HasField("lod_tensor"):
            return var.type.lod_tensor.tensor.data_type
    return VarType.FP32


def attr_value(op: Any, name: str) -> Any:
    attr = next((a for a in op.attrs if a.name == name), None)
    return None if attr is None else read_attr(attr)
