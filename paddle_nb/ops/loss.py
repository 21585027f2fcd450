"""Probabilities and losses: softmax, log_softmax and the cross-entropy ops.

``softmax`` and ``log_softmax`` normalise along ``axis`` after subtracting the
maximum, so large logits do not overflow. ``cross_entropy`` reads
probabilities X; ``softmax_with_cross_entropy`` reads logits and fuses both
steps, which gives the simple gradient Softmax - Label. A hard label is an
integer class index (its ``axis`` dimension is 1); a soft label is a
distribution of X's shape. A hard label equal to ``ignore_index`` gives loss 0
and gradient 0. (``square_error_cost`` is a fluid layer, not an op.)
"""

import functools
from collections.abc import Callable
from typing import Any

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, prepared, register

__all__ = ["softmax", "log_softmax"]

TINY_LOG = -1e20   # log(0) is clipped here, as PaddlePaddle's TolerableValue does


def softmax(xp, x, axis):
    e = x - x.max(axis=axis, keepdims=True)     # a new array: exp and the division in place
    xp.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def log_softmax(xp, x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


def _safe_log(xp, p):
    return xp.maximum(xp.log(p), TINY_LOG)


def _canonical_axis(axis, shape, slot):
    rank = len(shape)
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for {slot} of shape {tuple(shape)}: "
             f"expected {-rank} <= axis < {rank}")
    return axis % rank


def _float_like(m, slot):
    if m.dtype.kind != "f":
        fail(f"{slot} must be a floating-point tensor, got {m.dtype}")


# ---- softmax, log_softmax ---------------------------------------------------------------------

SOFTMAX_ATTRS = {"axis": Attr("int", -1, comment="the dimension normalised"),
                 "data_format": Attr("str", "AnyLayout", comment="written by Paddle; ignored")}
LOG_SOFTMAX_ATTRS = {"axis": Attr("int", -1, comment="the dimension normalised")}


def _softmax_infer(x, *, axis, **_):
    _float_like(x, "X")
    _canonical_axis(axis, x.shape, "X")
    return x


def _softmax_grad_kernel(ctx, out, dout, *, axis, **_):
    return (dout - (dout * out).sum(axis=axis, keepdims=True)) * out


def _log_softmax_grad_kernel(ctx, out, dout, *, axis, **_):
    return dout - ctx.xp.exp(out) * dout.sum(axis=axis, keepdims=True)


