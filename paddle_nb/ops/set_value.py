"""Assigning into a region: ``set_value`` (``x[1:3, 0] = v``).

PaddlePaddle 2.6 writes ``paddle.static.setitem(x, index, value)`` (and ``x[index] = value``
in a converted function) as one ``set_value`` op: Out is a copy of Input whose region
``starts:ends:steps`` along ``axes`` holds the value, broadcast. The value is either a
tensor (ValueTensor) or constants in the ``values`` attribute with their ``shape`` and
``dtype``. ``decrease_axes`` lists the region's axes an integer index dropped (``x[:, 0]``
assigns a value shaped like ``x[:, 0]``), ``none_axes`` the ``None`` entries of the index.
Bounds are read as strided_slice reads them (paddle_nb/ops/strided.py).

The gradient (``set_value_grad``) is the mirror image: Out@GRAD flows to Input except in the
region, which was overwritten, and the region's gradient, summed over the broadcast, goes to
ValueTensor.

PaddlePaddle stores ``values`` as SCALARS (typed scalars); until paddle_nb's proto reads that
attribute type, ``values`` is declared as float64s, which holds the same numbers.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.strided import strided_boxes, strided_shape
from paddle_nb.ops.machinery.tensor_args import ints_at_run

__all__ = ["SET_VALUE_ATTRS"]

SET_VALUE_ATTRS = {
    "dtype": Attr("dtype", "float32", comment="the dtype of the constant values"),
    "axes": Attr("longs", [], comment="the axes the region is cut along"),
    "starts": Attr("longs", []), "ends": Attr("longs", []),
    "steps": Attr("longs", [], comment="read as strided_slice's strides"),
    "decrease_axes": Attr("longs", [], comment="region axes an integer index dropped"),
    "none_axes": Attr("longs", [], comment="where the index had None (a new axis of size 1)"),
    "values": Attr("scalars", [], comment="the constant value(s), when no ValueTensor"),
    "shape": Attr("longs", [], comment="the shape of the constant values"),
}
BOUND_LISTS = [Slot(n, duplicable=True, dispensable=True)
               for n in ("StartsTensorList", "EndsTensorList", "StepsTensorList")]


def _region(shape, axes, bounds):
    boxes = strided_boxes(shape, axes, *bounds)
    return tuple(boxes.get(i, slice(None)) for i in range(len(shape)))


def _value_shape(region_shape, decrease_axes):
    """The shape a value is broadcast to: the region without its decreased axes."""
    drop = {d % len(region_shape) for d in decrease_axes} if region_shape else set()
    return tuple(d for i, d in enumerate(region_shape) if i not in drop)


def _broadcastable(value_shape, target):
    value_shape = list(value_shape)
    while len(value_shape) > len(target) and value_shape[0] in (1, -1):
        value_shape.pop(0)              # leading 1s (None axes) carry nothing
    if len(value_shape) > len(target):
        return False
    return all(v in (1, -1) or t in (v, -1)
               for v, t in zip(reversed(value_shape), reversed(target)))


def _set_value_infer(x, value, starts_l, ends_l, steps_l, *, axes, starts, ends, steps,
                     decrease_axes, none_axes, values, shape, dtype):
    if starts_l or ends_l or steps_l:
        return x                    # bounds known at run time only
    region = strided_shape(x.shape, axes, starts, ends, steps, [], what="Input")
    target = _value_shape(region, decrease_axes)
    vshape = value.shape if value is not None else tuple(shape)
    if not _broadcastable(vshape, target):
        fail(f"the value of shape {tuple(vshape)} cannot be broadcast to the assigned region "
             f"of shape {target} (Input {tuple(x.shape)}, axes {list(axes)})")
    return x


def _bounds(starts, ends, steps, starts_l, ends_l, steps_l):
    return ints_at_run(starts, None, starts_l), ints_at_run(ends, None, ends_l), \
        ints_at_run(steps, None, steps_l)


def _squeeze_lead(v, ndim):
    while v.ndim > ndim and v.shape[0] == 1:
        v = v.reshape(v.shape[1:])
    return v


def _set_value(ctx, x, value, starts_l, ends_l, steps_l, *, axes, starts, ends, steps,
               decrease_axes, none_axes, values, shape, dtype):
    xp = ctx.xp
    box = _region(x.shape, axes, _bounds(starts, ends, steps, starts_l, ends_l, steps_l))
    out = x.copy()
    region = out[box].shape
    if value is None:
        value = xp.asarray(values, dtype=dtype).reshape(shape)
    target = _value_shape(region, decrease_axes)
    value = _squeeze_lead(value, len(target))
    out[box] = xp.broadcast_to(value.astype(x.dtype, copy=False), target).reshape(region)
    return out


def _unbroadcast(xp, g, shape):
    """``g`` summed down to ``shape`` (undoing a broadcast); leading 1s of ``shape`` restored."""
    core = _squeeze_lead(xp.zeros(shape, dtype=g.dtype), g.ndim).shape
    extra = g.ndim - len(core)
    g = g.sum(axis=tuple(range(extra))) if extra > 0 else g
    axes = tuple(i for i, (c, d) in enumerate(zip(core, g.shape)) if c == 1 and d != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _set_value_grad(ctx, value, starts_l, ends_l, steps_l, dout, *, axes, starts, ends, steps,
                    decrease_axes, none_axes, values, shape, dtype):
    xp = ctx.xp
    box = _region(dout.shape, axes, _bounds(starts, ends, steps, starts_l, ends_l, steps_l))
    dx = None
    if ctx.want(0):
        dx = dout.copy()
        dx[box] = 0
    dv = None
    if ctx.want(1) and value is not None:
        region = dout[box]
        dv = _unbroadcast(xp, region.reshape(_value_shape(region.shape, decrease_axes)),
                          value.shape).astype(value.dtype, copy=False)
    return dx, dv


register(OpDef(
    "set_value", inputs=["Input", Slot("ValueTensor", dispensable=True), *BOUND_LISTS],
    outputs=["Out"], attrs=SET_VALUE_ATTRS, infer=_set_value_infer, kernel=_set_value,
    grad=grad_op("set_value_grad", inputs=("ValueTensor", *(s.name for s in BOUND_LISTS)),
                 in_grads=("Input", "ValueTensor")),
    doc="Out = Input with its region starts:ends:steps along axes set to the value (broadcast)"))
register(OpDef(
    "set_value_grad", inputs=[Slot("ValueTensor", dispensable=True), *BOUND_LISTS, "Out@GRAD"],
    outputs=[Slot("Input@GRAD", dispensable=True), Slot("ValueTensor@GRAD", dispensable=True)],
    attrs=SET_VALUE_ATTRS,
    infer=lambda value, s, e, st, dout, **_: (
        dout, None if value is None else Meta(tuple(value.shape), dout.dtype, 0)),
    kernel=_set_value_grad,
    doc="the gradient of set_value: Out@GRAD outside the region to Input, inside to ValueTensor"))

# ---- index_put: assigning at positions a tensor gives (x[idx] = v, x[mask] = v) ---------------


def _positions(xp, indices):
    """NumPy's advanced index for ``indices``: one bool mask, or int tensors, one per leading
    dim of x (broadcast together)."""
    if len(indices) == 1 and indices[0].dtype == bool:
        return xp.nonzero(indices[0])
    return tuple(i.astype("int64", copy=False) for i in indices)


def _index_put_infer(x, indices, value, *, accumulate):
    for k, m in enumerate(indices):
        if m.dtype.kind not in "iub":
            fail(f"indices must be int or bool tensors, got {m.dtype} at {k}")
    if value.dtype != x.dtype:
        fail(f"value must have x's dtype {x.dtype}, got {value.dtype}")
    return x


def _index_put(ctx, x, indices, value, *, accumulate):
    xp = ctx.xp
    out = x.copy()
    where = _positions(xp, indices)
    picked = out[where].shape
    value = xp.broadcast_to(value, picked) if value.shape != picked else value
    if accumulate:
        xp.add.at(out, where, value)
    else:
        out[where] = value
    return out


def _index_put_grad(ctx, x, indices, value, dout, *, accumulate):
    xp = ctx.xp
    where = _positions(xp, indices)
    dx = None
    if ctx.want(0):
        dx = dout.copy()
        if not accumulate:
            dx[where] = 0
    dv = _unbroadcast(xp, dout[where], value.shape) if ctx.want(1) else None
    return dx, dv


register(OpDef(
    "index_put", inputs=["x", Slot("indices", duplicable=True), "value"], outputs=["out"],
    attrs={"accumulate": Attr("bool", False, comment="add value instead of assigning it")},
    infer=_index_put_infer, kernel=_index_put,
    grad=grad_op("index_put_grad", inputs=("x", "indices", "value"), out_grads=("out",),
                 in_grads=("x", "value")),
    doc="out = x with value (broadcast) put at the positions indices give (x[indices] = value)"))
register(OpDef(
    "index_put_grad", inputs=["x", Slot("indices", duplicable=True), "value", "out@GRAD"],
    outputs=[Slot("x@GRAD", dispensable=True), Slot("value@GRAD", dispensable=True)],
    attrs={"accumulate": Attr("bool", False)}, no_need_buffer=("x",),
    infer=lambda x, i, v, dout, **_: (x.with_dtype(dout.dtype), v.with_dtype(dout.dtype)),
    kernel=_index_put_grad,
    doc="the gradient of index_put: out@GRAD (less the put positions) to x; out@GRAD at them, "
        "summed over the broadcast, to value"))
