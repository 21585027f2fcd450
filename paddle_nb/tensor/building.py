"""How the 2.x math, logic and stat functions append their ops and name their outputs.

PaddlePaddle 2.6 names a function's output in one of these ways, and a script that fetches
by name depends on which:

- most functions make a helper named after the function (``paddle.sum`` -> ``sum_0``) and
  write ``sum_0.tmp_0``: :func:`append_out`;
- the elementwise functions (``paddle.add``, ``paddle.maximum``, ...) name the output after
  the op itself, with no ``.tmp``: ``elementwise_add_0``: :func:`append_named`;
- a Variable operator inside a function (``x - mean``) writes ``tmp_N``: :func:`append_tmp`;
- a user's ``name=`` replaces the generated helper name (``name.tmp_0``) or, for the
  elementwise functions, is the output's name itself.

All counters are PaddlePaddle 2.x's process-wide ones (``framework.unique_name``).
"""

from __future__ import annotations

import numbers

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework import unique_name
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.operators import fresh_name
from paddle_nb.framework.variable import Variable, as_tensor
from paddle_nb.layers.helper import layer_helper
from paddle_nb.ops.creation import fill_value_attrs
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from typing_extensions import TypeIs

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["append_out", "append_outs", "append_named", "append_tmp", "expect_variable",
           "axis_list", "reduces_all",
           "cast_to", "constant", "is_number", "FLOAT_MAX"]

FLOAT_MAX = float(numpy.finfo(numpy.float32).max)    # PaddlePaddle's "no bound" for clip


def append_out(op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None,
               helper: str | None = None, name: str | None = None, slot: str = "Out",
               extra_outputs: Any = None) -> Tensor:
    """Append ``op_type`` writing ``<helper>_N.tmp_0`` (``helper`` defaults to the op type;
    ``name`` replaces ``<helper>_N``); return the output Variable."""
    return layer_helper(helper or op_type, name).out(op_type, inputs, attrs, slot=slot,
                                                     extra_outputs=extra_outputs)


def append_outs(op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any],
                slots: Sequence[str], helper: str | None = None, name: str | None = None
               ) -> list[Tensor]:
    """Append ``op_type`` writing one new temporary per output slot, ``<helper>_N.tmp_0``,
    ``.tmp_1``, ... in ``slots`` order (``top_k_v2``: Out, Indices); return them."""
    maker = layer_helper(helper or op_type, name)
    names = {slot: maker.tmp_name() for slot in slots}
    maker.append(op_type, inputs, names, attrs)
    return [as_tensor(maker.block.var(n)) for n in names.values()]


def append_named(op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None,
                 name: str | None = None) -> Tensor:
    """Append ``op_type`` writing a variable named ``<op_type>_N`` (or ``name``)."""
    out = name or unique_name.generate(op_type)
    block = default_main_program().current_block()
    block.append_op(op_type, inputs=inputs, outputs={"Out": out}, attrs=attrs or {})
    return as_tensor(block.var(out))


def append_tmp(op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None
              ) -> Tensor:
    """Append ``op_type`` writing ``tmp_N``: how PaddlePaddle names what a Variable operator
    or method (``x - y``, ``x.astype(...)``) writes inside a 2.x function."""
    block = default_main_program().current_block()
    return append_named(op_type, inputs, attrs, name=fresh_name(block))


def expect_variable(value: object, arg: str, func: str) -> Tensor:
    """``value`` when it is a Variable; else the TypeError PaddlePaddle raises."""
    if not isinstance(value, Variable):
        raise TypeError(f"{func}: '{arg}' must be a Variable (a static-graph tensor), got "
                        f"{type(value).__name__} {value!r}; make a number a tensor first "
                        "(paddle.full / paddle.to_tensor) or use the operator (x + 2.0)")
    return as_tensor(value)


def is_number(value: object) -> TypeIs[float]:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def axis_list(axis: int | Sequence[int] | None) -> list[int]:
    """``axis`` (None, an int, or a list/tuple of ints) as a list: None -> []."""
    if axis is None:
        return []
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    if isinstance(axis, (int, numpy.integer)) and not isinstance(axis, bool):
        return [int(axis)]
    raise TypeError(f"axis must be None, an int, or a list / tuple of ints, got {axis!r}")


def reduces_all(axes: Sequence[int], x: Tensor) -> bool:
    """PaddlePaddle 2.6's ``reduce_all`` attribute: no axis given, or as many as X's rank."""
    return not axes or len(axes) == len(x.shape)


def cast_to(x: Tensor, dtype: DTypeLike, helper: str = "cast") -> Tensor:
    """``x`` as ``dtype`` through a ``cast`` op named after ``helper`` (x itself when it
    already has that dtype)."""
    dtype = convert_dtype(dtype)
    if x.dtype == dtype:
        return x
    return append_out("cast", {"X": x}, {"in_dtype": x.dtype, "out_dtype": dtype}, helper=helper)


def constant(value: float, dtype: DTypeLike, shape: Sequence[Any] = (), name: str | None = None
            ) -> Tensor:
    """A ``fill_constant`` of ``value`` (named ``name``, else ``fill_constant_N.tmp_0``), the
    way ``paddle.full`` writes it (``str_value`` holds the value as text)."""
    dtype = convert_dtype(dtype)
    attrs = {"shape": list(shape), "dtype": dtype, **fill_value_attrs(dtype, value),
             "force_cpu": False, "place_type": -1}
    if name is not None:
        return append_named("fill_constant", {}, attrs, name=name)
    return append_out("fill_constant", {}, attrs)
