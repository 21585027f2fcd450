"""Gradient clipping ops: ``squared_l2_norm`` and ``clip_by_norm``.

PaddlePaddle's clipping is ordinary ops appended after the backward pass.
``ClipGradByNorm`` gives each gradient a ``clip_by_norm``: scaled down to
``max_norm`` when its L2 norm is larger. ``ClipGradByGlobalNorm`` measures
all gradients together: a ``squared_l2_norm`` per gradient, their ``sum``, a
``sqrt``, then ``max_norm / max(global_norm, max_norm)`` multiplies every
gradient (``fill_constant``, ``elementwise_max``, ``elementwise_div``,
``elementwise_mul``). ``ClipGradByValue`` is a ``clip`` per gradient.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, fail, register

__all__ = []


def _floating(x, slot="X"):
    if x.dtype.kind != "f":
        fail(f"{slot} must be a floating-point tensor, got {x.dtype}")


# ---- squared_l2_norm --------------------------------------------------------------------------

def _sq_infer(x):
    _floating(x)
    return Meta((1,), x.dtype)        # PaddlePaddle 2.6 gives shape [1], not a 0-D value


def _sq_kernel(ctx, x):
    return (x * x).sum().reshape(1).astype(x.dtype, copy=False)


def _sq_grad_infer(x, dout):
    _floating(x)
    if len(dout.shape) > 1 or any(d not in (1, -1) for d in dout.shape):
        fail(f"Out@GRAD must hold one value, got shape {tuple(dout.shape)}")
    return x


def _sq_grad_kernel(ctx, x, dout):
    # d(sum x^2)/dx = 2x, times the one incoming gradient value
    return (2 * x * dout.reshape(())).astype(x.dtype, copy=False)


register(OpDef(
    "squared_l2_norm", inputs=["X"], outputs=["Out"], infer=_sq_infer, kernel=_sq_kernel,
    grad=grad_op("squared_l2_norm_grad", inputs=("X",)),
    doc="Out = sum(X * X), of shape [1]: the squared L2 norm of the whole tensor."))

register(OpDef(
    "squared_l2_norm_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
    infer=_sq_grad_infer, kernel=_sq_grad_kernel,
    doc="X@GRAD = 2 * X * Out@GRAD"))

# ---- clip_by_norm -----------------------------------------------------------------------------


def _cbn_infer(x, *, max_norm):
    _floating(x)
    return x


def _cbn_kernel(ctx, x, *, max_norm):
    xp = ctx.xp
    norm = xp.sqrt((x * x).sum())
    limit = x.dtype.type(max_norm)
    # scale by max_norm / norm only where the norm is over the limit; else leave X as it is
    scale = xp.where(norm > limit, limit / xp.where(norm > limit, norm, 1), 1)
    return (x * scale.astype(x.dtype)).astype(x.dtype, copy=False)


register(OpDef(
    "clip_by_norm", inputs=["X"], outputs=["Out"],
    attrs={"max_norm": Attr("float", comment="the largest L2 norm let through")},
    infer=_cbn_infer, kernel=_cbn_kernel,
    doc="Out = X * max_norm / ||X|| when ||X|| > max_norm, else X (||X||: the L2 norm of the\n"
        "whole tensor). It has no gradient: it runs after the backward pass."))
