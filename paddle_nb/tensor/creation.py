"""Making tensors at paddle's top level: full, zeros, ones, empty, the ``*_like`` forms,
arange, linspace, eye, meshgrid, diag, diagflat, tril, triu, to_tensor, assign, clone.

Each builds what PaddlePaddle 2.6 builds in static mode: constants become a
``fill_constant`` (a shape and one value) or an ``assign_value`` (every value written into
the program), ``arange`` and ``linspace`` read their bounds from one-value ``fill_constant``
tensors, and a ``*_like`` function reads its shape from X at run time.
"""

from __future__ import annotations

import math

import numpy

from paddle_nb.framework.variable import as_tensor
from paddle_nb.core.dtypes import convert_dtype, to_var_type
from paddle_nb.layers.helper import layer_helper
from paddle_nb.ops.creation import fill_value_attrs
from paddle_nb.tensor.naming import (
    append, append_many, append_named, check_var, dtype_of, generated_name, host_dtype_of, is_var,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["full", "zeros", "ones", "empty", "full_like", "zeros_like", "ones_like",
           "empty_like", "arange", "linspace", "eye", "meshgrid", "diag", "diagflat", "tril",
           "triu", "to_tensor", "assign", "clone", "tril_indices", "triu_indices", "logspace"]


def _shape_inputs(shape: Any) -> Any:
    """(attribute shape, inputs) for a shape of ints, of ints and one-value tensors, or a
    1-D tensor, as PaddlePaddle writes them (ShapeTensor / ShapeTensorList)."""
    if is_var(shape):
        return [], {"ShapeTensor": shape}
    shape = list(shape)
    if any(is_var(d) for d in shape):
        return [-1 if is_var(d) else int(d) for d in shape], {
            "ShapeTensorList": [d if is_var(d) else full([1], int(d), "int32") for d in shape]}
    return [int(d) for d in shape], {}


def full(shape: Sequence[int], fill_value: float, dtype: DTypeLike | None = None,
         name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with ``fill_value`` (float32 unless ``dtype`` says)."""
    dtype = dtype_of(dtype)
    return _fill_constant(shape, dtype, fill_value, force_cpu=False)


def _fill_constant(shape: Any, dtype: DTypeLike, value: float | Tensor, force_cpu: bool
                   ) -> Tensor:
    generated_name("fill_constant")     # PaddlePaddle 2.6 spends one name before its helper's
    if is_var(value):
        raise TypeError("paddle.full: paddle_nb takes a Python number as fill_value, got the "
                        f"Variable '{value.name}'; use paddle.full_like or paddle.expand")
    attr_shape, inputs = _shape_inputs(shape)
    # the exact text beside the float32 value (2**62 + 1 is not a float)
    attrs = {"shape": attr_shape, "dtype": dtype, **fill_value_attrs(dtype, value),
             "force_cpu": force_cpu}
    out = append("fill_constant", "fill_constant", inputs, attrs)
    out.stop_gradient = True            # a constant: no gradient flows into it (as in 2.6)
    return out


def zeros(shape: Sequence[int], dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with 0."""
    return full(shape, 0.0, dtype, name)


def ones(shape: Sequence[int], dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with 1."""
    return full(shape, 1.0, dtype, name)


def empty(shape: Sequence[int], dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` whose values are not set (paddle_nb's ``empty`` gives zeros)."""
    attr_shape, inputs = _shape_inputs(shape)
    return append("empty", "empty", inputs, {"shape": attr_shape, "dtype": dtype_of(dtype)})


def full_like(x: Tensor, fill_value: float, dtype: DTypeLike | None = None, name: str | None = None
             ) -> Tensor:
    """A tensor shaped like ``x`` filled with ``fill_value`` (x's dtype unless ``dtype`` says)."""
    check_var(x, "x", "full_like")
    dtype = x.dtype if dtype is None else convert_dtype(dtype)
    out = append("full_like", "fill_any_like", {"X": x},
                 {"value": float(fill_value), "dtype": to_var_type(dtype)}, name=name)
    out.stop_gradient = True
    return out


def zeros_like(x: Tensor, dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """Zeros shaped like ``x``."""
    return full_like(x, 0.0, dtype, name)


def ones_like(x: Tensor, dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """Ones shaped like ``x``."""
    return full_like(x, 1.0, dtype, name)


def empty_like(x: Tensor, dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """A tensor shaped like ``x`` whose values are not set; the shape is read at run time."""
    check_var(x, "x", "empty_like")
    dtype = x.dtype if dtype is None else convert_dtype(dtype)
    shape = append("shape", "shape", {"Input": x})
    return append("empty_like", "empty", {"ShapeTensor": shape}, {"shape": [], "dtype": dtype})


def _arange_dtype(values: Any) -> Any:
    for v in values:
        integral = v.dtype.kind in "iu" if is_var(v) else isinstance(v, (int, numpy.integer))
        if not integral:
            return numpy.dtype("float32")
    return numpy.dtype("int64")


def one_value(v: Tensor | float, dtype: DTypeLike) -> Tensor:
    """``v`` as a one-value tensor of ``dtype``: a Variable (cast if needed), or a
    ``fill_constant`` of shape [1] on the CPU (how 2.6 writes a bound or a count)."""
    if is_var(v):
        return v if v.dtype == dtype else cast_to(v, dtype)
    return _fill_constant([1], dtype, v, force_cpu=True)


def cast_to(x: Tensor, dtype: DTypeLike) -> Tensor:
    return append("cast", "cast", {"X": x}, {"in_dtype": x.dtype, "out_dtype": dtype})


def arange(start: Tensor | float = 0, end: float | None = None, step: float = 1,
           dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """``start, start + step, ...`` up to ``end`` (excluded); int64 when all are ints."""
    if end is None:
        start, end = 0, start
    dtype = _arange_dtype((start, end, step)) if dtype is None else convert_dtype(dtype)
    ins = {"Start": one_value(start, dtype), "End": one_value(end, dtype),
           "Step": one_value(step, dtype)}
    out = append("range", "range", ins, name=name)
    if not any(is_var(v) for v in (start, end, step)):
        out.desc.type.lod_tensor.tensor.dims[:] = [max(0, math.ceil((end - start) / step))]
    return out


def linspace(start: float, stop: float, num: int, dtype: DTypeLike | None = None,
             name: str | None = None) -> Tensor:
    """``num`` evenly spaced numbers from ``start`` to ``stop`` (both included)."""
    dtype = dtype_of(dtype)
    ins = {"Start": one_value(start, numpy.dtype("float32") if not is_var(start) else start.dtype),
           "Stop": one_value(stop, numpy.dtype("float32") if not is_var(stop) else stop.dtype),
           "Num": one_value(num, numpy.dtype("int32"))}
    out = append("linspace", "linspace", ins, {"dtype": dtype}, name=name)
    if not is_var(num):
        out.desc.type.lod_tensor.tensor.dims[:] = [int(num)]
    return out


def logspace(start: float, stop: float, num: int, base: float = 10.0,
             dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """``base`` to the powers of ``num`` evenly spaced numbers from ``start`` to ``stop``."""
    dtype = dtype_of(dtype)
    f32 = numpy.dtype("float32")
    ins = {"Start": one_value(start, f32), "Stop": one_value(stop, f32),
           "Num": one_value(num, numpy.dtype("int32")), "Base": one_value(base, f32)}
    out = append("logspace", "logspace", ins, {"dtype": dtype}, name=name)
    if not is_var(num):
        out.desc.type.lod_tensor.tensor.dims[:] = [int(num)]
    return out


def tril_indices(row: int, col: int, offset: int = 0, dtype: DTypeLike = "int64") -> Tensor:
    """The (row, column) positions of the lower triangle of a ``row x col`` matrix."""
    return append("tril_indices", "tril_indices", {}, {"rows": int(row), "cols": int(col),
                                                       "offset": int(offset),
                                                       "dtype": convert_dtype(dtype)}, slot="out")


def triu_indices(row: int, col: int | None = None, offset: int = 0, dtype: DTypeLike = "int64"
                ) -> Tensor:
    """The (row, column) positions of the upper triangle of a ``row x col`` matrix."""
    col = row if col is None else col
    return append("triu_indices", "triu_indices", {}, {"row": int(row), "col": int(col),
                                                       "offset": int(offset),
                                                       "dtype": convert_dtype(dtype)}, slot="out")


def eye(num_rows: int, num_columns: int | None = None, dtype: DTypeLike | None = None,
        name: str | None = None) -> Tensor:
    """A ``num_rows x num_columns`` matrix with ones on its main diagonal."""
    num_columns = num_rows if num_columns is None else num_columns
    return append("eye", "eye", {}, {"num_rows": int(num_rows), "num_columns": int(num_columns),
                                     "dtype": dtype_of(dtype)}, name=name)


def meshgrid(*args: Tensor, **kwargs: Any) -> list[Tensor]:
    """Grids of 1-D tensors: the i-th output repeats ``args[i]`` along every other axis."""
    tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    return append_many("meshgrid", "meshgrid", {"X": tensors}, {}, [("Out", len(tensors))],
                       name=kwargs.get("name"))[0]


def diag(x: Tensor, offset: int = 0, padding_value: int = 0, name: str | None = None) -> Tensor:
    """A matrix with ``x`` on a diagonal (x 1-D), or ``x``'s diagonal (x 2-D)."""
    return append("diag_v2", "diag_v2", {"X": x},
                  {"offset": int(offset), "padding_value": float(padding_value)}, name=name)


def diagflat(x: Tensor, offset: int = 0, name: str | None = None) -> Tensor:
    """A matrix with ``x``, flattened, on a diagonal."""
    helper = layer_helper("diagflat", name)
    flat, flat_shape, out = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    source = x
    if len(x.shape) > 1:
        helper.append("flatten_contiguous_range", {"X": x}, {"Out": flat, "XShape": flat_shape},
                      {"start_axis": 0, "stop_axis": -1})
        source = as_tensor(helper.block.var(flat))
    helper.append("diag_v2", {"X": source}, {"Out": out},
                  {"offset": int(offset), "padding_value": 0.0})
    return as_tensor(helper.block.var(out))


def tril(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    """``x`` with the elements above its ``diagonal``-th diagonal set to 0."""
    return append_named(name or generated_name("tril"), "tril_triu", {"X": x},
                        {"diagonal": int(diagonal), "lower": True})


def triu(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    """``x`` with the elements below its ``diagonal``-th diagonal set to 0."""
    return append_named(name or generated_name("triu"), "tril_triu", {"X": x},
                        {"diagonal": int(diagonal), "lower": False})


_VALUE_ATTR = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
               "int64": "int64_values", "bool": "bool_values"}


def _assign_value(array: Any, dtype: DTypeLike, name: str | None = None) -> Tensor:
    array = numpy.asarray(array).astype(convert_dtype(dtype))
    slot = _VALUE_ATTR.get(array.dtype.name)
    if slot is None:
        raise TypeError(f"paddle.assign: paddle_nb writes constants of dtype float32, float64, "
                        f"int32, int64 or bool into a program, got {array.dtype}")
    values = array.reshape(-1).tolist()
    attrs = {"shape": list(array.shape), "dtype": array.dtype,
             slot: [int(v) for v in values] if slot == "bool_values" else values}
    return append("assign", "assign_value", {}, attrs, name=name)


def to_tensor(data: Tensor | float | numpy.ndarray | Sequence[Any],
              dtype: DTypeLike | None = None, place: Any = None, stop_gradient: bool = True
             ) -> Tensor:
    """A constant tensor holding ``data`` (its values are written into the program)."""
    if is_var(data):
        return data if dtype is None else cast_to(data, convert_dtype(dtype))
    dtype = host_dtype_of(data) if dtype is None else convert_dtype(dtype)
    out = _assign_value(data, dtype)
    out.stop_gradient = stop_gradient
    return out


def assign(x: Tensor | numpy.ndarray, output: Tensor | None = None) -> Tensor:
    """A copy of ``x`` (a Variable, or constants written into the program)."""
    if is_var(x):
        if output is not None:
            append_named(output.name, "assign", {"X": x})
            return output
        return append("assign", "assign", {"X": x})
    array = numpy.asarray(x)
    dtype = numpy.dtype("float32") if array.dtype == numpy.float64 else array.dtype
    out = _assign_value(array, dtype)
    if output is not None:
        append_named(output.name, "assign", {"X": out})
        return output
    return out


def clone(x: Tensor, name: str | None = None) -> Tensor:
    """A copy of ``x`` named ``<x>_clone_N``; gradients flow through it."""
    return append_named(generated_name(f"{x.name}_clone"), "assign", {"X": x})
