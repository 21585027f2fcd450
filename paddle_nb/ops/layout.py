"""Rearranging a tensor's elements: ``unbind``, ``unstack``, ``meshgrid``, ``diag_v2``,
``diagonal``, ``repeat_interleave`` and ``crop_tensor``.

Each output element is one input element (or a fill), so every gradient is the same
rearrangement run backwards: pieces stacked again (unbind's gradient is PaddlePaddle's
``stack``), broadcast copies summed (meshgrid), a diagonal written back into zeros
(diagonal), repeated rows summed (repeat_interleave), a cropped box placed back (crop).
"""

from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import host_ints, ints_at_build, ints_at_run

__all__ = []


def _axis(axis, shape, what="X"):
    rank = len(shape)
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for {what} of shape {tuple(shape)}")
    return axis % rank


# ---- unbind, unstack --------------------------------------------------------------------------

def _pieces_infer(x, axis, num=None):
    ax = _axis(axis, x.shape)
    n = x.shape[ax]
    if n == -1:
        fail(f"X's dim {ax} must be known to cut X into pieces, got shape {tuple(x.shape)}")
    if num is not None and num not in (n, -1) and num > 0:
        fail(f"num ({num}) must equal X's dim {ax} ({n})")
    piece = x.with_shape(tuple(x.shape[:ax]) + tuple(x.shape[ax + 1:]))
    return [piece] * n


def _pieces(x, axis):
    ax = axis % x.ndim
    return [x[(slice(None),) * ax + (i,)].copy() for i in range(x.shape[ax])]


register(OpDef(
    "unbind", inputs=["X"], outputs=[Slot("Out", duplicable=True)],
    attrs={"axis": Attr("int", 0)}, infer=lambda x, *, axis: _pieces_infer(x, axis),
    kernel=lambda ctx, x, *, axis: _pieces(x, axis),
    grad=lambda g: [OpSpec("stack", {"X": g.output_grad("Out")}, {"Y": g.input_grad("X")},
                           {"axis": g.attrs["axis"]})],
    doc="Out = the slices of X along axis, that axis removed (its gradient is stack)"))
register(OpDef(
    "unstack", inputs=["X"], outputs=[Slot("Y", duplicable=True)],
    attrs={"axis": Attr("int", 0), "num": Attr("int", 0, comment="the number of pieces")},
    infer=lambda x, *, axis, num: _pieces_infer(x, axis, num),
    kernel=lambda ctx, x, *, axis, num: _pieces(x, axis),
    grad=grad_op("unstack_grad", inputs=(), out_grads=("Y",)),
    doc="Y = the slices of X along axis, that axis removed"))
register(OpDef(
    "unstack_grad", inputs=[Slot("Y@GRAD", duplicable=True)], outputs=["X@GRAD"],
    attrs={"axis": Attr("int", 0), "num": Attr("int", 0)},
    infer=lambda dys, *, axis, num: dys[0].with_shape(
        tuple(dys[0].shape[:axis % (len(dys[0].shape) + 1)]) + (len(dys),)
        + tuple(dys[0].shape[axis % (len(dys[0].shape) + 1):])),
    kernel=lambda ctx, dys, *, axis, num: ctx.xp.stack(dys, axis=axis),
    doc="the gradient of unstack: the Y@GRAD pieces stacked along axis"))

# ---- meshgrid ---------------------------------------------------------------------------------


def _meshgrid_infer(xs):
    for i, m in enumerate(xs):
        if len(m.shape) > 1:
            fail(f"each X must be 0-D or 1-D, got shape {tuple(m.shape)} at {i}")
    shape = tuple(m.shape[0] if m.shape else 1 for m in xs)
    return [m.with_shape(shape) for m in xs]


def _meshgrid(ctx, xs):
    return [g.copy() for g in ctx.xp.meshgrid(*[x.reshape(-1) for x in xs], indexing="ij")]


def _meshgrid_grad(ctx, xs, douts):
    rank = len(xs)
    return [d.sum(axis=tuple(j for j in range(rank) if j != i)).reshape(x.shape)
            for i, (x, d) in enumerate(zip(xs, douts))]


