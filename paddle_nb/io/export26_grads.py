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

from paddle_nb.framework.attrs import read_attr
from paddle_nb.proto import framework_pb2

__all__ = ["normalize_training", "GRAD_BLOCK_OPS"]

GRAD_BLOCK_OPS = ("conditional_block_grad", "while_grad", "recurrent_grad")
VarType = framework_pb2.VarType


def normalize_training(desc):
    """Rewrite ``desc`` (a ProgramDesc already in 2.6's op forms) in place: see the module."""
    for block in desc.blocks:
        for op in block.ops:
            if op.type in GRAD_BLOCK_OPS:
                _outside_grads(desc, op)
            elif op.type == "batch_norm":
                _reserve_space(block, op)
            elif op.type == "batch_norm_grad":
                _batch_norm_grad(block, op)
    return desc


def _sub_blocks(op):
    for attr in op.attrs:
        if attr.name == "sub_block" and attr.HasField("block_idx"):
            yield attr.block_idx


def _outside_grads(desc, op):
    """Drop the grad block's own declarations of the gradients ``op`` is given."""
    given = {n for slot in op.inputs if slot.parameter.endswith("@GRAD") for n in slot.arguments}
    for idx in _sub_blocks(op):
        block = desc.blocks[idx]
        kept = [v for v in block.vars if v.name not in given]
        if len(kept) != len(block.vars):
            del block.vars[:]
            block.vars.extend(kept)


def _slot(slots, name):
    return next((s for s in slots if s.parameter == name), None)


def _set_slot(slots, name, arguments):
    found = _slot(slots, name)
    if found is None:
        found = slots.add()
        found.parameter = name
    del found.arguments[:]
    found.arguments.extend(arguments)


def _reserve_name(op):
    y = _slot(op.outputs, "Y").arguments[0]
    return f"{y}.reserve_space"


def _reserve_space(block, op):
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


def _batch_norm_grad(block, op):
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


def _dtype_of(block, name):
    for var in block.vars:
        if var.name == name and var.type.HasField("lod_tensor"):
            return var.type.lod_tensor.tensor.data_type
    return VarType.FP32


def attr_value(op, name):
    attr = next((a for a in op.attrs if a.name == name), None)
    return None if attr is None else read_attr(attr)
