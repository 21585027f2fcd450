"""Elementwise math at paddle's top level: add, exp, sin, pow, clip, cumsum, lerp, ...

Each function appends the op PaddlePaddle 2.6 appends, with the same attributes and output
name (see building.py), so ``paddle.exp(x)`` writes ``exp_0.tmp_0`` and ``paddle.add(x, y)``
writes ``elementwise_add_0``. The reductions (sum, mean, max, prod, ...) are in
reduction.py, the functions built from several ops and the special functions in
math_more.py; both are re-exported here. Each function is also a Variable method (``x.exp()``).

>>> import paddle_nb as paddle
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), paddle.program_guard(paddle.Program(), paddle.Program()):
...     x = paddle.layers.data("x", [2, 3], append_batch_size=False)
...     y = paddle.exp(x) + x.sin()
>>> [op.type for op in y.block.ops]
['exp', 'sin', 'elementwise_add']
"""

from __future__ import annotations

from paddle_nb.framework.variable import Variable, as_tensor, register_tensor_methods
from paddle_nb.tensor import math_more, reduction
from paddle_nb.tensor.math_more import (  # noqa: F401 (re-exported)
    cummax, cummin, deg2rad, diff, frac, i0, i0e, i1, i1e, logaddexp, logcumsumexp, multiplex,
    nan_to_num, nanmean, nansum, nextafter, polygamma, rad2deg, sgn,
)
from paddle_nb.tensor.reduction import (  # noqa: F401 (re-exported: paddle.sum is here too)
    all, amax, amin, any, count_nonzero, logsumexp, max, min, prod, sum,
)
from paddle_nb.tensor.building import (
    FLOAT_MAX, append_named, append_out, cast_to, constant, expect_variable, is_number,
)
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod", "floor_mod",
    "maximum", "minimum", "fmax", "fmin", "heaviside", "pow", "atan2", "lerp",
    "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "abs", "sign",
    "neg", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
    "acosh", "atanh", "tanh", "floor", "ceil", "round", "trunc", "erf", "lgamma", "digamma",
    "stanh",
    "logit", "scale", "clip", "increment", "add_n", "cumsum", "cumprod", "erfinv",
    *reduction.__all__, *math_more.__all__,
]

# ---- binary elementwise ops: the output is named after the op (elementwise_add_0) ---------


def _elementwise(op_type: str, func: str, x: Tensor, y: Tensor, name: str | None) -> Tensor:
    expect_variable(x, "x", func)
    expect_variable(y, "y", func)
    return append_named(op_type, {"X": x, "Y": y}, {"axis": -1}, name=name)


