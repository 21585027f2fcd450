"""Norms: ``p_norm`` (the p-norm along an axis, or of all entries), ``frobenius_norm`` (the
2-norm over several axes) and ``dist`` (the p-norm of X - Y), each with its grad op.

``||x||_p = (sum |x|^p)^(1/p)``; p = inf is the largest ``|x|``, -inf the smallest, 0 the count
of non-zero entries. Its gradient is ``sign(x) |x|^(p-1) / ||x||^(p-1)`` times the output
gradient; for inf/-inf it goes to the entries that reach the norm.
"""

import numpy

from paddle_nb.ops.machinery.broadcast import broadcast_shape, sum_to
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["p_norm_value"]


def p_norm_value(xp, x, p, axis, keepdims):
    """``||x||_p`` over ``axis`` (an int, a tuple, or None for all entries)."""
    a = xp.abs(x)
    if p == numpy.inf:
        return a.max(axis=axis, keepdims=keepdims)
    if p == -numpy.inf:
        return a.min(axis=axis, keepdims=keepdims)
    if p == 0:
        return (a != 0).sum(axis=axis, keepdims=keepdims).astype(x.dtype)
    return (a ** p).sum(axis=axis, keepdims=keepdims) ** (1.0 / p)


def p_norm_grad_value(xp, x, norm, dout, p, epsilon):
    """d||x||_p/dx times ``dout``; ``norm`` and ``dout`` broadcast against ``x``."""
    if p == 0:
        return xp.zeros_like(x)
    if p in (numpy.inf, -numpy.inf):
        reach = (xp.abs(x) == norm).astype(x.dtype)
        return xp.sign(x) * reach * dout
    scale = xp.abs(x) ** (p - 1) / (norm + epsilon) ** (p - 1)
    return xp.sign(x) * scale * dout


# ---- p_norm ------------------------------------------------------------------------------

def _reduced_shape(shape, axes, keepdim):
    if keepdim:
        return tuple(1 if k in axes else d for k, d in enumerate(shape))
    return tuple(d for k, d in enumerate(shape) if k not in axes)


def _p_norm_axes(shape, axis, asvector):
    if asvector:
        return tuple(range(len(shape)))
    if not shape:
        return ()
    if not -len(shape) <= axis < len(shape):
        fail(f"axis must name a dimension of X (rank {len(shape)}), got {axis}")
    return (axis % len(shape),)


def _p_norm_infer(x, *, porder, axis, epsilon, keepdim, asvector):
    axes = _p_norm_axes(x.shape, axis, asvector)
    return x.with_shape(_reduced_shape(x.shape, axes, keepdim))


def _p_norm_kernel(ctx, x, *, porder, axis, epsilon, keepdim, asvector):
    axes = _p_norm_axes(x.shape, axis, asvector)
    out = p_norm_value(ctx.xp, x, porder, axes, keepdim)
    return out.astype(x.dtype, copy=False)


def _p_norm_grad_kernel(ctx, x, out, dout, *, porder, axis, epsilon, keepdim, asvector):
    axes = _p_norm_axes(x.shape, axis, asvector)
    keep = _reduced_shape(x.shape, axes, True)
    dx = p_norm_grad_value(ctx.xp, x, out.reshape(keep), dout.reshape(keep), porder, epsilon)
    return dx.astype(x.dtype, copy=False)


P_NORM_ATTRS = {
    "porder": Attr("float", 2.0, comment="p: a number, inf or -inf"),
    "axis": Attr("int", -1, comment="the axis reduced (unless asvector)"),
    "epsilon": Attr("float", 1e-12, comment="keeps the gradient finite at a zero norm"),
    "keepdim": Attr("bool", False, comment="keep the reduced axes as size 1"),
    "asvector": Attr("bool", False, comment="the norm of all entries, as one vector"),
}

register(OpDef("p_norm", inputs=["X"], outputs=["Out"], attrs=P_NORM_ATTRS,
               infer=_p_norm_infer, kernel=_p_norm_kernel,
               grad=grad_op("p_norm_grad", inputs=("X",), outputs=("Out",)),
               doc="Out = (sum |X|^porder)^(1/porder) along axis (all of X when asvector)"))
