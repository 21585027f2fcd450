"""Loss layers of ``paddle.nn``: each keeps its options and calls its ``nn.functional`` loss.

A loss layer has no parameters; ``CrossEntropyLoss(weight=w)`` keeps the Variable ``w``.
Calling one appends exactly what the function appends (``nn.MSELoss()(x, y)`` is
``F.mse_loss(x, y)``).
"""

from __future__ import annotations

from typing import Any

from paddle_nb.nn.functional import loss as F
from paddle_nb.nn.functional.loss_steps import unavailable
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["CrossEntropyLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss",
           "NLLLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
           "SoftMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "CTCLoss", "MultiMarginLoss", "HSigmoidLoss", "RNNTLoss"]


class CrossEntropyLoss(Layer):
    """``F.cross_entropy`` with the options kept: weight, ignore_index, reduction,
    soft_label, axis, use_softmax, label_smoothing.

    >>> import paddle_nb as pd
    >>> from paddle_nb.framework import unique_name
    >>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
    ...     logits = pd.layers.data("logits", [4, 3], append_batch_size=False)
    ...     label = pd.layers.data("label", [4], dtype="int64", append_batch_size=False)
    ...     loss = CrossEntropyLoss()(logits, label)
    >>> [op.type for op in loss.block.ops], loss.name, loss.shape
    (['unsqueeze2', 'softmax_with_cross_entropy', 'reduce_mean'], 'mean_0.tmp_0', ())
    """

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                 use_softmax: bool = True, label_smoothing: float = 0.0, name: str | None = None
                ) -> None:
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing)


class _Reduced(Layer):
    """A loss with only a ``reduction`` option: ``FUNCTION(input, label, reduction=...)``."""

    FUNCTION: Any = None

    def __init__(self, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return type(self).FUNCTION(input, label, reduction=self.reduction)


class MSELoss(_Reduced):
    """(input - label)^2, reduced."""

    FUNCTION = staticmethod(F.mse_loss)


class L1Loss(_Reduced):
    """|input - label|, reduced."""

    FUNCTION = staticmethod(F.l1_loss)


class SoftMarginLoss(_Reduced):
    """log(1 + exp(-label * input)), reduced."""

    FUNCTION = staticmethod(F.soft_margin_loss)


class SmoothL1Loss(Layer):
    """The Huber loss with ``delta``, reduced."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, name: str | None = None
                ) -> None:
        super().__init__()
        self.reduction, self.delta = reduction, delta

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta)


class BCELoss(Layer):
    """Binary cross entropy of probabilities, optionally weighted."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(Layer):
    """Binary cross entropy of logits, optionally weighted (``weight``, ``pos_weight``)."""

    def __init__(self, weight: Any = None, reduction: str = "mean", pos_weight: Any = None,
                 name: str | None = None) -> None:
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, logit: Tensor, label: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class NLLLoss(Layer):
    """Negative log-likelihood of class indices, given log-probabilities."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__()
        self._weight, self._ignore_index, self._reduction = weight, ignore_index, reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class KLDivLoss(_Reduced):
    """label * (log(label) - input), reduced ("batchmean" too)."""

    FUNCTION = staticmethod(F.kl_div)


class MarginRankingLoss(Layer):
    """relu(-label * (input - other) + margin), reduced."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean", name: str | None = None
                ) -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input: Tensor, other: Tensor, label: Tensor) -> Tensor:
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(Layer):
    """input where label is 1, relu(margin - input) where it is -1; reduced."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean", name: str | None = None
                ) -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CosineEmbeddingLoss(Layer):
    """1 - cos where label is 1, relu(cos - margin) where it is -1; reduced."""

    def __init__(self, margin: float = 0, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input1: Tensor, input2: Tensor, label: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class TripletMarginLoss(Layer):
    """relu(d(input, positive) - d(input, negative) + margin), d the p-norm distance."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, epsilon: float = 1e-6,
                 swap: bool = False, reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap
        self.reduction = reduction

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction)


class TripletMarginWithDistanceLoss(Layer):
    """TripletMarginLoss with a distance function of two Variables."""

    def __init__(self, distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self.distance_function, self.margin = distance_function, margin
        self.swap, self.reduction = swap, reduction

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(input, positive, negative,
                                                   self.distance_function, self.margin,
                                                   self.swap, self.reduction)


class MultiLabelSoftMarginLoss(Layer):
    """Per-class binary cross entropy of logits, averaged over classes, reduced."""

    def __init__(self, weight: Any = None, reduction: str = "mean", name: str | None = None
                ) -> None:
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class PoissonNLLLoss(Layer):
    """The Poisson negative log-likelihood (``log_input``: input is the log rate)."""

    def __init__(self, log_input: bool = True, full: bool = False, epsilon: float = 1e-8,
                 reduction: str = "mean", name: str | None = None) -> None:
        super().__init__()
        self.log_input, self.full, self.epsilon = log_input, full, epsilon
        self.reduction = reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                  self.reduction)


class GaussianNLLLoss(Layer):
    """The Gaussian negative log-likelihood given a variance."""

    def __init__(self, full: bool = False, epsilon: float = 1e-6, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__()
        self.full, self.epsilon, self.reduction = full, epsilon, reduction

    def forward(self, input: Tensor, label: Tensor, variance: Tensor) -> Tensor:
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction)


class CTCLoss(Layer):
    """``F.ctc_loss`` with ``blank`` and ``reduction`` kept."""

    def __init__(self, blank: int = 0, reduction: str = "mean") -> None:
        super().__init__()
        self.blank, self.reduction = blank, reduction

    def forward(self, log_probs: Tensor, labels: Tensor, input_lengths: Tensor,
                label_lengths: Tensor, norm_by_times: bool = False) -> Tensor:
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times)


class MultiMarginLoss(Layer):
    """``F.multi_margin_loss`` with p, margin, weight and reduction kept."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Any = None, reduction: str = "mean",
                 name: str | None = None) -> None:
        super().__init__()
        self.p, self.margin, self.weight, self.reduction = p, margin, weight, reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight,
                                   self.reduction)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid: not available in paddle_nb (its op has no kernel)."""

    def __init__(self, feature_size: Any, num_classes: Any, weight_attr: Any = None,
                 bias_attr: Any = None, is_custom: bool = False, is_sparse: bool = False,
                 name: str | None = None) -> None:
        raise unavailable("HSigmoidLoss", "the hierarchical_sigmoid op has no kernel",
                          "use nn.CrossEntropyLoss over all classes")


class RNNTLoss(Layer):
    """The RNN-transducer loss: not available in paddle_nb (its op has no kernel)."""

    def __init__(self, blank: int = 0, fastemit_lambda: float = 0.001, reduction: str = "mean",
                 name: str | None = None) -> None:
        raise unavailable("RNNTLoss", "the warprnnt op has no kernel",
                          "nn.CTCLoss computes the CTC loss")
