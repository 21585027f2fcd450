"""Pairwise and margin losses of older PaddlePaddle programs: ``hinge_loss``, ``rank_loss``.

``hinge_loss`` (binary labels 0 / 1, mapped to -1 / +1) is max(0, 1 - y * logit);
``rank_loss`` (RankNet) scores a pair by log(1 + exp(left - right)) - label * (left -
right), the cross entropy of sigmoid(left - right) against the label (1: left ranks
higher). Fluid 1.x wrote them; PaddlePaddle 2.6 still runs them.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import OpDef, Slot, fail, register

__all__ = []


def _column(slot, meta, like=None):
    if len(meta.shape) != 2 or meta.shape[1] not in (1, -1):
        fail(f"{slot} must be a column [N, 1], got shape {tuple(meta.shape)}")
    if like is not None and like.shape[0] >= 0 and meta.shape[0] >= 0 and \
            like.shape[0] != meta.shape[0]:
        fail(f"{slot} must have {like.shape[0]} rows like the others, got {meta.shape[0]}")
    return meta


def _hinge_infer(logits, labels):
    _column("Logits", logits)
    _column("Labels", labels, logits)
    return logits


def _hinge_kernel(ctx, logits, labels):
    return ctx.xp.maximum(1 - (2 * labels - 1) * logits, 0).astype(logits.dtype, copy=False)


def _hinge_grad_kernel(ctx, logits, labels, dloss):
    sign = 2 * labels - 1
    return ((sign * logits < 1) * -sign * dloss).astype(logits.dtype, copy=False)


register(OpDef(
    "hinge_loss", inputs=["Logits", "Labels"], outputs=["Loss"], infer=_hinge_infer,
    kernel=_hinge_kernel,
    grad=grad_op("hinge_loss_grad", inputs=("Logits", "Labels"), out_grads=("Loss",),
                 in_grads=("Logits",)),
    doc="Loss = max(0, 1 - (2 * Labels - 1) * Logits), Labels 0 or 1"))
register(OpDef(
    "hinge_loss_grad", inputs=["Logits", "Labels", "Loss@GRAD"], outputs=["Logits@GRAD"],
    infer=lambda logits, labels, dloss: logits, kernel=_hinge_grad_kernel,
    doc="the gradient of hinge_loss: -(2 * Labels - 1) * Loss@GRAD where the margin is short"))


def _rank_infer(label, left, right):
    for slot, meta in (("Label", label), ("Left", left), ("Right", right)):
        _column(slot, meta, left)
    return left


def _rank_kernel(ctx, label, left, right):
    xp = ctx.xp
    d = left - right
    softplus = xp.maximum(d, 0) + xp.log1p(xp.exp(-xp.abs(d)))     # log(1 + exp(d)), stable
    return (softplus - label * d).astype(left.dtype, copy=False)


def _rank_grad_kernel(ctx, label, left, right, dout):
    g = (1 / (1 + ctx.xp.exp(right - left)) - label) * dout      # sigmoid(d) - label
    return (g.astype(left.dtype, copy=False) if ctx.want(0) else None,
            (-g).astype(right.dtype, copy=False) if ctx.want(1) else None)


register(OpDef(
    "rank_loss", inputs=["Label", "Left", "Right"], outputs=["Out"], infer=_rank_infer,
    kernel=_rank_kernel,
    grad=grad_op("rank_loss_grad", inputs=("Label", "Left", "Right"),
                 in_grads=("Left", "Right")),
    doc="Out = log(1 + exp(Left - Right)) - Label * (Left - Right)"))
register(OpDef(
    "rank_loss_grad", inputs=["Label", "Left", "Right", "Out@GRAD"],
    outputs=[Slot("Left@GRAD", dispensable=True), Slot("Right@GRAD", dispensable=True)],
    infer=lambda label, left, right, dout: (left, right), kernel=_rank_grad_kernel,
    doc="the gradient of rank_loss: sigmoid(Left - Right) - Label for Left, its negative "
        "for Right"))
