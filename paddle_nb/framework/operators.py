"""Python operators on static Variables: what ``x + 1.0``, ``x * y``, ``x < 2`` append.

The choices are PaddlePaddle 2.6's (its ``math_op_patch``), so a script builds the same ops:

- ``x + c``, ``x - c``, ``c - x``, ``x * c``, ``x / c``, ``-x``: one ``scale`` op;
- another Variable: ``elementwise_add / sub / mul / div / floordiv / mod / pow``,
  ``matmul_v2`` for ``@``, ``equal / not_equal / less_than / ...`` for comparisons;
- a number on the other side of ``**``, ``//``, ``%`` or a comparison becomes a 0-D
  ``fill_constant`` first; for the reflected forms (``2 / x``, ``2 ** x``) a constant of x's
  shape (``fill_constant_batch_size_like`` when the batch dimension is unknown);
- dtypes: an integer (or bool) Variable meeting a Python float is cast to float32 first,
  true division of integers casts both sides to float32 (``7 / 2`` is 3.5), and two
  Variables of different dtypes meet in the wider one (float32 + float64 casts the first,
  int32 + float32 the int32 side);
- ``&``, ``|``, ``^``, ``~`` append ``bitwise_*``, as ``paddle.bitwise_and`` does.

Every output is named ``tmp_N`` by PaddlePaddle 2.x's process-wide generator, except the
bitwise ops (``bitwise_and_0.tmp_0``) and ``abs(x)`` (``abs_0.tmp_0``), which PaddlePaddle
builds through its functions.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, NoReturn

import numpy

from paddle_nb.errors import OperandError
from paddle_nb.framework import variable as variable_module
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.names import current_generator

if TYPE_CHECKING:
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.variable import Variable

__all__ = ["binary", "reflected", "negate", "matmul", "bitwise", "bitwise_not", "absolute",
           "fresh_name", "SCALE_OPS"]

FLOAT32 = numpy.dtype(numpy.float32)
# ops a number on the right turns into one scale op: c -> (scale, bias)
SCALE_OPS = {
    "elementwise_add": lambda c: (1.0, c),
    "elementwise_sub": lambda c: (1.0, -c),
    "elementwise_mul": lambda c: (c, 0.0),
    "elementwise_div": lambda c: (1.0 / c, 0.0),
}


def _is_variable(value: Any) -> bool:
    return isinstance(value, variable_module.Variable)


def _is_number(value: Any) -> bool:
    return isinstance(value, (numbers.Number, numpy.number)) and not isinstance(value, complex)


def fresh_name(block: Block, key: str = "tmp", suffix: str = "") -> str:
    """``<key>_N<suffix>`` from the process-wide generator (``tmp_3``, ``abs_0.tmp_0``), past
    the names the program's Fluid-1.8 counter gave, skipping a name the block (or a block
    above it) already holds: one made under another generator (inside a
    ``unique_name.guard``) would otherwise be overwritten."""
    name = block.program.names.process(current_generator(), key) + suffix
    while block.find_var(name) is not None:
        name = block.program.names.process(current_generator(), key) + suffix
    return name


def _append(x: Variable, op_type: str, inputs: dict[str, Any],
            attrs: dict[str, Any] | None = None, name: str | None = None) -> Variable:
    """Append ``op_type`` in the current block of x's program, writing ``name`` (``tmp_N``)."""
    block = x.block.program.current_block()
    name = name or fresh_name(block)
    block.append_op(op_type, inputs=inputs, outputs={"Out": name}, attrs=attrs or {})
    return block.var(name)


def _cast(x: Variable, dtype: Any) -> Variable:
    return _append(x, "cast", {"X": x}, {"in_dtype": x.dtype, "out_dtype": dtype})


def _dtype(x: Variable) -> numpy.dtype[Any]:
    """x's dtype; a variable that is not a tensor (step scopes, a reader) takes no operator."""
    dtype = x.dtype
    if dtype is None:
        raise OperandError(f"variable '{x.name}' is not a tensor: no operator applies to it\n"
                           f"  built at {format_site(callstack_strings())}")
    return dtype


def _integral(x: Variable) -> bool:
    return _dtype(x).kind in "biu"


def _refuse(x: Variable, other: Any, op_type: str) -> NoReturn:
    shape = f" of shape {tuple(numpy.shape(other))}" if hasattr(other, "shape") else ""
    raise OperandError(
        f"{op_type}: variable '{x.name}' with a {type(other).__name__}{shape}: an array is not "
        "a variable of the program, so no op can take it; make it one first (a data variable "
        "you feed, or a parameter), or use a Python number\n"
        f"  built at {format_site(callstack_strings())}")


