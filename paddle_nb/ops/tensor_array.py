"""Tensor arrays: a LOD_TENSOR_ARRAY variable holds a list of tensors that grows as written.

``write_to_array`` puts X at index I (an int64 [1] tensor), growing the array;
``read_from_array`` reads element I; ``lod_array_length`` is the number of elements (int64
[1]); ``tensor_array_to_tensor`` stacks (``use_stack``) or concatenates the elements along
``axis`` and also gives each element's size along it (``OutIndex``). They are raw ops: the
array lives in the scope (a ``LoDTensorArray``) and a loop's step scopes reach the array of
the block that declares it. Shape inference gives an array the shape and dtype of one
element, as PaddlePaddle does.

Gradients flow back through an array as PaddlePaddle's do: the gradient of an array is an
array of gradients. ``tensor_array_to_tensor_grad`` cuts Out@GRAD back into one gradient per
element; ``write_to_array``'s gradient reads element I of the array's gradient
(``read_from_array`` with ``X_W``, the written tensor, giving zeros of its shape when that
element has no gradient); ``read_from_array``'s writes Out@GRAD at I into the array's
gradient (outside loops: a read inside a ``while`` body raises a BackwardError). An array
read twice on the way to the loss would need its two gradient arrays summed: that raises.
"""

import numpy

from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.tensor_array import LoDTensorArray
from paddle_nb.errors import BackwardError
from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.proto import framework_pb2

_ARRAY = framework_pb2.VarType.LOD_TENSOR_ARRAY

__all__ = []

_INT32, _INT64 = numpy.dtype("int32"), numpy.dtype("int64")


def _index_meta(i):
    if i.dtype.kind not in "iu":
        fail(f"I must be an integer tensor of one element, got {i.dtype}")
    if any(d > 1 for d in i.shape):
        fail(f"I must hold one element, got shape {list(i.shape)}")


def _array(ctx, slot, make=False):
    """The LoDTensorArray of the variable in ``slot`` (an input, or ``make`` an output)."""
    name = (ctx.output_names(slot) if make else ctx.input_names(slot))[0]
    var = ctx.scope.find_var(name)
    if var is None:
        if not make:
            raise ValueError(f"{ctx.op.type}: tensor array '{name}' does not exist yet "
                             "(write to it with write_to_array first)")
        var = ctx.scope.var(name)
    if var.holder is None:
        return var.set_value(LoDTensorArray())
    if make and isinstance(var.holder, LoDTensor):     # declared a tensor by the backward pass
        raise ValueError(f"{ctx.op.type}: '{name}' would hold a second gradient of a tensor "
                         "array (the array is read twice on the way to the loss), and "
                         "paddle_nb cannot sum gradient arrays: read each array once")
    return var.get(LoDTensorArray)


def _declare_array_grads(g, slot):
    """Declare the gradients of input ``slot`` as tensor arrays (the backward pass declares
    a new gradient as a tensor), in the forward op's block; returns their names."""
    names = g.input_grad(slot)
    block = g.op.block if g.op is not None else None
    if block is None:
        return names
    if block.idx != 0:
        raise BackwardError(f"{g.type}: the gradient of tensor array "
                            f"'{g.input(slot)[0]}' read inside a loop or branch is not "
                            "available in paddle_nb; read the array after the loop")
    for name, base in zip(names, g.input(slot)):
        if block.find_var(name) is None:
            array = block.find_var(base)
            block.create_var(name=name, shape=array.shape, dtype=array.dtype, type=_ARRAY)
    return names


def _index(ctx):
    array = ctx.tensor(ctx.input_names("I")[0]).array()
    if array.size != 1:
        raise ValueError(f"{ctx.op.type}: I must hold one index, got shape {list(array.shape)}")
    index = int(array.reshape(-1)[0])
    if index < 0:
        raise ValueError(f"{ctx.op.type}: index I = {index} is negative")
    return index


# -- write_to_array ------------------------------------------------------------------------------
def _write_infer(x, i):
    _index_meta(i)
    return x


def _write(ctx):
    value = ctx.tensor(ctx.input_names("X")[0]).array()
    _array(ctx, "Out", make=True).write(_index(ctx), value, ctx.place)


def _write_grad(g):
    return [OpSpec("read_from_array", {"X": g.output_grad("Out"), "I": g.input("I"),
                                       "X_W": g.input("X")}, {"Out": g.input_grad("X")})]


register(OpDef("write_to_array", inputs=["X", "I"], outputs=["Out"], infer=_write_infer,
               kernel=_write, raw=True, grad=_write_grad,
               doc="Out[I] = X: write X into tensor array Out at index I, growing it"))


# -- read_from_array -----------------------------------------------------------------------------
def _read_infer(x, i, x_w):
    _index_meta(i)
    return x if x_w is None else x_w       # (a gradient read: shaped as what was written)


