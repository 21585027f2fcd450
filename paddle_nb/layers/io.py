"""Data layers: the variables a program is fed.

``data`` declares a variable of the global block whose value comes from the
``feed`` of ``Executor.run``; its first dimension is the batch (-1) unless
``append_batch_size`` is False. The ``data_layer`` of "Design Doc: Python API" is
the same thing.
"""

from __future__ import annotations

from typing import Any

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.errors import VarRedefinedError
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.variable import Variable, VarType, as_tensor, whole_dims
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["data", "data_layer"]


def data(name: str, shape: Sequence[int], dtype: DTypeLike = "float32", lod_level: int = 0,
         append_batch_size: bool = True, stop_gradient: bool = True) -> Tensor:
    """A variable fed at run time: shape ``[-1] + shape`` when ``append_batch_size``.

    >>> import paddle_nb as pd
    >>> with pd.program_guard(pd.Program()):
    ...     pd.layers.data("x", shape=[784])
    Variable(x: float32[-1, 784])
    """
    shape = whole_dims(shape, f"data '{name}'")
    if append_batch_size and -1 not in shape:
        shape = [-1] + shape
    block = default_main_program().global_block()
    existing = block.vars.get(name)
    if existing is not None:
        _check_same(existing, shape, convert_dtype(dtype), lod_level)
    return as_tensor(block.create_var(name=name, shape=shape, dtype=convert_dtype(dtype),
                                      lod_level=lod_level, stop_gradient=stop_gradient))


def _check_same(var: Any, shape: Any, dtype: DTypeLike, lod_level: Any) -> None:
    """A second ``data`` of a name must declare what the first did; PaddlePaddle 2.6 refuses
    another kind, shape, dtype, LoD level or persistability (its ``Variable`` does), where the
    block would otherwise hand back the old variable, and a feed of the new shape would fail.
    The same declaration again gives the same variable."""
    for what, old, new in (("type", VarType.Type.Name(var.type), "LOD_TENSOR"),
                           ("shape", list(var.shape or ()), list(shape)),
                           ("data type", var.dtype, dtype),
                           ("lod_level", var.lod_level, lod_level),
                           ("persistable", var.persistable, False)):
        if old != new:
            raise VarRedefinedError(
                f"data '{var.name}': variable '{var.name}' has been created before. The "
                f"previous {what} is {old}, the new {what} is {new}. They are not matched: "
                f"give the new data another name\n"
                f"  built at {format_site(callstack_strings())}")



def data_layer(name: str, type_or_shape: Any, dtype: Any = "float32",
               lod_level: int = 0) -> Variable:
    """The data layer of "Design Doc: Python API": ``type_or_shape`` is one instance's shape."""
    shape = getattr(type_or_shape, "dims", lambda: type_or_shape)()
    dtype = getattr(type_or_shape, "dtype", dtype)
    return data(name, list(shape), dtype=dtype, lod_level=lod_level)
