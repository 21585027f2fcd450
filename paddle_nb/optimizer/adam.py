"""The Adam family: Adam, AdamW, Adamax and Lamb (PaddlePaddle 2.x).

All four keep running means of the gradient and of its square (or its size)
per parameter, and ``beta ** step`` in one-element accumulators
(``{param}_beta1_pow_acc_0``, shape [1]) that undo the means' bias toward
their zero start. AdamW shrinks each parameter apart from its gradient
(``coeff``, ``with_decay`` on the ``adamw`` op); Lamb scales a layer's whole
step by its trust ratio; Adamax advances its beta1 power with a ``scale`` op
after all the updates.
"""

from __future__ import annotations

from paddle_nb.ops.optimizers import state_dtype
from paddle_nb.optimizer.momentum import check_positive, check_unit, update
from paddle_nb.optimizer.optimizer import Optimizer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from paddle_nb.framework.variable import Variable
    from paddle_nb.optimizer.lr import LRScheduler

__all__ = ["Adam", "AdamW", "Adamax", "Lamb"]


class Adam(Optimizer):
    """Adam (Kingma and Ba): steps scaled by running means of the gradient and its square.

    State per parameter: ``{param}_moment1_0`` and ``{param}_moment2_0`` (zeros),
    ``{param}_beta1_pow_acc_0`` and ``{param}_beta2_pow_acc_0`` (beta1 and beta2:
    beta ** step for the first step; the ``adam`` op multiplies them by beta
    after each step).
    """

    _op_type = "adam"
    keeps_master = True         # multi_precision: a float32 master weight per float16 param

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001,
                 beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-08,
                 parameters: Any = None, weight_decay: Any = None, grad_clip: Any = None,
                 lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, name: str | None = None, *,
                 regularization: Any = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name,
                         regularization=regularization, multi_precision=multi_precision)
        self._set_betas(beta1, beta2, epsilon)
        self._lazy_mode = bool(lazy_mode)

    def _set_betas(self, beta1: float, beta2: float, epsilon: float) -> None:
        self._beta1 = check_unit(beta1, "beta1")
        self._beta2 = check_unit(beta2, "beta2")
        self._epsilon = check_positive(epsilon, "epsilon")

    def _accumulator_specs(self, param: Variable) -> Any:
        # a float16 parameter's moments and powers are float32, as PaddlePaddle 2.6 keeps them
        dtype = state_dtype(param.dtype)
        return [("moment1", param.shape, 0.0, dtype), ("moment2", param.shape, 0.0, dtype),
                ("beta1_pow_acc", (1,), self._beta1, dtype),
                ("beta2_pow_acc", (1,), self._beta2, dtype)]

    def _moment_slots(self, param: Variable) -> Any:
        """The inputs and outputs the adam-like ops share."""
        acc = {name: self.accumulator(name, param)
               for name in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")}
        ins = {"Param": param, "Moment1": acc["moment1"], "Moment2": acc["moment2"],
               "Beta1Pow": acc["beta1_pow_acc"], "Beta2Pow": acc["beta2_pow_acc"]}
        outs = {"ParamOut": param, "Moment1Out": acc["moment1"], "Moment2Out": acc["moment2"],
                "Beta1PowOut": acc["beta1_pow_acc"], "Beta2PowOut": acc["beta2_pow_acc"]}
        return ins, outs

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        ins, outs = self._moment_slots(param)
        ins.update(Grad=grad, LearningRate=lr)
        attrs.update(beta1=self._beta1, beta2=self._beta2, epsilon=self._epsilon,
                     lazy_mode=self._lazy_mode, multi_precision=self.multi_precision)
        attrs.update(self._extra_attrs(param))
        return update(block, self._op_type, *self.master_slots(param, ins, outs), attrs)

    def _extra_attrs(self, param: Variable) -> Any:
        return {}


class AdamW(Adam):
    """Adam with decoupled weight decay: ``param -= lr * coeff * param`` before each step.

    ``weight_decay`` is the coefficient (``coeff``); ``apply_decay_param_fun(name)``
    says which parameters decay (``with_decay``); ``lr_ratio(param)`` scales the
    decay's learning rate per parameter.
    """

    _op_type = "adamw"

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-08, parameters: Any = None,
                 weight_decay: float = 0.01, lr_ratio: Callable[..., Any] | None = None,
                 apply_decay_param_fun: Callable[..., Any] | None = None, grad_clip: Any = None,
                 lazy_mode: bool = False, multi_precision: bool = False, name: str | None = None
                ) -> None:
        if not isinstance(weight_decay, (int, float)) or isinstance(weight_decay, bool):
            raise TypeError(f"AdamW: weight_decay must be a float coefficient, got "
                            f"{weight_decay!r}")
        for label, fn in (("lr_ratio", lr_ratio), ("apply_decay_param_fun", apply_decay_param_fun)):
            if fn is not None and not callable(fn):
                raise TypeError(f"AdamW: {label} must be a function, got {fn!r}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, name=name)
        self._coeff = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay = apply_decay_param_fun

    def _extra_attrs(self, param: Variable) -> Any:
        with_decay = True if self._apply_decay is None else bool(self._apply_decay(param.name))
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        return {"coeff": self._coeff, "with_decay": with_decay, "lr_ratio": ratio}


class Adamax(Adam):
    """Adam with the infinity norm: ``{param}_moment_0``, ``{param}_inf_norm_0`` and
    ``{param}_beta1_pow_acc_0``, which a ``scale`` op advances after all the updates."""
    keeps_master = False        # PaddlePaddle 2.6's Adamax takes no multi_precision

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-08, parameters: Any = None,
                 weight_decay: Any = None, grad_clip: Any = None, name: str | None = None,
                 multi_precision: bool = False) -> None:
        Optimizer.__init__(self, learning_rate, parameters, weight_decay, grad_clip, name,
                           multi_precision=multi_precision)
        self._set_betas(beta1, beta2, epsilon)

    def _accumulator_specs(self, param: Variable) -> Any:
        # PaddlePaddle 2.6: float32 moment and norm for a float16 parameter, its beta1 power
        # in the parameter's dtype
        dtype = state_dtype(param.dtype)
        return [("moment", param.shape, 0.0, dtype), ("inf_norm", param.shape, 0.0, dtype),
                ("beta1_pow_acc", (1,), self._beta1)]

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        acc = {k: self.accumulator(k, param) for k in ("moment", "inf_norm", "beta1_pow_acc")}
        attrs.update(beta1=self._beta1, beta2=self._beta2, epsilon=self._epsilon,
                     multi_precision=self.multi_precision)
        return update(block, "adamax",
                      {"Param": param, "Grad": grad, "LearningRate": lr,
                       "Moment": acc["moment"], "InfNorm": acc["inf_norm"],
                       "Beta1Pow": acc["beta1_pow_acc"]},
                      {"ParamOut": param, "MomentOut": acc["moment"],
                       "InfNormOut": acc["inf_norm"]}, attrs)

    def _finish_update(self, block: Any, pairs: Any) -> None:
        for param, _ in pairs:
            pow_acc = self.accumulator("beta1_pow_acc", param)
            block.append_op("scale", inputs={"X": pow_acc}, outputs={"Out": pow_acc},
                            attrs={"scale": self._beta1})


