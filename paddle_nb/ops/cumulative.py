"""Running reductions along an axis: ``logcumsumexp``, ``cummax`` and ``cummin``.

``logcumsumexp`` is cumsum's log-space twin: Out[i] = log(exp(X[0]) + ... + exp(X[i])),
accumulated with ``logaddexp`` one step at a time so that nothing overflows; it takes
cumsum's attributes (``flatten``, ``exclusive``, ``reverse``). Its gradient at X[j] sums
Out@GRAD[i] * exp(X[j] - Out[i]) over the i whose total holds X[j].
``cummax`` / ``cummin`` keep the running extreme and where it was (``indices``, int64; on
ties the latest position, as PaddlePaddle); their gradient sends Out@GRAD[i] to X[indices[i]].
Their slots are lower case (``x``, ``out``, ``indices``), as 2.6 declares them.
"""

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = []

LCSE_ATTRS = {
    "axis": Attr("int", -1), "flatten": Attr("bool", False, comment="over X flattened"),
    "exclusive": Attr("bool", False, comment="Out[i] leaves X[i] out (Out[0] = -inf)"),
    "reverse": Attr("bool", False, comment="accumulate from the end of the axis"),
}


def _check_axis(x, axis, what="X"):
    rank = max(len(x.shape), 1)
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for {what} of shape {tuple(x.shape)}")


def _lcse_infer(x, *, axis, flatten, exclusive, reverse):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    if flatten:
        n = 1
        for d in x.shape:
            n = -1 if d < 0 or n < 0 else n * d
        return x.with_shape((n,))
    _check_axis(x, axis)
    return x


def _moved(x, axis, flatten):
    """X with the accumulated axis last (X flattened first when ``flatten``)."""
    if flatten:
        return x.reshape(-1), 0
    if x.ndim == 0:
        return x.reshape(1), 0
    return x, axis % x.ndim


def _included(xp, n, exclusive, reverse):
    """mask[i, j]: whether Out[i]'s total holds X[j]."""
    i = xp.arange(n).reshape(-1, 1)
    j = xp.arange(n).reshape(1, -1)
    if reverse:
        return j > i if exclusive else j >= i
    return j < i if exclusive else j <= i


def _lcse(ctx, x, *, axis, flatten, exclusive, reverse):
    xp = ctx.xp
    v, ax = _moved(x, axis, flatten)
    a = xp.moveaxis(v, ax, -1)
    if reverse:
        a = a[..., ::-1]
    out = xp.empty_like(a)
    total = xp.full(a.shape[:-1], -xp.inf, dtype=a.dtype)
    for i in range(a.shape[-1]):
        if exclusive:
            out[..., i] = total
        total = xp.logaddexp(total, a[..., i])
        if not exclusive:
            out[..., i] = total
    if reverse:
        out = out[..., ::-1]
    out = xp.moveaxis(out, -1, ax)
    return out.reshape(() if x.ndim == 0 and not flatten else out.shape)


def _lcse_grad(ctx, x, out, dout, *, axis, flatten, exclusive, reverse):
    xp = ctx.xp
    v, ax = _moved(x, axis, flatten)
    a = xp.moveaxis(v, ax, -1)
    o = xp.moveaxis(_moved(out, axis, flatten)[0], ax, -1)
    g = xp.moveaxis(_moved(dout, axis, flatten)[0], ax, -1)
    mask = _included(xp, a.shape[-1], exclusive, reverse)
    with numpy.errstate(over="ignore", invalid="ignore"):
        weight = xp.where(mask, xp.exp(a[..., None, :] - o[..., :, None]), 0)   # [..., i, j]
    grad = (g[..., :, None] * weight).sum(axis=-2)
    return xp.moveaxis(grad, -1, ax).reshape(x.shape).astype(x.dtype, copy=False)


register(OpDef(
    "logcumsumexp", inputs=["X"], outputs=["Out"], attrs=LCSE_ATTRS, infer=_lcse_infer,
    kernel=_lcse, grad=grad_op("logcumsumexp_grad", inputs=("X",), outputs=("Out",)),
    doc="Out[..., i, ...] = log(exp(X[..., 0, ...]) + ... + exp(X[..., i, ...])) along axis"))
register(OpDef(
    "logcumsumexp_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=LCSE_ATTRS,
    infer=lambda x, out, dout, **a: x, kernel=_lcse_grad,
    doc="the gradient of logcumsumexp: sum of Out@GRAD[i] * exp(X[j] - Out[i]) over i"))

# ---- cummax / cummin --------------------------------------------------------------------------

EXTREME_ATTRS = {"axis": Attr("int", -1),
                 "dtype": Attr("int", 3, comment="indices' dtype as a VarType number (3: int64)")}


def _extreme_infer(x, *, axis, dtype):
    if x.dtype.kind not in "fiu":
        fail(f"x must be a number tensor, got {x.dtype}")
    _check_axis(x, axis, "x")
    return x, x.with_dtype(dtype)


def _running_extreme(better):
    def kernel(ctx, x, *, axis, dtype):
        xp = ctx.xp
        if x.ndim == 0:
            return x.copy(), xp.zeros((), dtype=numpy.int64)
        a = xp.moveaxis(x, axis, -1)
        out, where = xp.empty_like(a), xp.empty(a.shape, dtype=numpy.int64)
        best, at = a[..., 0], xp.zeros(a.shape[:-1], dtype=numpy.int64)
        for i in range(a.shape[-1]):
            take = better(a[..., i], best)          # ties move to the latest position
            best, at = xp.where(take, a[..., i], best), xp.where(take, i, at)
            out[..., i], where[..., i] = best, at
        return xp.moveaxis(out, -1, axis), xp.moveaxis(where, -1, axis).astype(
            convert_dtype(dtype))
    return kernel


def _extreme_grad(ctx, x, indices, dout, *, axis, dtype):
    xp = ctx.xp
    if x.ndim == 0:
        return dout.copy()
    grad = xp.zeros(xp.moveaxis(x, axis, -1).shape, dtype=dout.dtype)
    idx = xp.moveaxis(indices, axis, -1).astype(numpy.int64)
    g = xp.moveaxis(dout, axis, -1)
    for i in range(g.shape[-1]):       # each step's gradient goes to where its extreme was
        xp.put_along_axis(grad, idx[..., i:i + 1],
                          xp.take_along_axis(grad, idx[..., i:i + 1], -1) + g[..., i:i + 1], -1)
    return xp.moveaxis(grad, -1, axis)


for _name, _better in (("cummax", lambda new, best: new >= best),
                       ("cummin", lambda new, best: new <= best)):
    register(OpDef(
        _name, inputs=["x"], outputs=["out", "indices"], attrs=EXTREME_ATTRS,
        infer=_extreme_infer, kernel=_running_extreme(_better),
        grad=grad_op(f"{_name}_grad", inputs=("x",), outputs=("indices",), out_grads=("out",),
                     in_grads=("x",)),
        doc=f"out[..., i, ...] = the running {_name[3:]} of x along axis; indices: where it was"))
    register(OpDef(
        f"{_name}_grad", inputs=["x", "indices", "out@GRAD"], outputs=["x@GRAD"],
        attrs=EXTREME_ATTRS, infer=lambda x, idx, dout, **a: dout, kernel=_extreme_grad,
        doc=f"the gradient of {_name}: out@GRAD[i] added at x[indices[i]]"))
