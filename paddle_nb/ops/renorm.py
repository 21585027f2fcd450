"""``renorm``: each slice of X along ``axis`` rescaled so its p-norm is at most ``max_norm``
(PaddlePaddle 2.6's ``paddle.renorm``), and its grad op.

For a slice with norm n = (sum |x|^p)^(1/p) above max_norm, Out = x * c with
c = max_norm / (n + 1e-7); other slices pass unchanged. The gradient of a rescaled slice is
c * g - max_norm / (n + 1e-7)^2 * (g . x) * dn/dx, where dn/dx = sign(x) |x|^(p-1) / n^(p-1).
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = []

EPS = 1e-7      # PaddlePaddle's guard against a zero norm
ATTRS = {"p": Attr("float", 2.0, comment="the norm's order"),
         "axis": Attr("int", 0, comment="the axis whose slices are rescaled"),
         "max_norm": Attr("float", 1.0, comment="the largest norm a slice keeps")}


def _axis(axis, rank):
    if not -rank <= axis < rank:
        fail(f"axis must be in [-{rank}, {rank}), got {axis} for X of rank {rank}")
    return axis % rank


def _renorm_infer(x, *, p, axis, max_norm):
    _axis(axis, len(x.shape))
    if p <= 0:
        fail(f"p must be positive, got {p}")
    return x


def _norms(xp, x, p, axis):
    """Each slice's p-norm, kept as a dim of one along every other axis."""
    others = tuple(i for i in range(x.ndim) if i != axis)
    return (xp.abs(x) ** p).sum(axis=others, keepdims=True) ** (1.0 / p), others


def _renorm(ctx, x, *, p, axis, max_norm):
    n, _ = _norms(ctx.xp, x, p, _axis(axis, x.ndim))
    scale = ctx.xp.where(n > max_norm, max_norm / (n + EPS), 1.0)
    return (x * scale).astype(x.dtype, copy=False)


def _renorm_grad(ctx, x, dout, *, p, axis, max_norm):
    xp = ctx.xp
    n, others = _norms(xp, x, p, _axis(axis, x.ndim))
    over = n > max_norm
    safe = xp.where(over, n, 1.0)
    dn = xp.sign(x) * xp.abs(x) ** (p - 1) / safe ** (p - 1)
    g_dot_x = (dout * x).sum(axis=others, keepdims=True)
    scaled = max_norm / (safe + EPS) * dout - max_norm / (safe + EPS) ** 2 * g_dot_x * dn
    return xp.where(over, scaled, dout).astype(x.dtype, copy=False)


register(OpDef(
    "renorm", inputs=["X"], outputs=["Out"], attrs=ATTRS, infer=_renorm_infer, kernel=_renorm,
    grad=grad_op("renorm_grad", inputs=("X",)),
    doc="Out = X with each slice along axis scaled to p-norm <= max_norm"))
register(OpDef(
    "renorm_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=ATTRS,
    infer=lambda x, dout, **_: x, kernel=_renorm_grad, doc="the gradient of renorm"))
