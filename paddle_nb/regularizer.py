"""Weight decay: a penalty on a parameter's size, added to its gradient.

Adding ``coeff/2 * sum(w^2)`` (L2) or ``coeff * sum(|w|)`` (L1) to the loss
adds ``coeff * w`` or ``coeff * sign(w)`` to the gradient of ``w``. Rather than
grow the forward program, PaddlePaddle adds that term to the gradient just
before the optimizer's update op, and so does paddle_nb: a regularizer
appends the ops ``decay = scale(w)`` (after ``sign`` for L1) and
``w@GRAD = sum(w@GRAD, decay)`` (in place, as PaddlePaddle 2.x writes it; the
Fluid-1.8 keyword ``regularization=`` writes ``w@GRAD@REGULARIZED`` instead),
and the update reads the new gradient. A parameter's own regularizer
(``ParamAttr(regularizer=...)``) wins over the optimizer's ``weight_decay``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Variable
__all__ = ["WeightDecayRegularizer", "L2Decay", "L1Decay", "L2DecayRegularizer",
           "L1DecayRegularizer"]


class WeightDecayRegularizer:
    """Base class: ``append_ops(block, param, grad)`` returns the regularized gradient.

    Subclasses say how to compute the decay term from the parameter
    (``_decay``); the sum with the gradient is the same for all.
    """

    def __init__(self, coeff: float = 0.0) -> None:
        self.coeff = float(coeff)

    def append_ops(self, block: Any, param: Variable, grad: Variable, in_place: bool = False
                   ) -> Variable:
        """Append the ops computing ``grad + decay(param)`` to ``block``; return the new gradient:
        ``grad`` itself when ``in_place`` (PaddlePaddle 2.x), else ``{grad}@REGULARIZED_N``."""
        decay = self._decay(block, param, in_place)
        if in_place:
            block.append_op("sum", inputs={"X": [grad, decay]}, outputs={"Out": grad})
            return grad
        new_grad = block.create_var(name=block.program.unique_name(f"{grad.name}@REGULARIZED"),
                                    shape=grad.shape, dtype=grad.dtype)
        block.append_op("sum", inputs={"X": [grad, decay]}, outputs={"Out": new_grad})
        return new_grad

    def _decay(self, block: Any, param: Any, generated: Any) -> Any:
        raise NotImplementedError

    def _scaled(self, block: Any, x: Variable, name: str, generated: bool) -> Variable:
        """``coeff * x`` in a new variable ``name`` (``_generated_var_N`` when ``generated``,
        PaddlePaddle 2.x's name)."""
        out = block.create_var(name=block.program.unique_name("_generated_var" if generated
                                                              else name),
                               shape=x.shape, dtype=x.dtype)
        block.append_op("scale", inputs={"X": x}, outputs={"Out": out},
                        attrs={"scale": self.coeff})
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(coeff={self.coeff})"


class L2Decay(WeightDecayRegularizer):
    """Adds ``coeff * param`` to the gradient (the gradient of ``coeff/2 * ||param||^2``).

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> w = prog.global_block().create_parameter(name="w", shape=(2,))
    >>> g = prog.global_block().create_var(name="w@GRAD", shape=(2,))
    >>> new = L2Decay(0.1).append_ops(prog.global_block(), w, g)
    >>> new.name, [op.type for op in prog.global_block().ops[-2:]]
    ('w@GRAD@REGULARIZED_0', ['scale', 'sum'])
    """

    def _decay(self, block: Any, param: Variable, generated: bool) -> Variable:
        return self._scaled(block, param, f"{param.name}.l2_decay", generated)


class L1Decay(WeightDecayRegularizer):
    """Adds ``coeff * sign(param)`` to the gradient (the gradient of ``coeff * sum|param|``)."""

    def _decay(self, block: Any, param: Variable, generated: bool) -> Variable:
        sign = block.create_var(name=block.program.unique_name("_generated_var" if generated
                                                               else f"{param.name}.sign"),
                                shape=param.shape, dtype=param.dtype)
        block.append_op("sign", inputs={"X": param}, outputs={"Out": sign})
        return self._scaled(block, sign, f"{param.name}.l1_decay", generated)


L2DecayRegularizer = L2Decay     # PaddlePaddle's longer names for the same classes
L1DecayRegularizer = L1Decay
