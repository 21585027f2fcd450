"""The elementary ops that the common, recurrent and attention functions are made of.

PaddlePaddle 2.6 writes ``F.cosine_similarity``, an ``LSTMCell`` step or multi-head attention
as a few elementary ops (``elementwise_mul``, ``reduce_sum``, ``matmul_v2``, ``split``...), and
names each op's output the way the Python call that appended it does:

- an operator on Variables (``x + y``, ``x * y``) writes ``tmp_N``;
- ``paddle.multiply``, ``paddle.maximum`` (the elementwise functions) write ``elementwise_mul_N``;
- a function with a helper (``paddle.sum``, ``F.sigmoid``, ``paddle.matmul``) writes
  ``sum_N.tmp_0``, ``sigmoid_N.tmp_0``, ``matmul_v2_N.tmp_0``;
- ``paddle.full`` writes ``fill_constant_N.tmp_0`` with N odd (it counts its key twice).

Each function here appends one op through ``layers.helper.layer_helper`` with those names, so
the functions built on them name their temporaries as PaddlePaddle does.
"""

from __future__ import annotations

from paddle_nb.framework.variable import as_tensor
from paddle_nb.framework import unique_name
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.context import default_main_program
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["argument_error", "not_available", "operator", "operator_scale", "dims_of", "cpu_int",
           "full_dims",
           "elementwise", "unary", "matmul", "full", "reshape", "transpose", "split",
           "reduce_sum", "scale", "cast", "xshape_op"]


def argument_error(message: str) -> Any:
    """A ValueError for a bad argument of a 2.x function or layer, ending with the user's line."""
    return ValueError(f"{message}\n  built at {format_site(callstack_strings())}")


def not_available(message: str) -> Any:
    """A NotImplementedError for what paddle_nb does not have, ending with the user's line."""
    return NotImplementedError(f"{message}\n  built at {format_site(callstack_strings())}")


def _current_block() -> Any:
    return default_main_program().current_block()


def operator(op_type: str, x: Tensor, y: Tensor) -> Tensor:
    """``x (op) y`` as a Variable operator writes it: output ``tmp_N``, axis -1."""
    block = _current_block()
    name = unique_name.generate("tmp")
    block.append_op(op_type, inputs={"X": x, "Y": y}, outputs={"Out": name},
                    attrs={"axis": -1})
    return block.var(name)


def operator_scale(x: Tensor, factor: float, bias: float = 0.0) -> Tensor:
    """``x * c`` or ``x - c`` as a Variable operator writes it: one ``scale``, output ``tmp_N``."""
    block = _current_block()
    name = unique_name.generate("tmp")
    block.append_op("scale", inputs={"X": x}, outputs={"Out": name},
                    attrs={"scale": float(factor), "bias": float(bias), "bias_after_scale": True})
    return block.var(name)


def elementwise(op_type: str, x: Tensor, y: Tensor) -> Tensor:
    """``paddle.multiply``/``paddle.maximum``...: output ``<op_type>_N``."""
    block = _current_block()
    name = unique_name.generate(op_type)
    block.append_op(op_type, inputs={"X": x, "Y": y}, outputs={"Out": name},
                    attrs={"axis": -1})
    return block.var(name)


def unary(op_type: str, x: Tensor, attrs: Mapping[str, Any] | None = None, key: str | None = None,
          slot: str = "X") -> Tensor:
    """One op of one input written by a helper named ``key`` (the op type by default):
    output ``<key>_N.tmp_0``."""
    return layer_helper(key or op_type).out(op_type, {slot: x}, attrs or {})


def matmul(x: Tensor, y: Tensor, transpose_x: bool = False, transpose_y: bool = False) -> Tensor:
    """``paddle.matmul``: one ``matmul_v2``."""
    return layer_helper("matmul_v2").out("matmul_v2", {"X": x, "Y": y},
                                         {"trans_x": bool(transpose_x),
                                          "trans_y": bool(transpose_y)})


def full(shape: Sequence[int], value: float, dtype: DTypeLike = "float32") -> Tensor:
    """``paddle.full``: one ``fill_constant`` writing ``fill_constant_N.tmp_0``."""
    unique_name.generate("fill_constant")
    return layer_helper("fill_constant").out(
        "fill_constant", {}, {"shape": [int(d) for d in shape], "value": float(value),
                              "dtype": dtype, "str_value": _str_value(value)})


