"""The plain optimizers: SGD, Momentum, Adagrad, RMSProp and Adadelta (PaddlePaddle 2.x).

Each appends one update op per parameter (``sgd``, ``momentum``, ``adagrad``,
``rmsprop``, ``adadelta``) reading the state it keeps per parameter: a
velocity, a sum of squared gradients, running means. The signatures are
PaddlePaddle 2.6's; ``Momentum(learning_rate, momentum)`` and
``regularization=`` still read as the Fluid-1.8 code that uses them.
"""

from __future__ import annotations

import numbers

from paddle_nb.ops.optimizers import state_dtype
from paddle_nb.optimizer.optimizer import Optimizer
from paddle_nb.regularizer import L2Decay
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.variable import Variable
    from paddle_nb.optimizer.lr import LRScheduler

__all__ = ["SGD", "Momentum", "Adagrad", "RMSProp", "Adadelta"]


def check_unit(value: float, label: str, closed: bool = False) -> float:
    """``value`` must be a number in [0, 1) (or [0, 1] when ``closed``)."""
    ok = isinstance(value, numbers.Real) and 0 <= float(value) and \
        (float(value) <= 1 if closed else float(value) < 1)
    if not ok:
        raise ValueError(f"{label} must be a number in [0, 1{']' if closed else ')'}, "
                         f"got {value!r}")
    return float(value)


def check_positive(value: float, label: str) -> float:
    if not isinstance(value, numbers.Real) or not float(value) > 0:
        raise ValueError(f"{label} must be a positive number, got {value!r}")
    return float(value)


def update(block: Block, op_type: str, slots: Mapping[str, Any], outs: Mapping[str, Any],
           attrs: Mapping[str, Any]) -> Operator:
    """Append update op ``op_type``: ``slots`` its inputs, ``outs`` its outputs."""
    return block.append_op(op_type, inputs=slots, outputs=outs, attrs=attrs)


class SGD(Optimizer):
    """``param -= learning_rate * grad`` (the ``sgd`` op)."""
    keeps_master = True

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001,
                 parameters: Sequence[Variable | Mapping[Any, Any]] | None = None,
                 weight_decay: float | None = None, grad_clip: Any = None,
                 multi_precision: bool = False, name: str | None = None, *,
                 regularization: L2Decay | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         regularization=regularization, multi_precision=multi_precision)

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        attrs.update(multi_precision=self.multi_precision)
        return update(block, "sgd", *self.master_slots(
            param, {"Param": param, "Grad": grad, "LearningRate": lr}, {"ParamOut": param}),
            attrs)


class Momentum(Optimizer):
    """``velocity = momentum * velocity + grad; param -= learning_rate * velocity``.

    The velocity is a persistable ``{param}_velocity_0``, zero at first. An
    L2Decay (a float ``weight_decay`` is one; a parameter's own wins) is folded
    into the ``momentum`` op's own attributes (``regularization_method="l2_decay"``),
    as PaddlePaddle does; an L1Decay appends its ops.
    """
    keeps_master = True

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001, momentum: float = 0.9,
                 parameters: Any = None, use_nesterov: bool = False,
                 weight_decay: float | None = None, grad_clip: Any = None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name: str | None = None, *,
                 regularization: L2Decay | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         regularization=regularization, multi_precision=multi_precision)
        self._momentum = check_unit(momentum, "momentum")
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)

    def _accumulator_specs(self, param: Variable) -> Any:
        # a float16 parameter's velocity is float32: PaddlePaddle 2.6's momentum op declares
        # it so (its startup fill stays float16; here both are float32, so that a program
        # without a startup program fills what the op declares)
        return [("velocity", param.shape, 0.0, state_dtype(param.dtype))]

    def _regularize(self, block: Any, param: Variable, grad: Variable, in_place: bool) -> Any:
        folded = self.regularizer_of(param)      # the parameter's own wins
        if type(folded) is L2Decay:
            return grad, {"regularization_method": "l2_decay",
                          "regularization_coeff": folded.coeff}
        return super()._regularize(block, param, grad, in_place)

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        velocity = self.accumulator("velocity", param)
        attrs.update(mu=self._momentum, use_nesterov=self._use_nesterov,
                     multi_precision=self.multi_precision, rescale_grad=self._rescale_grad)
        return update(block, "momentum", *self.master_slots(
            param, {"Param": param, "Grad": grad, "Velocity": velocity, "LearningRate": lr},
            {"ParamOut": param, "VelocityOut": velocity}), attrs)


