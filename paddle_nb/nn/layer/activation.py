"""Activation layers of paddle.nn (ReLU, GELU, Softmax, PReLU, ...).

Each layer keeps its arguments and calls its function in ``paddle.nn.functional`` when it is
called, so ``nn.ReLU()(x)`` writes the same op and output name as ``F.relu(x)``. Only
``PReLU`` holds a parameter: its slope, named after the layer (``p_re_lu_0.w_0``),
initialized to ``init``, one value or one per channel.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.framework.initializer import Constant
from paddle_nb.nn import functional as F
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["ReLU", "ReLU6", "ELU", "SELU", "CELU", "GELU", "Silu", "SiLU", "Swish", "Mish",
           "Sigmoid", "Hardsigmoid", "Hardswish", "Hardtanh", "Hardshrink", "Softshrink",
           "Tanhshrink", "LeakyReLU", "LogSigmoid", "LogSoftmax", "Softmax", "Softmax2D",
           "Softplus", "Softsign", "Tanh", "ThresholdedReLU", "PReLU", "RReLU", "Maxout", "GLU"]


class _Activation(Layer):
    """A layer that calls ``function(x, **arguments, name=name)``."""

    function: Any = None

    def __init__(self, name: str | None = None, **arguments: Any) -> None:
        super().__init__()
        self._name = name
        self._arguments = arguments

    def forward(self, x: Tensor) -> Tensor:
        return type(self).function(x, **self._arguments, name=self._name)

    def extra_repr(self) -> Any:
        shown = [f"{k}={v}" for k, v in self._arguments.items()]
        return ", ".join(shown + ([f"name={self._name}"] if self._name else []))


def _activation(class_name: Any, function: Any, doc: Any, **defaults: Any) -> Any:
    """A layer class over ``function`` whose constructor takes ``defaults`` as keywords."""
    def __init__(self: Any, *args: float, name: str | None = None, **kwargs: Any) -> None:
        arguments = dict(defaults)
        for key, value in zip(defaults, args):
            arguments[key] = value
        for key, value in kwargs.items():
            if key not in defaults:
                raise TypeError(f"nn.{class_name}() got an unexpected argument '{key}'; "
                                f"it takes {list(defaults) + ['name']}")
            arguments[key] = value
        _Activation.__init__(self, name=name, **arguments)

    return type(class_name, (_Activation,), {"__init__": __init__, "__doc__": doc,
                                              "function": staticmethod(function),
                                              "__module__": __name__})


ReLU = _activation("ReLU", F.relu, "max(x, 0).")
ReLU6 = _activation("ReLU6", F.relu6, "min(max(x, 0), 6).")
ELU = _activation("ELU", F.elu, "x above 0, alpha * (exp(x) - 1) below.", alpha=1.0)
SELU = _activation("SELU", F.selu, "scale * elu(x, alpha).", scale=1.0507009873554805,
                   alpha=1.6732632423543772)
CELU = _activation("CELU", F.celu, "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).",
                   alpha=1.0)
GELU = _activation("GELU", F.gelu, "x * Phi(x), or its tanh approximation.",
                   approximate=False)
Silu = _activation("Silu", F.silu, "x * sigmoid(x).")
SiLU = Silu
Swish = _activation("Swish", F.swish, "x * sigmoid(x) (the swish op).")
Mish = _activation("Mish", F.mish, "x * tanh(softplus(x)).")
Sigmoid = _activation("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).")
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, "min(max(x / 6 + 0.5, 0), 1).")
Hardswish = _activation("Hardswish", F.hardswish, "x * min(max(x + 3, 0), 6) / 6.")
Hardtanh = _activation("Hardtanh", F.hardtanh, "x clipped to [min, max].", min=-1.0, max=1.0)
Hardshrink = _activation("Hardshrink", F.hardshrink, "x where |x| > threshold, else 0.",
                         threshold=0.5)
Softshrink = _activation("Softshrink", F.softshrink, "x shrunk toward 0 by threshold.",
                         threshold=0.5)
Tanhshrink = _activation("Tanhshrink", F.tanhshrink, "x - tanh(x).")
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, "x above 0, negative_slope * x below.",
                        negative_slope=0.01)
LogSigmoid = _activation("LogSigmoid", F.log_sigmoid, "log(sigmoid(x)).")
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "log(softmax(x)) along axis.", axis=-1)
Softmax = _activation("Softmax", F.softmax, "exp(x) / sum(exp(x)) along axis.", axis=-1)
Softplus = _activation("Softplus", F.softplus, "log(1 + exp(beta * x)) / beta.", beta=1,
                       threshold=20)
Softsign = _activation("Softsign", F.softsign, "x / (1 + |x|).")
Tanh = _activation("Tanh", F.tanh, "tanh(x).")
ThresholdedReLU = _activation("ThresholdedReLU", F.thresholded_relu,
                              "x where x > threshold, else 0.", threshold=1.0)
Maxout = _activation("Maxout", F.maxout, "The largest of each groups consecutive channels.",
                     groups=None, axis=1)
GLU = _activation("GLU", F.glu, "a * sigmoid(b) for x's two halves along axis.", axis=-1)


class Softmax2D(Layer):
    """Softmax over the channels of a 3-D (CHW) or 4-D (NCHW) input: axis -3."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__()
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        if len(x.shape) not in (3, 4):
            raise ValueError(f"nn.Softmax2D needs a 3-D or 4-D input, got shape {list(x.shape)}")
        return F.softmax(x, axis=-3, name=self._name)


class RReLU(Layer):
    """Randomized leaky relu: a random slope in [lower, upper] in training, their mean in
    evaluation (``layer.eval()``)."""

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, name: str | None = None
                ) -> None:
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x: Tensor) -> Tensor:
        return F.rrelu(x, self._lower, self._upper, training=self.training, name=self._name)


class PReLU(Layer):
    """x above 0, a learned slope times x below: ``num_parameters`` slopes (1, or one per
    channel), initialized to ``init``; the parameter is ``<layer>.w_0`` (``p_re_lu_0.w_0``)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr: Any = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._num_parameters, self._init = num_parameters, init
        self._data_format, self._name = data_format, name
        self._weight = self.create_parameter([num_parameters], attr=weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x: Tensor) -> Tensor:
        return F.prelu(x, self._weight, data_format=self._data_format, name=self._name)

    def extra_repr(self) -> Any:
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, " \
               f"init={self._init}, dtype={self._weight.dtype.name}"
