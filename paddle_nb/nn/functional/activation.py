"""Activation functions of paddle.nn.functional (relu, gelu, softmax, prelu, ...).

Each appends the op PaddlePaddle 2.6 appends, with the attributes it writes, and names the
output after the function: ``F.relu(x)`` writes ``relu_0.tmp_0``; ``F.hardsigmoid`` writes
a ``hard_sigmoid`` op (slope 1/6) into ``hardsigmoid_0.tmp_0``; ``F.hardtanh`` a ``brelu``.
Where a function's name and its op's differ, the table below says both. ``softmax`` and
``log_softmax`` with ``dtype`` cast x first, in the same helper (``softmax_0.tmp_0`` is the
cast, ``softmax_0.tmp_1`` the result), as PaddlePaddle does.

>>> import paddle_nb as paddle
>>> import paddle_nb.nn.functional as F
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), paddle.program_guard(paddle.Program(), paddle.Program()):
...     x = paddle.layers.data("x", [3], append_batch_size=False)
...     F.gelu(x, approximate=True).name
'gelu_0.tmp_0'
"""

from __future__ import annotations

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework import unique_name
from paddle_nb.framework.variable import Variable, as_tensor, tensor_shape
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["relu", "relu_", "relu6", "elu", "elu_", "selu", "celu", "gelu", "silu", "swish",
           "mish", "sigmoid", "hardsigmoid", "hardswish", "hardtanh", "hardshrink",
           "softshrink", "tanhshrink", "leaky_relu", "log_sigmoid", "log_softmax", "softmax",
           "softmax_", "softplus", "softsign", "tanh", "tanh_", "thresholded_relu", "prelu",
           "rrelu", "maxout", "glu", "gumbel_softmax", "hardtanh_", "leaky_relu_",
           "thresholded_relu_"]


def _check(x: Tensor, func: str) -> Tensor:
    if not isinstance(x, Variable):
        raise TypeError(f"F.{func}: x must be a Variable (a static-graph tensor), got "
                        f"{type(x).__name__}")
    return x


def _act(op_type: str, x: Tensor, attrs: Any = None, name: str | None = None,
         helper: str | None = None) -> Tensor:
    """Append ``op_type`` on x, written to ``<helper>_N.tmp_0`` (helper: the function)."""
    _check(x, helper or op_type)
    return layer_helper(helper or op_type, name).out(op_type, {"X": x}, attrs)


def relu(x: Tensor, name: str | None = None) -> Tensor:
    """max(x, 0)."""
    return _act("relu", x, name=name)


