"""``F.cross_entropy`` and ``F.softmax_with_cross_entropy``, as PaddlePaddle 2.6 builds them.

The core is one ``softmax_with_cross_entropy`` op (softmax, or none with
``use_softmax=False``, and the cross entropy along ``axis``). Around it 2.6 appends:
an ``unsqueeze2`` giving a hard label its class dimension; for ``label_smoothing``,
``one_hot_v2`` and ``label_smooth`` (the label becomes soft); for ``weight``, the
per-sample weight of each label (ignored labels weigh 0) and a weighted mean; and the
reduction, whose "mean" with an ``ignore_index`` divides by the labels kept.
"""

from __future__ import annotations

import numpy

from paddle_nb.layers.helper import layer_helper
from paddle_nb.layers.loss import append_softmax_with_cross_entropy
from paddle_nb.nn.functional import loss_steps as S
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "label_smooth"]

CMP = {"axis": -1, "force_cpu": False}


@overload
def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: Literal[False] = False, axis: int = -1
                               ) -> Tensor: ...
@overload
def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               *, return_softmax: Literal[True], axis: int = -1
                               ) -> tuple[Tensor, Tensor]: ...
def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1
                               ) -> Tensor | tuple[Tensor, Tensor]:
    """The cross entropy of softmax(logits) and label along ``axis``, in one op."""
    return _swce(logits, label, soft_label, ignore_index, numeric_stable_mode, return_softmax,
                 axis, True)


def _swce(logits: Tensor, label: Tensor, soft_label: bool, ignore_index: int,
          numeric_stable_mode: bool, return_softmax: bool, axis: int, use_softmax: bool
          ) -> Any:
    attrs = {"soft_label": bool(soft_label), "ignore_index": int(ignore_index),
             "numeric_stable_mode": bool(numeric_stable_mode), "axis": int(axis),
             "use_softmax": bool(use_softmax)}
    loss, softmax = append_softmax_with_cross_entropy(
        layer_helper("softmax_with_cross_entropy"), logits, label, attrs)
    return (loss, softmax) if return_softmax else loss


def label_smooth(label: Tensor, prior_dist: Any = None, epsilon: float = 0.1,
                 name: str | None = None) -> Tensor:
    """(1 - epsilon) * label + epsilon * prior_dist (uniform over the last dimension by default).
    As in PaddlePaddle 2.6, ``label`` is marked stop_gradient: no gradient flows back."""
    label.stop_gradient = True
    inputs = {"X": label}
    if prior_dist is not None:
        inputs["PriorDist"] = prior_dist
    return S.named("label_smooth", inputs, {"epsilon": float(epsilon)})


