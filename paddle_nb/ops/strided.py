"""Stepping through a tensor: ``strided_slice``, ``flip`` and ``roll``.

``strided_slice`` is ``slice`` with a step per axis (``x[..., ::2]``, ``x[::-1]``).
PaddlePaddle writes an omitted bound as a sentinel: 2147483647 for "from the far end" and,
with a negative step, ``end = -1`` for "through index 0" (not Python's "the last element").
:func:`axis_range` turns one (start, end, step) into the positions it visits, so the forward
pass, its gradient and ``set_value`` (paddle_nb/ops/set_value.py) read bounds one way.
``flip`` reverses axes and ``roll`` rotates them; each is its own gradient's mirror image.

>>> list(axis_range(5, 2147483647, -1, -1)), list(axis_range(5, 1, -1, 2))
([4, 3, 2, 1, 0], [1, 3])
"""

from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import REQUIRED, Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import ints_at_run

__all__ = ["axis_range", "strided_boxes", "strided_shape"]


def axis_range(size, start, end, step):
    """The positions ``start:end:step`` visits along an axis of ``size``, PaddlePaddle's way:
    negative bounds count from the end, except ``end == -1`` with a negative step (through 0)."""
    if step == 0:
        fail("a step (stride) of 0 is not allowed")
    if start < 0:
        start += size
    if end < 0 and not (end == -1 and step < 0):
        end += size
    if step > 0:
        start, end = min(max(start, 0), size), min(max(end, 0), size)
    else:
        start, end = min(max(start, -1), size - 1), min(max(end, -1), size - 1)
    return range(start, end, step)


def strided_boxes(shape, axes, starts, ends, steps, what="Input"):
    """{axis: python slice} for each stepped axis of ``shape`` (its dims must be known)."""
    if not len(axes) == len(starts) == len(ends) == len(steps):
        fail(f"axes, starts, ends and strides must have one length, got {list(axes)}, "
             f"{list(starts)}, {list(ends)}, {list(steps)}")
    boxes = {}
    for ax, s, e, st in zip(axes, starts, ends, steps):
        if not -len(shape) <= ax < len(shape):
            fail(f"axes {list(axes)} are out of range for {what} of shape {tuple(shape)}")
        r = axis_range(shape[ax % len(shape)], s, e, st)
        stop = r.stop if r.stop >= 0 else None
        boxes[ax % len(shape)] = slice(r.start, stop, r.step)
    return boxes


def strided_shape(shape, axes, starts, ends, steps, decrease_axis, what="Input"):
    """The shape strided_slice gives ``shape`` (-1 stays unknown; decreased axes dropped)."""
    out = list(shape)
    for ax, s, e, st in zip(axes, starts, ends, steps):
        if not -len(shape) <= ax < len(shape):
            fail(f"axes {list(axes)} are out of range for {what} of shape {tuple(shape)}")
        if out[ax % len(shape)] != -1:
            out[ax % len(shape)] = len(axis_range(shape[ax % len(shape)], s, e, st))
    norm = {d % len(shape) for d in decrease_axis}
    for d in norm:
        if out[d] not in (1, -1):
            fail(f"decrease_axis {list(decrease_axis)} must name axes of size 1, but the slice "
                 f"of {what} of shape {tuple(shape)} has shape {tuple(out)}")
    return tuple(d for i, d in enumerate(out) if i not in norm)


# ---- strided_slice ----------------------------------------------------------------------------

STRIDED_ATTRS = {
    "axes": Attr("ints", REQUIRED, comment="the axes stepped through"),
    "starts": Attr("ints", [], comment="2147483647: from the far end"),
    "ends": Attr("ints", [], comment="exclusive; -1 with a negative stride: through index 0"),
    "strides": Attr("ints", [], comment="the step per axis (negative: backwards)"),
    "infer_flags": Attr("ints", [], comment="accepted; -1 marks a bound a tensor gives"),
    "decrease_axis": Attr("ints", [], comment="axes of size 1 to drop"),
}
STRIDED_TENSORS = [Slot(n, dispensable=True, duplicable=n.endswith("List")) for n in (
    "StartsTensor", "StartsTensorList", "EndsTensor", "EndsTensorList",
    "StridesTensor", "StridesTensorList")]


def _strided_infer(x, *tensors, axes, starts, ends, strides, decrease_axis, infer_flags):
    shape = list(x.shape)
    if any(t for t in tensors):         # a tensor decides some bound: those axes are unknown
        for ax in axes:
            if -len(shape) <= ax < len(shape):
                shape[ax % len(shape)] = -1
    return x.with_shape(strided_shape(tuple(shape), axes, starts, ends, strides, decrease_axis))


def _bounds(starts, ends, strides, st, stl, et, etl, sst, sstl):
    return ints_at_run(starts, st, stl), ints_at_run(ends, et, etl), ints_at_run(strides, sst, sstl)


