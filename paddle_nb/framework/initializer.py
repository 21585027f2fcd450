"""Initializers: each appends the op that gives a parameter its first value.

"Design Doc: Python API" prepends a parameter's initializer op (``uniform_random``, ``load``)
to the global block; paddle_nb puts it in the startup program when
``program_guard`` has one, or in the main program's preamble otherwise.

>>> Constant(0.1).op(shape=(2,), dtype="float64")
('fill_constant', {'shape': [2], 'value': 0.1, 'str_value': '0.1', 'dtype': 'float64'})
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.variable import Variable

# what an initializer appends: an op type and its attributes
OpAndAttrs = tuple[str, dict[str, Any]]

__all__ = ["Initializer", "GLOBAL_INITIALIZERS", "global_initializer", "Constant", "Uniform",
           "Normal", "Xavier", "Load", "default_initializer"]


class Initializer:
    """Base class: ``op(shape, dtype) -> (op_type, attrs)`` describes the op to append."""

    def op(self, shape: Any, dtype: Any) -> OpAndAttrs:
        raise NotImplementedError

    def append_to(self, block: Block, var: Variable, index: int) -> Operator:
        op_type, attrs = self.op(var.shape, var.dtype)
        if attrs.get("seed") == 0 and block.program.random_seed:
            # as PaddlePaddle's: an unseeded random initializer takes its program's random_seed
            # (``startup.random_seed = 90`` makes every run start from the same parameters)
            attrs["seed"] = block.program.random_seed
        return block.insert_op(index, op_type, outputs={"Out": var}, attrs=attrs)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    """Every element ``value``: ``str_value`` holds its text, so that a float64 parameter
    gets 0.1 itself, not the float32 attribute ``value`` (as PaddlePaddle 2.6 writes it)."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = float(value)

    def op(self, shape: Any, dtype: Any) -> OpAndAttrs:
        return "fill_constant", {"shape": list(shape), "value": self.value,
                                 "str_value": str(self.value), "dtype": str(dtype)}


class Uniform(Initializer):
    """Uniform on [low, high); ``seed`` 0 takes the program's ``random_seed``, and when that
    is 0 too, draws from the run's generator."""

    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0) -> None:
        self.low, self.high, self.seed = float(low), float(high), int(seed)

    def op(self, shape: Any, dtype: Any) -> OpAndAttrs:
        return "uniform_random", {"shape": list(shape), "min": self.low, "max": self.high,
                                  "seed": self.seed, "dtype": str(dtype)}


class Normal(Initializer):
    """Gaussian with ``mean`` and ``std``."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, seed: int = 0) -> None:
        self.mean, self.std, self.seed = float(mean), float(std), int(seed)

    def op(self, shape: Any, dtype: Any) -> OpAndAttrs:
        return "gaussian_random", {"shape": list(shape), "mean": self.mean, "std": self.std,
                                   "seed": self.seed, "dtype": str(dtype)}


class Xavier(Initializer):
    """Glorot's uniform (or normal) scaling by fan-in and fan-out."""

    def __init__(self, uniform: bool = True, fan_in: int | None = None,
                 fan_out: int | None = None, seed: int = 0) -> None:
        self.uniform, self.fan_in, self.fan_out, self.seed = uniform, fan_in, fan_out, int(seed)

    def op(self, shape: Any, dtype: Any) -> OpAndAttrs:
        shape = list(shape)
        receptive = int(math.prod(shape[2:])) if len(shape) > 2 else 1
        fan_in = self.fan_in or \
            (shape[1] * receptive if len(shape) > 1 and len(shape) > 2 else shape[0])
        fan_out = self.fan_out or (shape[0] * receptive if len(shape) > 2 else shape[-1])
        if self.uniform:
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            return Uniform(-limit, limit, self.seed).op(shape, dtype)
        return Normal(0.0, math.sqrt(2.0 / (fan_in + fan_out)), self.seed).op(shape, dtype)


class Load(Initializer):
    """The contents of a ``.npy`` file (read without pickle)."""

    def __init__(self, path: Any) -> None:
        self.path = str(path)

    def op(self, shape: Any, dtype: Any) -> OpAndAttrs:
        return "load", {"file_path": self.path}


# PaddlePaddle 2.x's global initializers (``paddle.nn.initializer.set_global_initializer``):
# what a layer's parameters get when their ParamAttr names none, before the layer's default.
# A process-wide setting in PaddlePaddle, so one here; None leaves the layers' defaults.
GLOBAL_INITIALIZERS: dict[str, Initializer | None] = {"weight": None, "bias": None}


def global_initializer(is_bias: bool) -> Initializer | None:
    """The global initializer for a weight (``is_bias`` False) or a bias, or None."""
    return GLOBAL_INITIALIZERS["bias" if is_bias else "weight"]


def default_initializer(shape: Any) -> Initializer:
    """Xavier for weights (rank >= 2), zeros for biases."""
    return Xavier() if len(shape) >= 2 else Constant(0.0)