def cross_entropy(input: Tensor, label: Tensor, weight: Tensor | None = None,
                  ignore_index: int = -100, reduction: str = "mean", soft_label: bool = False,
                  axis: int = -1, use_softmax: bool = True, label_smoothing: float = 0.0,
                  name: str | None = None) -> Tensor:
    """Softmax (unless ``use_softmax`` is False) then cross entropy with ``label`` along
    ``axis``: class indices (the class dimension of size 1 or absent) or, with
    ``soft_label``, distributions; ``weight`` weighs each class; ``ignore_index`` is a label
    that counts for nothing; ``label_smoothing`` mixes the one-hot label with uniform."""
    S.check_reduction("cross_entropy", reduction)
    if soft_label and ignore_index > 0:
        raise ValueError(f"cross_entropy: ignore_index must be -100 with soft labels, got "
                         f"{ignore_index}")
    rank = len(input.shape)
    axis = axis if axis >= 0 else axis + rank
    no_class_dim = len(label.shape) == rank - 1      # the loss loses the class dim again
    if no_class_dim:
        label = S.unsqueeze(label, [axis - rank])
    elif len(label.shape) != rank:
        raise ValueError(f"cross_entropy: label must have input's rank {rank} or one less, got "
                         f"shape {list(label.shape)}")
    if label_smoothing > 0:
        if no_class_dim:
            label = S.named("one_hot_v2", {"X": S.squeeze(label, [axis - rank])},
                            {"depth": int(input.shape[-1]), "dtype": numpy.dtype("float32"),
                             "allow_out_of_range": False})
        label = S.cast(label_smooth(label, epsilon=label_smoothing), input.dtype, "tmp")
        soft_label, no_class_dim = True, False
    loss = _swce(input, label, soft_label, ignore_index, True, False, axis - rank, use_softmax)
    weights = None
    if weight is not None:
        if not soft_label and weight.shape[-1] != input.shape[axis]:
            raise ValueError(f"cross_entropy: weight must have one value per class "
                             f"({input.shape[axis]}), got shape {list(weight.shape)}")
        weights = (_soft_weights if soft_label else _hard_weights)(
            label, weight, ignore_index, axis - rank, loss)
        loss = S.elementwise("elementwise_mul", S.cast(loss, input.dtype) if soft_label else loss,
                             weights)
    if reduction == "none":
        return S.squeeze(loss, [axis - rank]) if no_class_dim else loss
    if reduction == "sum":
        return S.reduce("sum", loss)
    if not soft_label and ignore_index >= 0:
        # divide by the count (or the total weight) of the labels kept (2.6 does this for a
        # class index only: a negative ignore_index other than -100 counts in the mean)
        total = S.reduce("sum", loss)
        kept = _kept(label, ignore_index, input.dtype if weights is None else weights.dtype)
        if weights is not None:
            kept = S.elementwise("elementwise_mul", kept, weights)
        return _safe_divide(total, S.reduce("sum", kept))
    if weights is not None:
        return _safe_divide(S.reduce("sum", loss), S.reduce("sum", weights))
    return S.reduce("mean", loss)


def _kept(label: Tensor, ignore_index: int, dtype: DTypeLike, named: bool = True) -> Tensor:
    """float(label != ignore_index): 1 for each label that counts."""
    mask = S.operator("not_equal", {"X": label, "Y": S.number(ignore_index, label.dtype)}, CMP)
    return S.cast(mask, dtype) if named else mask


def _safe_divide(total: Tensor, count: Tensor) -> Tensor:
    """total / count, where a count of 0 divides by 1 instead (2.6's way)."""
    zero = S.named("equal", {"X": count, "Y": S.fill(0.0, [], count.dtype)}, CMP)
    count = S.operator("elementwise_add", {"X": count, "Y": S.cast(zero, count.dtype, "tmp")},
                       {"axis": -1})
    return S.operator("elementwise_div", {"X": total, "Y": count}, {"axis": -1})


def _hard_weights(label: Tensor, weight: Tensor, ignore_index: int, axis: int, loss: Tensor
                 ) -> Tensor:
    """weight[label] per sample (0 where the label is ignored), shaped as the label."""
    rank = len(label.shape)
    index = S.elementwise("elementwise_mul", _kept(label, ignore_index, label.dtype), label)
    mask = _kept(label, ignore_index, weight.dtype)
    if rank > 1 and label.shape[axis] == 1:
        mask = S.squeeze(mask, [axis])
    if axis % rank != rank - 1:       # the class axis moves last: gather_nd's index rows
        perm = [d for d in range(rank) if d != axis % rank] + [axis % rank]
        index = S.transpose(index, perm)
    picked = S.elementwise("elementwise_mul",
                           S.named("gather_nd", {"X": weight, "Index": index}), mask)
    return S.reshape(picked, list(label.shape))


def _soft_weights(label: Tensor, weight: Tensor, ignore_index: int, axis: int, loss: Tensor
                 ) -> Tensor:
    """sum over classes of label * weight per sample, shaped as the loss."""
    per_sample = S.named("matmul_v2", {"X": S.cast(label, weight.dtype), "Y": weight},
                         {"trans_x": False, "trans_y": True})
    return S.reshape(per_sample, list(loss.shape))
