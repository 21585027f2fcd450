"""Running products and interpolation: ``cumprod`` and ``lerp``.

``cumprod`` multiplies along ``dim``: Out[i] = X[0] * ... * X[i]. Its gradient at X[k]
sums Out@GRAD[i] * Out[i] / X[k] over i >= k; paddle_nb computes it without dividing
(the product before k times the running products after it), so zeros in X are fine.
``lerp`` moves from X toward Y by Weight: Out = X + Weight * (Y - X), all three broadcast.
"""

from paddle_nb.ops.machinery.broadcast import broadcast_shape, sum_to
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

# ---- cumprod ----------------------------------------------------------------------------------

CUMPROD_ATTRS = {"dim": Attr("int", comment="the axis multiplied along (required)")}


def _cumprod_infer(x, *, dim):
    rank = max(len(x.shape), 1)
    if not -rank <= dim < rank:
        fail(f"dim {dim} is out of range for X of shape {tuple(x.shape)}: expected "
             f"{-rank} <= dim < {rank}")
    if x.dtype.kind not in "fiu":
        fail(f"X must be a number tensor, got {x.dtype}")
    return x


def _cumprod(ctx, x, *, dim):
    if x.ndim == 0:
        return x.copy()
    return ctx.xp.cumprod(x, axis=dim).astype(x.dtype, copy=False)


def _cumprod_grad(ctx, x, out, dout, *, dim):
    """dX[k] = sum over i >= k of dOut[i] * prod_{j <= i, j != k} X[j]."""
    xp = ctx.xp
    if x.ndim == 0:
        return dout.copy()
    a = xp.moveaxis(x, dim, -1)
    g = xp.moveaxis(dout, dim, -1)
    n = a.shape[-1]
    before = xp.cumprod(xp.concatenate([xp.ones_like(a[..., :1]), a[..., :-1]], axis=-1),
                        axis=-1)                       # prod of X[j], j < k
    grad = xp.zeros_like(a)
    for k in range(n):      # after k: running products of X[k+1..i], weighted by dOut[i]
        tail = xp.cumprod(a[..., k + 1:], axis=-1)
        total = g[..., k] + (g[..., k + 1:] * tail).sum(axis=-1)
        grad[..., k] = before[..., k] * total
    return xp.moveaxis(grad, -1, dim).astype(x.dtype, copy=False)


register(OpDef(
    "cumprod", inputs=["X"], outputs=["Out"], attrs=CUMPROD_ATTRS, infer=_cumprod_infer,
    kernel=_cumprod, grad=grad_op("cumprod_grad", inputs=("X",), outputs=("Out",)),
    doc="Out[..., i, ...] = X[..., 0, ...] * ... * X[..., i, ...] along dim"))
register(OpDef(
    "cumprod_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=CUMPROD_ATTRS,
    infer=lambda x, out, dout, **a: x, kernel=_cumprod_grad,
    doc="the gradient of cumprod, computed without dividing by X"))

# ---- lerp -------------------------------------------------------------------------------------


def _lerp_infer(x, y, w):
    for slot, m in (("Y", y), ("Weight", w)):
        if m.dtype != x.dtype:
            fail(f"X and {slot} must have the same dtype, got {x.dtype} and {m.dtype}")
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x.with_shape(broadcast_shape(broadcast_shape(x.shape, y.shape), w.shape,
                                        "X, Y and Weight"))


def _lerp_grad(ctx, x, y, w, out, dout):
    gx = sum_to(dout * (1 - w), x.shape).reshape(x.shape) if ctx.want(0) else None
    gy = sum_to(dout * w, y.shape).reshape(y.shape) if ctx.want(1) else None
    return gx, gy


register(OpDef(
    "lerp", inputs=["X", "Y", "Weight"], outputs=["Out"], infer=_lerp_infer,
    kernel=lambda ctx, x, y, w: (x + w * (y - x)).astype(x.dtype, copy=False),
    grad=grad_op("lerp_grad", inputs=("X", "Y", "Weight"), outputs=("Out",),
                 in_grads=("X", "Y")),
    doc="Out = X + Weight * (Y - X)"))
register(OpDef(
    "lerp_grad", inputs=["X", "Y", "Weight", "Out", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
    infer=lambda x, y, w, out, dout: (x, y), kernel=_lerp_grad,
    doc="the gradients of lerp: X@GRAD = Out@GRAD * (1 - Weight), Y@GRAD = Out@GRAD * Weight"))
