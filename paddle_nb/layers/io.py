"""Data layers: the variables a program is fed.

``data`` declares a variable of the global block whose value comes from the
``feed`` of ``Executor.run``; its first dimension is the batch (-1) unless
``append_batch_size`` is False. Seed 002's ``data_layer`` is the same thing.
"""

from typing import Any

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.variable import Variable, whole_dims

__all__ = ["data", "data_layer"]


def data(name, shape, dtype="float32", lod_level=0, append_batch_size=True, stop_gradient=True):
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
    return block.create_var(name=name, shape=shape, dtype=convert_dtype(dtype),
                            lod_level=lod_level, stop_gradient=stop_gradient)


def data_layer(name: str, type_or_shape: Any, dtype: Any = "float32",
               lod_level: int = 0) -> Variable:
    """Seed 002's data layer: ``type_or_shape`` is the shape of one instance."""
    shape = getattr(type_or_shape, "dims", lambda: type_or_shape)()
    dtype = getattr(type_or_shape, "dtype", dtype)
    return data(name, list(shape), dtype=dtype, lod_level=lod_level)
