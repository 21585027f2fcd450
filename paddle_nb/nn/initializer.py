"""``paddle.nn.initializer``: the ops that give a parameter its first value (PaddlePaddle 2.x).

Each initializer describes one startup op (``op(shape, dtype) -> (type, attrs)``,
the protocol of ``paddle_nb.framework.initializer.Initializer``), with the
attributes PaddlePaddle 2.6 writes: ``XavierUniform`` on a ``[3, 4]`` weight is
``uniform_random(min=-sqrt(6/7), max=sqrt(6/7), seed=0)``. The scales come from
the parameter's fans: for a matrix ``[in, out]``, ``fan_in = in`` and
``fan_out = out``; for a convolution filter ``[out_c, in_c, k...]``, each
channel count times the kernel's size.

>>> round(XavierUniform().op(shape=(3, 4), dtype="float32")[1]["max"], 6)
0.92582
>>> round(calculate_gain("leaky_relu", 0.2), 6)
1.38675
"""

from __future__ import annotations

import math

import numpy

from paddle_nb.framework import initializer as base
from paddle_nb.framework import unique_name
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.variable import Variable

__all__ = ["Constant", "Normal", "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform",
           "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal", "Dirac", "Bilinear",
           "calculate_gain",
           "set_global_initializer", "Initializer"]

Initializer = base.Initializer


def compute_fans(shape: Sequence[int]) -> tuple[int, ...]:
    """(fan_in, fan_out) of a parameter of ``shape``, as PaddlePaddle 2.x counts them."""
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain that keeps activations' variance through ``nonlinearity`` (Kaiming's)."""
    unit = ("sigmoid", "linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose",
            "conv2d_transpose", "conv3d_transpose")
    if nonlinearity in unit:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: nonlinearity {nonlinearity!r} is not one of sigmoid, "
                     "linear, conv1d..conv3d_transpose, tanh, relu, leaky_relu, selu")


class Constant(base.Constant):
    """Every element ``value`` (``fill_constant``, with its ``str_value``)."""


class Normal(base.Normal):
    """``gaussian_random``: N(mean, std**2)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> None:
        super().__init__(mean, std)


class TruncatedNormal(base.Normal):
    """``truncated_gaussian_random``: N(mean, std**2) cut to two standard deviations."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> None:
        super().__init__(mean, std)

    def op(self, shape: Any, dtype: Any) -> tuple[str, dict[str, Any]]:
        return "truncated_gaussian_random", {"shape": list(shape), "mean": self.mean,
                                             "std": self.std, "seed": self.seed,
                                             "dtype": str(dtype)}


class Uniform(base.Uniform):
    """``uniform_random`` on [low, high)."""

    def __init__(self, low: float = -1.0, high: float = 1.0, name: str | None = None) -> None:
        super().__init__(low, high)


class XavierUniform(Initializer):
    """Glorot: uniform on ``+-sqrt(6 / (fan_in + fan_out))``; the fans can be given."""

    def __init__(self, fan_in: int | None = None, fan_out: int | None = None,
                 name: str | None = None) -> None:
        self.fan_in, self.fan_out, self.seed = fan_in, fan_out, 0

    def fans(self, shape: Sequence[int]) -> tuple[int, ...]:
        fan_in, fan_out = compute_fans(shape)
        return (fan_in if self.fan_in is None else self.fan_in,
                fan_out if self.fan_out is None else self.fan_out)

    def op(self, shape: Any, dtype: Any) -> tuple[str, dict[str, Any]]:
        limit = math.sqrt(6.0 / sum(self.fans(shape)))
        return base.Uniform(-limit, limit, self.seed).op(shape, dtype)


class XavierNormal(XavierUniform):
    """Glorot: N(0, 2 / (fan_in + fan_out))."""

    def op(self, shape: Sequence[int], dtype: DTypeLike) -> tuple[str, dict[str, Any]]:
        std = math.sqrt(2.0 / sum(self.fans(shape)))
        return base.Normal(0.0, std, self.seed).op(shape, dtype)


class KaimingUniform(Initializer):
    """He: uniform on ``+-gain * sqrt(3 / fan_in)``, ``gain = calculate_gain(nonlinearity,
    negative_slope)``."""

    def __init__(self, fan_in: int | None = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu") -> None:
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity
        self.seed = 0

    def scale(self, shape: Sequence[int]) -> float:
        """gain / sqrt(fan_in): the standard deviation the weights get."""
        fan_in = compute_fans(shape)[0] if self.fan_in is None else self.fan_in
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan_in)

    def op(self, shape: Any, dtype: Any) -> tuple[str, dict[str, Any]]:
        limit = math.sqrt(3.0) * self.scale(shape)
        return base.Uniform(-limit, limit, self.seed).op(shape, dtype)


class KaimingNormal(KaimingUniform):
    """He: N(0, (gain / sqrt(fan_in))**2)."""

    def op(self, shape: Sequence[int], dtype: DTypeLike) -> tuple[str, dict[str, Any]]:
        return base.Normal(0.0, self.scale(shape), self.seed).op(shape, dtype)


_VALUE_ATTRS = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
                "int64": "int64_values", "bool": "bool_values"}


class Assign(Initializer):
    """The given values (a NumPy array, a list, a number), by ``assign_value``."""

    def __init__(self, value: numpy.ndarray | Sequence[float | list[Any]], name: str | None = None
                ) -> None:
        self.value = numpy.asarray(value)

    def op(self, shape: Any, dtype: Any) -> tuple[str, dict[str, Any]]:
        kind = numpy.dtype(str(dtype)).name
        if kind not in _VALUE_ATTRS:
            raise TypeError(f"Assign: a parameter of dtype {kind} cannot be initialized by "
                            f"assign_value (bool, int32, int64, float32, float64)")
        if self.value.size != math.prod(shape):
            raise ValueError(f"Assign: {self.value.size} values given for a parameter of shape "
                             f"{list(shape)}")
        values = self.value.astype(kind).reshape(-1).tolist()
        if kind == "bool":
            values = [int(v) for v in values]
        return "assign_value", {"shape": list(shape), "dtype": kind, _VALUE_ATTRS[kind]: values}


class _Ops(Initializer):
    """An initializer that writes several startup ops (``ops(var)`` yields them as
    (type, inputs, outputs, attrs)); it needs the startup program (``program_guard`` gives
    one), as PaddlePaddle's 2.x initializers do."""

    def ops(self, var: Any, block: Any) -> Any:
        raise NotImplementedError

    def append_to(self, block: Block, var: Variable, index: int) -> Operator:
        op: Any = None
        for k, (op_type, inputs, outputs, attrs) in enumerate(self.ops(var, block)):
            op = block.insert_op(index + k, op_type, inputs=inputs, outputs=outputs, attrs=attrs)
        return op


