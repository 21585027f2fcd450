"""2.6 loss functions paddle_nb does not build: each raises a clear error at its call.

They rest on ops with no kernel here (``hierarchical_sigmoid``, ``warprnnt``,
``edit_distance``) or on several GPUs (``margin_cross_entropy``). Their signatures are
2.6's, so a script fails at the call, with the reason, not with an AttributeError.
"""

from __future__ import annotations

from paddle_nb.nn.functional.loss_steps import unavailable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["hsigmoid_loss", "margin_cross_entropy", "rnnt_loss", "edit_distance"]


def hsigmoid_loss(input: Tensor, label: Tensor, num_classes: Any, weight: Any, bias: Any = None,
                  path_table: Any = None, path_code: Any = None, is_sparse: bool = False,
                  name: str | None = None) -> Any:
    """Hierarchical sigmoid (``hierarchical_sigmoid`` op): not available here."""
    raise unavailable("hsigmoid_loss", "the hierarchical_sigmoid op has no kernel",
                      "use F.cross_entropy over all classes")


def margin_cross_entropy(logits: Tensor, label: Tensor, margin1: float = 1.0, margin2: float = 0.5,
                         margin3: float = 0.0, scale: float = 64.0, group: Any = None,
                         return_softmax: bool = False, reduction: str = "mean") -> Any:
    """ArcFace-style margin softmax across GPUs (``margin_cross_entropy`` op): not available."""
    raise unavailable("margin_cross_entropy", "PaddlePaddle runs it on GPUs, with a group",
                      "apply the margins to the logits and use F.cross_entropy")


def rnnt_loss(input: Tensor, label: Tensor, input_lengths: Any, label_lengths: Any, blank: int = 0,
              fastemit_lambda: float = 0.001, reduction: str = "mean", name: str | None = None
             ) -> Any:
    """The RNN-transducer loss (``warprnnt`` op): not available here."""
    raise unavailable("rnnt_loss", "the warprnnt op has no kernel",
                      "F.ctc_loss computes the CTC loss")


def edit_distance(input: Tensor, label: Tensor, normalized: bool = True, ignored_tokens: Any = None,
                  input_length: Any = None, label_length: Any = None) -> Any:
    """The Levenshtein distance of token sequences (``edit_distance`` op): not available."""
    raise unavailable("edit_distance", "the edit_distance op has no kernel",
                      "compute it on the fetched sequences with NumPy")
