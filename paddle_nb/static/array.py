"""Tensor arrays in PaddlePaddle 2.x's names: create_array, array_write, array_read,
array_length (``paddle.tensor.array_*``).

A tensor array (a LOD_TENSOR_ARRAY variable) collects one tensor per loop step:

>>> import numpy as np, paddle_nb as pd
>>> from paddle_nb import static
>>> main = pd.Program()
>>> with static.program_guard(main, pd.Program()):
...     x = static.data("x", [2])
...     i = pd.layers.fill_constant([1], "int64", 0)
...     arr = create_array("float32")
...     _ = array_write(x, i, arr)
...     n = array_length(arr)
>>> static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[n])
[array([1])]
"""

from __future__ import annotations

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework.variable import Variable, VarType, as_tensor, tensor_dtype
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["create_array", "array_write", "array_read", "array_length", "tensor_array_to_tensor"]


def create_array(dtype: DTypeLike, initialized_list: Sequence[Tensor] | None = None) -> Tensor:
    """A new, empty tensor array of ``dtype`` elements in the current block, named
    ``array_N.out`` (no op: the first ``array_write`` fills it); ``initialized_list``'s
    Variables are written to indices 0, 1, ... ."""
    helper = layer_helper("array")
    array = as_tensor(helper.block.create_var(name=f"{helper.name}.out",
                                              dtype=convert_dtype(dtype),
                                              type=VarType.LOD_TENSOR_ARRAY))
    for k, value in enumerate(initialized_list or []):
        if not isinstance(value, Variable):
            raise TypeError(f"create_array: initialized_list holds Variables, got {value!r}")
        index = layer_helper("fill_constant").out(
            "fill_constant", {}, {"shape": [1], "dtype": "int64", "value": float(k)})
        array_write(value, index, array)
    return array


def array_write(x: Tensor, i: Tensor, array: Tensor | None = None) -> Tensor:
    """Write ``x`` at index ``i`` (an int64 [1] Variable) of ``array`` (a new one when None),
    growing it; returns the array (``write_to_array``)."""
    _check_index(i, "array_write")
    if array is None:
        array = create_array(x.dtype)
    elif array.type != VarType.LOD_TENSOR_ARRAY:
        raise TypeError(f"array_write: '{array.name}' is not a tensor array (make one with "
                        "create_array)")
    layer_helper("array_write").append("write_to_array", {"X": x, "I": i}, {"Out": array})
    return array


def array_read(array: Tensor, i: Tensor) -> Tensor:
    """Element ``i`` of ``array`` (``read_from_array``), named ``array_read_N.tmp_0``."""
    _check_index(i, "array_read")
    return layer_helper("array_read").out("read_from_array", {"X": array, "I": i})


def array_length(array: Tensor) -> Tensor:
    """The number of elements of ``array``, an int64 [1] (``lod_array_length``)."""
    out = layer_helper("array_length").out("lod_array_length", {"X": array})
    out.stop_gradient = True
    return out


def tensor_array_to_tensor(input: Tensor, axis: int = 1, use_stack: bool = False,
                           name: str | None = None) -> tuple[Tensor, ...]:
    """``(out, out_index)``: the elements stacked (``use_stack``) or concatenated along
    ``axis``, and each element's size along it (int32)."""
    helper = layer_helper("tensor_array_to_tensor", name)
    out, index = helper.tmp_name(), helper.tmp_name()
    helper.append("tensor_array_to_tensor", {"X": input}, {"Out": out, "OutIndex": index},
                  {"axis": axis, "use_stack": use_stack})
    return as_tensor(helper.block.var(out)), as_tensor(helper.block.var(index))


def _check_index(i: Tensor, who: str) -> None:
    if not isinstance(i, Variable) or tensor_dtype(i).kind not in "iu":
        raise TypeError(f"{who}: the index must be an int64 Variable of one element (for "
                        f"example paddle.full([1], 0, 'int64')), got {i!r}")
