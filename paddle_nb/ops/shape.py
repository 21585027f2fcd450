"""Shape ops: the same elements seen through another shape or axis order.

``reshape2``, ``transpose2``, ``squeeze2`` and ``unsqueeze2`` move no data
(their outputs are views where the array module allows). Each also writes
``XShape``, an empty tensor of shape ``(0,) + X.shape`` that carries X's shape
to the grad op, so X's memory can be freed after the forward pass: the grad op
reads ``XShape`` and ``Out@GRAD`` and reshapes (or transposes) the gradient back.
``flatten_contiguous_range`` (paddle.flatten) is one more such pair, and
``shape`` hands a tensor's shape to the program as an int32 tensor, and ``size``
its number of elements as a 0-D int64 tensor.

>>> reshape_shape((-1, 4), [0, 2, 2]), reshape_shape((2, 3, 4), [-1, 0, 2])
((-1, 2, 2), (4, 3, 2))
>>> squeeze_shape((1, 3, 1), []), unsqueeze_shape((3, 4), [0, -1])
((3,), (1, 3, 4, 1))
"""

import math

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import REQUIRED, Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import ints_at_build, ints_at_run

__all__ = ["reshape_shape", "squeeze_shape", "unsqueeze_shape", "permutation", "flatten_shape",
           "XSHAPE_DOC"]

XSHAPE_DOC = "an empty tensor of shape (0,) + X.shape, read by the grad op"
UNUSED = "unused; kept for PaddlePaddle programs"
MKLDNN = {"use_quantizer": Attr("bool", False, comment=UNUSED),
          "mkldnn_data_type": Attr("str", "float32", comment=UNUSED)}


def _product_of_known(dims):
    """The product of the known dimensions (each -1 left out)."""
    return math.prod(d for d in dims if d != -1)


def _target(x_shape, shape):
    """``shape`` with each 0 replaced by X's dimension; the index of the -1 (or None)."""
    out, unknown = [], None
    for i, s in enumerate(shape):
        if s == -1:
            if unknown is not None:
                fail(f"shape may hold only one -1, got shape {list(shape)} for X of shape "
                     f"{x_shape}")
            unknown = i
        elif s == 0 and i >= len(x_shape):
            fail(f"shape[{i}] = 0 copies X's dimension {i}, but X of shape {x_shape} has rank "
                 f"{len(x_shape)}")
        elif s < -1:
            fail(f"shape may hold sizes, 0 (copy) and one -1 (infer), got shape {list(shape)}")
        out.append(x_shape[i] if s == 0 else s)
    return out, unknown


def reshape_shape(x_shape, shape):
    """The shape ``reshape2`` gives X; -1 in ``x_shape`` is an unknown (batch) dimension."""
    x_shape = tuple(x_shape)
    out, unknown = _target(x_shape, shape)
    copied = [i for i, s in enumerate(shape) if s == 0 and x_shape[i] == -1]
    if x_shape.count(-1) > len(copied):      # an unknown X dimension is folded in: no check
        return tuple(out)
    have = _product_of_known(x_shape)
    known = _product_of_known(d for i, d in enumerate(out) if i != unknown)
    if unknown is None:
        if have != known:
            fail(f"shape {list(shape)} asks for {known} elements but X of shape {x_shape} "
                 f"holds {have}")
    elif known == 0 or have % known:
        fail(f"X of shape {x_shape} ({have} elements) does not fit shape {list(shape)}: "
             f"the other dimensions hold {known}")
    else:
        out[unknown] = have // known
    return tuple(out)


def permutation(axis, rank, what="X"):
    """``axis`` with negatives counted from the end, checked to be a permutation of the dims."""
    perm = [a + rank if a < 0 else a for a in axis]
    if sorted(perm) != list(range(rank)):
        fail(f"axis must be a permutation of 0..{rank - 1} for {what} of rank {rank}, "
             f"got {list(axis)}")
    return perm


