"""Losses of ``paddle.nn.functional``, in static mode, built as PaddlePaddle 2.6 builds them.

A loss is one op where PaddlePaddle has one (``bce_loss``, ``nll_loss``, ``kldiv_loss``,
``huber_loss``, ``sigmoid_cross_entropy_with_logits``, ``softmax_with_cross_entropy``)
followed by its reduction; the others are compositions of elementwise ops, appended step
by step (``loss_steps``) with the op types and names 2.6 writes. ``reduction`` is
"mean" (a 0-D result), "sum" (0-D) or "none" (one loss per element or sample).

>>> import paddle_nb as pd, numpy as np
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     x = pd.layers.data("x", [2, 3], append_batch_size=False)
...     y = pd.layers.data("y", [2, 3], append_batch_size=False)
...     loss = mse_loss(x, y)
>>> [op.type for op in loss.block.ops], loss.name, loss.shape
(['elementwise_sub', 'square', 'reduce_mean'], 'mean_0.tmp_0', ())
"""

from __future__ import annotations

from paddle_nb.layers.helper import layer_helper
from paddle_nb.layers.loss import append_square_error_cost
from paddle_nb.nn.functional import loss_steps as S
from paddle_nb.nn.functional.loss_composite import (
    cosine_embedding_loss, dice_loss, gaussian_nll_loss, hinge_embedding_loss,
    multi_label_soft_margin_loss, poisson_nll_loss, sigmoid_focal_loss, soft_margin_loss,
    triplet_margin_loss, triplet_margin_with_distance_loss,
)
from paddle_nb.nn.functional.loss_cross_entropy import (
    cross_entropy, label_smooth, softmax_with_cross_entropy,
)
from paddle_nb.nn.functional.loss_pairs import multi_margin_loss, npair_loss
from paddle_nb.nn.functional.loss_unavailable import (
    edit_distance, hsigmoid_loss, margin_cross_entropy, rnnt_loss,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "label_smooth", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "nll_loss", "kl_div", "margin_ranking_loss", "log_loss", "square_error_cost",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "soft_margin_loss",
           "multi_label_soft_margin_loss", "sigmoid_focal_loss", "dice_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss", "multi_margin_loss",
           "npair_loss", "hsigmoid_loss", "margin_cross_entropy", "rnnt_loss", "edit_distance"]


def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
            ) -> Tensor:
    """(input - label)^2, reduced."""
    S.check_reduction("mse_loss", reduction)
    square = S.named("square", {"X": S.elementwise("elementwise_sub", input, label)})
    return S.reduce_loss(square, reduction)


def l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
           ) -> Tensor:
    """|input - label|, reduced."""
    S.check_reduction("l1_loss", reduction)
    diff = S.named("abs", {"X": S.elementwise("elementwise_sub", input, label)})
    return S.reduce_loss(diff, reduction)


def smooth_l1_loss(input: Tensor, label: Tensor, reduction: str = "mean", delta: float = 1.0,
                   name: str | None = None) -> Tensor:
    """The Huber loss of label - input (``huber_loss``): quadratic within ``delta``, linear
    beyond."""
    S.check_reduction("smooth_l1_loss", reduction)
    helper = layer_helper("huber_loss")
    residual, out = helper.tmp_name(), helper.tmp_name()
    loss = S.append(out, "huber_loss", {"X": input, "Y": label}, {"delta": float(delta)},
                    extra={"Residual": residual})
    return S.reduce_loss(loss, reduction)


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:
    """(input - label)^2 elementwise, named after the function (``square_error_cost_0.tmp_1``)."""
    return append_square_error_cost(layer_helper("square_error_cost"), input, label,
                                     {"axis": -1})


def log_loss(input: Tensor, label: Tensor, epsilon: float = 1e-4, name: str | None = None
            ) -> Tensor:
    """-label log(input + eps) - (1 - label) log(1 - input + eps), elementwise (``log_loss``)."""
    return S.named("log_loss", {"Predicted": input, "Labels": label},
                   {"epsilon": float(epsilon)}, slot="Loss")


def _weighted(loss: Tensor, weight: Tensor | None) -> Tensor:
    return loss if weight is None else S.elementwise("elementwise_mul", loss, weight)


