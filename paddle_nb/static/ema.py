"""``paddle.static.ExponentialMovingAverage``: a shadow copy of each parameter that follows it
slowly, to evaluate with.

Each training step (the ops ``update()`` appends to the main program, after the optimizer's)
sets ``ema = ema * decay + param * (1 - decay)`` for every trainable parameter, in persistable
variables ``<param>_ema_0`` that start at zero, and counts the steps in ``@EMA_STEP_COUNTER@``
(an ``increment`` put first in the program). ``with ema.apply(exe):`` swaps the averages in,
bias-corrected as 2.6 does (``ema / (1 - decay ** steps)``), and puts the trained values back
after (``restore``). The update ops are 2.6's; apply and restore set the scope's values
directly where 2.6 runs small programs of ``assign`` and ``conditional_block`` ops.
``WeightNormParamAttr`` (the other 2.6 name about reparameterized parameters) is refused.
"""

from __future__ import annotations

import contextlib

import numpy

from paddle_nb.core.scope import global_scope
from paddle_nb.errors import OpBuildError
from paddle_nb.framework import context, unique_name
from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.variable import as_tensor, tensor_shape
from paddle_nb.tensor.creation import assign
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor
    from paddle_nb.static.executor import Executor

__all__ = ["ExponentialMovingAverage", "WeightNormParamAttr"]

STEP_COUNTER = "@EMA_STEP_COUNTER@"


def _global_var(name: str, shape: Any, dtype: DTypeLike, value: float) -> Tensor:
    """A persistable global variable of the main program, set to ``value`` by the startup
    program."""
    main = context.default_main_program().global_block()
    var = main.create_var(name=name, shape=shape, dtype=dtype, persistable=True,
                          stop_gradient=True)
    startup = context.default_startup_program().global_block()
    held = startup.create_var(name=name, shape=shape, dtype=dtype, persistable=True,
                              stop_gradient=True)
    Constant(float(value)).append_to(startup, held, len(startup.ops))
    return as_tensor(var)


class ExponentialMovingAverage:
    """Moving averages of the trainable parameters (made after the model and optimizer):
    ``ema = ExponentialMovingAverage(0.999); ema.update()``, train, then
    ``with ema.apply(exe): ...evaluate...``."""

    def __init__(self, decay: float = 0.999, thres_steps: Any = None, name: str | None = None
                ) -> None:
        if thres_steps is not None:
            raise OpBuildError("ExponentialMovingAverage: thres_steps is not available in "
                               "paddle_nb; give a fixed decay")
        self._decay = float(decay)
        self._decay_var = _global_var("scheduled_ema_decay_rate", [1], "float32", decay)
        block = context.default_main_program().global_block()
        self._params = [p for p in block.all_parameters() if p.trainable]
        self._emas = [_global_var(unique_name.generate(p.name + "_ema"), list(tensor_shape(p)),
                                  p.dtype, 0.0) for p in self._params]
        self._backup: dict[str, Any] = {}

    def update(self) -> None:
        """Append the averaging ops to the main program (after the optimizer's) and the step
        counter's ``increment`` at its start."""
        block = context.default_main_program().global_block()
        if STEP_COUNTER not in block.vars:
            counter = _global_var(STEP_COUNTER, [1], "int64", 0)
            block.prepend_op("increment", {"X": counter.name}, {"Out": counter.name},
                             {"step": 1.0})
        for param, ema in zip(self._params, self._emas):
            moved = ema * self._decay_var + param * (1.0 - self._decay_var)
            assign(moved, ema)

    def _found(self, scope: Any, name: str) -> Any:
        var = scope.find_var(name)
        if var is None:
            raise OpBuildError(f"ExponentialMovingAverage: '{name}' is not in the scope: run "
                               "the startup program and some training steps first")
        return var

    def _value(self, scope: Any, name: str) -> Any:
        return numpy.asarray(self._found(scope, name).get_tensor().numpy())

    @contextlib.contextmanager
    def apply(self, executor: Any, need_restore: bool = True) -> Iterator[Any]:
        """Within the block, each parameter holds its bias-corrected average; the trained
        values come back after when ``need_restore``."""
        scope = global_scope()
        steps = float(self._value(scope, STEP_COUNTER).reshape(-1)[0])
        correction = 1.0 - self._decay ** steps if steps > 0 else 1.0
        for param, ema in zip(self._params, self._emas):
            self._backup[param.name] = self._value(scope, param.name).copy()
            average = self._value(scope, ema.name) / numpy.float32(correction)
            self._found(scope, param.name).get_tensor().set(average.astype(param.dtype))
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor: Executor) -> None:
        """Put back the trained values that ``apply`` replaced."""
        scope = global_scope()
        for name, value in self._backup.items():
            self._found(scope, name).get_tensor().set(value)
        self._backup = {}


class WeightNormParamAttr:
    """Not available: PaddlePaddle 2.6 makes a weight-normalized parameter (``w = g * v /
    |v|``, two parameters and the ops between them) from this attribute; raises
    OpBuildError."""

    def __init__(self, dim: Any = None, name: str | None = None, initializer: Any = None,
                 learning_rate: float = 1.0, regularizer: Any = None, trainable: bool = True,
                 do_model_average: bool = False, need_clip: bool = True) -> None:
        raise OpBuildError("paddle.static.WeightNormParamAttr is not available in paddle_nb: "
                           "make the direction and the norm two parameters and compute "
                           "g * v / paddle.linalg.norm(v) with paddle ops, or use a plain "
                           "ParamAttr")