def squeeze_shape(x_shape, axes):
    """X's shape without size-1 dims: all of them, or those listed in ``axes`` (-1 counts as 1)."""
    rank = len(x_shape)
    if not axes:
        drop = {i for i, d in enumerate(x_shape) if d == 1}
    else:
        drop = set()
        for a in axes:
            i = a + rank if a < 0 else a
            if not 0 <= i < rank:
                fail(f"axes {list(axes)} are out of range for X of shape {tuple(x_shape)}")
            if x_shape[i] in (1, -1):
                drop.add(i)
    return tuple(d for i, d in enumerate(x_shape) if i not in drop)


def unsqueeze_shape(x_shape, axes):
    """X's shape with a 1 inserted at each of ``axes``, in order (negatives count from the end)."""
    out = list(x_shape)
    for a in axes:
        i = a + len(out) + 1 if a < 0 else a
        if not 0 <= i <= len(out):
            fail(f"axes {list(axes)} are out of range for X of shape {tuple(x_shape)}")
        out.insert(i, 1)
    return tuple(out)


def _xshape_meta(x):
    return x.with_shape((0,) + tuple(x.shape))


def _xshape(xp, x):
    return xp.empty((0,) + x.shape, dtype=x.dtype)


def _register_pair(name, attrs, out_shape, forward, backward, doc, tensors=(), grad_tensors=()):
    """``name`` (X -> Out, XShape) and ``name_grad`` (XShape, Out@GRAD -> X@GRAD).

    ``tensors`` are optional input slots that may give an attribute at run time; their
    values follow X's in ``out_shape`` and ``forward``. The grad op needs none of them, but
    PaddlePaddle hands ``grad_tensors`` to it anyway (unsqueeze2_grad's AxesTensor), so it
    declares them and ignores them.
    """
    register(OpDef(
        name, inputs=["X", *tensors], outputs=["Out", "XShape"], attrs=attrs,
        infer=lambda x, *t, **a: (x.with_shape(out_shape(x.shape, *t, **a)), _xshape_meta(x)),
        kernel=lambda ctx, x, *t, **a: (forward(ctx.xp, x, *t, **a), _xshape(ctx.xp, x)),
        grad=grad_op(f"{name}_grad", inputs=tuple(t.name for t in grad_tensors),
                     outputs=("XShape",)), doc=doc))
    register(OpDef(
        f"{name}_grad", inputs=["XShape", *grad_tensors, "Out@GRAD"], outputs=["X@GRAD"],
        attrs=attrs,
        infer=lambda xshape, *t, **a: Meta(tuple(xshape.shape[1:]), t[-1].dtype, xshape.lod_level),
        kernel=lambda ctx, xshape, *t, **a: backward(ctx.xp, t[-1], tuple(xshape.shape[1:]), **a),
        doc=f"the gradient of {name}: X@GRAD from XShape (X's shape) and Out@GRAD"))


def _regrid(xp, dout, x_shape, **attrs):
    return dout.reshape(x_shape)


def _reshape_infer(x_shape, shape_t, shape_list, *, shape, **_):
    if shape_t is None and not shape_list:
        return reshape_shape(x_shape, shape)
    # the sizes come from tensors: only the attribute's positive entries are known now
    return tuple(d if d > 0 else -1
                 for d in ints_at_build(shape, shape_t, shape_list, ("Shape", "ShapeTensor")))


def _reshape(xp, x, shape_t, shape_list, *, shape, **_):
    return x.reshape(reshape_shape(x.shape, ints_at_run(shape, shape_t, shape_list)))


_register_pair(
    "reshape2",
    {"shape": Attr("ints", [], comment="0 copies X's dim; one -1 is inferred"), **MKLDNN},
    _reshape_infer, _reshape, _regrid,
    "Out = X with the shape `shape` (0 copies X's dimension, one -1 is inferred)\n"
    "Shape (a 1-D tensor) or ShapeTensor (one value per dim), when given, decide at run time.",
    tensors=[Slot("Shape", dispensable=True, comment="a 1-D int tensor; wins over shape"),
             Slot("ShapeTensor", duplicable=True, dispensable=True,
                  comment="one one-value int tensor per dim")])
_register_pair(
    "transpose2", {"axis": Attr("ints", REQUIRED, comment="the permutation of X's dims"),
                   "data_format": Attr("str", "AnyLayout"), **MKLDNN},
    lambda s, *, axis, **_: tuple(s[i] for i in permutation(axis, len(s))),
    lambda xp, x, *, axis, **_: xp.transpose(x, permutation(axis, x.ndim)),
    lambda xp, dout, x_shape, *, axis, **_: xp.transpose(
        dout, numpy.argsort(permutation(axis, len(x_shape))).tolist()),
    "Out = X with its dimensions permuted: Out.shape[i] = X.shape[axis[i]]")
