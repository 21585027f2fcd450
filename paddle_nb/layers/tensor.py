"""Layers that make, reshape, join, cut, convert or compare tensors."""

from __future__ import annotations

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.layers.helper import LayerHelper
from paddle_nb.ops.creation import fill_value_attrs
from paddle_nb.tensor import manipulation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["fill_constant", "concat", "split", "slice", "stack", "reshape", "transpose",
           "assign", "cast", "argmax", "less_than", "less_equal", "greater_than", "equal",
           "not_equal", "logical_and", "logical_or", "logical_not", "increment", "zeros", "ones"]


def fill_constant(shape: Sequence[int], dtype: DTypeLike, value: float, force_cpu: bool = False,
                  out: Tensor | None = None) -> Tensor:
    """A tensor of ``shape`` filled with ``value``, exactly: ``str_value`` holds its text
    (``value``, a float32 attribute, cannot hold 123456789 or 0.1 in float64)."""
    helper = LayerHelper("fill_constant")
    if isinstance(value, (bool, numpy.bool_)):     # True / False fill a bool tensor
        value = float(value)
    dtype = convert_dtype(dtype)
    attrs = {"shape": list(shape), "dtype": dtype, **fill_value_attrs(dtype, value),
             "force_cpu": force_cpu}
    if out is not None:
        helper.append("fill_constant", outputs={"Out": out}, attrs=attrs)
        return out
    return helper.out("fill_constant", {}, attrs)


def zeros(shape: Sequence[int], dtype: DTypeLike = "float32") -> Tensor:
    return fill_constant(shape, dtype, 0.0)


def ones(shape: Sequence[int], dtype: DTypeLike = "float32") -> Tensor:
    return fill_constant(shape, dtype, 1.0)


# concat, split, stack and cast build through the 2.x functions (paddle_nb.tensor), with
# this layer's helper: names from the program's counter, as Fluid 1.8 names them

def concat(input: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    """Tensors joined along ``axis``."""
    return manipulation.concat(input, axis, helper=LayerHelper("concat", name))


def split(input: Tensor, num_or_sections: int | Sequence[int], dim: int = -1,
          name: str | None = None) -> list[Tensor]:
    """``input`` cut along ``dim`` into ``num`` equal parts or parts of the given sizes."""
    return manipulation.split(input, num_or_sections, dim, helper=LayerHelper("split", name))


def slice(input: Tensor, axes: Sequence[int], starts: Sequence[int], ends: Sequence[int]) -> Tensor:
    """``input[starts:ends]`` along each of ``axes``."""
    return LayerHelper("slice").out("slice", {"Input": input},
                                    {"axes": list(axes), "starts": list(starts),
                                     "ends": list(ends)})


def stack(x: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    """Same-shape tensors stacked along a new dimension ``axis``."""
    return manipulation.stack(x, axis, helper=LayerHelper("stack", name))


def reshape(x: Tensor, shape: Sequence[int], actual_shape: Any = None, act: str | None = None,
            inplace: bool = False, name: str | None = None) -> Tensor:
    """``x`` with a new shape (0 copies a dimension, one -1 is inferred)."""
    helper = LayerHelper("reshape2", name)
    out = helper.out("reshape2", {"X": x}, {"shape": [int(d) for d in shape]},
                     extra_outputs={"XShape": helper.tmp_name()})
    return helper.act(out, act)


def transpose(x: Tensor, perm: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` with its dimensions permuted."""
    helper = LayerHelper("transpose2", name)
    return helper.out("transpose2", {"X": x}, {"axis": list(perm)},
                      extra_outputs={"XShape": helper.tmp_name()})


def assign(input: Tensor, output: Tensor | None = None) -> Tensor:
    """A copy of ``input`` (into ``output`` when given)."""
    helper = LayerHelper("assign")
    if output is not None:
        helper.append("assign", {"X": input}, {"Out": output})
        return output
    return helper.out("assign", {"X": input})


def cast(x: Tensor, dtype: DTypeLike) -> Tensor:
    """``x`` converted to ``dtype``."""
    return manipulation.cast(x, dtype, helper=LayerHelper("cast"))


def argmax(x: Tensor, axis: int = 0) -> Tensor:
    """Indices (int64) of the largest values along ``axis``."""
    return LayerHelper("arg_max").out("arg_max", {"X": x}, {"axis": axis})


def _compare(op_type: str, x: Tensor, y: Tensor, cond: Tensor | None = None) -> Tensor:
    helper = LayerHelper(op_type)
    if cond is not None:
        helper.append(op_type, {"X": x, "Y": y}, {"Out": cond})
        return cond
    return helper.out(op_type, {"X": x, "Y": y})


def less_than(x: Tensor, y: Tensor, force_cpu: Any = None, cond: Tensor | None = None) -> Tensor:
    """x < y, elementwise (bool)."""
    return _compare("less_than", x, y, cond)


def less_equal(x: Tensor, y: Tensor, cond: Any = None) -> Tensor:
    return _compare("less_equal", x, y, cond)


def greater_than(x: Tensor, y: Tensor, cond: Any = None) -> Tensor:
    return _compare("greater_than", x, y, cond)


def equal(x: Tensor, y: Tensor, cond: Any = None) -> Tensor:
    """x == y, elementwise (bool)."""
    return _compare("equal", x, y, cond)


def not_equal(x: Tensor, y: Tensor, cond: Any = None) -> Tensor:
    return _compare("not_equal", x, y, cond)


def logical_and(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    return _compare("logical_and", x, y, out)


def logical_or(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    return _compare("logical_or", x, y, out)


def logical_not(x: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    helper = LayerHelper("logical_not", name)
    if out is not None:
        helper.append("logical_not", {"X": x}, {"Out": out})
        return out
    return helper.out("logical_not", {"X": x})


def increment(x: Tensor, value: float = 1.0, in_place: bool = True) -> Tensor:
    """x + value; written back into ``x`` when ``in_place`` (a loop counter)."""
    helper = LayerHelper("increment")
    if in_place:
        helper.append("increment", {"X": x}, {"Out": x}, {"step": value})
        return x
    return helper.out("increment", {"X": x}, {"step": value})