register(OpDef(
    "meshgrid", inputs=[Slot("X", duplicable=True)], outputs=[Slot("Out", duplicable=True)],
    infer=_meshgrid_infer, kernel=_meshgrid,
    # PaddlePaddle names the grad op's incoming slot "outputs@GRAD" (not "Out@GRAD")
    grad=lambda g: [OpSpec("meshgrid_grad", {"X": g.input("X"),
                                             "outputs@GRAD": g.output_grad("Out")},
                           {"X@GRAD": g.input_grad("X")})],
    doc="Out[i] = X[i] broadcast along every other axis of the grid (indexing 'ij')"))
register(OpDef(
    "meshgrid_grad", inputs=[Slot("X", duplicable=True), Slot("outputs@GRAD", duplicable=True)],
    outputs=[Slot("X@GRAD", duplicable=True)], no_need_buffer=("X",),
    infer=lambda xs, douts: [x.with_dtype(d.dtype) for x, d in zip(xs, douts)],
    kernel=_meshgrid_grad,
    doc="the gradient of meshgrid: each outputs@GRAD summed over the other axes"))

# ---- diag_v2, diagonal ------------------------------------------------------------------------


def _diag_len(n, m, offset):
    if -1 in (n, m):
        return -1
    return max(0, min(n + min(offset, 0), m - max(offset, 0)))


def _diag_v2_infer(x, *, offset, padding_value):
    if len(x.shape) > 2:
        fail(f"X must be 0-D, 1-D or 2-D, got shape {tuple(x.shape)}")
    if len(x.shape) == 2:
        return x.with_shape((_diag_len(x.shape[0], x.shape[1], offset),))
    n = x.shape[0] if x.shape else 1
    size = -1 if n == -1 else n + abs(offset)
    return x.with_shape((size, size))


def _diag_v2(ctx, x, *, offset, padding_value):
    xp = ctx.xp
    if x.ndim == 2:
        return xp.diagonal(x, offset).copy()
    v = x.reshape(-1)
    n = v.shape[0] + abs(offset)
    out = xp.full((n, n), padding_value, dtype=x.dtype)
    rows = xp.arange(v.shape[0]) + max(-offset, 0)
    out[rows, rows + offset] = v
    return out


register(OpDef(
    "diag_v2", inputs=["X"], outputs=["Out"],
    attrs={"offset": Attr("int", 0, comment="> 0: above the main diagonal"),
           "padding_value": Attr("float", 0.0,
                                 comment="what fills a made matrix off the diagonal")},
    infer=_diag_v2_infer, kernel=_diag_v2,
    doc="Out = a matrix with X on a diagonal (X 1-D), or X's diagonal (X 2-D); "
        "PaddlePaddle 2.6 appends no gradient for it"))


def _diagonal_infer(x, *, offset, axis1, axis2):
    a1, a2 = _axis(axis1, x.shape, "Input"), _axis(axis2, x.shape, "Input")
    if a1 == a2:
        fail(f"axis1 and axis2 must differ, got {axis1} and {axis2} for Input of rank "
             f"{len(x.shape)}")
    rest = tuple(d for i, d in enumerate(x.shape) if i not in (a1, a2))
    return x.with_shape(rest + (_diag_len(x.shape[a1], x.shape[a2], offset),))


def _diagonal_grad(ctx, x, dout, *, offset, axis1, axis2):
    xp = ctx.xp
    dx = xp.zeros(x.shape, dtype=dout.dtype)
    view = xp.moveaxis(dx, (axis1 % x.ndim, axis2 % x.ndim), (-2, -1))
    n = dout.shape[-1]
    rows = xp.arange(n) + max(-offset, 0)
    view[..., rows, rows + offset] = dout
    return dx


