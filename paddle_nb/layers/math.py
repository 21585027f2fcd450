"""Elementwise and reduction layers: one op each, named as PaddlePaddle 1.8 names them."""

from __future__ import annotations

from paddle_nb.layers.helper import LayerHelper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "square", "abs", "softmax",
           "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
           "elementwise_max", "elementwise_min", "elementwise_pow", "scale", "mean",
           "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "matmul", "sums"]


def _unary(op_type: str, x: Tensor, name: str | None = None) -> Tensor:
    return LayerHelper(op_type, name).out(op_type, {"X": x})


def relu(x: Tensor, name: str | None = None) -> Tensor:
    """max(x, 0)."""
    return _unary("relu", x, name)


def sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """1 / (1 + exp(-x))."""
    return _unary("sigmoid", x, name)


def tanh(x: Tensor, name: str | None = None) -> Tensor:
    """tanh(x)."""
    return _unary("tanh", x, name)


def exp(x: Tensor, name: str | None = None) -> Tensor:
    """e ** x."""
    return _unary("exp", x, name)


def log(x: Tensor, name: str | None = None) -> Tensor:
    """ln(x)."""
    return _unary("log", x, name)


def sqrt(x: Tensor, name: str | None = None) -> Tensor:
    """x ** 0.5."""
    return _unary("sqrt", x, name)


def square(x: Tensor, name: str | None = None) -> Tensor:
    """x * x."""
    return _unary("square", x, name)


def abs(x: Tensor, name: str | None = None) -> Tensor:
    """|x|."""
    return _unary("abs", x, name)


def softmax(input: Tensor, use_cudnn: bool = False, name: str | None = None, axis: int = -1
           ) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``."""
    return LayerHelper("softmax", name).out("softmax", {"X": input}, {"axis": axis})


def _binary(op_type: str, x: Tensor, y: Tensor, axis: int, act: str | None, name: str | None
           ) -> Tensor:
    helper = LayerHelper(op_type, name)
    return helper.act(helper.out(op_type, {"X": x, "Y": y}, {"axis": axis}), act)


def elementwise_add(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """x + y, with y lined up at dimension ``axis`` of x."""
    return _binary("elementwise_add", x, y, axis, act, name)


def elementwise_sub(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """x - y."""
    return _binary("elementwise_sub", x, y, axis, act, name)


def elementwise_mul(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """x * y."""
    return _binary("elementwise_mul", x, y, axis, act, name)


def elementwise_div(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """x / y."""
    return _binary("elementwise_div", x, y, axis, act, name)


def elementwise_max(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """max(x, y)."""
    return _binary("elementwise_max", x, y, axis, act, name)


def elementwise_min(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """min(x, y)."""
    return _binary("elementwise_min", x, y, axis, act, name)


def elementwise_pow(x: Tensor, y: Tensor, axis: int = -1, act: str | None = None,
                    name: str | None = None) -> Tensor:
    """x ** y."""
    return _binary("elementwise_pow", x, y, axis, act, name)


def scale(x: Tensor, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: str | None = None, name: str | None = None) -> Tensor:
    """scale * x + bias."""
    helper = LayerHelper("scale", name)
    out = helper.out("scale", {"X": x}, {"scale": scale, "bias": bias,
                                         "bias_after_scale": bias_after_scale})
    return helper.act(out, act)


def mean(x: Tensor, name: str | None = None) -> Tensor:
    """The mean of every element, shape [1]."""
    return LayerHelper("mean", name).out("mean", {"X": x})


def sums(input: Sequence[Tensor], name: str | None = None) -> Tensor:
    """The sum of a list of same-shape tensors."""
    return LayerHelper("sum", name).out("sum", {"X": list(input)})


def _reduce(op_type: str, input: Tensor, dim: Any, keep_dim: bool, name: str | None) -> Tensor:
    if dim is None:
        attrs = {"dim": [0], "keep_dim": keep_dim, "reduce_all": True}
    else:
        attrs = {"dim": [dim] if isinstance(dim, int) else list(dim), "keep_dim": keep_dim,
                 "reduce_all": False}
    return LayerHelper(op_type, name).out(op_type, {"X": input}, attrs)


def reduce_sum(input: Tensor, dim: int | Sequence[int] | None = None, keep_dim: bool = False,
               name: str | None = None) -> Tensor:
    """The sum over ``dim`` (every dimension when None)."""
    return _reduce("reduce_sum", input, dim, keep_dim, name)


def reduce_mean(input: Tensor, dim: int | Sequence[int] | None = None, keep_dim: bool = False,
                name: str | None = None) -> Tensor:
    """The mean over ``dim`` (every dimension when None)."""
    return _reduce("reduce_mean", input, dim, keep_dim, name)


def reduce_max(input: Tensor, dim: int | Sequence[int] | None = None, keep_dim: bool = False,
               name: str | None = None) -> Tensor:
    return _reduce("reduce_max", input, dim, keep_dim, name)


def reduce_min(input: Tensor, dim: int | Sequence[int] | None = None, keep_dim: bool = False,
               name: str | None = None) -> Tensor:
    return _reduce("reduce_min", input, dim, keep_dim, name)


def matmul(x: Tensor, y: Tensor, transpose_x: bool = False, transpose_y: bool = False,
           alpha: float = 1.0, name: str | None = None) -> Tensor:
    """alpha * (x @ y), optionally transposing the last two dimensions of either."""
    return LayerHelper("matmul", name).out("matmul", {"X": x, "Y": y},
                                           {"transpose_X": transpose_x, "transpose_Y": transpose_y,
                                            "alpha": alpha})
