"""Reading and writing op attributes in ``OpDesc.Attr`` messages.

An attribute is stored in the field its ``AttrType`` names (``i`` for INT,
``floats`` for FLOATS, ``block_idx`` for BLOCK, ...). Attributes an op type
does not declare (PaddlePaddle writes many: ``use_mkldnn``, ``op_device``)
are kept as they came, so a load-save round trip loses nothing.

A SCALAR attribute holds one ``Scalar`` message, a number that carries its own
type (BOOLEAN, LONG, FLOAT64 or COMPLEX128); SCALARS a list of them
(PaddlePaddle 2.6's ``set_value`` keeps its ``values`` so). In Python such a
number is a ``bool``, ``int``, ``float`` or ``complex``, and its Python type
is what decides the Scalar type it is written back with.
"""

from typing import Any

import numpy

from paddle_nb.core.dtypes import to_var_type
from paddle_nb.errors import AttrError
from paddle_nb.ops.machinery.registry import OpDef
from paddle_nb.proto import framework_pb2

__all__ = ["read_attr", "write_attr", "read_scalar", "write_scalar", "guess_attr_type",
           "attrs_blob"]

T = framework_pb2.AttrType
_SCALAR = {T.INT: "i", T.FLOAT: "f", T.STRING: "s", T.BOOLEAN: "b", T.BLOCK: "block_idx",
           T.LONG: "l", T.FLOAT64: "float64", T.VAR: "var_name"}
_LIST = {T.INTS: "ints", T.FLOATS: "floats", T.STRINGS: "strings", T.BOOLEANS: "bools",
         T.BLOCKS: "blocks_idx", T.LONGS: "longs", T.FLOAT64S: "float64s", T.VARS: "vars_name"}


S = framework_pb2.Scalar.Type


def read_attr(attr: Any, op_type: str | None = None) -> Any:
    """The Python value of an ``OpDesc.Attr`` (of an op of type ``op_type``, for errors)."""
    if attr.type in _SCALAR:
        return getattr(attr, _SCALAR[attr.type])
    if attr.type in _LIST:
        return list(getattr(attr, _LIST[attr.type]))
    if attr.type == T.SCALAR:
        return read_scalar(attr.scalar)
    if attr.type == T.SCALARS:
        return [read_scalar(s) for s in attr.scalars]
    where = f"op '{op_type}': " if op_type else ""
    raise AttrError(f"{where}attribute '{attr.name}' has AttrType {attr.type}, which paddle_nb "
                    "does not know (written by a newer PaddlePaddle, or corrupted)")


def read_scalar(scalar: Any) -> bool | int | float | complex:
    """A ``Scalar`` message as the Python number it holds."""
    if scalar.type == S.BOOLEAN:
        return scalar.b
    if scalar.type == S.LONG:
        return scalar.i
    if scalar.type == S.COMPLEX128:
        return complex(scalar.c.r, scalar.c.i)
    return scalar.r


def write_scalar(scalar: Any, value: bool | int | float | complex) -> None:
    """Fill a ``Scalar`` message with ``value`` (bool, int, float or complex, NumPy's too)."""
    if isinstance(value, (bool, numpy.bool_)):
        scalar.type, scalar.b = S.BOOLEAN, bool(value)
    elif isinstance(value, (int, numpy.integer)):
        scalar.type, scalar.i = S.LONG, int(value)
    elif isinstance(value, (complex, numpy.complexfloating)):
        scalar.type = S.COMPLEX128
        scalar.c.r, scalar.c.i = value.real, value.imag
    else:
        scalar.type, scalar.r = S.FLOAT64, float(value)


_INT = int(T.INT)


def write_attr(attr: Any, name: str, attr_type: int, value: Any) -> None:
    """Fill ``attr`` (a fresh ``OpDesc.Attr``) with ``value`` stored as ``attr_type``."""
    attr.name = name
    attr.type = attr_type
    if attr_type == _INT and not isinstance(value, int):
        value = to_var_type(value)         # a dtype attribute
    field = _SCALAR.get(attr_type)
    if field is not None:
        setattr(attr, field, value)
    elif attr_type == T.SCALAR:
        write_scalar(attr.scalar, value)
    elif attr_type == T.SCALARS:
        for item in value:
            write_scalar(attr.scalars.add(), item)
    else:
        getattr(attr, _LIST[attr_type]).extend(value)


_BLOBS: dict[tuple[Any, ...], bytes] = {}       # (op type, values, op_role) -> the serialized attrs


def attrs_blob(opdef: OpDef, values: dict[str, Any], role: int) -> bytes:
    """The serialized ``OpDesc.attrs`` of ``values`` (an op's declared attributes, complete,
    in declaration order) and ``op_role``, for ``OpDesc.MergeFromString``.

    Most ops of a program repeat a few attribute sets (``relu`` has none, ``fc``'s
    ``mul`` always the same six), and writing an Attr message field by field costs
    about a microsecond: each set is written once and its bytes reused.
    """
    key = (opdef.type, role, *(_key(v) for v in values.values()))
    blob = _BLOBS.get(key)
    if blob is None:
        desc = framework_pb2.OpDesc()
        for name, value in values.items():
            write_attr(desc.attrs.add(), name, opdef.attrs[name].attr_type, value)
        write_attr(desc.attrs.add(), "op_role", T.INT, role)
        blob = desc.SerializePartialToString()
        if len(_BLOBS) > 4096:         # a program of many distinct attribute values
            _BLOBS.clear()
        _BLOBS[key] = blob
    return blob


def _key(value: Any) -> Any:
    """``value`` as a dict key that tells apart what serializes apart (-0.0 and 0.0, 1 and True)."""
    if isinstance(value, list):
        return tuple(_key(v) for v in value)
    if isinstance(value, (float, bool, complex)):
        return repr(value)
    return value


def guess_attr_type(value: Any) -> int:
    """The AttrType for a value of an attribute no OpDef declares."""
    if isinstance(value, bool):
        return T.BOOLEAN
    if isinstance(value, int):
        return T.INT if -2**31 <= value < 2**31 else T.LONG
    if isinstance(value, float):
        return T.FLOAT
    if isinstance(value, str):
        return T.STRING
    if isinstance(value, complex):
        return T.SCALAR
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, bool) for v in value) and value:
            return T.BOOLEANS
        if all(isinstance(v, int) for v in value):
            return T.INTS if all(-2**31 <= v < 2**31 for v in value) else T.LONGS
        if all(isinstance(v, (int, float)) for v in value):
            return T.FLOATS
        if all(isinstance(v, (int, float, complex)) for v in value):
            return T.SCALARS
        if all(isinstance(v, str) for v in value):
            return T.STRINGS
    raise AttrError(f"cannot store attribute value {value!r} ({type(value).__name__})")
