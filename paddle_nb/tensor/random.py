"""Random numbers at paddle's top level: rand, randn, randint, randperm, normal, bernoulli, ...

Each function appends the op PaddlePaddle 2.6 appends in static mode, with its attributes:
``rand``/``uniform`` write ``uniform_random``, ``randn``/``standard_normal``/``normal``
``gaussian_random``, ``randint`` ``randint`` (``randint_like`` the same op shaped by
``shape(x)``, then a ``cast``), and ``randperm``, ``bernoulli``, ``multinomial``,
``poisson``, ``exponential_`` and ``uniform_random_batch_size_like`` their own ops. A shape
may be a list of ints, a list holding 0-D int tensors (``[paddle.shape(x)[0], 4]``: a
``ShapeTensorList`` of int32 tensors, -1 in the attribute) or one 1-D int tensor
(``ShapeTensor``), as in PaddlePaddle.

The ops draw when the program runs: ``seed`` 0 (what these functions write, except
``uniform(seed=...)``) draws from the running Executor's generator
(``Executor(place, seed=...)``), so each run draws anew; a fixed seed draws the same numbers
every run. ``normal_``, ``cauchy_`` and ``geometric_`` work only in dynamic mode in
PaddlePaddle 2.6 and say so here too.
"""

from __future__ import annotations

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework import unique_name
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.variable import (Variable, as_tensor, register_tensor_methods,
                                          tensor_dtype)
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["rand", "randn", "standard_normal", "normal", "uniform", "randint", "randint_like",
           "randperm", "bernoulli", "multinomial", "poisson", "normal_", "cauchy_",
           "geometric_"]

FLOATS = ("float32", "float64")


def _fail(error: Any, text: Any) -> None:
    """``error(text)`` with the user's line, raised."""
    raise error(f"{text}\n  built at {format_site(callstack_strings())}")


def _dtype(dtype: DTypeLike | None, default: Any, allowed: Any, what: str) -> str:
    """``dtype`` (default when None) as a dtype name, checked against ``allowed``."""
    name = convert_dtype(default if dtype is None else dtype).name
    if name not in allowed:
        _fail(TypeError, f"{what}: dtype must be one of {list(allowed)}, got {name}")
    return name


def _int_variable(var: Tensor, what: str) -> Tensor:
    if var.dtype.name not in ("int32", "int64"):
        _fail(TypeError, f"{what} must be an int32 or int64 tensor, got {var.dtype.name}")
    var.stop_gradient = True
    return var if var.dtype.name == "int32" else _cast(var, "int32")


def _shape_parts(shape: Any, what: str) -> Any:
    """(the ``shape`` attribute, the shape inputs) for a list of ints and 0-D tensors, or a
    1-D tensor, as PaddlePaddle writes them (tensors as int32; constants as filled 0-D int32
    tensors when any entry is a tensor)."""
    if isinstance(shape, Variable):
        return [], {"ShapeTensor": _int_variable(as_tensor(shape), f"{what}: shape")}
    if not isinstance(shape, (list, tuple)):
        _fail(TypeError, f"{what}: shape must be a list, a tuple or a 1-D int tensor, "
                         f"got {type(shape).__name__}")
    if not any(isinstance(d, Variable) for d in shape):
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, int) or d < 0:
                _fail(ValueError, f"{what}: shape {list(shape)} must hold sizes >= 0 "
                                  "(ints or 0-D int tensors)")
        return [int(d) for d in shape], {}
    tensors = [_int_variable(as_tensor(d), f"{what}: shape[{i}]") if isinstance(d, Variable)
               else _int_constant(d) for i, d in enumerate(shape)]
    return [-1 if isinstance(d, Variable) else int(d) for d in shape], {"ShapeTensorList": tensors}


def _int_constant(value: int) -> Tensor:
    # PaddlePaddle 2.6's fill_constant takes two names from the generator (its helper's and
    # its output's), so the first constant a shape list makes is fill_constant_1.tmp_0
    unique_name.generate("fill_constant")
    return layer_helper("fill_constant").out(
        "fill_constant", {}, {"shape": [], "dtype": "int32", "value": float(value),
                              "str_value": str(int(value)), "force_cpu": True})