def dims_of(x: Tensor, dims: Sequence[int]) -> list[Tensor]:
    """``x.shape[d]`` for each of ``dims``, at run time, as ``paddle.shape(x)[d]`` writes them:
    one ``shape`` and a ``slice`` per dimension (``shape_N.tmp_0_slice_0``, ``_slice_1``...)."""
    shape = layer_helper("shape").out("shape", {"Input": x}, {})
    sizes: list[Tensor] = []
    for d in dims:
        name = unique_name.generate(f"{shape.name}_slice")
        shape.block.append_op("slice", inputs={"Input": shape}, outputs={"Out": name},
                              attrs={"axes": [0], "starts": [d], "ends": [d + 1],
                                     "decrease_axis": [0], "infer_flags": [1]})
        sizes.append(as_tensor(shape.block.var(name)))
    return sizes


def cpu_int(value: int) -> Tensor:
    """A 0-D int32 ``fill_constant`` kept on the CPU: a constant entry of a shape list."""
    unique_name.generate("fill_constant")
    return layer_helper("fill_constant").out(
        "fill_constant", {}, {"shape": [], "value": float(value), "str_value": str(int(value)),
                              "dtype": "int32", "force_cpu": True})


def full_dims(dims: Sequence[Tensor | int], value: float, dtype: DTypeLike = "float32") -> Tensor:
    """``paddle.full`` with a shape of ints and run-time sizes (0-D int32 Variables): the
    ints become 0-D ``fill_constant``s kept on the CPU, and all go in ``ShapeTensorList``."""
    unique_name.generate("fill_constant")
    helper = layer_helper("fill_constant")
    sizes = [d if not isinstance(d, int) else cpu_int(d) for d in dims]
    return helper.out("fill_constant", {"ShapeTensorList": sizes},
                      {"shape": [d if isinstance(d, int) else -1 for d in dims],
                       "value": float(value), "dtype": dtype, "str_value": _str_value(value)})


def _str_value(value: float) -> str:
    return str(float(value)) if isinstance(value, float) else str(value)


def xshape_op(op_type: str, x: Tensor, attrs: Mapping[str, Any], key: str) -> Tensor:
    """An op with PaddlePaddle's ``XShape`` second output (reshape2, transpose2, flatten...)."""
    helper = layer_helper(key)
    out, xshape = helper.tmp_name(), helper.tmp_name()
    helper.append(op_type, {"X": x}, {"Out": out, "XShape": xshape}, attrs)
    return as_tensor(helper.block.var(out))


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    """``paddle.reshape`` with a list of ints: ``reshape2`` (``reshape2_N.tmp_0``)."""
    return xshape_op("reshape2", x, {"shape": [int(d) for d in shape]}, "reshape2")


def transpose(x: Tensor, perm: Sequence[int]) -> Tensor:
    """``paddle.transpose``: ``transpose2`` (``transpose_N.tmp_0``)."""
    return xshape_op("transpose2", x, {"axis": [int(d) for d in perm]}, "transpose")


def split(x: Tensor, num: int, axis: int) -> list[Tensor]:
    """``paddle.split`` into ``num`` equal parts along ``axis``: ``split_N.tmp_k``."""
    helper = layer_helper("split")
    names = [helper.tmp_name() for _ in range(num)]
    helper.append("split", {"X": x}, {"Out": names}, {"num": int(num), "axis": int(axis)})
    return [as_tensor(helper.block.var(n)) for n in names]


def reduce_sum(x: Tensor, axis: Sequence[int], keepdim: bool = False) -> Tensor:
    """``paddle.sum`` over ``axis`` (a list): ``reduce_sum`` (``sum_N.tmp_0``)."""
    return unary("reduce_sum", x, {"dim": list(axis), "keep_dim": bool(keepdim),
                                   "reduce_all": False}, key="sum")


def scale(x: Tensor, factor: float, bias: float = 0.0) -> Tensor:
    """``paddle.scale``: ``scale`` (``scale_N.tmp_0``)."""
    return unary("scale", x, {"scale": float(factor), "bias": float(bias),
                              "bias_after_scale": True})


def cast(x: Tensor, dtype: DTypeLike) -> Tensor:
    """``paddle.cast``: ``cast`` (``cast_N.tmp_0``)."""
    return unary("cast", x, {"in_dtype": x.dtype, "out_dtype": dtype})
