"""Reductions at paddle's top level: sum, max, min, amax, amin, prod, all, any, logsumexp.

Each appends one reduce op over ``axis`` (None: every dimension, giving a 0-D result) with
PaddlePaddle 2.6's attributes: ``dim`` lists the axes, ``keep_dim`` keeps them as size 1,
and ``reduce_all`` is set when no axis or all of them are given (``paddle.sum`` alone
leaves it False and lets the empty ``dim`` say "all"). ``paddle.sum`` of bools or int32s
gives int64 (the op declares it), ``dtype=`` casts the result (sum) or the input (prod).
``mean`` lives in stat.py, as in PaddlePaddle.
"""

from __future__ import annotations

from paddle_nb.core.dtypes import to_var_type
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor.building import (
    append_out, axis_list, cast_to, expect_variable, reduces_all,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["sum", "max", "min", "amax", "amin", "prod", "all", "any", "logsumexp",
           "count_nonzero"]


def reduce_attrs(x: Tensor, axis: int | Sequence[int] | None, keepdim: bool,
                 reduce_all: bool | None = None) -> dict[str, bool | list[Any]]:
    """The attributes of a reduce op: dim, keep_dim, reduce_all (2.6's rule unless given)."""
    axes = axis_list(axis)
    return {"dim": axes, "keep_dim": bool(keepdim),
            "reduce_all": reduces_all(axes, x) if reduce_all is None else reduce_all}


def _reduce(op_type: str, helper: str, x: Tensor, axis: Any, keepdim: bool, name: str | None
           ) -> Tensor:
    expect_variable(x, "x", helper)
    return append_out(op_type, {"X": x}, reduce_attrs(x, axis, keepdim), helper=helper,
                      name=name)


def sum(x: Tensor, axis: int | Sequence[int] | None = None, dtype: DTypeLike | None = None,
        keepdim: bool = False, name: str | None = None) -> Tensor:
    """The sum over ``axis``; bools and int32s sum to int64; ``dtype`` sets Out's dtype."""
    expect_variable(x, "x", "sum")
    attrs: dict[str, Any] = reduce_attrs(x, axis, keepdim, reduce_all=False)
    if dtype is not None:
        # (reduce ops keep dtypes as VarType numbers in int attributes; -1: X's own)
        attrs.update(in_dtype=int(to_var_type(x.dtype)), out_dtype=int(to_var_type(dtype)))
    return append_out("reduce_sum", {"X": x}, attrs, helper="sum", name=name)


def max(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
       ) -> Tensor:
    """The maximum over ``axis`` (its gradient goes to every tied element)."""
    return _reduce("reduce_max", "max", x, axis, keepdim, name)


def min(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
       ) -> Tensor:
    """The minimum over ``axis``."""
    return _reduce("reduce_min", "min", x, axis, keepdim, name)


def amax(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
        ) -> Tensor:
    """The maximum over ``axis``; its gradient is shared equally among tied elements."""
    return _reduce("reduce_amax", "amax", x, axis, keepdim, name)


def amin(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
        ) -> Tensor:
    """The minimum over ``axis``; its gradient is shared equally among tied elements."""
    return _reduce("reduce_amin", "amin", x, axis, keepdim, name)


def prod(x: Tensor, axis: int | None = None, keepdim: bool = False, dtype: DTypeLike | None = None,
         name: str | None = None) -> Tensor:
    """The product over ``axis``; ``dtype`` casts x first."""
    expect_variable(x, "x", "prod")
    if dtype is not None:
        x = cast_to(x, dtype)
    return _reduce("reduce_prod", "reduce_prod", x, axis, keepdim, name)


def all(x: Tensor, axis: Sequence[int] | None = None, keepdim: bool = False, name: str | None = None
       ) -> Tensor:
    """Whether every element over ``axis`` is True (x is bool)."""
    return _reduce("reduce_all", "all", x, axis, keepdim, name)


def any(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
       ) -> Tensor:
    """Whether some element over ``axis`` is True (x is bool)."""
    return _reduce("reduce_any", "any", x, axis, keepdim, name)


def logsumexp(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
             ) -> Tensor:
    """log(sum(exp(x))) over ``axis``, without overflow."""
    expect_variable(x, "x", "logsumexp")
    axes = axis_list(axis)
    return append_out("logsumexp", {"X": x}, {"axis": axes, "keepdim": bool(keepdim),
                                              "reduce_all": reduces_all(axes, x)}, name=name)


def count_nonzero(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
                 ) -> Tensor:
    """How many elements over ``axis`` are not zero (int64): x cast to bool, then to int64,
    then summed, as PaddlePaddle writes it."""
    expect_variable(x, "x", "count_nonzero")
    as_int = cast_to(cast_to(x, "bool"), "int64")
    return sum(as_int, axis=axis, keepdim=keepdim, name=name)


register_tensor_methods({n: globals()[n] for n in __all__})