class Lamb(Adam):
    """LAMB (You et al.): Adam's step plus ``lamb_weight_decay * param``, scaled per layer by
    ``||param|| / ||step||``. ``exclude_from_weight_decay_fn(param)`` true: no decay."""

    _op_type = "lamb"

    def __init__(self, learning_rate: float | LRScheduler | Variable = 0.001,
                 lamb_weight_decay: float = 0.01, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-06, parameters: Any = None, grad_clip: Any = None,
                 exclude_from_weight_decay_fn: Callable[..., Any] | None = None,
                 multi_precision: bool = False, always_adapt: bool = False, name: str | None = None
                ) -> None:
        Optimizer.__init__(self, learning_rate, parameters, None, grad_clip, name,
                           multi_precision=multi_precision)
        self._set_betas(beta1, beta2, epsilon)
        self._lamb_decay = float(lamb_weight_decay)
        self._exclude = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)

    def _append_update(self, block: Any, param: Variable, grad: Variable, lr: Variable, attrs: Any
                      ) -> Any:
        ins, outs = self._moment_slots(param)
        ins.update(Grad=grad, LearningRate=lr)
        excluded = self._exclude is not None and self._exclude(param)
        attrs.update(beta1=self._beta1, beta2=self._beta2, epsilon=self._epsilon,
                     weight_decay=0.0 if excluded else self._lamb_decay,
                     always_adapt=self._always_adapt, multi_precision=self.multi_precision)
        return update(block, "lamb", *self.master_slots(param, ins, outs), attrs)