def binary_cross_entropy(input: Tensor, label: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean", name: str | None = None) -> Tensor:
    """-(label log(input) + (1 - label) log(1 - input)) for probabilities ``input``
    (``bce_loss``)."""
    S.check_reduction("binary_cross_entropy", reduction)
    loss = S.named("bce_loss", {"X": input, "Label": label}, key="binary_cross_entropy")
    return S.reduce_loss(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(logit: Tensor, label: Tensor, weight: Tensor | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None,
                                     name: str | None = None) -> Tensor:
    """The binary cross entropy of sigmoid(logit), computed stably from the logits
    (``sigmoid_cross_entropy_with_logits``); ``pos_weight`` weighs the positive term per class."""
    S.check_reduction("binary_cross_entropy_with_logits", reduction)
    one = S.fill(1.0, [1], logit.dtype)
    inputs = {"X": logit, "Label": label}
    if pos_weight is not None:
        # 2.6 hands the op 1 + (pos_weight - 1) * label, the weight of each element's log term
        scaled = S.elementwise("elementwise_mul", label,
                               S.elementwise("elementwise_sub", pos_weight, one))
        inputs["pos_weight"] = S.elementwise("elementwise_add", scaled, one)
    loss = S.named("sigmoid_cross_entropy_with_logits", inputs,
                   {"ignore_index": -100, "normalize": False})
    return S.reduce_loss(_weighted(loss, weight), reduction)


def nll_loss(input: Tensor, label: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean", name: str | None = None) -> Tensor:
    """-weight[label] * input[label] for log-probabilities ``input`` [N, C, ...] and class
    indices ``label`` [N, ...]; other ranks than 2 and 4 go through [N, C, 1, -1]."""
    S.check_reduction("nll_loss", reduction)
    shape, rank = [int(d) for d in input.shape], len(input.shape)
    if rank < 2 or len(label.shape) not in (rank - 1, rank):
        raise ValueError(f"nll_loss: expected input [N, C, ...] and label [N, ...], got input "
                         f"shape {shape} and label shape {list(label.shape)}")
    helper = layer_helper("nll_loss")
    if rank not in (2, 4):
        input = S.reshape(input, [shape[0], shape[1], 1, -1])
        label = S.reshape(label, [shape[0], 1, -1])
    out_name, total = helper.tmp_name(), helper.tmp_name()
    inputs = {"X": input, "Label": label}
    if weight is not None:
        inputs["Weight"] = weight
    out = S.append(out_name, "nll_loss", inputs, {"ignore_index": int(ignore_index),
                                                  "reduction": reduction},
                   extra={"Total_weight": total})
    if rank not in (2, 4) and reduction == "none":
        out = S.reshape(out, [shape[0]] + shape[2:])
    return out


def kl_div(input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
          ) -> Tensor:
    """label * (log(label) - input) for log-probabilities ``input`` (``kldiv_loss``), reduced;
    "batchmean" divides the sum by the batch size."""
    S.check_reduction("kl_div", reduction, ("none", "mean", "batchmean", "sum"))
    loss = S.named("kldiv_loss", {"X": input, "Target": label}, {"reduction": "none"},
                   key="kl_div", slot="Loss")
    if reduction != "batchmean":
        return S.reduce_loss(loss, reduction)
    shape = S.named("shape", {"Input": input})
    batch = S.append(f"{shape.name}_slice_0", "slice", {"Input": shape},
                     {"axes": [0], "starts": [0], "ends": [1], "infer_flags": [1],
                      "decrease_axis": [0]})
    total = S.reduce("sum", loss)
    return S.operator("elementwise_div", {"X": total, "Y": S.cast(batch, input.dtype, "tmp")},
                      {"axis": -1})


def margin_ranking_loss(input: Tensor, other: Tensor, label: Tensor, margin: float = 0.0,
                        reduction: str = "mean", name: str | None = None) -> Tensor:
    """relu(-label * (input - other) + margin), reduced; the last op writes the function's
    own temporary (``margin_ranking_loss_0.tmp_0``): relu, ``reduce_sum`` or ``mean``."""
    S.check_reduction("margin_ranking_loss", reduction)
    helper = layer_helper("margin_ranking_loss")
    diff = S.elementwise("elementwise_sub", input, other)
    out = S.elementwise("elementwise_mul", S.scale(label, -1.0, key="scale"), diff)
    if margin != 0.0:
        out = S.elementwise("elementwise_add", out, S.fill(margin, [1], input.dtype))
    if reduction == "none":
        return helper.out("relu", {"X": out})
    out = S.named("relu", {"X": out})
    if reduction == "sum":
        return helper.out("reduce_sum", {"X": out},
                          {"dim": [0], "keep_dim": False, "reduce_all": True})
    return helper.out("mean", {"X": out})


def ctc_loss(log_probs: Tensor, labels: Tensor, input_lengths: Tensor, label_lengths: Tensor,
             blank: int = 0, reduction: str = "mean", norm_by_times: bool = False) -> Tensor:
    """The CTC loss of padded sequences (``warpctc``): ``log_probs`` [max_time, batch,
    classes] (unnormalized; the op takes the softmax), ``labels`` [batch, max_label_length];
    "mean" averages the losses divided by their label lengths."""
    S.check_reduction("ctc_loss", reduction)
    helper = layer_helper("warpctc")
    loss_name, grad = helper.tmp_name(), helper.tmp_name()
    loss = S.append(loss_name, "warpctc", {"Logits": log_probs, "Label": labels,
                                      "LogitsLength": input_lengths,
                                      "LabelLength": label_lengths},
                    {"blank": int(blank), "norm_by_times": bool(norm_by_times)},
                    slot="Loss", extra={"WarpCTCGrad": grad})
    loss = S.squeeze(loss, [-1])
    if reduction == "mean":
        per_label = S.operator("elementwise_div",
                               {"X": loss, "Y": S.cast(label_lengths, loss.dtype, "tmp")},
                               {"axis": -1})
        return S.reduce("mean", per_label)
    return S.reduce_loss(loss, reduction)
