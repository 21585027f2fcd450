"""Repeating a tensor: ``expand_v2``, ``expand_as_v2`` (broadcasting) and ``tile``.

``expand_v2`` broadcasts X to ``shape`` as NumPy does: X's dims line up with
the last ones of ``shape``, each must be 1 or equal, and -1 keeps X's dim.
``expand_as_v2`` takes the target from Y's shape (or ``target_shape``).
``tile`` repeats X ``repeat_times`` times along each dim. Their gradients undo
the copying by summing: every copy of an element passed Out@GRAD back to it.

>>> expand_shape((3, 1), [2, -1, 4]), tile_shape((2, 3), [2]), tile_shape((3,), [2, 2])
((2, 3, 4), (2, 6), (2, 6))
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import ints_at_build, ints_at_run

__all__ = ["expand_shape", "tile_shape"]


def _aligned(x_shape, n, what, target):
    """X's dims lined up with the last of ``n`` target dims (None where X has none)."""
    lead = n - len(x_shape)
    if lead < 0:
        fail(f"{what} {list(target)} must have at least X's rank ({len(x_shape)}), "
             f"got {n} entries")
    return [None] * lead + list(x_shape)


def expand_shape(x_shape, shape, known=True, what="shape"):
    """The shape X broadcast to ``shape`` takes (-1 keeps X's dim). With ``known`` False the
    -1s are sizes a tensor decides at run time: unknown unless X's dim is more than 1."""
    out = []
    for i, (xd, d) in enumerate(zip(_aligned(x_shape, len(shape), what, shape), shape)):
        if d == -1 and not known:
            out.append(xd if xd not in (None, 1) else -1)
        elif d == -1:
            if xd is None:
                fail(f"{what} {list(shape)}: -1 (keep X's dim) at {i}, where X of shape "
                     f"{tuple(x_shape)} has no dim")
            out.append(xd)
        elif d < 1 or xd not in (None, 1, -1, d):
            fail(f"X of shape {tuple(x_shape)} cannot be expanded to {what} {list(shape)}: "
                 f"each X dim must be 1 or equal, and each size >= 1")
        else:
            out.append(d)
    return tuple(out)


def sum_to_shape(xp, dout, x_shape):
    """Out@GRAD summed over the dims that broadcasting added or stretched: X's gradient."""
    lead = dout.ndim - len(x_shape)
    stretched = tuple(lead + i for i, d in enumerate(x_shape)
                      if d == 1 and dout.shape[lead + i] != 1)
    total = dout.sum(axis=tuple(range(lead)) + stretched, keepdims=True) \
        if lead or stretched else dout
    return total.reshape(x_shape)


def _unbroadcast_grad(ctx, x, *rest, **_):
    return sum_to_shape(ctx.xp, rest[-1], x.shape)


# ---- expand_v2 --------------------------------------------------------------------------------

EXPAND_TENSORS = [Slot("Shape", dispensable=True, comment="a 1-D int tensor; wins over shape"),
                  Slot("expand_shapes_tensor", duplicable=True, dispensable=True,
                       comment="one one-value int tensor per dim")]
EXPAND_ATTRS = {"shape": Attr("ints", [], comment="the target; -1 keeps X's dim")}


def _expand_infer(x, shape_t, shape_list, *, shape):
    dims = ints_at_build(shape, shape_t, shape_list, ("Shape", "expand_shapes_tensor"))
    # a tensor's entries are -1 until run time: only the attribute's alone can be checked
    only_attr = shape_t is None and not shape_list
    return x.with_shape(expand_shape(x.shape, dims, known=only_attr))


def _expand(ctx, x, shape_t, shape_list, *, shape):
    target = expand_shape(x.shape, ints_at_run(shape, shape_t, shape_list))
    return ctx.xp.broadcast_to(x, target).copy()


register(OpDef(
    "expand_v2", inputs=["X", *EXPAND_TENSORS], outputs=["Out"], attrs=EXPAND_ATTRS,
    infer=_expand_infer, kernel=_expand,
    grad=grad_op("expand_v2_grad", inputs=("X", "Shape", "expand_shapes_tensor")),
    doc="Out = X broadcast to shape (-1 keeps X's dim): paddle.expand"))
register(OpDef(
    "expand_v2_grad", inputs=["X", *EXPAND_TENSORS, "Out@GRAD"], outputs=["X@GRAD"],
    attrs=EXPAND_ATTRS, infer=lambda x, *rest, **_: x.with_dtype(rest[-1].dtype),
    kernel=_unbroadcast_grad, no_need_buffer=("X",),
    doc="the gradient of expand_v2: Out@GRAD summed over the broadcast dims"))

