"""Gathering by index: ``gather``, ``index_select`` and ``gather_nd``.

Each reads elements of X at integer positions given by a tensor, so the
forward pass is NumPy's ``take`` (or fancy indexing) and the backward pass is
its mirror image: a scatter-add of Out@GRAD into zeros shaped like X. It must
add, not assign, because an index may repeat (``gather(x, [0, 0])`` reads row 0
twice, and row 0's gradient is the sum of both reads). The grad ops read X only
for its shape (``no_need_buffer``).

>>> gather_shape((5, 3, 4), (2,), 1), gather_nd_shape((5, 3, 4), (6, 2))
((5, 2, 4), (6, 4))
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import scalar_at_run

__all__ = ["gather_shape", "gather_nd_shape"]


def _int_index(index, slot="Index"):
    if index.dtype.kind not in "iu":
        fail(f"{slot} must be an integer tensor (int32 or int64), got {index.dtype} with "
             f"shape {tuple(index.shape)}")


def _axis(axis, x_shape, name="axis"):
    rank = len(x_shape)
    if not -rank <= axis < rank:
        fail(f"{name} {axis} is out of range for X of shape {tuple(x_shape)}")
    return axis % rank


def scatter_add(xp, shape, dtype, axis, index, values):
    """Zeros of ``shape`` with ``values`` added at ``index`` along ``axis`` (repeats add up)."""
    out = xp.zeros(shape, dtype=dtype)
    xp.add.at(xp.moveaxis(out, axis, 0), index, xp.moveaxis(values, axis, 0))
    return out


# ---- gather -----------------------------------------------------------------------------------

def gather_shape(x_shape, index_shape, axis, name="axis"):
    """X's shape with dim ``axis`` replaced by the number of indices (dropped for a 0-D Index)."""
    if len(index_shape) == 2 and index_shape[1] not in (1, -1) or len(index_shape) > 2:
        fail(f"Index must be 0-D, 1-D or of shape (n, 1), got shape {tuple(index_shape)}")
    axis = _axis(axis, x_shape, name)
    taken = (index_shape[0],) if index_shape else ()
    return tuple(x_shape[:axis]) + taken + tuple(x_shape[axis + 1:])


def _gather_infer(x, index, axis_t, *, axis):
    _int_index(index)
    if axis_t is not None:          # the axis is decided at run time: no dim is known
        rank = len(x.shape) - (0 if index.shape else 1)
        return x.with_shape((-1,) * rank)
    return x.with_shape(gather_shape(x.shape, index.shape, axis))


def _flat_index(index):
    return index.reshape(-1) if index.ndim else index


def _gather(ctx, x, index, axis_t, *, axis):
    axis = _axis(scalar_at_run(axis, axis_t), x.shape)
    return ctx.xp.take(x, _flat_index(index), axis=axis)


def _gather_grad(ctx, x, index, axis_t, dout, *, axis):
    axis = _axis(scalar_at_run(axis, axis_t), x.shape)
    if index.ndim == 0:             # Out lost the axis: put a dim of one index back
        dout, index = ctx.xp.expand_dims(dout, axis), index.reshape(1)
    return scatter_add(ctx.xp, x.shape, dout.dtype, axis, index.reshape(-1), dout)


GATHER_INPUTS = ["X", "Index", Slot("Axis", dispensable=True, comment="a one-value tensor axis")]
register(OpDef(
    "gather", inputs=GATHER_INPUTS, outputs=["Out"],
    attrs={"axis": Attr("int", 0, comment="the axis indexed (Axis, when given, wins)")},
    infer=_gather_infer, kernel=_gather,
    grad=grad_op("gather_grad", inputs=("X", "Index", "Axis")),
    doc="Out = X[..., Index, ...]: the slices of X at Index along axis"))
register(OpDef(
    "gather_grad", inputs=[*GATHER_INPUTS, "Out@GRAD"], outputs=["X@GRAD"],
    attrs={"axis": Attr("int", 0)}, infer=lambda x, i, a, dout, **_: x.with_dtype(dout.dtype),
    kernel=_gather_grad, no_need_buffer=("X",),
    doc="the gradient of gather: Out@GRAD added into zeros like X at Index"))

# ---- index_select -----------------------------------------------------------------------------


def _index_select_infer(x, index, *, dim):
    _int_index(index)
    if len(index.shape) != 1:
        fail(f"Index must be 1-D, got shape {tuple(index.shape)}")
    return x.with_shape(gather_shape(x.shape, index.shape, dim, "dim"))


register(OpDef(
    "index_select", inputs=["X", "Index"], outputs=["Out"],
    attrs={"dim": Attr("int", 0, comment="the axis indexed")}, infer=_index_select_infer,
    kernel=lambda ctx, x, index, *, dim: ctx.xp.take(x, index, axis=_axis(dim, x.shape, "dim")),
    grad=grad_op("index_select_grad", inputs=("X", "Index")),
    doc="Out = X's slices at Index along dim (paddle.index_select)"))
register(OpDef(
    "index_select_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"],
    attrs={"dim": Attr("int", 0)}, infer=lambda x, index, dout, **_: x.with_dtype(dout.dtype),
    kernel=lambda ctx, x, index, dout, *, dim: scatter_add(
        ctx.xp, x.shape, dout.dtype, _axis(dim, x.shape, "dim"), index, dout),
    no_need_buffer=("X",), doc="the gradient of index_select: Out@GRAD added back at Index"))

# ---- gather_nd --------------------------------------------------------------------------------


def gather_nd_shape(x_shape, index_shape):
    """Index's shape but its last dim k, then X's dims after its first k."""
    if not index_shape:
        fail("Index must have rank >= 1 (its last dim holds one position in X), got a 0-D Index")
    k = index_shape[-1]
    if k < 0:
        fail(f"Index's last dim must be known, got Index of shape {tuple(index_shape)}")
    if k > len(x_shape):
        fail(f"Index's last dim ({k}) must not exceed X's rank, got Index of shape "
             f"{tuple(index_shape)} for X of shape {tuple(x_shape)}")
    return tuple(index_shape[:-1]) + tuple(x_shape[k:])


def _positions(index):
    """Index's last dim as a tuple of index arrays, one per leading dim of X."""
    return tuple(index[..., j] for j in range(index.shape[-1]))


def _gather_nd(ctx, x, index):
    if index.shape[-1] == 0:        # no position: X itself, once per row of Index
        return ctx.xp.broadcast_to(x, index.shape[:-1] + x.shape).copy()
    return x[_positions(index)]


def _gather_nd_grad(ctx, x, index, dout):
    dx = ctx.xp.zeros(x.shape, dtype=dout.dtype)
    if index.shape[-1] == 0:
        return dx + dout.reshape((-1,) + x.shape).sum(axis=0)
    ctx.xp.add.at(dx, _positions(index), dout)
    return dx


def _gather_nd_infer(x, index):
    _int_index(index)
    return x.with_shape(gather_nd_shape(x.shape, index.shape))


register(OpDef(
    "gather_nd", inputs=["X", "Index"], outputs=["Out"], infer=_gather_nd_infer,
    kernel=_gather_nd, grad=grad_op("gather_nd_grad", inputs=("X", "Index")),
    doc="Out[i] = X[Index[i]]: each row of Index (its last dim) is a position in X"))
register(OpDef(
    "gather_nd_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"],
    infer=lambda x, index, dout: x.with_dtype(dout.dtype), kernel=_gather_nd_grad,
    no_need_buffer=("X",), doc="the gradient of gather_nd: Out@GRAD added back at Index"))
