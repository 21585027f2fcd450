"""More losses as single ops: binary cross entropies, Huber, KL divergence, NLL, label smoothing.

PaddlePaddle 2.6 writes these from ``paddle.nn.functional``: ``bce_loss`` for
``binary_cross_entropy`` (X already probabilities), ``sigmoid_cross_entropy_with_logits``
for the logits form (stable: max(x, 0) - x * label + log(1 + exp(-|x|))),
``huber_loss`` for ``smooth_l1_loss``, ``kldiv_loss`` for ``kl_div``, ``nll_loss``
for ``nll_loss``, ``log_loss`` and ``label_smooth``. Each is elementwise or
per-sample, so each gradient is a short formula next to its forward.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

LOG_FLOOR = -100.0    # bce_loss clips log(p) here, so p = 0 or 1 gives a finite loss
BCE_EPS = 1e-12       # keeps bce_loss_grad's x * (1 - x) away from 0


def _same_shape(x, y, xslot, yslot):
    """X and Y must have one shape (-1 matches anything); float X."""
    if x.dtype.kind != "f":
        fail(f"{xslot} must be a floating-point tensor, got {x.dtype}")
    if len(x.shape) != len(y.shape) or any(
            a >= 0 and b >= 0 and a != b for a, b in zip(x.shape, y.shape)):
        fail(f"{yslot} must have {xslot}'s shape: {xslot} has shape {tuple(x.shape)}, "
             f"{yslot} has shape {tuple(y.shape)}")
    return x


def _register_pair(op_type, inputs, outputs, attrs, infer, kernel, grad, grad_inputs,
                   grad_outputs, grad_infer, grad_kernel, doc):
    register(OpDef(op_type, inputs=inputs, outputs=outputs, attrs=attrs, infer=infer,
                   kernel=kernel, grad=grad, doc=doc))
    register(OpDef(f"{op_type}_grad", inputs=grad_inputs, outputs=grad_outputs, attrs=attrs,
                   infer=grad_infer, kernel=grad_kernel, doc=f"the gradient of {op_type}"))


# ---- bce_loss ---------------------------------------------------------------------------------

def _bce_kernel(ctx, x, label):
    xp = ctx.xp
    log_p = xp.maximum(xp.log(x), LOG_FLOOR)
    log_q = xp.maximum(xp.log(1 - x), LOG_FLOOR)
    return (-(label * log_p + (1 - label) * log_q)).astype(x.dtype, copy=False)


def _bce_grad_kernel(ctx, x, label, dout):
    dx = dout * (x - label) / ctx.xp.maximum((1 - x) * x, BCE_EPS)
    return dx.astype(x.dtype, copy=False)


_register_pair(
    "bce_loss", ["X", "Label"], ["Out"], {},
    lambda x, label: _same_shape(x, label, "X", "Label"), _bce_kernel,
    grad_op("bce_loss_grad", inputs=("X", "Label")), ["X", "Label", "Out@GRAD"], ["X@GRAD"],
    lambda x, label, dout: x, _bce_grad_kernel,
    "Out = -(Label * log(X) + (1 - Label) * log(1 - X)), X a probability; logs clipped at -100")

# ---- sigmoid_cross_entropy_with_logits -------------------------------------------------------

SCE_ATTRS = {
    "normalize": Attr("bool", False, comment="divide by the number of labels not ignored"),
    "ignore_index": Attr("int", -100, comment="a label equal to this gives loss and grad 0"),
}


def _sce_infer(x, label, pos_weight, **_):
    _same_shape(x, label, "X", "Label")
    if pos_weight is not None:
        _same_shape(x, pos_weight, "X", "pos_weight")
    return x


def _sce_keep(xp, label, ignore_index, normalize):
    """The mask of labels kept, and the divisor ``normalize`` asks for."""
    keep = label != ignore_index
    count = xp.maximum(keep.sum(), 1) if normalize else 1
    return keep, count


def _sce_kernel(ctx, x, label, pos_weight, *, normalize, ignore_index):
    xp = ctx.xp
    log_term = xp.log1p(xp.exp(-xp.abs(x)))
    if pos_weight is not None:   # PaddlePaddle weighs only this term (not log(1 + exp(-x)))
        log_term = log_term * pos_weight
    out = xp.maximum(x, 0) - x * label + log_term
    keep, count = _sce_keep(xp, label, ignore_index, normalize)
    return (xp.where(keep, out, 0) / count).astype(x.dtype, copy=False)


def _sce_grad_kernel(ctx, x, label, pos_weight, dout, *, normalize, ignore_index):
    # sigmoid(x) * pos_weight - label, as PaddlePaddle computes it: with a pos_weight this is
    # not the derivative of the forward above (the two agree when pos_weight is 1)
    xp = ctx.xp
    sig = 1 / (1 + xp.exp(-x))
    dx = sig - label if pos_weight is None else sig * pos_weight - label
    keep, count = _sce_keep(xp, label, ignore_index, normalize)
    return (xp.where(keep, dx * dout, 0) / count).astype(x.dtype, copy=False)


_register_pair(
    "sigmoid_cross_entropy_with_logits",
    ["X", "Label", Slot("pos_weight", dispensable=True, comment="weight of the positive term")],
    ["Out"], SCE_ATTRS, _sce_infer, _sce_kernel,
    grad_op("sigmoid_cross_entropy_with_logits_grad", inputs=("X", "Label", "pos_weight")),
    ["X", "Label", Slot("pos_weight", dispensable=True), "Out@GRAD"], ["X@GRAD"],
    lambda x, label, pos_weight, dout, **_: x, _sce_grad_kernel,
    "Out = max(X, 0) - X * Label + w * log(1 + exp(-|X|)) (w = pos_weight, default 1; with\n"
    "w = 1 this is the cross entropy of sigmoid(X)); 0 where Label == ignore_index; divided\n"
    "by the labels kept when normalize. X@GRAD = sigmoid(X) * w - Label, as in PaddlePaddle")

# ---- huber_loss -------------------------------------------------------------------------------

HUBER_ATTRS = {"delta": Attr("float", 1.0, lambda v: None if v > 0 else "must be > 0")}


def _huber_kernel(ctx, x, y, *, delta):
    xp = ctx.xp
    r = y - x
    a = xp.abs(r)
    out = xp.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    return out.astype(x.dtype, copy=False), r


def _huber_grad_kernel(ctx, residual, dout, *, delta):
    xp = ctx.xp
    dr = xp.clip(residual, -delta, delta) * dout
    want_x, want_y = ctx.want(0), ctx.want(1)
    return (-dr if want_x else None), (dr if want_y else None)


_register_pair(
    "huber_loss", ["X", "Y"], ["Out", Slot("Residual", comment="Y - X, kept for the grad")],
    HUBER_ATTRS, lambda x, y, **_: (_same_shape(x, y, "X", "Y"),) * 2, _huber_kernel,
    grad_op("huber_loss_grad", inputs=(), outputs=("Residual",), in_grads=("X", "Y")),
    ["Residual", "Out@GRAD"], [Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
    lambda residual, dout, **_: (residual, residual), _huber_grad_kernel,
    "r = Y - X; Out = r * r / 2 where |r| <= delta, else delta * (|r| - delta / 2)")

# ---- kldiv_loss -------------------------------------------------------------------------------

REDUCTIONS = ("none", "mean", "batchmean", "sum")
KL_ATTRS = {"reduction": Attr("str", "mean", lambda v: None if v in REDUCTIONS
                              else f"expected one of {REDUCTIONS}")}


def _kl_infer(x, target, *, reduction):
    _same_shape(x, target, "X", "Target")
    return x if reduction == "none" else x.with_shape(())


def _kl_divisor(x, reduction):
    if reduction == "mean":
        return max(x.size, 1)
    if reduction == "batchmean":
        return x.shape[0] if x.ndim else 1
    return 1


def _kl_kernel(ctx, x, target, *, reduction):
    xp = ctx.xp
    positive = target > 0
    loss = xp.where(positive, target * (xp.log(xp.where(positive, target, 1)) - x), 0)
    if reduction != "none":
        loss = loss.sum() / _kl_divisor(x, reduction)
    return xp.asarray(loss).astype(x.dtype, copy=False)


def _kl_grad_kernel(ctx, x, target, dloss, *, reduction):
    xp = ctx.xp
    dx = xp.where(target > 0, -target, 0) * dloss / _kl_divisor(x, reduction)
    return dx.astype(x.dtype, copy=False)


_register_pair(
    "kldiv_loss", ["X", "Target"], ["Loss"], KL_ATTRS, _kl_infer, _kl_kernel,
    grad_op("kldiv_loss_grad", inputs=("X", "Target"), out_grads=("Loss",)),
    ["X", "Target", "Loss@GRAD"], ["X@GRAD"], lambda x, target, dloss, **_: x, _kl_grad_kernel,
    "Loss = Target * (log(Target) - X) where Target > 0 (else 0), X a log-probability;\n"
    "reduced as reduction says (batchmean: the sum over the first dimension's size)")

# ---- log_loss ---------------------------------------------------------------------------------

LOG_LOSS_ATTRS = {"epsilon": Attr("float", 1e-4, comment="added inside both logs")}


def _log_loss_kernel(ctx, p, label, *, epsilon):
    xp = ctx.xp
    loss = -label * xp.log(p + epsilon) - (1 - label) * xp.log(1 - p + epsilon)
    return loss.astype(p.dtype, copy=False)


def _log_loss_grad_kernel(ctx, p, label, dloss, *, epsilon):
    dp = dloss * (-label / (p + epsilon) + (1 - label) / (1 - p + epsilon))
    return dp.astype(p.dtype, copy=False)


def _log_loss_infer(p, label, *, epsilon):
    if len(p.shape) != 2 or p.shape[1] not in (1, -1):
        fail(f"Predicted must be [N, 1], one probability per row, got shape {tuple(p.shape)}")
    return _same_shape(p, label, "Predicted", "Labels")


_register_pair(
    "log_loss", ["Predicted", "Labels"], ["Loss"], LOG_LOSS_ATTRS, _log_loss_infer,
    _log_loss_kernel,
    grad_op("log_loss_grad", inputs=("Predicted", "Labels"), out_grads=("Loss",),
            in_grads=("Predicted",)),
    ["Predicted", "Labels", "Loss@GRAD"], ["Predicted@GRAD"],
    lambda p, label, dloss, **_: p, _log_loss_grad_kernel,
    "Loss = -Labels * log(Predicted + eps) - (1 - Labels) * log(1 - Predicted + eps)")

# ---- label_smooth -----------------------------------------------------------------------------

LS_ATTRS = {"epsilon": Attr("float", 0.0, lambda v: None if 0 <= v <= 1 else "must be in [0, 1]")}


def _ls_infer(x, prior, *, epsilon):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor (one-hot labels), got {x.dtype}")
    if not x.shape:
        fail("X must have rank >= 1 (classes along the last dimension), got shape ()")
    if prior is not None and prior.shape and prior.shape[-1] >= 0 and x.shape[-1] >= 0 \
            and prior.shape[-1] != x.shape[-1]:
        fail(f"PriorDist must have one value per class ({x.shape[-1]}), got shape "
             f"{tuple(prior.shape)}")
    return x


def _ls_kernel(ctx, x, prior, *, epsilon):
    smooth = epsilon / x.shape[-1] if prior is None else epsilon * prior.reshape(-1)
    return ((1 - epsilon) * x + smooth).astype(x.dtype, copy=False)


_register_pair(
    "label_smooth", ["X", Slot("PriorDist", dispensable=True, comment="defaults to uniform")],
    ["Out"], LS_ATTRS, _ls_infer, _ls_kernel, grad_op("label_smooth_grad", inputs=()),
    ["Out@GRAD"], ["X@GRAD"], lambda dout, **_: dout,
    lambda ctx, dout, *, epsilon: ((1 - epsilon) * dout).astype(dout.dtype, copy=False),
    "Out = (1 - epsilon) * X + epsilon * PriorDist (uniform 1/classes without it)")
