"""``paddle.static.append_backward`` and ``gradients`` with PaddlePaddle 2.x's signatures.

They are paddle_nb's own (``paddle_nb/backward.py``); the 2.x arguments paddle_nb has no
machinery for (``callbacks`` for error clipping, ``checkpoints`` for recomputation,
``distop_context`` for distributed ops) are accepted when None and refused by name otherwise.
"""

from __future__ import annotations

from paddle_nb import backward
from paddle_nb.errors import BackwardError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor, Variable

__all__ = ["append_backward", "gradients"]


def append_backward(loss: Tensor, parameter_list: Any = None, no_grad_set: Any = None,
                    callbacks: Any = None, checkpoints: Any = None, distop_context: Any = None
                   ) -> list[tuple[Any, ...]]:
    """Append ``loss``'s backward pass; return ``[(parameter, gradient), ...]`` for the
    trainable parameters (or those in ``parameter_list``)."""
    for name, value in (("callbacks", callbacks), ("checkpoints", checkpoints),
                        ("distop_context", distop_context)):
        if value is not None:
            raise BackwardError(f"append_backward: {name} is not available in paddle_nb "
                                "(no error-clip callbacks, recomputation or distributed ops); "
                                "pass None")
    return backward.append_backward(loss, parameter_list, no_grad_set)


def gradients(targets: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
              target_gradients: Any = None, no_grad_set: Any = None) -> list[Variable | None]:
    """The gradients of the sum of ``targets`` with respect to each of ``inputs`` (None
    where no path leads); ``target_gradients`` seeds them instead of ones."""
    return backward.gradients(targets, inputs, target_gradients, no_grad_set)
