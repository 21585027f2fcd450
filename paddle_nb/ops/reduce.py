"""Reductions: ``reduce_sum / mean / max / min`` over chosen dimensions of X.

``dim`` lists the dimensions (negative ones count from the end); ``reduce_all``
reduces every dimension; ``keep_dim`` keeps reduced dimensions as size 1.
Reducing everything without keep_dim gives a 0-D tensor (shape ()), as in
PaddlePaddle 2.5 and later (fluid 1.x gave shape (1,)). The
gradient spreads Out@GRAD back over the reduced dimensions: as is for sum,
divided by the count for mean, and onto the elements equal to the extreme for
max and min (every tied element gets it, as in PaddlePaddle).

Out has X's dtype unless ``out_dtype`` names another, except that ``reduce_sum``
of bool or int32 gives int64, as PaddlePaddle 2.6 computes and declares it
(``paddle.sum`` of int32 is int64 there).
"""

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = ["reduced_axes", "reduced_shape", "REDUCE"]

ATTRS = {
    "dim": Attr("ints", [0], comment="the dimensions to reduce; negative counts from the end"),
    "keep_dim": Attr("bool", False, comment="keep reduced dimensions with size 1"),
    "reduce_all": Attr("bool", False, comment="reduce every dimension (dim is ignored)"),
    "in_dtype": Attr("int", -1, comment="written by PaddlePaddle; ignored here"),
    "out_dtype": Attr("int", -1, comment="Out's dtype as a VarType number; -1: X's dtype "
                      "(reduce_sum: int64 for bool and int32)"),
}
# the reductions whose default Out dtype is int64 for these X dtypes (PaddlePaddle's SumInferMeta)
_WIDENED = {"reduce_sum": (numpy.dtype(bool), numpy.dtype(numpy.int32))}


def reduced_axes(shape, dim, reduce_all):
    """The sorted, non-negative axes reduced; a ShapeError for a dim out of range.

    >>> reduced_axes((2, 3, 4), [-1, 0], False)
    (0, 2)
    """
    rank = len(shape)
    if reduce_all or not dim:
        return tuple(range(rank))
    for d in dim:
        if not -rank <= d < rank:
            fail(f"dim {d} is out of range for X of shape {tuple(shape)}: "
                 f"expected {-rank} <= dim < {rank}")
    return tuple(sorted({d % rank for d in dim}))


def reduced_shape(shape, axes, keep_dim):
    """Out's shape: reduced axes become 1 (keep_dim) or go; nothing left gives () (0-D)."""
    if keep_dim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _out_dtype(name, x_dtype, out_dtype):
    """Out's dtype: ``out_dtype`` when given, else X's (int64 for reduce_sum of bool, int32)."""
    if out_dtype < 0:
        return numpy.dtype(numpy.int64) if x_dtype in _WIDENED.get(name, ()) else x_dtype
    try:
        return convert_dtype(out_dtype)
    except TypeError as e:
        fail(f"out_dtype {out_dtype}: {e}")


def _infer_for(name):
    def infer(x, *, dim, keep_dim, reduce_all, in_dtype, out_dtype):
        axes = reduced_axes(x.shape, dim, reduce_all)
        return x.with_shape(reduced_shape(x.shape, axes, keep_dim)).with_dtype(
            _out_dtype(name, x.dtype, out_dtype))
    return infer


def _kept(x, dim, reduce_all):
    """The reduced axes and X's shape with them set to 1 (the shape Out@GRAD broadcasts from)."""
    axes = reduced_axes(x.shape, dim, reduce_all)
    return axes, tuple(1 if i in axes else s for i, s in enumerate(x.shape))


def _spread(xp, g, x, kept):
    """Out@GRAD (in ``kept`` shape) as a full array of X's shape and dtype."""
    return xp.broadcast_to(g.reshape(kept), x.shape).astype(x.dtype)


def _extreme_grad(xp, x, out, g, axes, kept):
    """Out@GRAD goes to every element equal to the maximum (or minimum)."""
    return _spread(xp, g, x, kept) * (x == out.reshape(kept))


def _count(x, axes):
    n = 1
    for a in axes:
        n *= x.shape[a]
    return max(n, 1)


# name: (forward(xp, x, axes), grad(xp, x, out_or_None, dout, axes, kept), reads Out, doc)
REDUCE = {
    "reduce_sum": (lambda xp, x, axes: xp.sum(x, axis=axes),
                   lambda xp, x, out, g, axes, kept: _spread(xp, g, x, kept), False,
                   "Out = the sum of X over dim"),
    "reduce_mean": (lambda xp, x, axes: xp.mean(x, axis=axes),
                    lambda xp, x, out, g, axes, kept: _spread(xp, g / _count(x, axes), x, kept),
                    False, "Out = the mean of X over dim"),
    "reduce_max": (lambda xp, x, axes: xp.max(x, axis=axes),
                   _extreme_grad, True, "Out = the maximum of X over dim"),
    "reduce_min": (lambda xp, x, axes: xp.min(x, axis=axes),
                   _extreme_grad, True, "Out = the minimum of X over dim"),
}


def _register(name, forward, backward, reads_out, doc):
    def kernel(ctx, x, *, dim, keep_dim, reduce_all, in_dtype, out_dtype):
        axes = reduced_axes(x.shape, dim, reduce_all)
        out = forward(ctx.xp, x, axes).reshape(reduced_shape(x.shape, axes, keep_dim))
        return out.astype(_out_dtype(name, x.dtype, out_dtype), copy=False)

    def grad_kernel(ctx, x, *rest, dim, keep_dim, reduce_all, in_dtype, out_dtype):
        out, dout = rest if reads_out else (None, rest[0])
        axes, kept = _kept(x, dim, reduce_all)
        return backward(ctx.xp, x, out, dout, axes, kept).astype(x.dtype, copy=False)

    def grad_infer(x, *rest, **attrs):
        return x

    register(OpDef(name, inputs=["X"], outputs=["Out"], attrs=ATTRS, infer=_infer_for(name),
                   kernel=kernel,
                   grad=grad_op(f"{name}_grad", inputs=("X",),
                                outputs=("Out",) if reads_out else ()),
                   doc=doc))
    grad_inputs = ["X", "Out", "Out@GRAD"] if reads_out else ["X", "Out@GRAD"]
    register(OpDef(f"{name}_grad", inputs=grad_inputs, outputs=["X@GRAD"], attrs=ATTRS,
                   infer=grad_infer, kernel=grad_kernel,
                   no_need_buffer=() if reads_out else ("X",),
                   doc=f"the gradient of {name}: X@GRAD from "
                       f"{'X, Out' if reads_out else 'X (its shape)'} and Out@GRAD"))


for _name, _spec in REDUCE.items():
    _register(_name, *_spec)
