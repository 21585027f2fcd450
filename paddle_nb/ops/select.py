"""Choosing elements: ``where``, ``top_k_v2`` and ``one_hot_v2``.

``where`` takes each element from X where Condition holds and from Y elsewhere,
so its gradient routes Out@GRAD the same way. ``top_k_v2`` (paddle.topk) keeps
the k largest (or smallest) values along an axis with their int64 positions;
its gradient puts Out@GRAD back at those positions and zeros elsewhere.
``one_hot_v2`` turns integer labels into rows with a single 1; it has no
gradient (its input is integers).

>>> topk_shape((4, 7), 3, -1), topk_shape((-1, 7), 3, 0)
((4, 3), (3, 7))
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import scalar_at_run

__all__ = ["topk_shape"]

INT64 = numpy.dtype("int64")


def _same_dims(a, b):
    return len(a) == len(b) and all(p == q or -1 in (p, q) for p, q in zip(a, b))


# ---- where ------------------------------------------------------------------------------------

def _where_infer(cond, x, y):
    if cond.dtype != numpy.dtype(bool):
        fail(f"Condition must be a bool tensor, got {cond.dtype}")
    for slot, m in (("X", x), ("Y", y)):
        if not _same_dims(cond.shape, m.shape):
            fail(f"Condition, X and Y must have one shape, got Condition {tuple(cond.shape)} "
                 f"and {slot} {tuple(m.shape)}")
    if x.dtype != y.dtype:
        fail(f"X and Y must have one dtype, got {x.dtype} and {y.dtype}")
    return x.with_shape(tuple(p if p != -1 else q for p, q in zip(x.shape, y.shape)))


def _where_grad(ctx, cond, x, y, dout):
    zero = ctx.xp.zeros((), dtype=dout.dtype)
    dx = ctx.xp.where(cond, dout, zero) if ctx.want(0) else None
    dy = ctx.xp.where(cond, zero, dout) if ctx.want(1) else None
    return dx, dy


register(OpDef(
    "where", inputs=["Condition", "X", "Y"], outputs=["Out"], infer=_where_infer,
    kernel=lambda ctx, cond, x, y: ctx.xp.where(cond, x, y),
    grad=grad_op("where_grad", inputs=("Condition", "X", "Y"), in_grads=("X", "Y")),
    doc="Out = X where Condition is true, else Y (all three of one shape)"))
register(OpDef(
    "where_grad", inputs=["Condition", "X", "Y", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
    infer=lambda cond, x, y, dout: (x.with_dtype(dout.dtype), y.with_dtype(dout.dtype)),
    kernel=_where_grad, no_need_buffer=("X", "Y"),
    doc="the gradient of where: Out@GRAD goes to X where Condition holds, to Y elsewhere"))

# ---- top_k_v2 ---------------------------------------------------------------------------------

TOPK_ATTRS = {
    "k": Attr("int", 1, comment="how many values are kept (K, when given, wins)"),
    "axis": Attr("int", -1, comment="the axis searched"),
    "largest": Attr("bool", True, comment="the largest values (else the smallest)"),
    "sorted": Attr("bool", True, comment="in order; paddle_nb always sorts them"),
}


def topk_shape(x_shape, k, axis):
    """X's shape with dim ``axis`` cut to k (-1: k decided at run time)."""
    if not x_shape:
        return ()                      # a 0-D X: its one value
    rank = len(x_shape)
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for X of shape {tuple(x_shape)}")
    axis %= rank
    if k != -1 and not 0 <= k <= x_shape[axis] and x_shape[axis] != -1:
        fail(f"k ({k}) must be in 0..{x_shape[axis]} (X's dim {axis}) for X of shape "
             f"{tuple(x_shape)}")
    return tuple(x_shape[:axis]) + (k,) + tuple(x_shape[axis + 1:])


def _topk_infer(x, k_t, *, k, axis, largest, sorted):
    if k_t is None and k < 0:
        fail(f"k must be >= 0, got {k}")
    shape = topk_shape(x.shape, -1 if k_t is not None else k, axis)
    return x.with_shape(shape), Meta(shape, INT64, x.lod_level)