# ---- expand_as_v2 -----------------------------------------------------------------------------

EXPAND_AS_ATTRS = {"target_shape": Attr("ints", [], comment="Y's shape as built; Y wins")}


def _expand_as_infer(x, y, *, target_shape):
    if y is None and not target_shape:
        fail("expand_as_v2 needs Y or target_shape, got neither")
    target = list(y.shape) if y is not None else list(target_shape)
    if y is not None and len(target_shape) == len(target):     # fill Y's unknown dims
        target = [t if t != -1 else a for t, a in zip(target, target_shape)]
    # a -1 here is a size not known yet (Y's batch), not a request to keep X's dim
    return x.with_shape(expand_shape(x.shape, target, known=False, what="Y's shape"))


def _expand_as(ctx, x, y, *, target_shape):
    target = y.shape if y is not None else target_shape
    return ctx.xp.broadcast_to(x, expand_shape(x.shape, target, what="Y's shape")).copy()


register(OpDef(
    "expand_as_v2", inputs=["X", Slot("Y", dispensable=True, comment="read for its shape only")],
    outputs=["Out"], attrs=EXPAND_AS_ATTRS, infer=_expand_as_infer, kernel=_expand_as,
    no_need_buffer=("Y",), grad=grad_op("expand_as_v2_grad", inputs=("X",)),
    doc="Out = X broadcast to Y's shape (or target_shape): paddle.expand_as"))
register(OpDef(
    "expand_as_v2_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=EXPAND_AS_ATTRS,
    infer=lambda x, dout, **_: x.with_dtype(dout.dtype), kernel=_unbroadcast_grad,
    no_need_buffer=("X",), doc="the gradient of expand_as_v2: Out@GRAD summed over copies"))

# ---- tile -------------------------------------------------------------------------------------

TILE_TENSORS = [Slot("RepeatTimes", dispensable=True, comment="a 1-D int tensor"),
                Slot("repeat_times_tensor", duplicable=True, dispensable=True,
                     comment="one one-value int tensor per dim")]
TILE_ATTRS = {"repeat_times": Attr("ints", [], comment="copies along each dim (>= 1)")}


def _padded(x_shape, repeats):
    """X's dims and the repeats, both padded with 1s in front to one length."""
    n = max(len(x_shape), len(repeats))
    return ((1,) * (n - len(x_shape)) + tuple(x_shape),
            (1,) * (n - len(repeats)) + tuple(repeats))


def tile_shape(x_shape, repeats, known=True):
    """X's shape with each dim times its repeat (-1 stays unknown)."""
    if known and any(r < 1 for r in repeats):
        fail(f"repeat_times must hold counts >= 1, got {list(repeats)}")
    dims, reps = _padded(x_shape, repeats)
    return tuple(-1 if -1 in (d, r) else d * r for d, r in zip(dims, reps))


def _tile_infer(x, reps_t, reps_list, *, repeat_times):
    reps = ints_at_build(repeat_times, reps_t, reps_list, ("RepeatTimes", "repeat_times_tensor"))
    only_attr = reps_t is None and not reps_list       # as in _expand_infer
    return x.with_shape(tile_shape(x.shape, reps, known=only_attr))


def _tile(ctx, x, reps_t, reps_list, *, repeat_times):
    reps = ints_at_run(repeat_times, reps_t, reps_list)
    tile_shape(x.shape, reps)                       # checks the counts
    return ctx.xp.tile(x, reps)


def _tile_grad(ctx, x, reps_t, reps_list, dout, *, repeat_times):
    dims, reps = _padded(x.shape, ints_at_run(repeat_times, reps_t, reps_list))
    # Out's dim i is reps[i] copies of X's dim i: split it in two and sum over the copies
    split = [n for pair in zip(reps, dims) for n in pair]
    return dout.reshape(split).sum(axis=tuple(range(0, len(split), 2))).reshape(x.shape)


register(OpDef(
    "tile", inputs=["X", *TILE_TENSORS], outputs=["Out"], attrs=TILE_ATTRS,
    infer=_tile_infer, kernel=_tile,
    grad=grad_op("tile_grad", inputs=("X", "RepeatTimes", "repeat_times_tensor")),
    doc="Out = X repeated repeat_times[i] times along each dim i: paddle.tile"))
register(OpDef(
    "tile_grad", inputs=["X", *TILE_TENSORS, "Out@GRAD"], outputs=["X@GRAD"], attrs=TILE_ATTRS,
    infer=lambda x, *rest, **_: x.with_dtype(rest[-1].dtype), kernel=_tile_grad,
    no_need_buffer=("X",), doc="the gradient of tile: Out@GRAD summed over the copies"))