register(OpDef("p_norm_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
               attrs=P_NORM_ATTRS, infer=lambda x, out, dout, **_: x,
               kernel=_p_norm_grad_kernel, doc="the gradient of p_norm: X@GRAD"))


# ---- frobenius_norm ----------------------------------------------------------------------

def _frobenius_axes(shape, dim, reduce_all):
    if reduce_all or not shape:
        return tuple(range(len(shape)))
    for d in dim:
        if not -len(shape) <= d < len(shape):
            fail(f"dim must name dimensions of X (rank {len(shape)}), got {list(dim)}")
    return tuple(sorted({d % len(shape) for d in dim}))


def _frobenius_infer(x, *, dim, keep_dim, reduce_all, **_):
    axes = _frobenius_axes(x.shape, dim, reduce_all)
    return x.with_shape(_reduced_shape(x.shape, axes, keep_dim))


def _frobenius_kernel(ctx, x, *, dim, keep_dim, reduce_all, **_):
    axes = _frobenius_axes(x.shape, dim, reduce_all)
    return ctx.xp.sqrt((x * x).sum(axis=axes, keepdims=keep_dim)).astype(x.dtype, copy=False)


def _frobenius_grad_kernel(ctx, x, out, dout, *, dim, keep_dim, reduce_all, **_):
    keep = _reduced_shape(x.shape, _frobenius_axes(x.shape, dim, reduce_all), True)
    return (x * dout.reshape(keep) / out.reshape(keep)).astype(x.dtype, copy=False)


FROBENIUS_ATTRS = {
    "dim": Attr("ints", [0], comment="the dimensions reduced"),
    "keep_dim": Attr("bool", False),
    "reduce_all": Attr("bool", False, comment="reduce every dimension (dim is ignored)"),
    "in_dtype": Attr("int", -1), "out_dtype": Attr("int", -1),
}

register(OpDef("frobenius_norm", inputs=["X"], outputs=["Out"], attrs=FROBENIUS_ATTRS,
               infer=_frobenius_infer, kernel=_frobenius_kernel,
               grad=grad_op("frobenius_norm_grad", inputs=("X",), outputs=("Out",)),
               doc="Out = sqrt(sum X^2) over dim (every dimension when reduce_all)"))
register(OpDef("frobenius_norm_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
               attrs=FROBENIUS_ATTRS, infer=lambda x, out, dout, **_: x,
               kernel=_frobenius_grad_kernel, doc="the gradient of frobenius_norm: X@GRAD"))


# ---- dist --------------------------------------------------------------------------------

def _dist_infer(x, y, *, p):
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
    broadcast_shape(x.shape, y.shape, f"X (shape {tuple(x.shape)}) and Y (shape {tuple(y.shape)})")
    return x.with_shape(())


def _dist_kernel(ctx, x, y, *, p):
    return p_norm_value(ctx.xp, x - y, p, None, False).astype(x.dtype, copy=False)


def _dist_grad_kernel(ctx, x, y, out, dout, *, p):
    d = ctx.xp.asarray(x - y)
    g = p_norm_grad_value(ctx.xp, d, out, dout, p, 0.0)
    return sum_to(g, x.shape).astype(x.dtype, copy=False), \
        sum_to(-g, y.shape).astype(y.dtype, copy=False)


register(OpDef("dist", inputs=["X", "Y"], outputs=["Out"], attrs={"p": Attr("float", 2.0)},
               infer=_dist_infer, kernel=_dist_kernel,
               grad=grad_op("dist_grad", inputs=("X", "Y"), outputs=("Out",),
                            in_grads=("X", "Y")),
               doc="Out = ||X - Y||_p (X and Y broadcast), a 0-D result"))
register(OpDef("dist_grad", inputs=["X", "Y", "Out", "Out@GRAD"],
               outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
               attrs={"p": Attr("float", 2.0)}, infer=lambda x, y, out, dout, **_: (x, y),
               kernel=_dist_grad_kernel, doc="the gradients of dist: X@GRAD and Y@GRAD"))
