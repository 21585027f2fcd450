"""PaddlePaddle 2.x's top-level mode, device, seed and dtype functions, for a static-only core.

PaddlePaddle 2.x starts in dynamic (eager) mode and a static script first calls
``paddle.enable_static()``. paddle_nb has only static mode, so ``enable_static`` does
nothing, ``in_dynamic_mode()`` is False, and what needs eager mode (``disable_static``,
``grad``) raises a clear error. ``seed(s)`` seeds what PaddlePaddle's global generator
seeds in static mode: the random ops whose ``seed`` attribute is 0 (unseeded
initializers, dropout) draw from it, in each Executor made afterwards
(``paddle_nb.static.Executor``); the programs' ``random_seed`` stays as it is, as in 2.6.

>>> enable_static(); in_dynamic_mode()
False
>>> float32, get_default_dtype()
(dtype('float32'), 'float32')
"""

from __future__ import annotations

import builtins          # this module defines paddle.bool (a dtype): the type is builtins.bool
import contextlib
import copy
import functools
from typing import Any, Literal, NoReturn

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.core.place import CPUPlace, GPUPlace, Place, gpu_available
from paddle_nb.errors import DynamicModeError
from paddle_nb.layers.helper import ParamAttr, layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.initializer import Constant
    from paddle_nb.framework.variable import Tensor

__all__ = [
    "enable_static", "disable_static", "in_dynamic_mode", "seed",
    "set_device", "get_device", "CUDAPlace", "CUDAPinnedPlace", "is_compiled_with_cuda",
    "set_default_dtype", "get_default_dtype", "no_grad", "grad", "create_parameter",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
]

# PaddlePaddle's dtype names, as NumPy dtypes (paddle_nb takes a dtype in any form;
# bfloat16 is left out: NumPy has no stand-in for it).
float16, float32, float64 = numpy.dtype("float16"), numpy.dtype("float32"), numpy.dtype("float64")
int8, int16, int32, int64 = (numpy.dtype(n) for n in ("int8", "int16", "int32", "int64"))
uint8, bool = numpy.dtype("uint8"), numpy.dtype("bool")     # noqa: A001 (paddle.bool)


class _Settings:
    """The process-wide settings PaddlePaddle keeps as globals: seed, device, default dtype."""

    def __init__(self) -> None:
        self.seed: int | None = None
        self.device = "cpu"
        self.default_dtype = "float32"


SETTINGS = _Settings()


def enable_static() -> None:
    """Does nothing: paddle_nb always builds static programs (PaddlePaddle 2.x's
    ``paddle.enable_static()`` switches its default mode to this one)."""


def disable_static(place: Any = None) -> NoReturn:
    """paddle_nb has no dynamic (eager) mode: a clear error."""
    raise DynamicModeError("paddle.disable_static(): paddle_nb runs static programs only; "
                           "build a Program and run it with paddle.static.Executor")


def in_dynamic_mode() -> builtins.bool:
    """False: paddle_nb is always in static mode."""
    return False


def seed(s: int) -> int:
    """Seed the generator that unseeded random ops draw from (PaddlePaddle's ``paddle.seed``).

    Executors made afterwards (``paddle_nb.static.Executor``) start from ``s``, so the same
    script gives the same parameters and dropout masks on every run. As in PaddlePaddle 2.6,
    the programs' ``random_seed`` is not changed. Returns ``s``.
    """
    if isinstance(s, type(True)) or not isinstance(s, (int, numpy.integer)):
        raise TypeError(f"paddle.seed: expected an int, got {s!r}")
    SETTINGS.seed = int(s)
    return s


def get_seed() -> int | None:
    """The seed given to ``seed()`` last, or None."""
    return SETTINGS.seed