DIAGONAL_ATTRS = {"offset": Attr("int", 0), "axis1": Attr("int", 0), "axis2": Attr("int", 1)}
register(OpDef(
    "diagonal", inputs=["Input"], outputs=["Out"], attrs=DIAGONAL_ATTRS, infer=_diagonal_infer,
    kernel=lambda ctx, x, *, offset, axis1, axis2: ctx.xp.diagonal(
        x, offset, axis1 % x.ndim, axis2 % x.ndim).copy(),
    grad=grad_op("diagonal_grad", inputs=("Input",), in_grads=("Input",)),
    doc="Out = the diagonal of Input in the plane (axis1, axis2), as its last axis"))
register(OpDef(
    "diagonal_grad", inputs=["Input", "Out@GRAD"], outputs=["Input@GRAD"],
    attrs=DIAGONAL_ATTRS, no_need_buffer=("Input",),
    infer=lambda x, dout, **_: x.with_dtype(dout.dtype), kernel=_diagonal_grad,
    doc="the gradient of diagonal: Out@GRAD written on the diagonal of zeros"))

# ---- repeat_interleave ------------------------------------------------------------------------


def _repeat_infer(x, repeats_t, *, Repeats, dim):
    ax = _axis(dim, x.shape)
    shape = list(x.shape)
    shape[ax] = -1 if repeats_t is not None or shape[ax] == -1 else shape[ax] * Repeats
    return x.with_shape(tuple(shape))


def _repeats(ctx, x, repeats_t, Repeats):
    if repeats_t is None:
        return Repeats
    return host_ints(repeats_t)         # a list: CuPy's repeat takes no array of counts


def _repeat_grad(ctx, x, repeats_t, dout, *, Repeats, dim):
    xp, ax = ctx.xp, dim % x.ndim
    reps = _repeats(ctx, x, repeats_t, Repeats)
    reps = xp.full((x.shape[ax],), reps) if isinstance(reps, int) else reps
    owner = xp.repeat(xp.arange(x.shape[ax]), reps)       # which X row each Out row copies
    dx = xp.zeros(x.shape, dtype=dout.dtype)
    xp.add.at(xp.moveaxis(dx, ax, 0), owner, xp.moveaxis(dout, ax, 0))
    return dx


REPEAT_ATTRS = {"Repeats": Attr("int", 0, comment="copies of each slice (RepeatsTensor wins)"),
                "dim": Attr("int", 0)}
register(OpDef(
    "repeat_interleave", inputs=["X", Slot("RepeatsTensor", dispensable=True)], outputs=["Out"],
    attrs=REPEAT_ATTRS, infer=_repeat_infer,
    kernel=lambda ctx, x, rt, *, Repeats, dim: ctx.xp.repeat(
        x, _repeats(ctx, x, rt, Repeats), axis=dim % x.ndim),
    grad=grad_op("repeat_interleave_grad", inputs=("X", "RepeatsTensor")),
    doc="Out = each slice of X along dim repeated Repeats times (or RepeatsTensor[i] times)"))
register(OpDef(
    "repeat_interleave_grad", inputs=["X", Slot("RepeatsTensor", dispensable=True), "Out@GRAD"],
    outputs=["X@GRAD"], attrs=REPEAT_ATTRS, no_need_buffer=("X",),
    infer=lambda x, rt, dout, **_: x.with_dtype(dout.dtype), kernel=_repeat_grad,
    doc="the gradient of repeat_interleave: the copies' Out@GRAD summed into each slice"))

# ---- crop_tensor ------------------------------------------------------------------------------

CROP_TENSORS = [Slot("Shape", dispensable=True),
                Slot("ShapeTensor", duplicable=True, dispensable=True),
                Slot("Offsets", dispensable=True),
                Slot("OffsetsTensor", duplicable=True, dispensable=True)]
CROP_ATTRS = {"shape": Attr("ints", [], comment="-1: the rest of X's dim from the offset"),
              "offsets": Attr("ints", [])}


def _crop_box(x_shape, shape, offsets):
    offsets = list(offsets) or [0] * len(x_shape)
    if len(shape) != len(x_shape) or len(offsets) != len(x_shape):
        fail(f"shape and offsets must have X's rank {len(x_shape)}, got {list(shape)} and "
             f"{list(offsets)}")
    box = []
    for i, (d, s, o) in enumerate(zip(x_shape, shape, offsets)):
        size = d - o if s == -1 and d != -1 else s
        if d != -1 and s != -1 and o != -1 and o + s > d:
            fail(f"the crop of shape {list(shape)} at offsets {list(offsets)} does not fit in X "
                 f"of shape {tuple(x_shape)}")
        box.append((o, size))
    return box


