"""Losses PaddlePaddle 2.6 writes as compositions of elementwise ops (no loss op of their own).

Most append the op types 2.6 appends, in its order, with its names (``where`` copies
the chain of ``fill_any_like``/``cast``/``elementwise_add`` ops by which 2.6's static
``paddle.where`` broadcasts its arguments). triplet_margin_loss and gaussian_nll_loss
compute what 2.6 computes with other ops: 2.6 writes ``p_norm`` and ``assert``, which
have no kernel here.
"""

from __future__ import annotations

import math

import numpy

from paddle_nb.core.dtypes import to_var_type
from paddle_nb.nn.functional import loss_steps as S
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["soft_margin_loss", "multi_label_soft_margin_loss", "sigmoid_focal_loss", "dice_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss"]

CMP = {"axis": -1, "force_cpu": False}
FLOAT_MAX = float(numpy.finfo(numpy.float32).max)


def _mul(x: Tensor, y: Tensor) -> Tensor:
    return S.operator("elementwise_mul", {"X": x, "Y": y}, {"axis": -1})


def _add(x: Tensor, y: Tensor) -> Tensor:
    return S.operator("elementwise_add", {"X": x, "Y": y}, {"axis": -1})


def soft_margin_loss(input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None
                    ) -> Tensor:
    """log(1 + exp(-label * input)), reduced; labels are 1 or -1."""
    S.check_reduction("soft_margin_loss", reduction)
    label = S.cast(label, input.dtype)
    exp = S.named("exp", {"X": _mul(S.scale(label, -1.0), input)})
    return S.reduce_loss(S.named("log", {"X": S.scale(exp, 1.0, 1.0)}), reduction)


def multi_label_soft_margin_loss(input: Tensor, label: Tensor, weight: Tensor | None = None,
                                 reduction: str = "mean", name: str | None = None) -> Tensor:
    """-mean over classes of label log(sigmoid(x)) + (1 - label) log(sigmoid(-x)), reduced."""
    S.check_reduction("multi_label_soft_margin_loss", reduction)
    positive = _mul(label, S.named("logsigmoid", {"X": input}, key="log_sigmoid"))
    negative_label = S.scale(label, -1.0, 1.0)
    negative = _mul(negative_label, S.named("logsigmoid", {"X": S.scale(input, -1.0)},
                                            key="log_sigmoid"))
    loss = S.scale(_add(positive, negative), -1.0)
    if weight is not None:
        loss = _mul(loss, weight)
    return S.reduce_loss(S.reduce("mean", loss, dim=[-1]), reduction)


def sigmoid_focal_loss(logit: Tensor, label: Tensor, normalizer: Tensor | None = None,
                       alpha: float = 0.25, gamma: float = 2.0, reduction: str = "sum",
                       name: str | None = None) -> Tensor:
    """alpha_t * (1 - p_t)^gamma * BCE(logit, label), p_t the probability of the true class;
    divided by ``normalizer`` when given; reduced (default "sum")."""
    S.check_reduction("sigmoid_focal_loss", reduction)
    S.fill(1.0, [1], logit.dtype)      # 2.6 makes a constant one it does not use here
    ce = S.named("sigmoid_cross_entropy_with_logits", {"X": logit, "Label": label},
                 {"ignore_index": -100, "normalize": False})
    p = S.named("sigmoid", {"X": logit})
    p_t = _add(_mul(p, label), _mul(S.scale(p, -1.0, 1.0), S.scale(label, -1.0, 1.0)))
    alpha_t = _add(S.scale(label, alpha), S.scale(S.scale(label, -1.0, 1.0), 1.0 - alpha))
    loss = S.elementwise("elementwise_mul", alpha_t, ce)
    modulator = S.named("pow", {"X": S.scale(p_t, -1.0, 1.0)}, {"factor": float(gamma)})
    loss = S.elementwise("elementwise_mul", modulator, loss)
    if normalizer is not None:
        loss = S.elementwise("elementwise_div", loss, normalizer)
    return S.reduce_loss(loss, reduction)