def _cast(x: Tensor, dtype: DTypeLike) -> Tensor:
    return layer_helper("cast").out("cast", {"X": x}, {"in_dtype": x.dtype, "out_dtype": dtype})


def _shape_of(x: Tensor) -> Tensor:
    return layer_helper("shape").out("shape", {"Input": x})


def _drawn(helper_name: str, op_type: str, inputs: Any, attrs: Any, name: str | None) -> Tensor:
    """The output of a random op appended through a helper named ``helper_name``; no gradient
    flows into a draw."""
    out = layer_helper(helper_name, name).out(op_type, inputs, attrs)
    out.stop_gradient = True
    return out


# ---- uniform: rand, uniform ----

def uniform(shape: Tensor | Sequence[Tensor | int], dtype: DTypeLike | None = None,
            min: float = -1.0, max: float = 1.0, seed: int = 0, name: str | None = None) -> Tensor:
    """Numbers drawn uniformly from [min, max), of ``shape`` and ``dtype`` (float32 default).
    ``seed`` 0 draws from the run's generator; another seed draws the same numbers each run."""
    dtype = _dtype(dtype, "float32", FLOATS, "uniform/rand")
    if min > max:
        _fail(ValueError, f"uniform: min ({min}) must not exceed max ({max})")
    attr_shape, inputs = _shape_parts(shape, "uniform/rand")
    return _drawn("uniform", "uniform_random", inputs,
                  {"shape": attr_shape, "dtype": dtype, "min": float(min), "max": float(max),
                   "seed": int(seed), "diag_num": 0, "diag_step": 0, "diag_val": 1.0}, name)


def uniform_random_batch_size_like(input: Tensor, shape: Sequence[int],
                                   dtype: DTypeLike = "float32", input_dim_idx: int = 0,
                                   output_dim_idx: int = 0, min: float = -1.0, max: float = 1.0,
                                   seed: int = 0) -> Tensor:
    """``uniform(shape)`` whose dimension ``output_dim_idx`` is ``input``'s dimension
    ``input_dim_idx`` (its batch size, known only at run time). PaddlePaddle 2.6 has it as
    ``paddle.tensor.random.uniform_random_batch_size_like``, not at the top level."""
    _float_input(input, "uniform_random_batch_size_like")
    if not isinstance(shape, (list, tuple)):
        _fail(TypeError, f"uniform_random_batch_size_like: shape must be a list or a tuple, "
                         f"got {type(shape).__name__}")
    dtype = _dtype(dtype, "float32", FLOATS, "uniform_random_batch_size_like")
    return layer_helper("uniform_random_batch_size_like").out(
        "uniform_random_batch_size_like", {"Input": input},
        {"shape": [int(d) for d in shape], "input_dim_idx": int(input_dim_idx),
         "output_dim_idx": int(output_dim_idx), "min": float(min), "max": float(max),
         "seed": int(seed), "dtype": dtype})


def rand(shape: Tensor | Sequence[Tensor | int], dtype: DTypeLike | None = None,
         name: str | None = None) -> Tensor:
    """Numbers drawn uniformly from [0, 1), of ``shape`` and ``dtype`` (float32 default)."""
    return uniform(shape, dtype, min=0.0, max=1.0, name=name)


# ---- gaussian: randn, standard_normal, normal ----