def _seeded(block: Any, seed: int) -> int:
    return block.program.random_seed if seed == 0 and block.program.random_seed else seed


class Orthogonal(_Ops):
    """A (semi-)orthogonal matrix times ``gain``: rows = shape[0], cols = the rest; Q of the
    QR of a Gaussian [max, min] matrix, its columns' signs fixed by R's diagonal, transposed
    when rows < cols, reshaped to ``shape`` (2.6's ops: gaussian_random, qr, diag_v2, sign,
    elementwise_mul, transpose2, reshape2, scale)."""

    def __init__(self, gain: float = 1.0, name: str | None = None) -> None:
        self.gain, self.seed = float(gain), 0

    def ops(self, var: Any, block: Any) -> Iterator[Any]:
        shape = list(var.shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: only a parameter of 2 or more dimensions can be "
                             f"initialized, got '{var.name}' of shape {shape}")
        rows, cols = shape[0], math.prod(shape[1:])
        dtype = numpy.dtype(str(var.dtype)).name
        names = {k: unique_name.generate(k) for k in (
            "gaussian_random.tmp", "qr.q.tmp", "qr.r.tmp", "diag.tmp", "transpose.shape.tmp")}
        gauss, q, r, diag, xshape = names.values()
        yield ("gaussian_random", {}, {"Out": gauss},
               {"shape": [max(rows, cols), min(rows, cols)], "mean": 0.0, "std": 1.0,
                "seed": _seeded(block, self.seed), "dtype": dtype})
        yield "qr", {"X": gauss}, {"Q": q, "R": r}, {"mode": "reduced"}
        yield "diag_v2", {"X": r}, {"Out": diag}, {"offset": 0, "padding_value": 0.0}
        yield "sign", {"X": diag}, {"Out": diag}, {}
        yield "elementwise_mul", {"X": q, "Y": diag}, {"Out": q}, {"axis": -1}
        if rows < cols:
            flat = unique_name.generate("transpose.tmp")
            yield "transpose2", {"X": q}, {"Out": flat, "XShape": xshape}, {"axis": [1, 0]}
            q = flat
        # (PaddlePaddle reshapes in place; a variable here keeps one declared shape, so a
        # filter's reshape writes a new one)
        shaped = q if len(shape) == 2 else unique_name.generate("reshape.tmp")
        yield "reshape2", {"X": q}, {"Out": shaped, "XShape": xshape}, {"shape": shape}
        yield "scale", {"X": shaped}, {"Out": var}, {"scale": self.gain, "bias": 0.0,
                                               "bias_after_scale": True}