def dice_loss(input: Tensor, label: Tensor, epsilon: float = 0.00001, name: str | None = None
             ) -> Tensor:
    """1 - 2 |input * onehot(label)| / (|input| + |onehot(label)|) per sample, averaged;
    ``input`` holds probabilities [N, ..., C], ``label`` class indices [N, ..., 1]."""
    for var in (input, label):     # 2.6's size checks; their results are not used
        S.operator("greater_than", {"X": S.named("size", {"Input": var}, key="numel"),
                                    "Y": S.number(0, "int64")}, CMP)
    classes = int(input.shape[-1])
    hot = S.named("one_hot_v2", {"X": S.squeeze(label, [-1])},
                  {"depth": classes, "dtype": numpy.dtype("float32"), "allow_out_of_range": False})
    dims = list(range(1, len(input.shape)))
    inse = S.reduce("sum", _mul(input, hot), dim=dims)
    denominator = _add(S.reduce("sum", input, dim=dims), S.reduce("sum", hot, dim=dims))
    ratio = S.operator("elementwise_div", {"X": S.scale(inse, 2.0),
                                           "Y": S.scale(denominator, 1.0, epsilon)}, {"axis": -1})
    return S.reduce("mean", S.scale(ratio, -1.0, 1.0))


def poisson_nll_loss(input: Tensor, label: Tensor, log_input: bool = True, full: bool = False,
                     epsilon: float = 1e-8, reduction: str = "mean", name: str | None = None
                    ) -> Tensor:
    """exp(input) - label * input (``log_input``) or input - label * log(input + eps), reduced;
    ``full`` adds Stirling's label * log(label) - label + log(2 pi label) / 2 where label > 1."""
    S.check_reduction("poisson_nll_loss", reduction)
    if epsilon <= 0:
        raise ValueError(f"poisson_nll_loss: epsilon must be positive, got {epsilon}")
    label = S.cast(label, input.dtype)
    if log_input:
        loss = S.operator("elementwise_sub", {"X": S.named("exp", {"X": input}),
                                              "Y": _mul(label, input)}, {"axis": -1})
    else:
        log = S.named("log", {"X": S.scale(input, 1.0, epsilon)})
        loss = S.operator("elementwise_sub", {"X": input, "Y": _mul(label, log)}, {"axis": -1})
    if full:
        loss = _add(loss, _stirling(label))
    return S.reduce_loss(loss, reduction)


def _stirling(label: Tensor) -> Tensor:
    """label * log(label) - label + log(2 pi label) / 2 where label > 1, else 0."""
    term = S.operator("elementwise_sub", {"X": _mul(label, S.named("log", {"X": label})),
                                          "Y": label}, {"axis": -1})
    term = _add(term, S.scale(S.named("log", {"X": S.scale(label, 2 * math.pi)}), 0.5))
    above = S.operator("greater_than", {"X": label, "Y": S.number(1, label.dtype)}, CMP)
    return where(above, term, _full_like(term))


def gaussian_nll_loss(input: Tensor, label: Tensor, variance: Tensor, full: bool = False,
                      epsilon: float = 1e-6, reduction: str = "mean", name: str | None = None
                     ) -> Tensor:
    """(log(max(variance, eps)) + (input - label)^2 / max(variance, eps)) / 2, reduced
    (+ log(2 pi) / 2 when ``full``)."""
    S.check_reduction("gaussian_nll_loss", reduction)
    var = S.named("clip", {"X": variance}, {"min": float(epsilon), "max": FLOAT_MAX})
    diff = S.operator("elementwise_sub", {"X": input, "Y": label}, {"axis": -1})
    ratio = S.operator("elementwise_div", {"X": S.named("square", {"X": diff}), "Y": var},
                       {"axis": -1})
    loss = S.scale(_add(S.named("log", {"X": var}), ratio), 0.5)
    if full:
        loss = S.scale(loss, 1.0, 0.5 * math.log(2 * math.pi))
    return S.reduce_loss(loss, reduction)


def _full_like(x: Tensor, dtype: DTypeLike | None = None) -> Tensor:
    """``paddle.zeros_like``: ``fill_any_like`` writing ``full_like_N.tmp_0``."""
    number = to_var_type(x.dtype if dtype is None else dtype)
    return S.named("fill_any_like", {"X": x}, {"value": 0.0, "dtype": number}, key="full_like")


