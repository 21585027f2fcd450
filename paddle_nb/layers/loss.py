"""Losses and metrics: what a model is trained against and judged by."""

from __future__ import annotations

from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import LayerHelper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "square_error_cost", "accuracy",
           "append_softmax_with_cross_entropy", "append_square_error_cost"]


def cross_entropy(input: Tensor, label: Tensor, soft_label: bool = False, ignore_index: int = -100
                 ) -> Tensor:
    """-log(input[label]) per row, for probabilities ``input``."""
    return LayerHelper("cross_entropy").out(
        "cross_entropy", {"X": input, "Label": label},
        {"soft_label": soft_label, "ignore_index": ignore_index}, slot="Y")


def softmax_with_cross_entropy(logits: Tensor, label: Tensor, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1
                              ) -> Tensor | tuple[Tensor, ...]:
    """Cross entropy of softmax(logits), computed stably in one op."""
    loss, softmax = append_softmax_with_cross_entropy(
        LayerHelper("softmax_with_cross_entropy"), logits, label,
        {"soft_label": soft_label, "ignore_index": ignore_index,
         "numeric_stable_mode": numeric_stable_mode, "axis": axis})
    return (loss, softmax) if return_softmax else loss


def append_softmax_with_cross_entropy(helper: LayerHelper, logits: Tensor, label: Tensor,
                                      attrs: Mapping[str, Any]) -> tuple[Tensor, ...]:
    """The ``softmax_with_cross_entropy`` op, its outputs named by ``helper`` (Softmax
    ``.tmp_0``, Loss ``.tmp_1``): the one place both APIs append it. (loss, softmax)."""
    softmax = helper.tmp_name()
    loss = helper.out("softmax_with_cross_entropy", {"Logits": logits, "Label": label}, attrs,
                      slot="Loss", extra_outputs={"Softmax": softmax})
    return loss, as_tensor(helper.block.var(softmax))


def square_error_cost(input: Tensor, label: Tensor) -> Tensor:
    """(input - label) ** 2, elementwise (``elementwise_sub`` then ``square``)."""
    return append_square_error_cost(LayerHelper("square_error_cost"), input, label)


def append_square_error_cost(helper: LayerHelper, input: Tensor, label: Tensor,
                             attrs: Mapping[str, Any] | None = None) -> Tensor:
    """``elementwise_sub`` then ``square``, named by ``helper``: both APIs build it here
    (the 2.x function writes the elementwise op's ``axis``, ``attrs``)."""
    diff = helper.out("elementwise_sub", {"X": input, "Y": label}, attrs)
    return helper.out("square", {"X": diff})


def accuracy(input: Tensor, label: Tensor, k: int = 1, correct: Any = None, total: Any = None
            ) -> Tensor:
    """The fraction of rows whose label is among the ``k`` largest of ``input``."""
    helper = LayerHelper("accuracy")
    values, indices = helper.tmp_name(), helper.tmp_name()
    helper.append("top_k", {"X": input}, {"Out": values, "Indices": indices}, {"k": k})
    acc = helper.tmp_name()
    helper.append("accuracy", {"Out": values, "Indices": indices, "Label": label},
                  {"Accuracy": acc, "Correct": correct or helper.tmp_name(),
                   "Total": total or helper.tmp_name()})
    return as_tensor(helper.block.var(acc))
