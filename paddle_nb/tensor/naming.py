"""How the 2.x manipulation, creation and search functions append their ops, and name their
outputs as PaddlePaddle 2.6.

A 2.x function asks :func:`paddle_nb.layers.helper.layer_helper` for a helper named after a
key (usually the op type, sometimes the function: ``paddle.transpose`` counts ``transpose``,
``paddle.reshape`` counts ``reshape2``) and writes ``<key>_N.tmp_0``, ``<key>_N.tmp_1`` ...;
a few functions name a result straight from the generator (``tril_0``, ``x_clone_0``,
``x_slice_0``). :func:`append` does the first, :func:`append_named` the second.

>>> import paddle_nb as pd
>>> main = pd.Program()
>>> with pd.program_guard(main, pd.Program()), pd.utils.unique_name.guard():
...     x = pd.layers.data("x", [2, 3], "float32", append_batch_size=False)
...     append("transpose", "transpose2", {"X": x}, {"axis": [1, 0]}, extra=("XShape",)).name
'transpose_0.tmp_0'
"""

from __future__ import annotations

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework import unique_name
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.variable import Variable, as_tensor
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from typing_extensions import TypeIs

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor
    from paddle_nb.layers.helper import LayerHelper

__all__ = ["append", "append_named", "append_many", "dtype_of", "is_var", "check_var",
           "generated_name", "host_dtype_of"]


def append(key: str, op_type: str, inputs: Mapping[str, Any],
           attrs: Mapping[str, Any] | None = None, slot: str = "Out", extra: Sequence[str] = (),
           name: str | None = None, helper: LayerHelper | None = None) -> Tensor:
    """Append ``op_type`` writing ``<key>_N.tmp_0`` in ``slot`` (then ``tmp_1``, ... in each
    of the ``extra`` slots); return the first output. A Fluid-1.8 layer passes its own
    ``helper`` (names from the program's counter) to build through the same code."""
    helper = helper or layer_helper(key, name)
    outputs = {slot: helper.tmp_name()}
    for other in extra:
        outputs[other] = helper.tmp_name()
    helper.append(op_type, inputs, outputs, attrs)
    return as_tensor(helper.block.var(outputs[slot]))


def append_many(key: str, op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any],
                slots: Sequence[str | tuple[Any, ...]], name: str | None = None,
                helper: LayerHelper | None = None) -> list[Any]:
    """Append ``op_type`` with one new temporary per output slot in ``slots`` (in order), or,
    where a slot's count is given as ``(slot, n)``, n of them; return them as a list (a list
    of lists for counted slots)."""
    helper = helper or layer_helper(key, name)
    outputs, result = {}, []
    for spec in slots:
        slot, n = spec if isinstance(spec, tuple) else (spec, None)
        names = [helper.tmp_name() for _ in range(1 if n is None else n)]
        outputs[slot] = names
        result.append(names if n is not None else names[0])
    helper.append(op_type, inputs, outputs, attrs)
    block = helper.block
    return [[block.var(n) for n in r] if isinstance(r, list) else block.var(r) for r in result]


def generated_name(key: str) -> str:
    """The next name PaddlePaddle 2.x's generator makes from ``key`` (``tril`` -> ``tril_0``)."""
    return unique_name.generate(key)


def append_named(var_name: str, op_type: str, inputs: Mapping[str, Any],
                 attrs: Mapping[str, Any] | None = None, slot: str = "Out") -> Tensor:
    """Append ``op_type`` writing a variable named exactly ``var_name``; return it."""
    block = default_main_program().current_block()
    block.append_op(op_type, inputs, {slot: var_name}, attrs)
    return as_tensor(block.var(var_name))


def is_var(x: object) -> TypeIs[Tensor]:
    return isinstance(x, Variable)


def check_var(x: Tensor, what: str, function: str) -> Tensor:
    """``x`` if it is a Variable, else a TypeError naming the function and the argument."""
    if not isinstance(x, Variable):
        raise TypeError(f"paddle.{function}: {what} must be a Variable (a tensor of the program), "
                        f"got {type(x).__name__} {x!r}")
    return x


def dtype_of(dtype: DTypeLike | None, default: str = "float32") -> numpy.dtype:
    """``dtype`` as a numpy dtype (``default`` for None)."""
    return convert_dtype(default if dtype is None else dtype)


def host_dtype_of(value: Any) -> numpy.dtype:
    """The dtype PaddlePaddle 2.6 gives a Python or NumPy constant: float64 data become
    float32 (the default float dtype), Python ints int64."""
    array = numpy.asarray(value)
    if array.dtype == numpy.float64:
        return numpy.dtype("float32")
    return array.dtype