for _name, _attrs, _forward, _backward, _doc in (
        ("softmax", SOFTMAX_ATTRS, softmax, _softmax_grad_kernel,
         "Out = exp(X) / sum(exp(X)) along axis (computed after subtracting the maximum)"),
        ("log_softmax", LOG_SOFTMAX_ATTRS, log_softmax, _log_softmax_grad_kernel,
         "Out = X - log(sum(exp(X))) along axis (computed after subtracting the maximum)")):
    register(OpDef(_name, inputs=["X"], outputs=["Out"], attrs=_attrs, infer=_softmax_infer,
                   kernel=lambda ctx, x, *, axis, f=_forward, **_: f(ctx.xp, x, axis),
                   grad=grad_op(f"{_name}_grad", inputs=(), outputs=("Out",)), doc=_doc))
    register(OpDef(f"{_name}_grad", inputs=["Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=_attrs,
                   infer=lambda out, dout, **_: dout, kernel=_backward,
                   doc=f"the gradient of {_name}: X@GRAD from Out and Out@GRAD"))

# ---- labels -----------------------------------------------------------------------------------


def _check_label(x, label, axis, soft_label, xslot):
    """Label must match X except along ``axis`` (size 1 for hard labels, X's for soft ones)."""
    xs, ls = tuple(x.shape), tuple(label.shape)
    if len(ls) != len(xs):
        fail(f"Label must have the rank of {xslot}: {xslot} has shape {xs}, Label has shape {ls}")
    for i, (a, b) in enumerate(zip(xs, ls)):
        if i != axis and a >= 0 and b >= 0 and a != b:
            fail(f"Label must match {xslot} except in dimension {axis}: {xslot} has shape {xs}, "
                 f"Label has shape {ls}")
    if soft_label:
        if label.dtype != x.dtype:
            fail(f"a soft Label must have {xslot}'s dtype {x.dtype}, got {label.dtype}")
        if xs[axis] >= 0 and ls[axis] >= 0 and xs[axis] != ls[axis]:
            fail(f"a soft Label must have {xslot}'s shape {xs}, got shape {ls}")
    else:
        if label.dtype.kind not in "iu":
            fail(f"Label must be an integer (int64) tensor of class indices when soft_label is "
                 f"False, got {label.dtype}")
        if ls[axis] not in (1, -1):
            fail(f"a hard Label must have size 1 in dimension {axis}: {xslot} has shape {xs}, "
                 f"Label has shape {ls}")


def _all_classes(label, classes):
    """True when every label is an integer in [0, classes): one reduction, since a negative
    label seen unsigned is larger than any class."""
    return label.dtype.kind == "i" and label.size > 0 and \
        int(label.view(f"u{label.dtype.itemsize}").max()) < classes


def _hard_index(xp, label, classes, ignore_index):
    """Label with ignored entries set to 0, and the mask of entries kept (None: all of them,
    the usual case); checks the range."""
    if label.size:
        if label.dtype.kind == "i" and not 0 <= ignore_index < classes:
            if _all_classes(label, classes):
                return label.astype("int64", copy=False), None
        else:
            low, high = int(label.min()), int(label.max())
            if 0 <= low and high < classes and not low <= ignore_index <= high:
                return label.astype("int64", copy=False), None
    keep = label != ignore_index
    index = xp.where(keep, label, 0).astype("int64", copy=False)
    if bool(((index < 0) | (index >= classes)).any()):
        raise ValueError(f"Label holds a class index outside [0, {classes}) that is not "
                         f"ignore_index ({ignore_index})")
    return index, keep


def _one_hot(xp, index, keep, classes, axis, ndim):
    """The mask (as X's shape) of the class each kept label names."""
    shape = [1] * ndim
    shape[axis] = classes
    hit = xp.arange(classes).reshape(shape) == index
    return hit if keep is None else hit & keep


def _pick(xp, a, index, axis):
    """``take_along_axis(a, index, axis)``; rows of a matrix picked by fancy indexing."""
    if a.ndim == 2 and axis == 1:
        return a[xp.arange(a.shape[0]), index[:, 0]].reshape(-1, 1)
    return xp.take_along_axis(a, index, axis=axis)

# ---- cross_entropy ----------------------------------------------------------------------------


CE_ATTRS = {"soft_label": Attr("bool", False, comment="Label is a distribution, not an index"),
            "ignore_index": Attr("int", -100, comment="a hard label with loss and gradient 0")}


def _ce_infer(x, label, *, soft_label, ignore_index):
    _float_like(x, "X")
    if not x.shape:
        fail("X must have rank >= 1, got shape ()")
    _check_label(x, label, len(x.shape) - 1, soft_label, "X")
    return x.with_shape(tuple(x.shape[:-1]) + (1,))


def _ce_kernel(ctx, x, label, *, soft_label, ignore_index):
    xp = ctx.xp
    if soft_label:
        return -(label * _safe_log(xp, x)).sum(axis=-1, keepdims=True)
    index, keep = _hard_index(xp, label, x.shape[-1], ignore_index)
    loss = -_safe_log(xp, _pick(xp, x, index, x.ndim - 1))
    return (loss if keep is None else xp.where(keep, loss, 0)).astype(x.dtype, copy=False)


def _ce_grad_infer(x, label, dy, *, soft_label, ignore_index):
    return x


def _ce_grad_kernel(ctx, x, label, dy, *, soft_label, ignore_index):
    xp = ctx.xp
    if soft_label:
        return -label * dy / x
    index, keep = _hard_index(xp, label, x.shape[-1], ignore_index)
    hit = _one_hot(xp, index, keep, x.shape[-1], x.ndim - 1, x.ndim)
    return (-dy / xp.where(hit, x, 1) * hit).astype(x.dtype, copy=False)


register(OpDef(
    "cross_entropy", inputs=["X", "Label"], outputs=["Y"], attrs=CE_ATTRS, infer=_ce_infer,
    kernel=_ce_kernel,
    grad=grad_op("cross_entropy_grad", inputs=("X", "Label"), out_grads=("Y",)),
    doc="Y = -log(X[Label]) (hard label) or -sum(Label * log(X)) (soft), over X's last dimension"))
register(OpDef(
    "cross_entropy_grad", inputs=["X", "Label", "Y@GRAD"], outputs=["X@GRAD"], attrs=CE_ATTRS,
    infer=_ce_grad_infer, kernel=_ce_grad_kernel,
    doc="the gradient of cross_entropy: X@GRAD from X, Label and Y@GRAD"))

# ---- softmax_with_cross_entropy ---------------------------------------------------------------

SWCE_ATTRS = {
    **CE_ATTRS,
    "axis": Attr("int", -1, comment="the class dimension of Logits"),
    "numeric_stable_mode": Attr("bool", True, comment="always stable here; False needs axis -1"),
    "use_softmax": Attr("bool", True, comment="False: Logits already are probabilities"),
}


def _swce_infer(logits, label, *, soft_label, ignore_index, axis, numeric_stable_mode,
                use_softmax):
    _float_like(logits, "Logits")
    axis = _canonical_axis(axis, logits.shape, "Logits")
    if not numeric_stable_mode and axis != len(logits.shape) - 1:
        fail(f"axis must be the last dimension when numeric_stable_mode is False, got {axis} "
             f"for Logits of shape {tuple(logits.shape)}")
    _check_label(logits, label, axis, soft_label, "Logits")
    loss = list(logits.shape)
    loss[axis] = 1
    return logits, logits.with_shape(loss)


def _swce_kernel(ctx, logits, label, *, soft_label, ignore_index, axis, use_softmax, **_):
    xp = ctx.xp
    axis %= logits.ndim
    if use_softmax:      # one exp: softmax and log-softmax share the shifted logits and the sum
        shifted = logits - logits.max(axis=axis, keepdims=True)
        e = xp.exp(shifted)
        total = e.sum(axis=axis, keepdims=True)
        probs, log_total = e / total, xp.log(total)
    else:
        probs, shifted, log_total = logits.copy(), _safe_log(xp, logits), 0
    if soft_label:
        return probs, -(label * (shifted - log_total)).sum(axis=axis, keepdims=True)
    index, keep = _hard_index(xp, label, logits.shape[axis], ignore_index)
    loss = log_total - _pick(xp, shifted, index, axis)
    loss = loss if keep is None else xp.where(keep, loss, 0)
    return probs, loss.astype(logits.dtype, copy=False)


def _swce_grad_infer(label, probs, dloss, **_):
    return probs


def _swce_grad_kernel(ctx, label, probs, dloss, *, soft_label, ignore_index, axis, use_softmax,
                      **_):
    xp = ctx.xp
    axis %= probs.ndim
    if soft_label:
        return dloss * (probs - label) if use_softmax else -label * dloss / probs
    index, keep = _hard_index(xp, label, probs.shape[axis], ignore_index)
    if use_softmax and keep is None and probs.ndim == 2 and axis == 1:
        grad = probs.copy()                  # a matrix, every label kept: the usual case
        grad[xp.arange(probs.shape[0]), index[:, 0]] -= 1
        grad *= dloss
        return grad
    hit = _one_hot(xp, index, keep, probs.shape[axis], axis, probs.ndim)
    if use_softmax:
        grad = probs - hit
        grad *= dloss if keep is None else dloss * keep
    else:
        grad = -dloss / xp.where(hit, probs, 1) * hit
    return grad.astype(probs.dtype, copy=False)


def _swce_usual(logits, label, attrs):
    """Whether the op has the usual form: a matrix of logits, softmax over its rows, an
    integer label per row, no ignore_index among the classes (the kernel handles the rest)."""
    return not attrs["soft_label"] and attrs["use_softmax"] and len(logits.shape) == 2 and \
        attrs["axis"] in (-1, 1) and len(label.shape) == 2 and label.dtype.kind == "i" and \
        attrs["ignore_index"] < 0


def _make_swce(ctx, metas, **attrs):
    """softmax_with_cross_entropy's function of (logits, label): the general kernel, or,
    in the usual form, the same computed in place where it can be."""
    kernel: Callable[..., Any] = functools.partial(_swce_kernel, ctx, **attrs)
    if not (metas and _swce_usual(metas[0], metas[1], attrs)):
        return kernel
    xp = ctx.xp

    def swce(logits, label):
        if not _all_classes(label, logits.shape[1]):
            return kernel(logits, label)       # the kernel says what is wrong
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = xp.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = xp.log(total)
        loss -= shifted[xp.arange(logits.shape[0]), label[:, 0]].reshape(-1, 1)
        return xp.divide(e, total, out=e), loss
    return swce


def _make_swce_grad(ctx, metas, **attrs):
    """softmax_with_cross_entropy_grad's function of (label, probs, dloss), as above."""
    kernel: Callable[..., Any] = functools.partial(_swce_grad_kernel, ctx, **attrs)
    if not metas or not _swce_usual(metas[1], metas[0], attrs) or \
            metas[1].dtype != metas[2].dtype:
        return kernel
    xp = ctx.xp

    def swce_grad(label, probs, dloss):
        if not _all_classes(label, probs.shape[1]):
            return kernel(label, probs, dloss)
        grad = probs.copy()
        grad[xp.arange(probs.shape[0]), label[:, 0]] -= 1
        grad *= dloss
        return grad
    return swce_grad


register(OpDef(
    "softmax_with_cross_entropy", inputs=["Logits", "Label"], outputs=["Softmax", "Loss"],
    attrs=SWCE_ATTRS, infer=_swce_infer, kernel=prepared(_make_swce),
    grad=grad_op("softmax_with_cross_entropy_grad", inputs=("Label",), outputs=("Softmax",),
                 out_grads=("Loss",), in_grads=("Logits",)),
    doc="Softmax = softmax(Logits) along axis; Loss = cross entropy of Softmax and Label\n"
        "The gradient is Softmax - Label (one-hot for hard labels), times Loss@GRAD."))
register(OpDef(
    "softmax_with_cross_entropy_grad", inputs=["Label", "Softmax", "Loss@GRAD"],
    outputs=["Logits@GRAD"], attrs=SWCE_ATTRS, infer=_swce_grad_infer,
    kernel=prepared(_make_swce_grad),
    doc="the gradient of softmax_with_cross_entropy: Logits@GRAD from Label, Softmax and "
        "Loss@GRAD"))