class Adagrad(Optimizer):
    """Each element's step shrinks with the sum of its squared gradients (``{param}_moment_0``)."""

    def __init__(self, learning_rate: float | LRScheduler | Variable, epsilon: float = 1e-06,
                 parameters: Any = None, weight_decay: Any = None, grad_clip: Any = None,
                 name: str | None = None, initial_accumulator_value: float = 0.0,
                 multi_precision: bool = False) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision=multi_precision)
        self._epsilon = check_positive(epsilon, "epsilon")
        self._initial = float(initial_accumulator_value)

    def _accumulator_specs(self, param: Variable) -> Any:
        return [("moment", param.shape, self._initial)]

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        moment = self.accumulator("moment", param)
        attrs.update(epsilon=self._epsilon, multi_precision=self.multi_precision)
        return update(block, "adagrad",
                      {"Param": param, "Grad": grad, "Moment": moment, "LearningRate": lr},
                      {"ParamOut": param, "MomentOut": moment}, attrs)


class RMSProp(Optimizer):
    """Steps divided by a running root mean square of the gradient (``rho`` its decay);
    ``centered`` divides by the running variance instead; ``momentum`` keeps a running step.

    State: ``{param}_momentum_0``, ``{param}_mean_square_0``, ``{param}_mean_grad_0``.
    """

    def __init__(self, learning_rate: float | LRScheduler | Variable, rho: float = 0.95,
                 epsilon: float = 1e-06, momentum: float = 0.0, centered: bool = False,
                 parameters: Any = None, weight_decay: Any = None, grad_clip: Any = None,
                 name: str | None = None, multi_precision: bool = False) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision=multi_precision)
        self._rho = check_unit(rho, "rho", closed=True)
        self._epsilon = check_positive(epsilon, "epsilon")
        self._momentum = check_unit(momentum, "momentum", closed=True)
        self._centered = bool(centered)

    def _accumulator_specs(self, param: Variable) -> Any:
        return [("momentum", param.shape, 0.0), ("mean_square", param.shape, 0.0),
                ("mean_grad", param.shape, 0.0)]

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        acc = {k: self.accumulator(k, param) for k in ("momentum", "mean_square", "mean_grad")}
        attrs.update(epsilon=self._epsilon, decay=self._rho, momentum=self._momentum,
                     centered=self._centered, multi_precision=self.multi_precision)
        return update(block, "rmsprop",
                      {"Param": param, "Grad": grad, "Moment": acc["momentum"],
                       "MeanSquare": acc["mean_square"], "MeanGrad": acc["mean_grad"],
                       "LearningRate": lr},
                      {"ParamOut": param, "MomentOut": acc["momentum"],
                       "MeanSquareOut": acc["mean_square"], "MeanGradOut": acc["mean_grad"]},
                      attrs)


class Adadelta(Optimizer):
    """Zeiler's Adadelta: steps scaled by running means of squared gradients and of squared
    updates (``{param}__avg_squared_grad_0``, ``{param}__avg_squared_update_0``)."""

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001,
                 epsilon: float = 1e-06, rho: float = 0.95, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None, name: str | None = None,
                 multi_precision: bool = False) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         multi_precision=multi_precision)
        self._epsilon = check_positive(epsilon, "epsilon")
        self._rho = check_unit(rho, "rho", closed=True)

    def _accumulator_specs(self, param: Variable) -> Any:
        # PaddlePaddle names these "_avg_squared_grad": hence the double underscore
        return [("_avg_squared_grad", param.shape, 0.0), ("_avg_squared_update", param.shape, 0.0)]

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        g2 = self.accumulator("_avg_squared_grad", param)
        u2 = self.accumulator("_avg_squared_update", param)
        attrs.update(epsilon=self._epsilon, rho=self._rho, multi_precision=self.multi_precision)
        return update(block, "adadelta",
                      {"Param": param, "Grad": grad, "AvgSquaredGrad": g2,
                       "AvgSquaredUpdate": u2, "LearningRate": lr},
                      {"ParamOut": param, "AvgSquaredGradOut": g2, "AvgSquaredUpdateOut": u2},
                      attrs)
