"""spectral_norm: a weight divided by its largest singular value (SN-GAN).

The weight is seen as a matrix W [h, w]: dimension ``dim`` first, the rest flattened. Starting
from the vectors U [h] and V [w], ``power_iters`` rounds of power iteration
(``v = W^T u / |W^T u|``, ``u = W v / |W v|``, each norm plus ``eps``) approach the top
singular vectors; ``sigma = u^T W v`` and ``Out = Weight / sigma``. U and V are read, not
updated. Forward only here: 2.6.2's ``spectral_norm_grad`` gives values that match neither
the gradient with u, v held fixed nor the one through the power iteration, so paddle_nb
does not guess it (a backward through spectral_norm is refused).
"""

from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

ATTRS = {"dim": Attr("int", 0), "power_iters": Attr("int", 1), "eps": Attr("float", 1e-12)}


def _infer(weight, u, v, *, dim, power_iters, eps):
    rank = len(weight.shape)
    if rank < 2 or not 0 <= dim < rank:
        fail(f"Weight must have 2 or more dimensions and dim in [0, {rank}), got shape "
             f"{list(weight.shape)} and dim={dim}")
    h = weight.shape[dim]
    w = 1
    for i, d in enumerate(weight.shape):
        if i != dim:
            w = -1 if d < 0 or w < 0 else w * d
    if list(u.shape) not in ([h], [-1]) or list(v.shape) not in ([w], [-1]):
        fail(f"U must be [{h}] and V [{w}] for Weight {list(weight.shape)} with dim={dim}, "
             f"got {list(u.shape)} and {list(v.shape)}")
    return weight


def _matrix(xp, weight, dim):
    moved = xp.moveaxis(weight, dim, 0)
    return moved.reshape(moved.shape[0], -1)


def _sigma(xp, weight, u, v, dim, power_iters, eps):
    mat = _matrix(xp, weight, dim)
    u, v = u.astype(mat.dtype), v.astype(mat.dtype)
    for _ in range(power_iters):
        v = mat.T @ u
        v = v / (xp.sqrt((v * v).sum()) + eps)
        u = mat @ v
        u = u / (xp.sqrt((u * u).sum()) + eps)
    return u @ mat @ v, u, v


def _kernel(ctx, weight, u, v, *, dim, power_iters, eps):
    sigma, _, _ = _sigma(ctx.xp, weight, u, v, dim, power_iters, eps)
    return (weight / sigma).astype(weight.dtype, copy=False)


register(OpDef(
    "spectral_norm", inputs=["Weight", "U", "V"], outputs=["Out"], attrs=ATTRS,
    infer=_infer, kernel=_kernel,
    doc="Out = Weight / sigma, sigma its top singular value by power iteration from U, V"))
