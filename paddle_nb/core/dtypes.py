"""Data types: NumPy dtypes on the Python side, ``VarType.Type`` in the descs.

Wherever paddle_nb takes a dtype, a string (``"float32"``), a NumPy type
(``numpy.float32``), a ``numpy.dtype`` or a ``VarType.Type`` number works;
:func:`convert_dtype` turns each into a ``numpy.dtype``.

>>> convert_dtype("float32"), to_var_type("int64"), from_var_type(5)
(dtype('float32'), 3, dtype('float32'))
"""

from typing import Any, TypeAlias

import numpy

from paddle_nb.proto import framework_pb2

__all__ = ["convert_dtype", "to_var_type", "from_var_type", "known_var_type", "dtype_name",
           "DTypeLike"]

# A dtype as PaddlePaddle's functions take it: a name ("float32"), a NumPy dtype or scalar type
# (numpy.float32), or a VarType number (VarType.FP32); ``convert_dtype`` reads each.
DTypeLike: TypeAlias = str | numpy.dtype[Any] | type | int

_VT = framework_pb2.VarType
_TO_VT = {
    numpy.dtype(numpy.bool_): _VT.BOOL,
    numpy.dtype(numpy.int16): _VT.INT16,
    numpy.dtype(numpy.int32): _VT.INT32,
    numpy.dtype(numpy.int64): _VT.INT64,
    numpy.dtype(numpy.float16): _VT.FP16,
    numpy.dtype(numpy.float32): _VT.FP32,
    numpy.dtype(numpy.float64): _VT.FP64,
    numpy.dtype(numpy.uint8): _VT.UINT8,
    numpy.dtype(numpy.int8): _VT.INT8,
    numpy.dtype(numpy.complex64): _VT.COMPLEX64,
    numpy.dtype(numpy.complex128): _VT.COMPLEX128,
}
_FROM_VT = {v: k for k, v in _TO_VT.items()}
_ALIASES = {"bool": "bool", "float": "float32", "double": "float64", "int": "int32",
            "long": "int64", "half": "float16", "fp32": "float32", "fp64": "float64",
            "fp16": "float16"}


def convert_dtype(dtype: Any) -> numpy.dtype[Any]:
    """Return the ``numpy.dtype`` for a string, NumPy type, dtype or VarType number."""
    if isinstance(dtype, numpy.dtype):
        result = dtype
    elif isinstance(dtype, int) and not isinstance(dtype, bool):
        return from_var_type(dtype)
    else:
        if isinstance(dtype, str):
            dtype = _ALIASES.get(dtype.lower(), dtype)
        try:
            result = numpy.dtype(dtype)
        except TypeError:
            raise TypeError(f"expected a dtype such as 'float32', got {dtype!r}") from None
    if result not in _TO_VT:
        raise TypeError(f"dtype {result} is not supported; expected one of "
                        f"{', '.join(sorted(str(d) for d in _TO_VT))}")
    return result


def to_var_type(dtype: Any) -> int:
    """The ``VarType.Type`` number of a dtype."""
    return _TO_VT[convert_dtype(dtype)]


def from_var_type(number: int) -> numpy.dtype[Any]:
    """The ``numpy.dtype`` of a ``VarType.Type`` number (a clear error when it has none)."""
    try:
        return _FROM_VT[number]
    except KeyError:
        try:
            name = _VT.Type.Name(number)
        except ValueError:
            name = "unknown"
        raise TypeError(f"VarType {number} ({name}) is not a tensor dtype paddle_nb "
                        "can hold in NumPy") from None


def known_var_type(number: int) -> numpy.dtype[Any] | None:
    """The ``numpy.dtype`` of a ``VarType.Type`` number, or None when paddle_nb has no NumPy
    form for it (BF16, RAW, a number from a newer PaddlePaddle): a question, not a check."""
    return _FROM_VT.get(number)


def dtype_name(dtype: Any) -> str:
    """A dtype's short name, for printing: ``'float32'``."""
    return convert_dtype(dtype).name