_register_pair(
    "squeeze2", {"axes": Attr("ints", [], comment="dims of size 1 to drop; [] drops all")},
    lambda s, *, axes: squeeze_shape(s, axes),
    lambda xp, x, *, axes: x.reshape(squeeze_shape(x.shape, axes)), _regrid,
    "Out = X without the size-1 dimensions listed in axes (all of them when axes is empty)")


def _unsqueeze_infer(x_shape, axes_t, axes_list, *, axes):
    if axes_t is None and not axes_list:
        return unsqueeze_shape(x_shape, axes)
    # the axes come from tensors: only the rank of Out is known now
    n = len(ints_at_build(axes, axes_t, axes_list, ("AxesTensor", "AxesTensorList")))
    return (-1,) * (len(x_shape) + n)


AXES_TENSORS = [Slot("AxesTensor", dispensable=True, comment="a 1-D int tensor; wins over axes"),
                Slot("AxesTensorList", duplicable=True, dispensable=True,
                     comment="one one-value int tensor per axis")]
_register_pair(
    "unsqueeze2", {"axes": Attr("ints", [], comment="where to insert size-1 dims, in order")},
    _unsqueeze_infer,
    lambda xp, x, axes_t, axes_list, *, axes: x.reshape(
        unsqueeze_shape(x.shape, ints_at_run(axes, axes_t, axes_list))), _regrid,
    "Out = X with a size-1 dimension inserted at each of axes, in order\n"
    "AxesTensor or AxesTensorList, when given, decide the axes at run time.",
    tensors=AXES_TENSORS, grad_tensors=AXES_TENSORS)


def flatten_shape(x_shape, start_axis, stop_axis):
    """X's shape with dims start_axis..stop_axis (inclusive) multiplied into one."""
    rank = len(x_shape)
    if rank == 0:
        return (1,)                     # a 0-D tensor flattens to one element
    start, stop = (a + rank if a < 0 else a for a in (start_axis, stop_axis))
    if not (0 <= start < rank and 0 <= stop < rank):
        fail(f"start_axis {start_axis} and stop_axis {stop_axis} must be dims of X of shape "
             f"{tuple(x_shape)}")
    if start > stop:
        fail(f"start_axis {start_axis} must not come after stop_axis {stop_axis} for X of "
             f"shape {tuple(x_shape)}")
    middle = x_shape[start:stop + 1]
    size = -1 if -1 in middle else math.prod(middle)
    return tuple(x_shape[:start]) + (size,) + tuple(x_shape[stop + 1:])


_register_pair(
    "flatten_contiguous_range",
    {"start_axis": Attr("int", 1, comment="the first dim merged"),
     "stop_axis": Attr("int", 1, comment="the last dim merged (inclusive)")},
    lambda s, *, start_axis, stop_axis: flatten_shape(s, start_axis, stop_axis),
    lambda xp, x, *, start_axis, stop_axis: x.reshape(flatten_shape(x.shape, start_axis,
                                                                    stop_axis)),
    _regrid, "Out = X with dims start_axis..stop_axis merged into one (paddle.flatten)")

register(OpDef(
    "shape", inputs=["Input"], outputs=["Out"], no_need_buffer=("Input",),
    infer=lambda x: Meta((len(x.shape),), numpy.dtype("int32")),
    kernel=lambda ctx, x: ctx.xp.asarray(list(x.shape), dtype="int32").reshape(len(x.shape)),
    doc="Out = Input's shape as an int32 tensor (read at run time, so -1 dims become sizes)"))

register(OpDef(
    "size", inputs=["Input"], outputs=["Out"], no_need_buffer=("Input",),
    infer=lambda x: Meta((), numpy.dtype("int64")),
    kernel=lambda ctx, x: ctx.xp.asarray(x.size, dtype="int64"),
    doc="Out = the number of elements of Input, a 0-D int64 tensor (paddle.numel)"))
