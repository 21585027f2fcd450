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

import math

import numpy

from paddle_nb.framework import initializer as base

__all__ = ["Constant", "Normal", "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform",
           "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal", "Dirac", "calculate_gain",
           "set_global_initializer", "Initializer"]

Initializer = base.Initializer


def compute_fans(shape):
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


def calculate_gain(nonlinearity, param=None):
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

    def op(self, shape, dtype):
        op_type, attrs = super().op(shape, dtype)
        attrs["str_value"] = str(self.value)
        return op_type, attrs


class Normal(base.Normal):
    """``gaussian_random``: N(mean, std**2)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(mean, std)


class TruncatedNormal(base.Normal):
    """``truncated_gaussian_random``: N(mean, std**2) cut to two standard deviations."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(mean, std)

    def op(self, shape, dtype):
        return "truncated_gaussian_random", {"shape": list(shape), "mean": self.mean,
                                             "std": self.std, "seed": self.seed,
                                             "dtype": str(dtype)}


class Uniform(base.Uniform):
    """``uniform_random`` on [low, high)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        super().__init__(low, high)


class XavierUniform(Initializer):
    """Glorot: uniform on ``+-sqrt(6 / (fan_in + fan_out))``; the fans can be given."""

    def __init__(self, fan_in=None, fan_out=None, name=None):
        self.fan_in, self.fan_out, self.seed = fan_in, fan_out, 0

    def fans(self, shape):
        fan_in, fan_out = compute_fans(shape)
        return (fan_in if self.fan_in is None else self.fan_in,
                fan_out if self.fan_out is None else self.fan_out)

    def op(self, shape, dtype):
        limit = math.sqrt(6.0 / sum(self.fans(shape)))
        return base.Uniform(-limit, limit, self.seed).op(shape, dtype)


class XavierNormal(XavierUniform):
    """Glorot: N(0, 2 / (fan_in + fan_out))."""

    def op(self, shape, dtype):
        std = math.sqrt(2.0 / sum(self.fans(shape)))
        return base.Normal(0.0, std, self.seed).op(shape, dtype)


class KaimingUniform(Initializer):
    """He: uniform on ``+-gain * sqrt(3 / fan_in)``, ``gain = calculate_gain(nonlinearity,
    negative_slope)``."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, negative_slope, nonlinearity
        self.seed = 0

    def scale(self, shape):
        """gain / sqrt(fan_in): the standard deviation the weights get."""
        fan_in = compute_fans(shape)[0] if self.fan_in is None else self.fan_in
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan_in)

    def op(self, shape, dtype):
        limit = math.sqrt(3.0) * self.scale(shape)
        return base.Uniform(-limit, limit, self.seed).op(shape, dtype)


class KaimingNormal(KaimingUniform):
    """He: N(0, (gain / sqrt(fan_in))**2)."""

    def op(self, shape, dtype):
        return base.Normal(0.0, self.scale(shape), self.seed).op(shape, dtype)


_VALUE_ATTRS = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
                "int64": "int64_values", "bool": "bool_values"}


class Assign(Initializer):
    """The given values (a NumPy array, a list, a number), by ``assign_value``."""

    def __init__(self, value, name=None):
        self.value = numpy.asarray(value)

    def op(self, shape, dtype):
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


class _NotAvailable(Initializer):
    """An initializer whose startup program paddle_nb does not build."""

    instead = ""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"paddle.nn.initializer.{type(self).__name__} is not "
                                  f"available in paddle_nb; {self.instead}")


class Orthogonal(_NotAvailable):
    """Not available: its startup program needs ``qr`` and ``diag_v2``."""

    instead = "use Assign(an orthogonal NumPy matrix, e.g. from numpy.linalg.qr) instead"


class Dirac(_NotAvailable):
    """Not available: its startup program needs ``scatter`` into a reshaped parameter."""

    instead = "use Assign(a NumPy array with the identity kernels) instead"


def set_global_initializer(weight_init, bias_init=None):
    """Not available: paddle_nb's layers take their initializers from ParamAttr."""
    raise NotImplementedError("paddle.nn.initializer.set_global_initializer is not available in "
                              "paddle_nb; pass weight_attr=ParamAttr(initializer=...) to each "
                              "layer instead")