def set_device(device: str) -> Place:
    """Choose where Executors made without a place run: ``"cpu"`` or ``"gpu"`` / ``"gpu:N"``
    (a GPU needs CuPy and a CUDA device). Returns the Place."""
    name = str(device).lower()
    if name == "cpu":
        SETTINGS.device = "cpu"
        return CPUPlace()
    if name == "gpu" or name.startswith("gpu:"):
        index = int(name.partition(":")[2] or 0)
        place = GPUPlace(index)       # raises PlaceUnavailableError without a GPU
        SETTINGS.device = f"gpu:{index}"
        return place
    raise ValueError(f"paddle.set_device: expected 'cpu', 'gpu' or 'gpu:N', got {device!r}")


def get_device() -> str:
    """``"cpu"`` or ``"gpu:N"``: the device ``set_device`` chose (``"cpu"`` at start)."""
    return SETTINGS.device


def device_place() -> Place:
    """The Place of ``get_device()``: where an Executor made without a place runs."""
    name = SETTINGS.device
    return CPUPlace() if name == "cpu" else GPUPlace(int(name.partition(":")[2]))


def CUDAPlace(device_id: int = 0) -> GPUPlace:        # noqa: N802 (PaddlePaddle's name)
    """PaddlePaddle's ``paddle.CUDAPlace(id)``: paddle_nb's GPUPlace."""
    return GPUPlace(device_id)


def CUDAPinnedPlace() -> CPUPlace:             # noqa: N802
    """Page-locked host memory in PaddlePaddle; here host memory, the CPUPlace."""
    return CPUPlace()


def is_compiled_with_cuda() -> builtins.bool:
    """True when paddle_nb can run on a GPU here (CuPy and a CUDA device)."""
    return gpu_available()


def set_default_dtype(d: Any) -> None:
    """The dtype ``create_parameter`` and the 2.x layers use when none is given:
    float16, float32 or float64, as PaddlePaddle allows."""
    dtype = convert_dtype(d)
    if dtype.kind != "f":
        raise TypeError(f"paddle.set_default_dtype: expected float16, float32 or float64, "
                        f"got {d!r}")
    SETTINGS.default_dtype = dtype.name


def get_default_dtype() -> str:
    """The default float dtype's name (``"float32"`` at start)."""
    return SETTINGS.default_dtype


class no_grad(contextlib.ContextDecorator):    # noqa: N801 (PaddlePaddle's name)
    """Does nothing in static mode, as in PaddlePaddle: a static program computes gradients
    only where ``append_backward`` or an optimizer adds grad ops (mark a variable
    ``stop_gradient = True`` to keep gradients from it). Works as ``with paddle.no_grad():``
    and as a decorator, with or without parentheses."""

    # (a decorator without parentheses gives the function wrapped, not an instance)
    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:
        self = super().__new__(cls)
        if callable(func):
            return functools.wraps(func)(self(func))
        return self

    def __init__(self, func: Any = None) -> None:
        pass

    def __enter__(self) -> no_grad:
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        return False


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: Any = None,
         create_graph: Any = False, only_inputs: Any = True, allow_unused: Any = False,
         no_grad_vars: Any = None) -> NoReturn:
    """``paddle.grad`` computes gradients eagerly, which a static program cannot."""
    raise DynamicModeError("paddle.grad: needs dynamic mode; in a static program use "
                           "paddle.static.gradients(targets, inputs) (it appends grad ops)")


def create_parameter(shape: Sequence[int], dtype: DTypeLike, name: str | None = None,
                     attr: Any = None, is_bias: builtins.bool = False,
                     default_initializer: Constant | None = None) -> Tensor:
    """A parameter of the current main program (PaddlePaddle's ``paddle.create_parameter``):
    named ``create_parameter_N.w_0`` (``.b_0`` for a bias) unless ``name`` or ``attr`` names
    it; initialized by ``attr``'s initializer, else ``default_initializer``, else Xavier
    (zeros for a bias)."""
    param_attr = ParamAttr.of(attr) or ParamAttr()
    if name is not None and param_attr.name is None:
        param_attr = copy.copy(param_attr)
        param_attr.name = name
    # a named parameter takes no number from the generator, as in PaddlePaddle
    helper = layer_helper("create_parameter", name)
    return helper.param(param_attr, list(shape), convert_dtype(dtype), is_bias=is_bias,
                        default_initializer=default_initializer)