def _crop_infer(x, shape_t, shape_l, off_t, off_l, *, shape, offsets):
    shape = ints_at_build(shape, shape_t, shape_l, ("Shape", "ShapeTensor"))
    offsets = ints_at_build(offsets, off_t, off_l, ("Offsets", "OffsetsTensor"))
    return x.with_shape(tuple(s for _, s in _crop_box(x.shape, shape, offsets)))


def _crop_slices(x_shape, shape_t, shape_l, off_t, off_l, shape, offsets):
    box = _crop_box(x_shape, ints_at_run(shape, shape_t, shape_l),
                    ints_at_run(offsets, off_t, off_l))
    return tuple(slice(o, o + s) for o, s in box)


def _crop_grad(ctx, x, shape_t, shape_l, off_t, off_l, dout, *, shape, offsets):
    dx = ctx.xp.zeros(x.shape, dtype=dout.dtype)
    dx[_crop_slices(x.shape, shape_t, shape_l, off_t, off_l, shape, offsets)] = dout
    return dx


register(OpDef(
    "crop_tensor", inputs=["X", *CROP_TENSORS], outputs=["Out"], attrs=CROP_ATTRS,
    infer=_crop_infer,
    kernel=lambda ctx, x, st, sl, ot, ol, *, shape, offsets: x[
        _crop_slices(x.shape, st, sl, ot, ol, shape, offsets)].copy(),
    grad=grad_op("crop_tensor_grad", inputs=("X", *(s.name for s in CROP_TENSORS))),
    doc="Out = the box of X of the given shape starting at offsets"))
register(OpDef(
    "crop_tensor_grad", inputs=["X", *CROP_TENSORS, "Out@GRAD"], outputs=["X@GRAD"],
    attrs=CROP_ATTRS, no_need_buffer=("X",),
    infer=lambda x, *rest, **_: x.with_dtype(rest[-1].dtype), kernel=_crop_grad,
    doc="the gradient of crop_tensor: Out@GRAD placed into zeros at the box"))

# ---- broadcast_tensors ------------------------------------------------------------------------


def _common_shape(shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        dims = {s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0} - {1}
        known = dims - {-1}
        if len(known) > 1:
            fail(f"the shapes of X {[tuple(s) for s in shapes]} do not broadcast together")
        out.append(known.pop() if known else (-1 if -1 in dims else 1))
    return tuple(out)


def _broadcast_grad(ctx, xs, douts):
    grads = []
    for x, d in zip(xs, douts):
        extra = d.ndim - x.ndim
        g = d.sum(axis=tuple(range(extra))) if extra else d
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1 and g.shape[i] != 1)
        grads.append((g.sum(axis=axes, keepdims=True) if axes else g).copy())
    return grads


register(OpDef(
    "broadcast_tensors", inputs=[Slot("X", duplicable=True)],
    outputs=[Slot("Out", duplicable=True)],
    infer=lambda xs: [x.with_shape(_common_shape([x.shape for x in xs])) for x in xs],
    kernel=lambda ctx, xs: [x.copy() for x in ctx.xp.broadcast_arrays(*xs)],
    grad=grad_op("broadcast_tensors_grad", inputs=("X",)),
    doc="Out[i] = X[i] broadcast to the common shape of all of X"))
register(OpDef(
    "broadcast_tensors_grad",
    inputs=[Slot("X", duplicable=True), Slot("Out@GRAD", duplicable=True)],
    outputs=[Slot("X@GRAD", duplicable=True)], no_need_buffer=("X",),
    infer=lambda xs, douts: [x.with_dtype(d.dtype) for x, d in zip(xs, douts)],
    kernel=_broadcast_grad,
    doc="the gradient of broadcast_tensors: each Out@GRAD summed back to its X's shape"))
