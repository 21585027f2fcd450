"""Two more 2.6 losses composed of ops paddle_nb has: multi_margin_loss and npair_loss.

2.6 picks each row's label score with ``index_sample`` (no kernel here): paddle_nb picks
it with a one-hot row and a sum, the same value. npair_loss follows 2.6's composition.
Both compare values with 2.6, not op lists.
"""

from __future__ import annotations

import numpy

from paddle_nb.nn.functional import loss_steps as S
from paddle_nb.nn.functional.loss_composite import FLOAT_MAX
from paddle_nb.nn.functional.loss_cross_entropy import softmax_with_cross_entropy
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["multi_margin_loss", "npair_loss"]


def _mul(x: Tensor, y: Tensor) -> Tensor:
    return S.operator("elementwise_mul", {"X": x, "Y": y}, {"axis": -1})


def multi_margin_loss(input: Tensor, label: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, reduction: str = "mean", name: str | None = None
                     ) -> Tensor:
    """mean over classes of max(0, margin - input[label] + input)^p, less the label's own
    term (margin^p / C); ``weight`` scales each sample by its label's weight (and, as in
    PaddlePaddle 2.6, its correction broadcasts against the batch: an [N, N] result)."""
    S.check_reduction("multi_margin_loss", reduction)
    classes = int(input.shape[1])
    flat = S.reshape(label, [-1])
    hot = S.named("one_hot_v2", {"X": flat}, {"depth": classes, "dtype": numpy.dtype(input.dtype),
                                              "allow_out_of_range": False})
    picked = S.reduce("sum", _mul(input, hot), dim=[1])
    picked = S.reshape(picked, [-1, 1])
    gap = S.scale(S.operator("elementwise_sub", {"X": input, "Y": picked}, {"axis": -1}),
                  1.0, margin)
    scale = None
    if weight is not None:
        scale = S.reshape(S.named("gather", {"X": weight, "Index": flat}, {"axis": 0}), [-1, 1])
        gap = _mul(scale, gap)
    hinge = S.named("clip", {"X": gap}, {"min": 0.0, "max": FLOAT_MAX})
    loss = S.reduce("mean", S.named("pow", {"X": hinge}, {"factor": float(p)}), dim=[1])
    own = margin ** p / classes
    if scale is None:
        loss = S.scale(loss, 1.0, -own)
    else:
        loss = S.operator("elementwise_sub", {"X": loss, "Y": S.scale(scale, own)}, {"axis": -1})
    return S.reduce_loss(loss, reduction)


def npair_loss(anchor: Tensor, positive: Tensor, labels: Tensor, l2_reg: float = 0.002) -> Tensor:
    """The N-pair loss: softmax cross entropy of anchor . positive^T against the rows of equal
    labels (normalized), plus l2_reg / 4 times the mean squared norms of both embeddings."""
    batch = int(anchor.shape[0])
    labels = S.named("tile", {"X": S.reshape(labels, [batch, 1])},
                     {"repeat_times": [1, batch]})
    transposed = S.transpose(labels, [1, 0])
    same = S.cast(S.named("equal", {"X": labels, "Y": transposed}, {"axis": -1,
                                                                   "force_cpu": False}),
                  "float32", "tmp")
    same = S.operator("elementwise_div",
                      {"X": same, "Y": S.named("reduce_sum", {"X": same},
                                               {"dim": [1], "keep_dim": True,
                                                "reduce_all": False}, key="sum")},
                      {"axis": -1})
    l2 = S.operator("elementwise_add", {
        "X": S.reduce("mean", S.reduce("sum", S.named("square", {"X": anchor}), dim=[1])),
        "Y": S.reduce("mean", S.reduce("sum", S.named("square", {"X": positive}), dim=[1]))},
        {"axis": -1})
    l2 = S.scale(S.scale(l2, 0.25), float(l2_reg))
    similarity = S.named("matmul_v2", {"X": anchor, "Y": positive},
                         {"trans_x": False, "trans_y": True})
    ce = softmax_with_cross_entropy(similarity, same, soft_label=True)
    celoss = S.reduce("mean", S.reduce("sum", _mul(same, ce), dim=[0]))
    return S.operator("elementwise_add", {"X": l2, "Y": celoss}, {"axis": -1})
