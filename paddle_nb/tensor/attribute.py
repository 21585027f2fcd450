"""Tensor attributes at paddle's top level: shape, numel, rank, is_tensor,
is_floating_point, is_integer, is_complex.

``shape`` and ``numel`` append ops (the values are known only when the program runs, as a
batch dimension may be -1); ``rank`` writes the rank, known at build time, as a constant;
the ``is_*`` questions are answered from the VarDesc at once.
"""

from __future__ import annotations

import numpy

from paddle_nb.framework.variable import Variable, register_tensor_methods
from paddle_nb.tensor.creation import assign
from paddle_nb.tensor.naming import append
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["shape", "numel", "rank", "is_tensor", "is_floating_point", "is_integer",
           "is_complex"]


def shape(input: Tensor) -> Tensor:
    """The shape of ``input`` as a 1-D int32 tensor, read when the program runs."""
    return append("shape", "shape", {"Input": input})


def numel(x: Tensor, name: str | None = None) -> Tensor:
    """The number of elements of ``x`` as a 0-D int64 tensor."""
    return append("numel", "size", {"Input": x}, name=name)


def rank(input: Tensor) -> Tensor:
    """The number of dims of ``input`` as a 0-D int32 constant."""
    return assign(numpy.array(len(input.shape), "int32"))


def is_tensor(x: Tensor | numpy.ndarray) -> bool:
    """Whether ``x`` is a tensor of the program (a Variable)."""
    return isinstance(x, Variable)


def is_floating_point(x: Tensor) -> bool:
    """Whether ``x``'s dtype is a floating-point one."""
    return x.dtype.kind == "f"


def is_integer(x: Tensor) -> bool:
    """Whether ``x``'s dtype is an integer one (bool is not)."""
    return x.dtype.kind in "iu"


def is_complex(x: Tensor) -> bool:
    """Whether ``x``'s dtype is complex (paddle_nb holds no complex tensors: False)."""
    return x.dtype.kind == "c"


register_tensor_methods({"numel": numel, "rank": rank, "is_floating_point": is_floating_point,
                         "is_integer": is_integer, "is_complex": is_complex})
