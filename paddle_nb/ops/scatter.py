"""Writing by index: ``scatter``, ``scatter_nd_add``, ``index_add``, ``put_along_axis``, and
their readers ``take_along_axis`` and ``index_sample``.

Each scatter op is a copy of X with some positions overwritten or added to; its gradient
splits Out@GRAD in two: what reached X (all of it for an add, all but the overwritten
positions for an assignment) and what reached the updates (Out@GRAD gathered at the same
positions). The readers are gathers whose gradients add Out@GRAD back into zeros: an index
may repeat, so ``add.at``, never plain assignment.
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["along"]


def _int_index(m, slot):
    if m.dtype.kind not in "iu":
        fail(f"{slot} must be an integer tensor (int32 or int64), got {m.dtype}")


def _axis(axis, rank, what="X"):
    if not -max(rank, 1) <= axis < max(rank, 1):
        fail(f"axis {axis} is out of range for {what} of rank {rank}")
    return axis % rank if rank else 0


def _take_rows(xp, a, index, axis=0):
    return xp.take(a, index.reshape(-1), axis=axis)


# ---- scatter ----------------------------------------------------------------------------------

def _scatter_infer(x, ids, updates, *, overwrite):
    _int_index(ids, "Ids")
    if len(ids.shape) > 1 and not (len(ids.shape) == 2 and ids.shape[1] in (1, -1)):
        fail(f"Ids must be 0-D, 1-D or of shape (n, 1), got shape {tuple(ids.shape)}")
    if tuple(updates.shape[1:]) != tuple(x.shape[1:]) and len(ids.shape) > 0 \
            and -1 not in updates.shape[1:] + x.shape[1:]:
        fail(f"Updates must be shaped (len(Ids),) + X.shape[1:] = (n, "
             f"{', '.join(map(str, x.shape[1:]))}), got {tuple(updates.shape)}")
    return x


def _scatter(ctx, x, ids, updates, *, overwrite):
    out, ids = x.copy(), ids.reshape(-1)
    updates = updates.reshape((len(ids),) + x.shape[1:])
    if overwrite:
        out[ids] = updates       # a repeated id: the last update wins, as on PaddlePaddle's CPU
    else:
        out[ids] = 0
        ctx.xp.add.at(out, ids, updates)
    return out


def _scatter_grad(ctx, ids, updates, dout, *, overwrite):
    dx = None
    if ctx.want(0):
        dx = dout.copy()
        dx[ids.reshape(-1)] = 0
    du = _take_rows(ctx.xp, dout, ids).reshape(updates.shape) if ctx.want(1) else None
    return dx, du


register(OpDef(
    "scatter", inputs=["X", "Ids", "Updates"], outputs=["Out"],
    attrs={"overwrite": Attr("bool", True, comment="assign the rows (else zero them, then add)")},
    infer=_scatter_infer, kernel=_scatter,
    grad=grad_op("scatter_grad", inputs=("Ids", "Updates"), in_grads=("X", "Updates")),
    doc="Out = X with rows Ids replaced by (or, overwrite=False, summed from) Updates"))
register(OpDef(
    "scatter_grad", inputs=["Ids", "Updates", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Updates@GRAD", dispensable=True)],
    attrs={"overwrite": Attr("bool", True)}, no_need_buffer=("Updates",),
    infer=lambda ids, u, dout, **_: (dout, u.with_dtype(dout.dtype)), kernel=_scatter_grad,
    doc="the gradient of scatter: Out@GRAD but rows Ids to X; rows Ids to Updates"))

# ---- scatter_nd_add ---------------------------------------------------------------------------


def _positions(index):
    return tuple(index[..., j] for j in range(index.shape[-1]))


def _nd_infer(x, index, updates):
    _int_index(index, "Index")
    if not index.shape or index.shape[-1] > len(x.shape):
        fail(f"Index's last dim must be at most X's rank {len(x.shape)}, got Index of shape "
             f"{tuple(index.shape)}")
    want = tuple(index.shape[:-1]) + tuple(x.shape[index.shape[-1]:])
    if len(want) != len(updates.shape) or any(
            a != b and -1 not in (a, b) for a, b in zip(want, updates.shape)):
        fail(f"Updates must have shape Index.shape[:-1] + X.shape[Index.shape[-1]:] = {want}, "
             f"got {tuple(updates.shape)}")
    return x


def _nd_add(ctx, x, index, updates):
    out = x.copy()
    ctx.xp.add.at(out, _positions(index), updates)
    return out


register(OpDef(
    "scatter_nd_add", inputs=["X", "Index", "Updates"], outputs=["Out"], infer=_nd_infer,
    kernel=_nd_add,
    grad=grad_op("scatter_nd_add_grad", inputs=("Index", "Updates"), in_grads=("X", "Updates")),
    doc="Out = X with each Updates[i] added at the position Index[i] (its last dim)"))
register(OpDef(
    "scatter_nd_add_grad", inputs=["Index", "Updates", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Updates@GRAD", dispensable=True)],
    no_need_buffer=("Updates",),
    infer=lambda index, u, dout: (dout, u.with_dtype(dout.dtype)),
    kernel=lambda ctx, index, u, dout: (dout.copy() if ctx.want(0) else None,
                                        dout[_positions(index)] if ctx.want(1) else None),
    doc="the gradient of scatter_nd_add: Out@GRAD to X; Out@GRAD at Index to Updates"))

# ---- index_add --------------------------------------------------------------------------------


def _index_add_infer(x, index, value, *, axis):
    _int_index(index, "Index")
    _axis(axis, len(x.shape))                 # checks axis
    if len(value.shape) != len(x.shape):
        fail(f"AddValue must have X's rank {len(x.shape)}, got shape {tuple(value.shape)}")
    return x


def _index_add(ctx, x, index, value, *, axis):
    out = x.copy()
    ax = _axis(axis, x.ndim)
    ctx.xp.add.at(ctx.xp.moveaxis(out, ax, 0), index.reshape(-1),
                  ctx.xp.moveaxis(value.astype(x.dtype, copy=False), ax, 0))
    return out


register(OpDef(
    "index_add", inputs=["X", "Index", "AddValue"], outputs=["Out"],
    attrs={"axis": Attr("int", 0, comment="the axis Index points along")},
    infer=_index_add_infer, kernel=_index_add,
    grad=grad_op("index_add_grad", inputs=("Index", "AddValue"), in_grads=("X", "AddValue")),
    doc="Out = X with AddValue's slices added at positions Index along axis"))
register(OpDef(
    "index_add_grad", inputs=["Index", "AddValue", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("AddValue@GRAD", dispensable=True)],
    attrs={"axis": Attr("int", 0)}, no_need_buffer=("AddValue",),
    infer=lambda index, v, dout, **_: (dout, v.with_dtype(dout.dtype)),
    kernel=lambda ctx, index, v, dout, *, axis: (
        dout.copy() if ctx.want(0) else None,
        _take_rows(ctx.xp, dout, index, _axis(axis, dout.ndim)) if ctx.want(1) else None),
    doc="the gradient of index_add: Out@GRAD to X; its slices at Index to AddValue"))

# ---- take_along_axis / put_along_axis ---------------------------------------------------------


def _along_infer(x, index, axis, what="Input"):
    _int_index(index, "Index")
    _axis(axis, len(x.shape), what)
    if len(index.shape) != len(x.shape):
        fail(f"Index must have {what}'s rank {len(x.shape)}, got shape {tuple(index.shape)}")


def _take_along_infer(x, index, *, Axis):
    _along_infer(x, index, Axis)
    return x.with_shape(tuple(index.shape))


def along(xp, index, axis):
    """The fancy index that reads ``index`` along ``axis`` and every other position as it
    is: broadcasting aranges, one per axis (NumPy's ``indices(sparse=True)``, which CuPy
    lacks), with ``index`` itself at ``axis``."""
    grid = []
    for k, n in enumerate(index.shape):
        shape = [1] * index.ndim
        shape[k] = n
        grid.append(index if k == axis else xp.arange(n).reshape(shape))
    return tuple(grid)


def _multiply_along(xp, out, index, values, axis):
    """``out[..., index[i], ...] *= values[i]`` along ``axis``, repeats multiplying in turn.
    NumPy has ``multiply.at``; CuPy has ``add.at`` but no ``multiply.at``, so there one slice of
    ``index`` along ``axis`` at a time: within a slice no two entries name the same place, and
    a plain indexed multiply is exact."""
    if xp is numpy:
        xp.multiply.at(out, along(xp, index, axis), values)
        return
    for j in range(index.shape[axis]):
        part = along(xp, index.take([j], axis=axis), axis)
        out[part] = out[part] * values.take([j], axis=axis)


def _add_along(xp, out, index, values, axis):
    """``out[..., index[i], ...] += values[i]`` along ``axis``, repeats adding up."""
    xp.add.at(out, along(xp, index, axis), values)


def _take_along_grad(ctx, x, index, dout, *, Axis):
    dx = ctx.xp.zeros(x.shape, dtype=dout.dtype)
    _add_along(ctx.xp, dx, index, dout, Axis % x.ndim)
    return dx


register(OpDef(
    "take_along_axis", inputs=["Input", "Index"], outputs=["Result"],
    attrs={"Axis": Attr("int", 0, comment="the axis Index points along")},
    infer=_take_along_infer,
    kernel=lambda ctx, x, index, *, Axis: ctx.xp.take_along_axis(x, index, axis=Axis % x.ndim),
    grad=grad_op("take_along_axis_grad", inputs=("Input", "Index"), out_grads=("Result",),
                 in_grads=("Input",)),
    doc="Result[..., i, ...] = Input[..., Index[..., i, ...], ...] along Axis"))
register(OpDef(
    "take_along_axis_grad", inputs=["Input", "Index", "Result@GRAD"], outputs=["Input@GRAD"],
    attrs={"Axis": Attr("int", 0)}, no_need_buffer=("Input",),
    infer=lambda x, index, dout, **_: x.with_dtype(dout.dtype), kernel=_take_along_grad,
    doc="the gradient of take_along_axis: Result@GRAD added back at Index"))

PUT_ATTRS = {
    "Axis": Attr("int", 0, comment="the axis Index points along"),
    "Reduce": Attr("str", "assign", check=lambda v: None if v in (
        "assign", "add", "mul", "multiply") else "expected assign, add, mul or multiply"),
    "Include_self": Attr("bool", True, comment="paddle_nb supports True only"),
}


def _put_along_infer(x, index, value, *, Axis, Reduce, Include_self):
    _along_infer(x, index, Axis)
    if not Include_self:
        fail("Include_self=False is not supported by paddle_nb's put_along_axis")
    return x


def _put_along(ctx, x, index, value, *, Axis, Reduce, Include_self):
    xp, axis = ctx.xp, Axis % x.ndim
    out = x.copy()
    value = xp.broadcast_to(value.astype(x.dtype, copy=False), index.shape)
    if Reduce == "add":
        _add_along(xp, out, index, value, axis)
    elif Reduce in ("mul", "multiply"):
        _multiply_along(xp, out, index, value, axis)
    else:
        out[along(xp, index, axis)] = value
    return out


def _put_along_grad(ctx, index, x, result, dout, value, *, Axis, Reduce, Include_self):
    xp, axis = ctx.xp, Axis % dout.ndim
    if Reduce not in ("assign", "add"):
        fail(f"put_along_axis_grad supports Reduce 'assign' and 'add' only, got {Reduce!r}")
    dx = None
    if ctx.want(0):
        dx = dout.copy()
        if Reduce == "assign":
            dx[along(xp, index, axis)] = 0
    dv = xp.take_along_axis(dout, index, axis=axis) if ctx.want(1) else None
    return dx, dv


register(OpDef(
    "put_along_axis", inputs=["Input", "Index", "Value"], outputs=["Result"], attrs=PUT_ATTRS,
    infer=_put_along_infer, kernel=_put_along,
    grad=grad_op("put_along_axis_grad", inputs=("Index", "Input", "Value"), outputs=("Result",),
                 out_grads=("Result",), in_grads=("Input", "Value")),
    doc="Result = Input with Value put (or added, multiplied) at Index along Axis"))
register(OpDef(
    "put_along_axis_grad", inputs=["Index", "Input", "Result", "Result@GRAD", "Value"],
    outputs=[Slot("Input@GRAD", dispensable=True), Slot("Value@GRAD", dispensable=True)],
    attrs=PUT_ATTRS, no_need_buffer=("Input", "Result"),
    infer=lambda index, x, r, dout, v, **_: (dout, v.with_dtype(dout.dtype)),
    kernel=_put_along_grad,
    doc="the gradient of put_along_axis: Result@GRAD (less the put positions, for assign) to "
        "Input; Result@GRAD at Index to Value"))

# ---- index_sample -----------------------------------------------------------------------------


def _index_sample_infer(x, index):
    _int_index(index, "Index")
    if len(x.shape) != 2 or len(index.shape) != 2:
        fail(f"X and Index must be 2-D, got X {tuple(x.shape)} and Index {tuple(index.shape)}")
    if -1 not in (x.shape[0], index.shape[0]) and x.shape[0] != index.shape[0]:
        fail(f"X and Index must have one number of rows, got X {tuple(x.shape)} and Index "
             f"{tuple(index.shape)}")
    return x.with_shape(tuple(index.shape))


register(OpDef(
    "index_sample", inputs=["X", "Index"], outputs=["Out"], infer=_index_sample_infer,
    kernel=lambda ctx, x, index: ctx.xp.take_along_axis(x, index, axis=1),
    grad=grad_op("index_sample_grad", inputs=("X", "Index")),
    doc="Out[i, j] = X[i, Index[i, j]]: each row picks its own columns"))
register(OpDef(
    "index_sample_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"],
    no_need_buffer=("X",), infer=lambda x, index, dout: x.with_dtype(dout.dtype),
    kernel=lambda ctx, x, index, dout: _take_along_grad(ctx, x, index, dout, Axis=1),
    doc="the gradient of index_sample: Out@GRAD added back at each row's columns"))
