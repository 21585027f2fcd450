"""The small steps PaddlePaddle 2.6's losses are made of, named as 2.6 names them.

Most 2.x losses are not one op: ``F.mse_loss`` is ``elementwise_sub``, ``square`` and
``reduce_mean``. Each step here appends one op and names its output the way the 2.6
function that writes it would, so a loss built here names its temporaries as 2.6
does: a function's helper gives ``square_0.tmp_0`` and ``mean_0.tmp_0``,
``paddle.subtract`` gives ``elementwise_sub_0``, an operator (``1 - x``, ``a * b``)
or a ``fill_constant`` of a Python number gives ``tmp_3``. All names come from the
process-wide generator (``paddle_nb.framework.unique_name``).
"""

from __future__ import annotations


from paddle_nb.framework import unique_name
from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["append", "named", "elementwise", "operator", "fill", "number", "reduce", "cast",
           "squeeze", "unsqueeze", "reshape", "transpose", "scale", "reduce_loss",
           "check_reduction", "unavailable"]

REDUCE_ATTRS = {"keep_dim": False, "in_dtype": -1, "out_dtype": -1}
REDUCTIONS = ("none", "mean", "sum")


def append(name: str, op_type: str, inputs: Mapping[str, Any],
           attrs: Mapping[str, Any] | None = None, slot: str = "Out",
           extra: Mapping[str, Any] | None = None) -> Tensor:
    """Append ``op_type`` writing ``name`` in ``slot`` (and ``extra`` outputs); the variable."""
    block = default_main_program().current_block()
    outputs = {slot: name, **(extra or {})}
    block.append_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs)
    return as_tensor(block.var(name))


def named(op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None,
          key: str | None = None, slot: str = "Out") -> Tensor:
    """An op written through a helper named after ``key`` (default the op): ``key_N.tmp_0``."""
    helper = layer_helper(key or op_type)
    return helper.out(op_type, inputs, attrs, slot=slot)


def elementwise(op_type: str, x: Tensor, y: Tensor) -> Tensor:
    """``paddle.subtract`` and friends: the output is named ``elementwise_sub_N``."""
    return append(unique_name.generate(op_type), op_type, {"X": x, "Y": y}, {"axis": -1})


def operator(op_type: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None
            ) -> Tensor:
    """What an operator on Variables writes (``a * b``, ``1 - a``): ``tmp_N``."""
    return append(unique_name.generate("tmp"), op_type, inputs, attrs)


def fill(value: float, shape: Sequence[int], dtype: DTypeLike) -> Tensor:
    """``paddle.full``'s fill_constant: ``fill_constant_N.tmp_0``. 2.6 makes two helpers
    named ``fill_constant`` for one op, so the count moves by two (the first ``fill`` of
    a program writes ``fill_constant_1.tmp_0``)."""
    unique_name.generate("fill_constant")
    return named("fill_constant", {}, {"shape": list(shape), "value": float(value),
                                       "str_value": str(float(value)), "dtype": dtype,
                                       "force_cpu": False, "place_type": -1})


def number(value: float, dtype: DTypeLike) -> Tensor:
    """A Python number made a 0-D tensor to meet a Variable (``label != -100``): ``tmp_N``."""
    return operator("fill_constant", {}, {"shape": [], "value": float(value), "str_value": "",
                                          "dtype": dtype, "force_cpu": False, "place_type": -1})


def reduce(kind: str, x: Tensor, dim: Sequence[int] | None = None) -> Tensor:
    """``paddle.mean`` / ``paddle.sum`` over ``dim`` (None: everything): ``mean_N.tmp_0``.

    2.6 marks ``paddle.mean`` of everything with reduce_all, ``paddle.sum`` with an empty dim.
    """
    everything = dim is None
    attrs = {"dim": [] if dim is None else list(dim),
             "reduce_all": everything and kind == "mean", **REDUCE_ATTRS}
    return named(f"reduce_{kind}", {"X": x}, attrs, key=kind)


def cast(x: Tensor, dtype: DTypeLike, key: str = "cast") -> Tensor:
    """``paddle.cast`` (``cast_N.tmp_0``); ``key="tmp"`` for ``x.astype`` (``tmp_N``)."""
    attrs = {"in_dtype": x.dtype, "out_dtype": convert_dtype(dtype), "use_mkldnn": False}
    if key == "tmp":
        return operator("cast", {"X": x}, attrs)
    return named("cast", {"X": x}, attrs)


def squeeze(x: Tensor, axes: Sequence[int]) -> Tensor:
    helper = layer_helper("squeeze")
    out, xshape = helper.tmp_name(), helper.tmp_name()
    return append(out, "squeeze2", {"X": x}, {"axes": list(axes)}, extra={"XShape": xshape})


def unsqueeze(x: Tensor, axes: Sequence[int]) -> Tensor:
    helper = layer_helper("unsqueeze2")
    out, xshape = helper.tmp_name(), helper.tmp_name()
    return append(out, "unsqueeze2", {"X": x}, {"axes": list(axes)}, extra={"XShape": xshape})


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    helper = layer_helper("reshape2")
    out, xshape = helper.tmp_name(), helper.tmp_name()
    attrs = {"shape": list(shape), "use_quantizer": False, "mkldnn_data_type": "float32"}
    return append(out, "reshape2", {"X": x}, attrs, extra={"XShape": xshape})


def transpose(x: Tensor, perm: Sequence[int]) -> Tensor:
    """``paddle.transpose``: transpose2 writing ``transpose_N.tmp_0``."""
    helper = layer_helper("transpose")
    out, xshape = helper.tmp_name(), helper.tmp_name()
    return append(out, "transpose2", {"X": x}, {"axis": list(perm)}, extra={"XShape": xshape})


def scale(x: Tensor, factor: float, bias: float = 0.0, key: str | None = None) -> Tensor:
    """``factor * x + bias`` as a ``scale`` op: ``tmp_N`` (an operator) unless ``key`` names
    the function (``paddle.scale``: ``scale_N.tmp_0``)."""
    attrs = {"scale": float(factor), "bias": float(bias), "bias_after_scale": True}
    if key is None:
        return operator("scale", {"X": x}, attrs)
    return named("scale", {"X": x}, attrs, key=key)


def check_reduction(function: str, reduction: str, allowed: Sequence[str] = REDUCTIONS) -> None:
    if reduction not in allowed:
        raise ValueError(f"{function}: reduction must be one of {', '.join(map(repr, allowed))}, "
                         f"got {reduction!r}")


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """The usual ending: ``paddle.mean`` for "mean", ``paddle.sum`` for "sum", or as it is."""
    if reduction == "mean":
        return reduce("mean", loss)
    if reduction == "sum":
        return reduce("sum", loss)
    return loss


def unavailable(name: str, why: str, instead: str) -> Any:
    """The error a 2.6 name paddle_nb does not build raises: what, why, and what to use."""
    return NotImplementedError(f"{name} is not available in paddle_nb ({why}); {instead}")