def where(condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """``paddle.where`` as 2.6 builds it in static mode: when the three shapes differ, each is
    broadcast by adding zeros shaped like all three (two casts make the sum numeric)."""
    if tuple(condition.shape) == tuple(x.shape) == tuple(y.shape):
        return S.named("where", {"Condition": condition, "X": x, "Y": y})
    zeros_x, zeros_y, zeros_c = _full_like(x), _full_like(y), _full_like(condition, "bool")
    zeros_c, numeric = S.cast(zeros_c, x.dtype), S.cast(condition, x.dtype)
    zeros = S.elementwise("elementwise_add", S.elementwise("elementwise_add", zeros_x, zeros_y),
                          zeros_c)
    x, y = S.elementwise("elementwise_add", x, zeros), S.elementwise("elementwise_add", y, zeros)
    condition = S.cast(S.elementwise("elementwise_add", numeric, zeros), "bool")
    return S.named("where", {"Condition": condition, "X": x, "Y": y})


def _is(label: Tensor, value: float) -> Tensor:
    """``label == value`` with a Python number: ``tmp_N``."""
    return S.operator("equal", {"X": label, "Y": S.number(value, label.dtype)}, CMP)


def hinge_embedding_loss(input: Tensor, label: Tensor, margin: float = 1.0, reduction: str = "mean",
                         name: str | None = None) -> Tensor:
    """input where label is 1, max(0, margin - input) where label is -1; reduced."""
    S.check_reduction("hinge_embedding_loss", reduction)
    zero = S.fill(0.0, [1], input.dtype)
    positive = where(_is(label, 1.0), input, zero)
    negative = where(_is(label, -1.0), S.named("relu", {"X": S.scale(input, -1.0, margin)}), zero)
    return S.reduce_loss(_add(positive, negative), reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, label: Tensor, margin: float = 0,
                          reduction: str = "mean", name: str | None = None) -> Tensor:
    """1 - cos(input1, input2) where label is 1, max(0, cos - margin) where it is -1; reduced.
    The cosine runs along the last axis (each squared magnitude plus 1e-11)."""
    S.check_reduction("cosine_embedding_loss", reduction)
    dot = S.reduce("sum", _mul(input1, input2), dim=[-1])
    squares = [S.scale(S.reduce("sum", S.named("square", {"X": v}), dim=[-1]), 1.0, 10e-12)
               for v in (input1, input2)]
    denominator = S.named("sqrt", {"X": _mul(*squares)})
    cos = S.operator("elementwise_div", {"X": dot, "Y": denominator}, {"axis": -1})
    zeros = _full_like(cos)
    positive = S.scale(cos, -1.0, 1.0)
    negative = S.named("clip", {"X": S.scale(cos, 1.0, -margin)}, {"min": 0.0, "max": FLOAT_MAX})
    out = _add(where(_is(label, 1), positive, zeros), where(_is(label, -1), negative, zeros))
    return S.reduce_loss(out, reduction)


def _pairwise(x: Tensor, y: Tensor, p: float, epsilon: float) -> Tensor:
    """||x - y + epsilon||_p along the last axis (2.6's PairwiseDistance)."""
    diff = S.elementwise("elementwise_add", S.elementwise("elementwise_sub", x, y),
                         S.fill(epsilon, [1], x.dtype))
    powered = S.named("pow", {"X": S.named("abs", {"X": diff})}, {"factor": float(p)})
    return S.named("pow", {"X": S.reduce("sum", powered, dim=[-1])}, {"factor": 1.0 / p})


def triplet_margin_loss(input: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, epsilon: float = 1e-6, swap: bool = False,
                        reduction: str = "mean", name: str | None = None) -> Tensor:
    """max(d(input, positive) - d(input, negative) + margin, 0), d the p-norm distance;
    ``swap`` takes the smaller of d(input, negative) and d(positive, negative)."""
    S.check_reduction("triplet_margin_loss", reduction)
    d_pos = _pairwise(input, positive, p, epsilon)
    d_neg = _pairwise(input, negative, p, epsilon)
    if swap:
        d_neg = S.named("elementwise_min", {"X": d_neg,
                                            "Y": _pairwise(positive, negative, p, epsilon)},
                        {"axis": -1}, key="minimum")
    gap = S.operator("elementwise_sub", {"X": d_pos, "Y": d_neg}, {"axis": -1})
    loss = S.named("clip", {"X": S.scale(gap, 1.0, margin)}, {"min": 0.0, "max": FLOAT_MAX})
    return S.reduce_loss(loss, reduction)


def triplet_margin_with_distance_loss(input: Tensor, positive: Tensor, negative: Tensor,
                                      distance_function: Any = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean",
                                      name: str | None = None) -> Tensor:
    """triplet_margin_loss with ``distance_function(a, b)`` (default the 2-norm distance)."""
    S.check_reduction("triplet_margin_with_distance_loss", reduction)
    distance = distance_function or (lambda a, b: _pairwise(a, b, 2.0, 1e-6))
    d_pos, d_neg = distance(input, positive), distance(input, negative)
    if swap:
        d_neg = S.named("elementwise_min", {"X": d_neg, "Y": distance(positive, negative)},
                        {"axis": -1}, key="minimum")
    gap = S.operator("elementwise_sub", {"X": d_pos, "Y": d_neg}, {"axis": -1})
    loss = S.named("clip", {"X": S.scale(gap, 1.0, margin)}, {"min": 0.0, "max": FLOAT_MAX})
    return S.reduce_loss(loss, reduction)