def relu_(x: Tensor, name: str | None = None) -> Tensor:
    """relu; in static mode it writes a new variable, as PaddlePaddle's does."""
    return relu(x, name)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6)."""
    return _act("relu6", x, name=name)


def elu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """x above 0, alpha * (exp(x) - 1) below."""
    return _act("elu", x, {"alpha": alpha}, name)


def elu_(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    return elu(x, alpha, name)


def selu(x: Tensor, scale: float = 1.0507009873554805, alpha: float = 1.6732632423543772,
         name: str | None = None) -> Tensor:
    """scale * (x above 0, alpha * (exp(x) - 1) below)."""
    if scale <= 1.0:
        raise ValueError(f"F.selu: scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise ValueError(f"F.selu: alpha must be no less than zero, got {alpha}")
    return _act("selu", x, {"scale": scale, "alpha": alpha}, name)


def celu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ZeroDivisionError("F.celu: alpha must not be 0")
    return _act("celu", x, {"alpha": alpha}, name)


def gelu(x: Tensor, approximate: bool = False, name: str | None = None) -> Tensor:
    """x * Phi(x) (erf), or its tanh approximation."""
    return _act("gelu", x, {"approximate": bool(approximate)}, name)


def silu(x: Tensor, name: str | None = None) -> Tensor:
    """x * sigmoid(x)."""
    return _act("silu", x, name=name)


def swish(x: Tensor, name: str | None = None) -> Tensor:
    """x * sigmoid(x) (the ``swish`` op, beta 1)."""
    return _act("swish", x, name=name)


def mish(x: Tensor, name: str | None = None) -> Tensor:
    """x * tanh(softplus(x))."""
    return _act("mish", x, {"threshold": 20.0}, name)


def sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """1 / (1 + exp(-x))."""
    return _act("sigmoid", x, name=name)


def hardsigmoid(x: Tensor, slope: float = 0.1666667, offset: float = 0.5, name: str | None = None
               ) -> Tensor:
    """min(max(slope * x + offset, 0), 1) (the ``hard_sigmoid`` op)."""
    return _act("hard_sigmoid", x, {"slope": slope, "offset": offset}, name, "hardsigmoid")


def hardswish(x: Tensor, name: str | None = None) -> Tensor:
    """x * min(max(x + 3, 0), 6) / 6 (the ``hard_swish`` op)."""
    return _act("hard_swish", x, {"threshold": 6.0, "scale": 6.0, "offset": 3.0}, name,
                "hardswish")


def hardtanh(x: Tensor, min: float = -1.0, max: float = 1.0, name: str | None = None) -> Tensor:
    """x clipped to [min, max] (the ``brelu`` op)."""
    return _act("brelu", x, {"t_min": min, "t_max": max}, name, "hardtanh")


def hardshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """x where |x| > threshold, else 0 (the ``hard_shrink`` op)."""
    return _act("hard_shrink", x, {"threshold": threshold}, name, "hardshrink")


def softshrink(x: Tensor, threshold: float = 0.5, name: str | None = None) -> Tensor:
    """x - threshold above it, x + threshold below -threshold, 0 between."""
    if threshold < 0:
        raise ValueError(f"F.softshrink: threshold must be no less than zero, got {threshold}")
    return _act("softshrink", x, {"lambda": threshold}, name)


def tanhshrink(x: Tensor, name: str | None = None) -> Tensor:
    """x - tanh(x) (the ``tanh_shrink`` op)."""
    return _act("tanh_shrink", x, name=name)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """x above 0, negative_slope * x below."""
    return _act("leaky_relu", x, {"alpha": negative_slope}, name)


def log_sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """log(sigmoid(x)) (the ``logsigmoid`` op)."""
    return _act("logsigmoid", x, name=name, helper="log_sigmoid")


def _normalise(op_type: str, x: Tensor, axis: int, dtype: DTypeLike | None, name: str | None
              ) -> Tensor:
    """softmax / log_softmax along ``axis``; ``dtype`` casts x first in the same helper."""
    _check(x, op_type)
    helper = layer_helper(op_type, name)
    if dtype is not None:                    # (cast even to x's own dtype, as PaddlePaddle)
        x = helper.out("cast", {"X": x}, {"in_dtype": x.dtype, "out_dtype": convert_dtype(dtype)})
    return helper.out(op_type, {"X": x}, {"axis": axis})


def softmax(x: Tensor, axis: int = -1, dtype: DTypeLike | None = None, name: str | None = None
           ) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``."""
    return _normalise("softmax", x, axis, dtype, name)


def softmax_(x: Tensor, axis: int = -1, dtype: DTypeLike | None = None, name: str | None = None
            ) -> Tensor:
    return softmax(x, axis, dtype, name)


def log_softmax(x: Tensor, axis: int = -1, dtype: DTypeLike | None = None, name: str | None = None
               ) -> Tensor:
    """log(softmax(x)) along ``axis``, computed without overflow."""
    return _normalise("log_softmax", x, axis, dtype, name)


def softplus(x: Tensor, beta: int = 1, threshold: int = 20, name: str | None = None) -> Tensor:
    """log(1 + exp(beta * x)) / beta; x itself above threshold."""
    return _act("softplus", x, {"beta": float(beta), "threshold": float(threshold)}, name)