def _gaussian(shape: Any, mean: float = 0.0, std: float = 1.0, seed: int = 0,
              dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    dtype = _dtype(dtype, "float32", FLOATS, "gaussian/standard_normal/randn/normal")
    if std < 0:
        _fail(ValueError, f"normal: std must be >= 0, got {std}")
    attr_shape, inputs = _shape_parts(shape, "gaussian/standard_normal/randn/normal")
    return _drawn("gaussian", "gaussian_random", inputs,
                  {"shape": attr_shape, "mean": float(mean), "std": float(std),
                   "seed": int(seed), "dtype": dtype}, name)


def standard_normal(shape: Tensor | Sequence[int], dtype: DTypeLike | None = None,
                    name: str | None = None) -> Tensor:
    """Numbers drawn from N(0, 1), of ``shape`` and ``dtype`` (float32 default)."""
    return _gaussian(shape, 0.0, 1.0, 0, dtype, name)


def randn(shape: Sequence[int], dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """Numbers drawn from N(0, 1), of ``shape`` and ``dtype`` (float32 default)."""
    return standard_normal(shape, dtype, name)


def normal(mean: Tensor | float = 0.0, std: Tensor | float = 1.0,
           shape: Sequence[int] | None = None, name: str | None = None) -> Tensor:
    """Numbers drawn from N(mean, std**2). With numbers, of ``shape``; with a tensor ``mean``
    or ``std`` (float32/float64), shaped like it, one draw per element
    (``standard_normal(shape(mean)) * std + mean``)."""
    for what, value in (("mean", mean), ("std", std)):
        if isinstance(value, Variable):
            if tensor_dtype(value).name not in FLOATS:
                _fail(TypeError, f"normal: a tensor {what} must be float32 or float64, got "
                                 f"{tensor_dtype(value).name}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(TypeError, f"normal: {what} must be a number or a tensor, got "
                             f"{type(value).__name__}")
    if isinstance(mean, Variable):
        if isinstance(std, Variable):
            if std.dtype != mean.dtype:
                std = _cast(std, mean.dtype)
            std = _reshaped(std, _shape_of(mean))
        out = standard_normal(_shape_of(mean), mean.dtype, name)
    elif isinstance(std, Variable):
        out = standard_normal(_shape_of(std), std.dtype, name)
    else:
        return _gaussian(shape, float(mean), float(std), name=name)
    return out * std + mean


def _reshaped(x: Tensor, shape_tensor: Tensor) -> Tensor:
    helper = layer_helper("reshape2")
    out, xshape = helper.tmp_name(), helper.tmp_name()     # Out is .tmp_0, as in PaddlePaddle
    helper.append("reshape2", {"X": x, "Shape": shape_tensor}, {"Out": out, "XShape": xshape},
                  {"shape": []})
    return as_tensor(helper.block.var(out))


# ---- integers: randint, randint_like, randperm ----

def _bounds(low: int, high: int | None, what: str) -> Any:
    if high is None:
        if low <= 0:
            _fail(ValueError, f"{what}: with high None, low must be > 0 (the draws are "
                              f"in [0, low)), got low = {low}")
        low, high = 0, low
    if low >= high:
        _fail(ValueError, f"{what}: low must be less than high, got low = {low}, high = {high}")
    return int(low), int(high)


def randint(low: int = 0, high: int | None = None, shape: Tensor | Sequence[int] = [1],
            dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:   # noqa: B006 (PaddlePaddle's)
    """Integers drawn uniformly from [low, high) (from [0, low) when ``high`` is None), of
    ``shape`` and ``dtype`` (int32 or int64, the default)."""
    low, high = _bounds(low, high, "randint")
    dtype = _dtype(dtype, "int64", ("int32", "int64"), "randint")
    attr_shape, inputs = _shape_parts(shape, "randint")
    return _drawn("randint", "randint", inputs, {"low": low, "high": high, "seed": 0,
                                                 "dtype": dtype, "shape": attr_shape}, name)


def randint_like(x: Tensor, low: int = 0, high: int | None = None, dtype: DTypeLike | None = None,
                 name: str | None = None) -> Tensor:
    """Integers drawn uniformly from [low, high), shaped like ``x``, in ``dtype`` (x's by
    default): an int64 ``randint`` of ``shape(x)``, cast to ``dtype``."""
    low, high = _bounds(low, high, "randint_like")
    dtype = _dtype(dtype, x.dtype, ("bool", "float16", "float32", "float64", "int32", "int64"),
                   "randint_like")
    drawn = _drawn("randint", "randint", {"ShapeTensor": _shape_of(x)},
                   {"low": low, "high": high, "seed": 0, "dtype": "int64", "shape": []}, name)
    return _cast(drawn, dtype)


def randperm(n: int, dtype: DTypeLike = "int64", name: str | None = None) -> Tensor:
    """The integers 0 .. n-1 in a random order, in ``dtype`` (int64, int32, float32, float64)."""
    if n < 1:
        _fail(ValueError, f"randperm: n must be > 0, got {n}")
    dtype = _dtype(dtype, "int64", ("int64", "int32", "float32", "float64"), "randperm")
    return _drawn("randperm", "randperm", {}, {"n": int(n), "dtype": dtype}, name)


# ---- draws whose law x holds: bernoulli, poisson, multinomial, exponential_ ----

def _float_input(x: Tensor, what: str) -> Tensor:
    if not isinstance(x, Variable):
        _fail(TypeError, f"{what}: x must be a tensor, got {type(x).__name__}")
    if x.dtype.name not in ("float16", "float32", "float64"):
        _fail(TypeError, f"{what}: x must be a float16, float32 or float64 tensor, got "
                         f"{x.dtype.name}")
    return x


def bernoulli(x: Tensor, name: str | None = None) -> Tensor:
    """1 with probability x[i], else 0, for each element, in x's dtype."""
    # (PaddlePaddle names bernoulli's helper "randint": its output is randint_N.tmp_0)
    return _drawn("randint", "bernoulli", {"X": _float_input(x, "bernoulli")}, {}, name)


def poisson(x: Tensor, name: str | None = None) -> Tensor:
    """A count drawn from Poisson(x[i]) for each element, in x's dtype; its gradient is zero."""
    return layer_helper("poisson", name).out("poisson", {"X": _float_input(x, "poisson")})


def multinomial(x: Tensor, num_samples: int = 1, replacement: bool = False, name: str | None = None
               ) -> Tensor:
    """``num_samples`` category indices (int64) drawn with the weights in x's last dimension
    (x 1-D or 2-D); without ``replacement`` a row's draws differ."""
    return _drawn("multinomial", "multinomial", {"X": _float_input(x, "multinomial")},
                  {"num_samples": int(num_samples), "replacement": bool(replacement)}, name)


def exponential_(x: Tensor, lam: float = 1.0, name: str | None = None) -> Tensor:
    """x filled in place with numbers drawn from Exponential(lam) (mean 1 / lam); returns x.
    PaddlePaddle 2.6 has it as ``paddle.tensor.exponential_`` and ``x.exponential_``."""
    layer_helper("exponential", name).append(
        "exponential", {"X": _float_input(x, "exponential_")}, {"Out": x}, {"lambda": float(lam)})
    return x


# ---- dynamic-mode only in PaddlePaddle 2.6 ----

def _dynamic_only(what: str, instead: Any) -> None:
    _fail(NotImplementedError, f"paddle.{what} works only in dynamic graph mode in PaddlePaddle "
                               f"2.6, and paddle_nb builds static programs: {instead}")


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> None:
    """Dynamic mode only (as in PaddlePaddle 2.6): raises, naming what to use instead."""
    _dynamic_only("normal_", "use paddle.normal(mean, std, x.shape) for a new tensor")


def cauchy_(x: Tensor, loc: int = 0, scale: int = 1, name: str | None = None) -> None:
    """Dynamic mode only (as in PaddlePaddle 2.6): raises, naming what to use instead."""
    _dynamic_only("cauchy_", "draw u = paddle.rand(x.shape) and compute "
                             "loc + scale * tan(pi * (u - 0.5))")


def geometric_(x: Tensor, probs: Any, name: str | None = None) -> None:
    """Dynamic mode only (as in PaddlePaddle 2.6): raises, naming what to use instead."""
    _dynamic_only("geometric_", "draw u = paddle.rand(x.shape) and compute "
                                "ceil(log(u) / log(1 - probs))")


register_tensor_methods({"exponential_": exponential_, "multinomial": multinomial})