def _read(ctx):
    array, index = _array(ctx, "X"), _index(ctx)
    out = ctx.out_tensor(ctx.output_names("Out")[0])
    missing = index >= len(array) or not array[index].is_allocated()
    if missing and ctx.input_names("X_W"):          # a gradient never written: zeros
        out.set(ctx.xp.zeros_like(ctx.tensor(ctx.input_names("X_W")[0]).array()), ctx.place)
        return
    if missing:
        raise ValueError(f"read_from_array: index {index} of tensor array "
                         f"'{ctx.input_names('X')[0]}' holds no tensor (it has {len(array)} "
                         "elements)")
    out.set(array[index].array(), ctx.place)


def _read_grad(g):
    return [OpSpec("write_to_array", {"X": g.output_grad("Out"), "I": g.input("I")},
                   {"Out": _declare_array_grads(g, "X")})]


register(OpDef("read_from_array", inputs=["X", "I", Slot("X_W", dispensable=True)],
               outputs=["Out"], infer=_read_infer, kernel=_read, raw=True, grad=_read_grad,
               doc="Out = X[I]: element I of tensor array X (zeros like X_W when it has none)"))


# -- lod_array_length ----------------------------------------------------------------------------
def _length_infer(x):
    return Meta((1,), _INT64)


def _length(ctx):
    n = len(_array(ctx, "X"))
    ctx.out_tensor(ctx.output_names("Out")[0]).set(ctx.xp.asarray([n], dtype="int64"), ctx.place)


register(OpDef("lod_array_length", inputs=["X"], outputs=["Out"], infer=_length_infer,
               kernel=_length, raw=True,
               doc="Out = [len(X)] (int64 [1]): the number of elements of tensor array X"))


# -- tensor_array_to_tensor ----------------------------------------------------------------------
def _to_tensor_infer(x, *, axis, use_stack):
    rank = len(x.shape) + (1 if use_stack else 0)
    if not -rank <= axis < rank:
        fail(f"axis must be in [{-rank}, {rank}) for elements of rank {len(x.shape)}"
             f"{' stacked' if use_stack else ''}, got {axis}")
    shape = list(x.shape)
    if use_stack:
        shape.insert(axis % rank, -1)
    else:
        shape[axis % rank] = -1
    return x.with_shape(shape), Meta((-1,), _INT32)


def _to_tensor(ctx):
    attrs, xp = ctx.attrs, ctx.xp
    elements = [t.array() for t in _array(ctx, "X")]
    if not elements:
        raise ValueError(f"tensor_array_to_tensor: tensor array '{ctx.input_names('X')[0]}' "
                         "is empty")
    axis = attrs["axis"]
    if attrs["use_stack"]:
        out = xp.stack(elements, axis=axis)
        sizes = [1] * len(elements)
    else:
        out = xp.concatenate(elements, axis=axis)
        sizes = [e.shape[axis] for e in elements]
    out_name, index_name = ctx.output_names("Out")[0], ctx.output_names("OutIndex")[0]
    ctx.out_tensor(out_name).set(out, ctx.place)
    ctx.out_tensor(index_name).set(xp.asarray(sizes, dtype="int32"), ctx.place)


def _to_tensor_grad_maker(g):
    return [OpSpec("tensor_array_to_tensor_grad",
                   {"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                   {"X@GRAD": _declare_array_grads(g, "X")}, dict(g.attrs))]


def _to_tensor_grad(ctx):
    """Out@GRAD cut back into one gradient per element of X (by the elements' sizes)."""
    attrs = ctx.attrs
    elements = [t.array() for t in _array(ctx, "X")]
    grad = ctx.tensor(ctx.input_names("Out@GRAD")[0]).array()
    axis = attrs["axis"] % grad.ndim
    if attrs["use_stack"]:
        parts = [ctx.xp.take(grad, k, axis=axis) for k in range(len(elements))]
    else:
        ends = numpy.cumsum([e.shape[axis] for e in elements])[:-1].tolist()
        parts = ctx.xp.split(grad, ends, axis=axis)
    out = _array(ctx, "X@GRAD", make=True)
    for k, part in enumerate(parts):
        out.write(k, part, ctx.place)


register(OpDef("tensor_array_to_tensor", inputs=["X"], outputs=["Out", "OutIndex"],
               attrs={"axis": Attr("int", 0), "use_stack": Attr("bool", False)},
               infer=_to_tensor_infer, kernel=_to_tensor, raw=True, grad=_to_tensor_grad_maker,
               doc="stack (use_stack) or concatenate the elements of tensor array X along "
                   "axis; OutIndex: each element's size along it"))
register(OpDef("tensor_array_to_tensor_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
               attrs={"axis": Attr("int", 0), "use_stack": Attr("bool", False)},
               kernel=_to_tensor_grad, raw=True,
               doc="X@GRAD[k] = the part of Out@GRAD that element k of X became"))
