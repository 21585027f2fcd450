"""Ordering and searching: ``argsort``, ``kthvalue``, ``mode``, ``searchsorted``,
``where_index`` (nonzero) and ``masked_select``.

The ops that pick values along an axis (argsort, kthvalue, mode) also return where they
came from (int64 Indices); their gradients put Out@GRAD back at those positions. The last
three find positions or values whose number depends on the data: their first dimension is
unknown (-1) until the op runs.

>>> import numpy as np; sort_positions(np, np.array([[3., 1., 2.]]), 1, False).tolist()
[[1, 2, 0]]
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, fail, register
from paddle_nb.ops.scatter import along

__all__ = ["sort_positions"]

INT64 = numpy.dtype("int64")


def _axis(axis, shape, what="X"):
    rank = len(shape)
    if not -max(rank, 1) <= axis < max(rank, 1):
        fail(f"axis {axis} is out of range for {what} of shape {tuple(shape)}")
    return axis % rank if rank else 0


def sort_positions(xp, x, axis, descending):
    """Where each sorted value came from along ``axis`` (stable: ties keep their order)."""
    if descending:
        # reverse, sort ascending stably, reverse back: ties stay in their original order
        flipped = xp.flip(x, axis)
        order = xp.argsort(flipped, axis=axis, kind="stable")
        return xp.flip(x.shape[axis] - 1 - order, axis)
    return xp.argsort(x, axis=axis, kind="stable")


def _put_back(ctx, x, indices, dout, axis, keepdim=True):
    """Zeros like X with Out@GRAD added at Indices along ``axis``."""
    xp = ctx.xp
    if not keepdim:
        indices, dout = xp.expand_dims(indices, axis), xp.expand_dims(dout, axis)
    dx = xp.zeros(x.shape, dtype=dout.dtype)
    xp.add.at(dx, along(xp, indices, axis), dout)
    return dx


# ---- argsort ----------------------------------------------------------------------------------

def _argsort_infer(x, *, axis, descending):
    _axis(axis, x.shape)
    return x, x.with_dtype(INT64)


def _argsort(ctx, x, *, axis, descending):
    if x.ndim == 0:
        return x.copy(), ctx.xp.zeros((), INT64)
    order = sort_positions(ctx.xp, x, axis % x.ndim, descending)
    return ctx.xp.take_along_axis(x, order, axis=axis % x.ndim), order.astype(INT64)


register(OpDef(
    "argsort", inputs=["X"], outputs=["Out", "Indices"],
    attrs={"axis": Attr("int", -1), "descending": Attr("bool", False)},
    infer=_argsort_infer, kernel=_argsort,
    grad=grad_op("argsort_grad", inputs=("X",), outputs=("Indices",)),
    doc="Out = X sorted along axis; Indices = where each value came from (int64)"))
register(OpDef(
    "argsort_grad", inputs=["X", "Indices", "Out@GRAD"], outputs=["X@GRAD"],
    attrs={"axis": Attr("int", -1), "descending": Attr("bool", False)}, no_need_buffer=("X",),
    infer=lambda x, i, dout, **_: x.with_dtype(dout.dtype),
    kernel=lambda ctx, x, indices, dout, *, axis, descending: (
        _put_back(ctx, x, indices, dout, axis % x.ndim) if x.ndim else dout.copy()),
    doc="the gradient of argsort: Out@GRAD put back where each value came from"))

# ---- kthvalue, mode ---------------------------------------------------------------------------


def _reduced(x, axis, keepdim):
    axis = _axis(axis, x.shape)
    if not x.shape:
        return x.shape
    return tuple(x.shape[:axis]) + ((1,) if keepdim else ()) + tuple(x.shape[axis + 1:])


def _kth_infer(x, *, k, axis, keepdim):
    ax = _axis(axis, x.shape)
    if x.shape and x.shape[ax] != -1 and not 1 <= k <= x.shape[ax]:
        fail(f"k must be in 1..{x.shape[ax]} (X's dim {ax}), got {k}")
    shape = _reduced(x, axis, keepdim)
    return x.with_shape(shape), x.with_shape(shape).with_dtype(INT64)


def _kthvalue(ctx, x, *, k, axis, keepdim):
    xp, ax = ctx.xp, axis % max(x.ndim, 1)
    if x.ndim == 0:
        return x.copy(), xp.zeros((), INT64)
    pos = xp.take(sort_positions(xp, x, ax, False), [k - 1], axis=ax)
    out = xp.take_along_axis(x, pos, axis=ax)
    if not keepdim:
        out, pos = out.squeeze(ax), pos.squeeze(ax)
    return out, pos.astype(INT64)


def _mode(ctx, x, *, axis, keepdim):
    """The most frequent value per row: the smallest among the most frequent, at its last
    position (as PaddlePaddle's CPU kernel). Counting compares every pair in a row."""
    xp = ctx.xp
    ax = axis % max(x.ndim, 1)
    moved = xp.moveaxis(x, ax, -1) if x.ndim else x.reshape(1)
    rows = moved.reshape(-1, moved.shape[-1])
    ordered = xp.sort(rows, axis=1)
    counts = (ordered[:, :, None] == ordered[:, None, :]).sum(axis=2)
    value = xp.take_along_axis(ordered, xp.argmax(counts, axis=1)[:, None], axis=1)
    last = rows.shape[1] - 1 - xp.argmax((rows == value)[:, ::-1], axis=1)
    vals, pos = value.reshape(moved.shape[:-1]), last.astype(INT64).reshape(moved.shape[:-1])
    if keepdim and x.ndim:
        vals, pos = xp.expand_dims(vals, ax), xp.expand_dims(pos, ax)
    return vals, pos


def _mode_infer(x, *, axis, keepdim):
    shape = _reduced(x, axis, keepdim)
    return x.with_shape(shape), x.with_shape(shape).with_dtype(INT64)


def _kth_grad(ctx, x, indices, dout, *, axis, keepdim, **_):
    if x.ndim == 0:
        return dout.copy()
    return _put_back(ctx, x, indices, dout, axis % x.ndim, keepdim)


KTH_ATTRS = {"k": Attr("int", 1, comment="1: the smallest"), "axis": Attr("int", -1),
             "keepdim": Attr("bool", False)}
MODE_ATTRS = {"axis": Attr("int", -1), "keepdim": Attr("bool", False)}
for _type, _attrs, _infer, _kernel, _doc in (
        ("kthvalue", KTH_ATTRS, _kth_infer, _kthvalue,
         "Out = the k-th smallest value of X along axis; Indices = its position"),
        ("mode", MODE_ATTRS, _mode_infer, _mode,
         "Out = the most frequent value of X along axis (the smallest on ties); Indices = "
         "its last position")):
    register(OpDef(
        _type, inputs=["X"], outputs=["Out", "Indices"], attrs=_attrs, infer=_infer,
        kernel=_kernel, grad=grad_op(f"{_type}_grad", inputs=("X",), outputs=("Indices",)),
        doc=_doc))
    register(OpDef(
        f"{_type}_grad", inputs=["X", "Indices", "Out@GRAD"], outputs=["X@GRAD"], attrs=_attrs,
        no_need_buffer=("X",), infer=lambda x, i, dout, **_: x.with_dtype(dout.dtype),
        kernel=_kth_grad, doc=f"the gradient of {_type}: Out@GRAD put back at Indices"))

# ---- searchsorted -----------------------------------------------------------------------------


def _searchsorted_infer(seq, values, *, out_int32, right):
    if len(seq.shape) > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
        fail(f"SortedSequence's leading dims {tuple(seq.shape[:-1])} must equal Values' "
             f"{tuple(values.shape[:-1])}")
    return values.with_dtype(numpy.dtype("int32") if out_int32 else INT64)


def _searchsorted(ctx, seq, values, *, out_int32, right):
    xp, side = ctx.xp, "right" if right else "left"
    dtype = numpy.dtype("int32") if out_int32 else INT64
    if seq.ndim == 1:
        return xp.searchsorted(seq, values, side=side).astype(dtype)
    rows_s, rows_v = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
    out = xp.stack([xp.searchsorted(s, v, side=side) for s, v in zip(rows_s, rows_v)])
    return out.reshape(values.shape).astype(dtype)


register(OpDef(
    "searchsorted", inputs=["SortedSequence", "Values"], outputs=["Out"],
    attrs={"out_int32": Attr("bool", False), "right": Attr("bool", False,
                                                           comment="the last fitting place")},
    infer=_searchsorted_infer, kernel=_searchsorted,
    doc="Out = where each of Values would go in SortedSequence (along its last dim) to keep "
        "it sorted"))

# ---- where_index, masked_select ---------------------------------------------------------------

register(OpDef(
    "where_index", inputs=["Condition"], outputs=["Out"],
    infer=lambda cond: Meta((-1, len(cond.shape)), INT64, 0),
    kernel=lambda ctx, cond: ctx.xp.stack(ctx.xp.nonzero(cond), axis=-1).astype(INT64)
    if cond.ndim else ctx.xp.zeros((int(bool(cond)), 0), INT64),
    doc="Out = the positions of Condition's true (nonzero) elements, one row each (int64)"))


def _masked_infer(x, mask):
    if mask.dtype != numpy.dtype(bool):
        fail(f"Mask must be a bool tensor, got {mask.dtype}")
    if len(x.shape) == len(mask.shape) and any(
            a != b and -1 not in (a, b) and 1 not in (a, b) for a, b in zip(x.shape, mask.shape)):
        fail(f"X and Mask must broadcast together, got X {tuple(x.shape)} and Mask "
             f"{tuple(mask.shape)}")
    return x.with_shape((-1,))


def _masked_grad(ctx, x, mask, dout):
    xp = ctx.xp
    full = xp.broadcast_shapes(x.shape, mask.shape) if hasattr(xp, "broadcast_shapes") \
        else numpy.broadcast_shapes(x.shape, mask.shape)
    dx = xp.zeros(full, dtype=dout.dtype)
    dx[xp.broadcast_to(mask, full)] = dout
    extra = len(full) - x.ndim
    dx = dx.sum(axis=tuple(range(extra))) if extra else dx
    axes = tuple(i for i, (a, b) in enumerate(zip(x.shape, dx.shape)) if a == 1 and b != 1)
    return dx.sum(axis=axes, keepdims=True) if axes else dx


def _masked_select(ctx, x, mask):
    full = numpy.broadcast_shapes(x.shape, mask.shape)
    return ctx.xp.broadcast_to(x, full)[ctx.xp.broadcast_to(mask, full)]


register(OpDef(
    "masked_select", inputs=["X", "Mask"], outputs=["Y"], infer=_masked_infer,
    kernel=_masked_select,
    grad=grad_op("masked_select_grad", inputs=("X", "Mask"), out_grads=("Y",)),
    doc="Y = the elements of X where Mask is true, in order, as one row"))
register(OpDef(
    "masked_select_grad", inputs=["X", "Mask", "Y@GRAD"], outputs=["X@GRAD"],
    no_need_buffer=("X",), infer=lambda x, mask, dout: x.with_dtype(dout.dtype),
    kernel=_masked_grad, doc="the gradient of masked_select: Y@GRAD put back where Mask holds"))
