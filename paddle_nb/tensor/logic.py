"""Comparison and logic at paddle's top level: equal, less_than, logical_and, bitwise_and,
isnan, allclose, ...

Comparisons append ``equal``, ``less_than``, ... (``axis`` -1, NumPy broadcasting) writing
``<function>_N.tmp_0``, a bool tensor; a number on the right becomes a 0-D constant of x's
dtype first. ``logical_*`` read any dtype as "nonzero is true"; ``bitwise_*`` take bools or
integers (on bools they are the logical ops, and ``x & y`` on Variables writes them).
``isclose`` / ``allclose`` keep their tolerances as strings, as PaddlePaddle does.
"""

from __future__ import annotations

from paddle_nb.framework.variable import Variable, register_tensor_methods
from paddle_nb.tensor.building import append_out, constant, expect_variable, is_number
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite",
           "equal_all", "allclose", "isclose", "is_empty"]


def _operand(y: Tensor | float, x: Tensor, func: str) -> Tensor:
    if is_number(y) or isinstance(y, bool):
        return constant(y, x.dtype)
    return expect_variable(y, "y", func)


def _compare(op_type: str, x: Tensor, y: Tensor | int, name: str | None) -> Tensor:
    expect_variable(x, "x", op_type)
    return append_out(op_type, {"X": x, "Y": _operand(y, x, op_type)},
                      {"axis": -1, "force_cpu": False}, name=name)


def equal(x: Tensor, y: Tensor | int, name: str | None = None) -> Tensor:
    """x == y elementwise (a bool tensor)."""
    return _compare("equal", x, y, name)


def not_equal(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x != y elementwise."""
    return _compare("not_equal", x, y, name)


def less_than(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x < y elementwise."""
    return _compare("less_than", x, y, name)


def less_equal(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x <= y elementwise."""
    return _compare("less_equal", x, y, name)


def greater_than(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x > y elementwise."""
    return _compare("greater_than", x, y, name)


def greater_equal(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x >= y elementwise."""
    return _compare("greater_equal", x, y, name)


def _binary(op_type: str, x: Tensor, y: Tensor, name: str | None) -> Tensor:
    expect_variable(x, "x", op_type)
    expect_variable(y, "y", op_type)
    return append_out(op_type, {"X": x, "Y": y}, name=name)


def _unary(op_type: str, x: Tensor, name: str | None, helper: Any = None) -> Tensor:
    return append_out(op_type, {"X": expect_variable(x, "x", helper or op_type)},
                      helper=helper, name=name)


def logical_and(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """x and y elementwise (nonzero is true)."""
    return _binary("logical_and", x, y, name)


def logical_or(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """x or y elementwise."""
    return _binary("logical_or", x, y, name)


def logical_xor(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """x xor y elementwise."""
    return _binary("logical_xor", x, y, name)


def logical_not(x: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """not x elementwise."""
    return _unary("logical_not", x, name)


def bitwise_and(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """x & y on bools or integers."""
    return _binary("bitwise_and", x, y, name)


def bitwise_or(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """x | y on bools or integers."""
    return _binary("bitwise_or", x, y, name)


def bitwise_xor(x: Tensor, y: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """x ^ y on bools or integers."""
    return _binary("bitwise_xor", x, y, name)


def bitwise_not(x: Tensor, out: Any = None, name: str | None = None) -> Tensor:
    """~x on bools or integers."""
    return _unary("bitwise_not", x, name)


def isnan(x: Tensor, name: str | None = None) -> Tensor:
    """Whether each element is NaN (``isnan_v2``)."""
    return _unary("isnan_v2", x, name)


def isinf(x: Tensor, name: str | None = None) -> Tensor:
    """Whether each element is +-inf (``isinf_v2``)."""
    return _unary("isinf_v2", x, name)


def isfinite(x: Tensor, name: str | None = None) -> Tensor:
    """Whether each element is neither NaN nor infinite (``isfinite_v2``)."""
    return _unary("isfinite_v2", x, name)


def equal_all(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Whether x and y have one shape and equal elements (a 0-D bool)."""
    return _binary("equal_all", x, y, name)


def _close(op_type: str, x: Tensor, y: Tensor, rtol: float, atol: float, equal_nan: bool,
           name: str | None) -> Tensor:
    expect_variable(x, "x", op_type)
    expect_variable(y, "y", op_type)
    inputs: dict[str, Variable] = {"Input": x, "Other": y}
    attrs: dict[str, bool | str] = {"equal_nan": bool(equal_nan)}
    for key, slot, value in (("rtol", "Rtol", rtol), ("atol", "Atol", atol)):
        if isinstance(value, Variable):
            inputs[slot] = value
            attrs[key] = "1e-05" if key == "rtol" else "1e-08"
        else:
            attrs[key] = str(value)
    return append_out(op_type, inputs, attrs, name=name)


def isclose(x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
            name: str | None = None) -> Tensor:
    """|x - y| <= atol + rtol * |y| elementwise."""
    return _close("isclose", x, y, rtol, atol, equal_nan, name)


def allclose(x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False, name: str | None = None) -> Tensor:
    """Whether every element of x is close to y's (a 0-D bool)."""
    return _close("allclose", x, y, rtol, atol, equal_nan, name)


def is_empty(x: Tensor, name: str | None = None) -> Tensor:
    """Whether x has no elements (a 0-D bool)."""
    return _unary("is_empty", x, name)


register_tensor_methods({n: globals()[n] for n in __all__})