def add(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x + y, elementwise with broadcasting (``elementwise_add``)."""
    return _elementwise("elementwise_add", "add", x, y, name)


def subtract(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x - y (``elementwise_sub``)."""
    return _elementwise("elementwise_sub", "subtract", x, y, name)


def multiply(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * y (``elementwise_mul``)."""
    return _elementwise("elementwise_mul", "multiply", x, y, name)


def divide(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x / y (``elementwise_div``; integers divide toward zero, as PaddlePaddle's kernel)."""
    return _elementwise("elementwise_div", "divide", x, y, name)


def floor_divide(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x // y, rounding toward minus infinity (``elementwise_floordiv``)."""
    return _elementwise("elementwise_floordiv", "floor_divide", x, y, name)


def remainder(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x % y, with y's sign (``elementwise_mod``)."""
    return _elementwise("elementwise_mod", "remainder", x, y, name)


mod = remainder
floor_mod = remainder


def maximum(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The larger of x and y, elementwise (``elementwise_max``)."""
    return _elementwise("elementwise_max", "maximum", x, y, name)


def minimum(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The smaller of x and y (``elementwise_min``)."""
    return _elementwise("elementwise_min", "minimum", x, y, name)


def _plain(op_type: str, func: str, x: Tensor, y: Tensor, name: str | None) -> Tensor:
    expect_variable(x, "x", func)
    expect_variable(y, "y", func)
    return append_named(op_type, {"X": x, "Y": y}, name=name)


def fmax(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The larger of x and y, ignoring a NaN on one side (``elementwise_fmax``)."""
    return _plain("elementwise_fmax", "fmax", x, y, name)


def fmin(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The smaller of x and y, ignoring a NaN on one side (``elementwise_fmin``)."""
    return _plain("elementwise_fmin", "fmin", x, y, name)


def heaviside(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """0 where x < 0, y where x == 0, 1 where x > 0 (``elementwise_heaviside``)."""
    return _plain("elementwise_heaviside", "heaviside", x, y, name)


def pow(x: Tensor, y: Tensor | float, name: str | None = None) -> Tensor:
    """x ** y: a number y writes ``pow`` (attribute factor), a tensor y ``elementwise_pow``."""
    expect_variable(x, "x", "pow")
    if is_number(y):
        return append_out("pow", {"X": x}, {"factor": float(y)}, name=name)
    expect_variable(y, "y", "pow")
    return append_out("elementwise_pow", {"X": x, "Y": y}, {"axis": -1}, name=name)


def atan2(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """arctan(x / y) in the right quadrant: the angle, in (-pi, pi], of the point (y, x)."""
    return append_out("atan2", {"X1": expect_variable(x, "x", "atan2"),
                                "X2": expect_variable(y, "y", "atan2")}, name=name)


def lerp(x: Tensor, y: Tensor, weight: Tensor | float, name: str | None = None) -> Tensor:
    """x + weight * (y - x); a number weight becomes a 0-D ``fill_constant`` first."""
    expect_variable(x, "x", "lerp")
    expect_variable(y, "y", "lerp")
    if is_number(weight):
        weight = constant(weight, x.dtype)
    return append_out("lerp", {"X": x, "Y": y, "Weight": weight}, name=name)


# ---- unary ops: the output is <function>_N.tmp_0 --------------------------------------------

class UnaryFunction(Protocol):
    """A function of one tensor that appends one op of the same name (``paddle.exp``)."""

    def __call__(self, x: Tensor, name: str | None = None) -> Tensor: ...


def _unary(op_type: str) -> UnaryFunction:
    def function(x: Tensor, name: str | None = None) -> Tensor:
        return append_out(op_type, {"X": expect_variable(x, "x", op_type)}, name=name)
    function.__name__ = function.__qualname__ = op_type
    function.__doc__ = f"Appends a ``{op_type}`` op: {op_type}(x) elementwise."
    return function


exp: UnaryFunction = _unary("exp")
expm1: UnaryFunction = _unary("expm1")
log: UnaryFunction = _unary("log")
log2: UnaryFunction = _unary("log2")
log10: UnaryFunction = _unary("log10")
log1p: UnaryFunction = _unary("log1p")
sqrt: UnaryFunction = _unary("sqrt")
rsqrt: UnaryFunction = _unary("rsqrt")
square: UnaryFunction = _unary("square")
abs: UnaryFunction = _unary("abs")
sign: UnaryFunction = _unary("sign")
reciprocal: UnaryFunction = _unary("reciprocal")
sin: UnaryFunction = _unary("sin")
cos: UnaryFunction = _unary("cos")
tan: UnaryFunction = _unary("tan")
asin: UnaryFunction = _unary("asin")
acos: UnaryFunction = _unary("acos")
atan: UnaryFunction = _unary("atan")
sinh: UnaryFunction = _unary("sinh")
cosh: UnaryFunction = _unary("cosh")
asinh: UnaryFunction = _unary("asinh")
acosh: UnaryFunction = _unary("acosh")
atanh: UnaryFunction = _unary("atanh")
tanh: UnaryFunction = _unary("tanh")
floor: UnaryFunction = _unary("floor")
ceil: UnaryFunction = _unary("ceil")
round: UnaryFunction = _unary("round")
trunc: UnaryFunction = _unary("trunc")
erf: UnaryFunction = _unary("erf")
erfinv: UnaryFunction = _unary("erfinv")
lgamma: UnaryFunction = _unary("lgamma")
digamma: UnaryFunction = _unary("digamma")


def neg(x: Tensor, name: str | None = None) -> Tensor:
    """-x, as ``scale`` by -1 (PaddlePaddle's ``paddle.neg``)."""
    return scale(x, scale=-1.0, bias=0.0, name=name)


def stanh(x: Tensor, scale_a: float = 0.67, scale_b: float = 1.7159, name: str | None = None
         ) -> Tensor:
    """scale_b * tanh(scale_a * x)."""
    return append_out("stanh", {"X": expect_variable(x, "x", "stanh")},
                      {"scale_a": scale_a, "scale_b": scale_b}, name=name)


def logit(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    """log(x / (1 - x)), x first clipped into [eps, 1 - eps] when eps is given."""
    return append_out("logit", {"X": expect_variable(x, "x", "logit")},
                      {"eps": 0.0 if eps is None else eps}, name=name)


def scale(x: Tensor, scale: Tensor | float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: str | None = None, name: str | None = None) -> Tensor:
    """scale * x + bias (or scale * (x + bias)); a tensor ``scale`` goes in ScaleTensor."""
    inputs = {"X": expect_variable(x, "x", "scale")}
    attrs = {"bias": float(bias), "bias_after_scale": bias_after_scale}
    if isinstance(scale, Variable):
        inputs["ScaleTensor"] = scale
        attrs["scale"] = 1.0
    else:
        attrs["scale"] = float(scale)
    out = append_out("scale", inputs, attrs, name=name)
    return out if act is None else append_out(act, {"X": out})


# (PaddlePaddle names the bounds min and max, as the reductions min and max are named)
def clip(x: Tensor, min: Tensor | float | None = None, max: Tensor | float | None = None,  # noqa: F811
         name: str | None = None) -> Tensor:
    """x limited to [min, max]; a missing bound is float32's largest value; a tensor bound
    goes in the Min / Max input."""
    inputs, attrs = {"X": expect_variable(x, "x", "clip")}, {}
    for key, slot, value, default in (("min", "Min", min, -FLOAT_MAX),
                                      ("max", "Max", max, FLOAT_MAX)):
        if isinstance(value, Variable):
            inputs[slot] = value
            attrs[key] = default
        else:
            attrs[key] = default if value is None else float(value)
    return append_out("clip", inputs, attrs, name=name)


def increment(x: Tensor, value: float = 1.0, name: str | None = None) -> Tensor:
    """x += value, in place (x must hold one element); returns x."""
    expect_variable(x, "x", "increment")
    x.block.program.current_block().append_op(
        "increment", inputs={"X": x}, outputs={"Out": x}, attrs={"step": float(value)})
    return x


def add_n(inputs: Tensor | Sequence[Tensor], name: str | None = None) -> Tensor:
    """The sum of a list of same-shape tensors (``sum``)."""
    if isinstance(inputs, Variable):
        inputs = [as_tensor(inputs)]
    for i, v in enumerate(inputs):
        expect_variable(v, f"inputs[{i}]", "add_n")
    return append_out("sum", {"X": list(inputs)}, helper="add_n", name=name)


def cumsum(x: Tensor, axis: int | None = None, dtype: DTypeLike | None = None,
           name: str | None = None) -> Tensor:
    """Running sums along ``axis`` (None: over x flattened); ``dtype`` casts x first."""
    expect_variable(x, "x", "cumsum")
    if dtype is not None:
        x = cast_to(x, dtype)
    attrs = {"flatten": True, "axis": -1} if axis is None else {"flatten": False, "axis": axis}
    attrs.update(exclusive=False, reverse=False)
    return append_out("cumsum", {"X": x}, attrs, name=name)


def cumprod(x: Tensor, dim: int | None = None, dtype: DTypeLike | None = None,
            name: str | None = None) -> Tensor:
    """Running products along ``dim`` (required, as in PaddlePaddle 2.6)."""
    expect_variable(x, "x", "cumprod")
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"cumprod: 'dim' must be an int, got {dim!r}")
    if dtype is not None:
        x = cast_to(x, dtype)
    return append_out("cumprod", {"X": x}, {"dim": dim}, name=name)


# every function here is also a Variable method (x.exp(), x.sum(axis=1), x.clip(0, 1))
register_tensor_methods({n: globals()[n] for n in __all__ if n not in ("add_n",)
                         and n not in reduction.__all__ and n not in math_more.__all__})
