"""Losses that pick each sample's label entry: ``nll_loss`` and ``cross_entropy2``.

``nll_loss`` is the negative log-likelihood of class indices, given log-probabilities.

X holds log-probabilities [N, C] (or [N, C, H, W], one distribution per pixel);
Label the class of each sample (or pixel): [N] (or [N, H, W]). Each sample's loss
is -Weight[label] * X[n, label]; a label equal to ``ignore_index`` counts for
nothing. ``Total_weight`` is the sum of the weights of the labels kept, the
divisor of ``reduction="mean"`` (0 with "none", as PaddlePaddle
leaves it); the grad reads it back.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

REDUCTIONS = ("none", "mean", "sum")
NLL_ATTRS = {
    "ignore_index": Attr("long", -100, comment="a label with loss and gradient 0"),
    "reduction": Attr("str", "mean", lambda v: None if v in REDUCTIONS
                      else f"expected one of {REDUCTIONS}"),
}


def _nll_infer(x, label, weight, *, ignore_index, reduction):
    xs, ls = tuple(x.shape), tuple(label.shape)
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor of log-probabilities, got {x.dtype}")
    if len(xs) not in (2, 4):
        fail(f"X must be [N, C] or [N, C, H, W], got shape {xs}")
    expected = (xs[0],) + xs[2:]
    if len(ls) != len(expected) or any(a >= 0 and b >= 0 and a != b
                                        for a, b in zip(expected, ls)):
        fail(f"Label must have shape {expected} (X's without the class dimension): X has "
             f"shape {xs}, Label has shape {ls}")
    if label.dtype.kind not in "iu":
        fail(f"Label must be an integer (int64) tensor of class indices, got {label.dtype}")
    if weight is not None and (len(weight.shape) != 1 or weight.shape[0] not in (-1, xs[1])):
        fail(f"Weight must have shape ({xs[1]},), one value per class, got "
             f"{tuple(weight.shape)}")
    out = x.with_shape(expected if reduction == "none" else ())
    return out, x.with_shape(())


def _picked(ctx, x, label, weight, ignore_index):
    """Per sample: the label (ignored ones as 0), its weight (0 when ignored), and the mask."""
    xp = ctx.xp
    classes = x.shape[1]
    keep = label != ignore_index
    index = xp.where(keep, label, 0).astype("int64", copy=False)
    if bool(((index < 0) | (index >= classes)).any()):
        raise ValueError(f"nll_loss: Label holds a class index outside [0, {classes}) that is "
                         f"not ignore_index ({ignore_index})")
    w = xp.ones(classes, dtype=x.dtype) if weight is None else weight
    return index, xp.where(keep, w[index], 0).astype(x.dtype, copy=False)


def _nll_kernel(ctx, x, label, weight, *, ignore_index, reduction):
    xp = ctx.xp
    index, w = _picked(ctx, x, label, weight, ignore_index)
    logp = xp.take_along_axis(x, index[:, None], axis=1)[:, 0]
    loss = -w * logp
    total = w.sum() if reduction != "none" else xp.zeros((), x.dtype)   # 2.6 leaves it 0
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        loss = loss.sum() / total if float(total) != 0 else loss.sum() * 0
    return xp.asarray(loss).astype(x.dtype, copy=False), xp.asarray(total).astype(x.dtype)


def _nll_grad_kernel(ctx, x, label, weight, total, dout, *, ignore_index, reduction):
    xp = ctx.xp
    index, w = _picked(ctx, x, label, weight, ignore_index)
    scale = dout if reduction == "none" else dout.reshape(()) * xp.ones_like(w)
    if reduction == "mean":
        scale = scale / total.reshape(()) if float(total.reshape(())) != 0 else scale * 0
    shape = [1] * x.ndim
    shape[1] = x.shape[1]
    hit = xp.arange(x.shape[1]).reshape(shape) == index[:, None]
    return xp.where(hit, (-w * scale)[:, None], 0).astype(x.dtype, copy=False)


register(OpDef(
    "nll_loss", inputs=["X", "Label", Slot("Weight", dispensable=True, comment="per class")],
    outputs=["Out", Slot("Total_weight", comment="the sum of the kept labels' weights")],
    attrs=NLL_ATTRS, infer=_nll_infer, kernel=_nll_kernel,
    grad=grad_op("nll_loss_grad", inputs=("X", "Label", "Weight"), outputs=("Total_weight",)),
    doc="Out = -Weight[Label] * X[Label] per sample, reduced (mean: divided by Total_weight)"))
register(OpDef(
    "nll_loss_grad",
    inputs=["X", "Label", Slot("Weight", dispensable=True), "Total_weight", "Out@GRAD"],
    outputs=["X@GRAD"], attrs=NLL_ATTRS, infer=lambda x, *rest, **_: x,
    kernel=_nll_grad_kernel, doc="the gradient of nll_loss: -Weight[Label] * Out@GRAD at Label"))


# ---- cross_entropy2 ----
# What Fluid's ``layers.cross_entropy`` writes for hard labels since PaddlePaddle 1.6 (older
# saved programs hold it): Y = -log(X[label]) over X's last dimension, with MatchX =
# X[label] kept for the grad (``cross_entropy_grad2``: -Y@GRAD / MatchX at the label).

CE2_ATTRS = {"ignore_index": Attr("int", -100, comment="a label with loss and gradient 0")}


def _ce2_infer(x, label, *, ignore_index):
    xs, ls = tuple(x.shape), tuple(label.shape)
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor of probabilities, got {x.dtype}")
    if len(xs) < 1 or len(ls) != len(xs) or ls[-1] not in (1, -1) or any(
            a >= 0 and b >= 0 and a != b for a, b in zip(xs[:-1], ls[:-1])):
        fail(f"Label must have X's shape with a last dimension of 1: X has shape {xs}, Label "
             f"has shape {ls}")
    if label.dtype.kind not in "iu":
        fail(f"Label must be an integer (int64) tensor of class indices, got {label.dtype}")
    y = x.with_shape(xs[:-1] + (1,))
    return y, x.with_shape(xs + (0,)), y


def _ce2_kernel(ctx, x, label, *, ignore_index):
    xp = ctx.xp
    keep = label != ignore_index
    index = xp.where(keep, label, 0).astype("int64", copy=False)
    match = xp.take_along_axis(x, index, axis=-1)
    y = xp.where(keep, -xp.log(match), 0).astype(x.dtype, copy=False)
    xshape = xp.zeros(x.shape + (0,), dtype=x.dtype)
    return y, xshape, xp.where(keep, match, 0).astype(x.dtype, copy=False)


def _ce2_grad_kernel(ctx, label, match, xshape, dy, *, ignore_index):
    xp = ctx.xp
    shape = xshape.shape[:-1]
    keep = label != ignore_index
    hit = xp.arange(shape[-1]) == xp.where(keep, label, -1)
    return xp.where(hit, -dy / xp.where(keep, match, 1), 0).astype(dy.dtype, copy=False)


register(OpDef(
    "cross_entropy2", inputs=["X", "Label"],
    outputs=["Y", Slot("XShape", comment="X's shape + (0,), for the grad"),
             Slot("MatchX", comment="X at each label")],
    attrs=CE2_ATTRS, infer=_ce2_infer, kernel=_ce2_kernel,
    grad=grad_op("cross_entropy_grad2", inputs=("Label",), outputs=("MatchX", "XShape"),
                 out_grads=("Y",)),
    doc="Y = -log(X[Label]) along X's last dimension (hard labels; 0 where ignore_index)"))
register(OpDef(
    "cross_entropy_grad2", inputs=["Label", "MatchX", "XShape", "Y@GRAD"], outputs=["X@GRAD"],
    attrs=CE2_ATTRS, infer=lambda label, match, xshape, dy, **_: xshape.with_shape(
        tuple(xshape.shape[:-1])), kernel=_ce2_grad_kernel,
    doc="the gradient of cross_entropy2: -Y@GRAD / MatchX at the label, 0 elsewhere"))