def _box(x_shape, axes, bounds):
    boxes = strided_boxes(x_shape, axes, *bounds)
    return tuple(boxes.get(i, slice(None)) for i in range(len(x_shape)))


def _strided(ctx, x, *tensors, axes, starts, ends, strides, decrease_axis, infer_flags):
    bounds = _bounds(starts, ends, strides, *tensors)
    out = x[_box(x.shape, axes, bounds)]
    starts, ends, strides = bounds
    return out.reshape(strided_shape(x.shape, axes, starts, ends, strides, decrease_axis))


def _strided_grad(ctx, x, *rest, axes, starts, ends, strides, decrease_axis, infer_flags):
    *tensors, dout = rest
    bounds = _bounds(starts, ends, strides, *tensors)
    box = _box(x.shape, axes, bounds)
    dx = ctx.xp.zeros(x.shape, dtype=dout.dtype)
    dx[box] = dout.reshape(dx[box].shape)
    return dx


register(OpDef(
    "strided_slice", inputs=["Input", *STRIDED_TENSORS], outputs=["Out"], attrs=STRIDED_ATTRS,
    infer=_strided_infer, kernel=_strided,
    grad=grad_op("strided_slice_grad", inputs=("Input", *(t.name for t in STRIDED_TENSORS)),
                 in_grads=("Input",)),
    doc="Out = Input[starts:ends:strides] along each of axes (x[..., ::2], x[::-1])"))
register(OpDef(
    "strided_slice_grad", inputs=["Input", *STRIDED_TENSORS, "Out@GRAD"], outputs=["Input@GRAD"],
    attrs=STRIDED_ATTRS,
    infer=lambda x, *rest, **_: Meta(tuple(x.shape), rest[-1].dtype, x.lod_level),
    kernel=_strided_grad, no_need_buffer=("Input",),
    doc="the gradient of strided_slice: Out@GRAD placed back at the visited positions"))

# ---- flip -------------------------------------------------------------------------------------


def _axes(axis, rank, what="axis"):
    for a in axis:
        if not -max(rank, 1) <= a < max(rank, 1):
            fail(f"{what} {list(axis)} is out of range for X of rank {rank}")
    return tuple(a % rank for a in axis) if rank else ()


register(OpDef(
    "flip", inputs=["X"], outputs=["Out"],
    attrs={"axis": Attr("ints", REQUIRED, comment="the axes reversed")},
    infer=lambda x, *, axis: (_axes(axis, len(x.shape)), x)[1],
    kernel=lambda ctx, x, *, axis: ctx.xp.flip(x, _axes(axis, x.ndim)) if x.ndim else x.copy(),
    grad=lambda g: [OpSpec("flip", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")},
                           dict(g.attrs))],
    doc="Out = X reversed along each of axis (its gradient is flip again)"))

# ---- roll -------------------------------------------------------------------------------------


def _roll(xp, x, shifts, axis, sign=1):
    shifts = [sign * s for s in shifts]
    if not axis:                        # no axis: X is rolled as one flat row
        return xp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return xp.roll(x, shifts, axis=tuple(a % x.ndim for a in axis))


def _roll_infer(x, shifts_t, *, shifts, axis):
    if shifts_t is None and axis and len(shifts) != len(axis):
        fail(f"shifts and axis must have one length, got {list(shifts)} and {list(axis)}")
    if shifts_t is None and not axis and len(shifts) != 1:
        fail(f"without axis, shifts must hold one value, got {list(shifts)}")
    _axes(axis, len(x.shape))
    return x


ROLL_ATTRS = {"shifts": Attr("longs", [], comment="how far each axis is rotated"),
              "axis": Attr("longs", [], comment="[]: X rolled as one flat row")}
register(OpDef(
    "roll", inputs=["X", Slot("ShiftsTensor", dispensable=True)], outputs=["Out"],
    attrs=ROLL_ATTRS, infer=_roll_infer,
    kernel=lambda ctx, x, st, *, shifts, axis: _roll(ctx.xp, x, ints_at_run(shifts, st), axis),
    grad=grad_op("roll_grad", inputs=("X", "ShiftsTensor")),
    doc="Out = X rotated by shifts along axis (elements pushed off one end come back in)"))
register(OpDef(
    "roll_grad", inputs=["X", Slot("ShiftsTensor", dispensable=True), "Out@GRAD"],
    outputs=["X@GRAD"], attrs=ROLL_ATTRS, no_need_buffer=("X",),
    infer=lambda x, st, dout, **_: x.with_dtype(dout.dtype),
    kernel=lambda ctx, x, st, dout, *, shifts, axis: _roll(
        ctx.xp, dout, ints_at_run(shifts, st), axis, sign=-1),
    doc="the gradient of roll: Out@GRAD rolled back"))