def _topk(ctx, x, k_t, *, k, axis, largest, sorted):
    xp, k = ctx.xp, scalar_at_run(k, k_t)
    if x.ndim == 0:
        return x.copy(), xp.zeros((), dtype=INT64)
    topk_shape(x.shape, k, axis)                 # k checked against the real dim
    # a stable sort of -X keeps equal values in index order, as a stable sort of X does
    order = xp.argsort(-x if largest else x, axis=axis, kind="stable")
    index = xp.take(order, xp.arange(k), axis=axis)
    return xp.take_along_axis(x, index, axis=axis), index.astype(INT64, copy=False)


def _topk_grad(ctx, x, k_t, indices, dout, *, axis, **_):
    xp = ctx.xp
    if x.ndim == 0:
        return dout.copy()
    # the k positions of each row are distinct, so assignment places every gradient once
    dx = xp.moveaxis(xp.zeros(x.shape, dtype=dout.dtype), axis, -1)
    rows = dx.reshape(-1, dx.shape[-1])
    picked = xp.moveaxis(indices, axis, -1).reshape(rows.shape[0], -1)
    rows[xp.arange(rows.shape[0])[:, None], picked] = xp.moveaxis(dout, axis, -1).reshape(
        picked.shape)
    return xp.ascontiguousarray(xp.moveaxis(rows.reshape(dx.shape), -1, axis))


register(OpDef(
    "top_k_v2", inputs=["X", Slot("K", dispensable=True, comment="a one-value tensor k")],
    outputs=["Out", "Indices"], attrs=TOPK_ATTRS, infer=_topk_infer, kernel=_topk,
    grad=grad_op("top_k_v2_grad", inputs=("X", "K"), outputs=("Indices",)),
    doc="Out, Indices = the k largest (or smallest) values of X along axis and where they are"))
register(OpDef(
    "top_k_v2_grad", inputs=["X", Slot("K", dispensable=True), "Indices", "Out@GRAD"],
    outputs=["X@GRAD"], attrs=TOPK_ATTRS,
    infer=lambda x, k_t, indices, dout, **_: x.with_dtype(dout.dtype), kernel=_topk_grad,
    no_need_buffer=("X",), doc="the gradient of top_k_v2: Out@GRAD put back at Indices"))

# ---- one_hot_v2 -------------------------------------------------------------------------------

ONE_HOT_ATTRS = {
    "depth": Attr("int", -1, comment="the number of classes (depth_tensor, when given, wins)"),
    "dtype": Attr("dtype", numpy.dtype("float32")),
    "allow_out_of_range": Attr("bool", False, comment="a label outside 0..depth-1 gives zeros"),
}


def _one_hot_infer(x, depth_t, *, depth, dtype, allow_out_of_range):
    if x.dtype.kind not in "iu":
        fail(f"X must be an integer tensor of labels, got {x.dtype}")
    if depth_t is None and depth < 1:
        fail(f"depth must be >= 1 (the number of classes), got {depth}")
    return Meta(tuple(x.shape) + (-1 if depth_t is not None else depth,), dtype, x.lod_level)


def _one_hot(ctx, x, depth_t, *, depth, dtype, allow_out_of_range):
    xp, depth = ctx.xp, scalar_at_run(depth, depth_t)
    inside = (x >= 0) & (x < depth)
    if not allow_out_of_range and not bool(inside.all()):
        raise ValueError(f"one_hot_v2: every label must be in 0..{depth - 1} (depth {depth})")
    # comparing each label with 0..depth-1 marks its class; an outside label marks none
    return (x[..., None] == xp.arange(depth)).astype(dtype)


register(OpDef(
    "one_hot_v2", inputs=["X", Slot("depth_tensor", dispensable=True, comment="a one-value depth")],
    outputs=["Out"], attrs=ONE_HOT_ATTRS, infer=_one_hot_infer, kernel=_one_hot,
    doc="Out = X's labels as one-hot rows: Out[..., c] = 1 where X == c (shape X.shape + [depth])"))