def softsign(x: Tensor, name: str | None = None) -> Tensor:
    """x / (1 + |x|)."""
    return _act("softsign", x, name=name)


def tanh(x: Tensor, name: str | None = None) -> Tensor:
    """tanh(x)."""
    return _act("tanh", x, name=name)


def tanh_(x: Tensor, name: str | None = None) -> Tensor:
    return tanh(x, name)


def thresholded_relu(x: Tensor, threshold: float = 1.0, name: str | None = None) -> Tensor:
    """x where x > threshold, else 0."""
    return _act("thresholded_relu", x, {"threshold": threshold}, name)


def prelu(x: Tensor, weight: Tensor, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """x above 0, weight * x below: one weight for all (a 1-element weight) or one per
    channel (dimension 1, or the last for a channels-last data_format)."""
    _check(x, "prelu")
    if not isinstance(weight, Variable) or len(tensor_shape(weight)) > 1:
        raise ValueError("F.prelu: weight must be a 0-D or 1-D Variable (a parameter)")
    mode = "all"
    if len(tensor_shape(weight)) == 1 and tensor_shape(weight)[0] > 1:
        mode = "channel"
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"
    return layer_helper("prelu", name).out("prelu", {"X": x, "Alpha": weight},
                                           {"mode": mode, "data_format": data_format})


def rrelu(x: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = True,
          name: str | None = None) -> Tensor:
    """x above 0; below, x times a slope drawn from U(lower, upper) in training, their mean
    in evaluation."""
    _check(x, "rrelu")
    helper = layer_helper("rrelu", name)
    out, noise = helper.tmp_name(), helper.tmp_name()
    helper.append("rrelu", {"X": x}, {"Out": out, "Noise": noise},
                  {"lower": lower, "upper": upper, "is_test": not training})
    return as_tensor(helper.block.var(out))


def maxout(x: Tensor, groups: int, axis: int = 1, name: str | None = None) -> Tensor:
    """The largest of each ``groups`` consecutive channels (x is 4-D)."""
    return _act("maxout", x, {"groups": groups, "axis": axis}, name)


def glu(x: Tensor, axis: int = -1, name: str | None = None) -> Tensor:
    """a * sigmoid(b), x split in two halves a, b along ``axis``."""
    _check(x, "glu")
    helper = layer_helper("split")
    halves = [helper.tmp_name(), helper.tmp_name()]
    helper.append("split", {"X": x}, {"Out": halves}, {"axis": axis, "num": 2, "sections": []})
    a, b = (as_tensor(helper.block.var(n)) for n in halves)
    gate = sigmoid(b)
    out = name or unique_name.generate("elementwise_mul")      # paddle.multiply's naming
    helper.append("elementwise_mul", {"X": a, "Y": gate}, {"Out": out}, {"axis": -1})
    return as_tensor(helper.block.var(out))


def gumbel_softmax(x: Tensor, temperature: float = 1.0, hard: bool = False, axis: int = -1,
                   name: str | None = None) -> Tensor:
    """A sample from the Gumbel-softmax distribution over ``axis``: softmax((x + Gumbel
    noise) / temperature), or its one-hot (``hard``)."""
    return _act("gumbel_softmax", x, {"temperature": float(temperature), "hard": bool(hard),
                                      "axis": axis}, name)


def hardtanh_(x: Tensor, min: float = -1.0, max: float = 1.0, name: str | None = None) -> Tensor:
    """hardtanh; in static mode it writes a new variable, as PaddlePaddle's does."""
    return hardtanh(x, min, max, name)


def leaky_relu_(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    """leaky_relu; in static mode it writes a new variable, as PaddlePaddle's does."""
    return leaky_relu(x, negative_slope, name)


def thresholded_relu_(x: Tensor, threshold: float = 1.0, name: str | None = None) -> Tensor:
    """thresholded_relu; in static mode it writes a new variable, as PaddlePaddle's does."""
    return thresholded_relu(x, threshold, name)