def _constant(x: Variable, value: Any, like_shape: bool) -> Variable:
    """``value`` as a tensor of x's dtype: 0-D, or x's shape (``like_shape``)."""
    attrs = {"value": float(value), "str_value": "", "dtype": x.dtype, "force_cpu": False}
    shape = list(x.shape or ())
    if not like_shape:
        return _append(x, "fill_constant", {}, {**attrs, "shape": [], "place_type": -1})
    if -1 in shape:
        return _append(x, "fill_constant_batch_size_like", {"Input": x},
                       {**attrs, "shape": shape, "input_dim_idx": 0, "output_dim_idx": 0})
    return _append(x, "fill_constant", {}, {**attrs, "shape": shape, "place_type": -1})


def _promoted(x: Variable, y: Variable) -> numpy.dtype[Any]:
    """The dtype two Variables meet in: a float over an integer or bool, else the wider."""
    a, b = _dtype(x), _dtype(y)
    if (a.kind == "f") != (b.kind == "f"):
        return a if a.kind == "f" else b
    return numpy.promote_types(a, b)


def binary(x: Variable, other: Any, op_type: str, attrs: dict[str, Any] | None = None) -> Any:
    """``x (op) other`` for a Variable x and a Variable or a number ``other``."""
    if _is_variable(other):
        if x.dtype != other.dtype:              # PaddlePaddle 2.6 casts the narrower side
            common = _promoted(x, other)
            x = x if x.dtype == common else _cast(x, common)
            other = other if other.dtype == common else _cast(other, common)
        if op_type == "elementwise_div" and _integral(x) and _integral(other):
            x, other = _cast(x, FLOAT32), _cast(other, FLOAT32)
        return _append(x, op_type, {"X": x, "Y": other}, {"axis": -1, **(attrs or {})})
    if not _is_number(other):
        if hasattr(other, "__array__") or isinstance(other, (list, tuple)):
            _refuse(x, other, op_type)
        return NotImplemented
    if _integral(x) and (isinstance(other, (float, numpy.floating)) or
                         op_type == "elementwise_div"):
        x = _cast(x, FLOAT32)
    if op_type in SCALE_OPS:
        scale, bias = SCALE_OPS[op_type](float(other))
        return _append(x, "scale", {"X": x}, {"scale": scale, "bias": bias,
                                             "bias_after_scale": True})
    return _append(x, op_type, {"X": x, "Y": _constant(x, other, like_shape=False)},
                   {"axis": -1, **(attrs or {})})


def reflected(x: Variable, other: Any, op_type: str) -> Any:
    """``other (op) x`` for a number ``other`` (Python's __rsub__, __rtruediv__, ...)."""
    if _is_variable(other):                      # (Python only calls these for non-Variables)
        return binary(other, x, op_type)
    if not _is_number(other):
        if hasattr(other, "__array__") or isinstance(other, (list, tuple)):
            _refuse(x, other, op_type)
        return NotImplemented
    if op_type in ("elementwise_add", "elementwise_mul"):
        return binary(x, other, op_type)         # they commute
    if _integral(x) and (isinstance(other, (float, numpy.floating)) or
                         op_type == "elementwise_div"):
        x = _cast(x, FLOAT32)
    if op_type == "elementwise_sub":             # c - x = -1 * x + c
        return _append(x, "scale", {"X": x}, {"scale": -1.0, "bias": float(other),
                                             "bias_after_scale": True})
    return _append(x, op_type, {"X": _constant(x, other, like_shape=True), "Y": x},
                   {"axis": -1})


def negate(x: Variable) -> Variable:
    """-x: a scale by -1."""
    return _append(x, "scale", {"X": x}, {"scale": -1.0, "bias": 0.0, "bias_after_scale": True})


def matmul(x: Variable, other: Any, reverse: bool = False) -> Any:
    """x @ other (``matmul_v2``)."""
    if not _is_variable(other):
        if hasattr(other, "__array__") or isinstance(other, (list, tuple)):
            _refuse(x, other, "matmul_v2")
        return NotImplemented
    a, b = (other, x) if reverse else (x, other)
    return _append(x, "matmul_v2", {"X": a, "Y": b}, {"trans_x": False, "trans_y": False})


def _helper_named(x: Variable, op_type: str, inputs: dict[str, Any]) -> Variable:
    """Append ``op_type`` writing ``<op_type>_N.tmp_0``, as PaddlePaddle's functions do."""
    block = x.block.program.current_block()
    return _append(x, op_type, inputs, name=fresh_name(block, op_type, ".tmp_0"))


def bitwise(x: Variable, other: Any, op_type: str) -> Any:
    """x & y, x | y, x ^ y on bool or integer Variables."""
    if not _is_variable(other):
        return NotImplemented
    return _helper_named(x, op_type, {"X": x, "Y": other})


def bitwise_not(x: Variable) -> Variable:
    return _helper_named(x, "bitwise_not", {"X": x})


def absolute(x: Variable) -> Variable:
    return _helper_named(x, "abs", {"X": x})