class Dirac(_Ops):
    """Identity convolution kernels: zeros with a 1 at the centre of filter [g * (out/groups)
    + i, i] for i < min(out/groups, in), so a conv keeps (some of) its input channels
    (2.6's ops: fill_constant, reshape2, assign_value twice, scatter, reshape2)."""

    def __init__(self, groups: int = 1, name: str | None = None) -> None:
        self.groups = int(groups)

    def positions(self, shape: Sequence[int]) -> list[int]:
        """The flat positions of the ones."""
        out_c, in_c, kernel = shape[0], shape[1], shape[2:]
        per_group = out_c // self.groups
        centre = [k // 2 for k in kernel]
        strides = numpy.cumprod(([1] + list(shape[::-1]))[:-1])[::-1]
        found = []
        for g in range(self.groups):
            for i in range(min(per_group, in_c)):
                where = [g * per_group + i, i] + centre
                found.append(int(numpy.dot(where, strides)))
        return found

    def ops(self, var: Any, block: Any) -> Iterator[Any]:
        shape = list(var.shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: only a convolution filter of 3, 4 or 5 dimensions can be "
                             f"initialized, got '{var.name}' of shape {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac: the out channels {shape[0]} must be a multiple of "
                             f"groups={self.groups}")
        dtype = numpy.dtype(str(var.dtype)).name
        ones = self.positions(shape)
        index, value = unique_name.generate("scatter_index"), unique_name.generate("scatter_value")
        # (PaddlePaddle writes every step into the parameter, reshaping it in place; a
        # variable here keeps one declared shape, so the flat steps have their own)
        zeros, flat, scattered = (unique_name.generate(f"{var.name}.{k}")
                                  for k in ("zeros", "flat", "scattered"))
        yield "fill_constant", {}, {"Out": zeros}, {"shape": shape, "value": 0.0,
                                                    "dtype": dtype, "str_value": ""}
        yield ("reshape2", {"X": zeros}, {"Out": flat, "XShape": unique_name.generate(
            f"{var.name}.XShape")}, {"shape": [-1]})
        yield "assign_value", {}, {"Out": index}, {"shape": [len(ones)], "dtype": "int64",
                                                   "int64_values": ones}
        yield "assign_value", {}, {"Out": value}, {"shape": [len(ones)], "dtype": "float32",
                                                   "fp32_values": [1.0] * len(ones)}
        yield ("scatter", {"X": flat, "Ids": index, "Updates": value}, {"Out": scattered},
               {"overwrite": True})
        yield ("reshape2", {"X": scattered}, {"Out": var, "XShape": unique_name.generate(
            f"{var.name}.XShape")}, {"shape": shape})


class Bilinear(Initializer):
    """The weights of a transposed convolution that upsamples bilinearly (``assign_value``):
    a filter [C, 1, K, K] with K = 2 * factor - factor % 2."""

    def __init__(self, name: str | None = None) -> None:
        pass

    def op(self, shape: Any, dtype: Any) -> tuple[str, dict[str, Any]]:
        shape = list(shape)
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the parameter must be 4-D, got shape {shape}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: shape[2] and shape[3] must be equal, got {shape}")
        width, height = shape[3], shape[2]
        factor = math.ceil(width / 2.0)
        centre = (2 * factor - 1 - factor % 2) / (2.0 * factor)
        values = []
        for i in range(math.prod(shape)):
            x = i % width
            y = (i / width) % height          # a true division, as PaddlePaddle 2.6 computes it
            values.append((1 - abs(x / factor - centre)) * (1 - abs(y / factor - centre)))
        kind = numpy.dtype(str(dtype)).name
        if kind not in ("float32", "float64"):
            raise TypeError(f"Bilinear: the parameter must be float32 or float64, got {kind}")
        return "assign_value", {"shape": shape, "dtype": kind,
                                _VALUE_ATTRS[kind]: numpy.asarray(values, kind).tolist()}


def set_global_initializer(weight_init: Initializer | None, bias_init: Initializer | None = None
                           ) -> None:
    """Initialize every parameter made from now on whose ParamAttr names no initializer with
    ``weight_init`` (a bias with ``bias_init``), instead of its layer's default; None for
    both goes back to the layers' defaults (as in PaddlePaddle, a process-wide setting)."""
    for kind, init in (("weight", weight_init), ("bias", bias_init)):
        if init is not None and not isinstance(init, base.Initializer):
            raise TypeError(f"set_global_initializer: the {kind} initializer must be a "
                            f"paddle.nn.initializer, got {init!r}")
    base.GLOBAL_INITIALIZERS.update(weight=weight_init, bias=bias_init)
