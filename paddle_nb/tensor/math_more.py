"""More math at paddle's top level: functions PaddlePaddle 2.6 builds from several ops, and
the special functions.

``nan_to_num``, ``diff``, ``frac``, ``logaddexp``, ``nansum`` and ``nanmean`` append the
same chain of ops PaddlePaddle writes (so the same names come out: ``paddle.frac(x)`` is a
``trunc`` and an ``elementwise_sub_0``); ``cummax`` / ``cummin`` / ``logcumsumexp`` and the
Bessel functions and ``polygamma`` are one op each. Each is also a Variable method.
"""

from __future__ import annotations

import numpy

from paddle_nb.core.dtypes import to_var_type
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.layers.helper import layer_helper
from paddle_nb.tensor.building import (
    append_named, append_out, append_outs, append_tmp, cast_to, expect_variable,
)
from paddle_nb.tensor.reduction import sum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["nan_to_num", "diff", "logcumsumexp", "cummax", "cummin", "frac", "deg2rad",
           "rad2deg", "sgn", "logaddexp", "nansum", "nanmean", "i0", "i0e", "i1", "i1e",
           "polygamma", "multiplex", "nextafter"]


def _unary(op_type: str, x: Tensor, name: str | None) -> Tensor:
    return append_out(op_type, {"X": expect_variable(x, "x", op_type)}, name=name)


def _special(op_type: str, x: Tensor, name: str | None, attrs: Any = None) -> Tensor:
    """One of the special-function ops, whose slots are lower case (x, out)."""
    return append_out(op_type, {"x": expect_variable(x, "x", op_type)}, attrs, slot="out",
                      name=name)


def i0(x: Tensor, name: str | None = None) -> Tensor:
    """The modified Bessel function of order 0."""
    return _special("i0", x, name)


def i0e(x: Tensor, name: str | None = None) -> Tensor:
    """exp(-|x|) * i0(x)."""
    return _special("i0e", x, name)


def i1(x: Tensor, name: str | None = None) -> Tensor:
    """The modified Bessel function of order 1."""
    return _special("i1", x, name)


def i1e(x: Tensor, name: str | None = None) -> Tensor:
    """exp(-|x|) * i1(x)."""
    return _special("i1e", x, name)


def nextafter(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """The next float after x in the direction of y."""
    expect_variable(y, "y", "nextafter")
    return append_out("nextafter", {"x": expect_variable(x, "x", "nextafter"), "y": y},
                      slot="out", name=name)


def multiplex(inputs: Sequence[Tensor], index: Tensor, name: str | None = None) -> Tensor:
    """Row i of ``inputs[index[i]]`` for each i (``index``: an int tensor of shape [N, 1])."""
    for k, v in enumerate(inputs):
        expect_variable(v, f"inputs[{k}]", "multiplex")
    expect_variable(index, "index", "multiplex")
    return append_out("multiplex", {"Ids": index, "X": list(inputs)}, name=name)


def polygamma(x: Tensor, n: int, name: str | None = None) -> Tensor:
    """The n-th derivative of digamma."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
    return _special("polygamma", x, name, {"n": n})


def nan_to_num(x: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: Any = None,
               name: str | None = None) -> Tensor:
    """x with NaN replaced by ``nan`` and +-inf by ``posinf`` / ``neginf`` (default: the
    dtype's largest and smallest finite values), built as PaddlePaddle does: five
    ``fill_any_like`` constants, then ``isnan_v2`` / ``equal`` and ``where`` three times."""
    expect_variable(x, "x", "nan_to_num")
    largest = float(numpy.finfo(x.dtype).max)
    values = [numpy.inf, -numpy.inf, nan, largest if posinf is None else posinf,
              -largest if neginf is None else neginf]
    inf, minus_inf, nan_t, pos_t, neg_t = (
        append_out("fill_any_like", {"X": x}, {"value": float(v),
                                               "dtype": int(to_var_type(x.dtype))},
                   helper="full_like") for v in values)
    out = append_out("where", {"Condition": append_out("isnan_v2", {"X": x}), "X": nan_t, "Y": x})
    for special, replacement in ((inf, pos_t), (minus_inf, neg_t)):
        hit = append_out("equal", {"X": out, "Y": special}, {"axis": -1, "force_cpu": False})
        out = append_out("where", {"Condition": hit, "X": replacement, "Y": out})
    return out


def diff(x: Tensor, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None,
         name: str | None = None) -> Tensor:
    """The ``n``-th forward difference along ``axis``: x[1:] - x[:-1] (two ``slice`` ops and
    an ``elementwise_sub``), n times."""
    expect_variable(x, "x", "diff")
    if prepend is not None or append is not None:
        raise NotImplementedError("paddle.diff with prepend / append is not available in "
                                  "paddle_nb; concatenate them to x first (paddle.concat)")
    axis = axis % len(x.shape)
    for k in range(n):
        length = x.shape[axis]
        if length < 0:
            raise ValueError(f"paddle_nb's diff needs the size of axis {axis} known when the "
                             f"program is built; x has shape {list(x.shape)}")
        helper = layer_helper("diff")
        ends = [helper.out("slice", {"Input": x}, {"axes": [axis], "starts": [start],
                                                   "ends": [stop], "decrease_axis": [],
                                                   "infer_flags": []})
                for start, stop in ((0, length - 1), (1, length))]
        x = _subtract(ends[1], ends[0], name=name if k == n - 1 else None)
    return x


def logcumsumexp(x: Tensor, axis: int | None = None, dtype: DTypeLike | None = None,
                 name: str | None = None) -> Tensor:
    """log(cumsum(exp(x))) along ``axis`` (None: x flattened), without overflow."""
    expect_variable(x, "x", "logcumsumexp")
    if dtype is not None:
        x = cast_to(x, dtype)
    attrs = {"flatten": True, "axis": -1} if axis is None else {"flatten": False, "axis": axis}
    return append_out("logcumsumexp", {"X": x}, {**attrs, "exclusive": False, "reverse": False},
                      name=name)


def _running_extreme(op_type: str, x: Tensor, axis: int | None, dtype: DTypeLike, name: str | None
                    ) -> Any:
    expect_variable(x, "x", op_type)
    if axis is None:
        x = append_outs("flatten_contiguous_range", {"X": x},
                        {"start_axis": 0, "stop_axis": len(x.shape) - 1 if x.shape else 0},
                        ("Out", "XShape"), helper="flatten")[0]
        axis = -1
    return tuple(append_outs(op_type, {"x": x}, {"axis": axis,
                                                 "dtype": int(to_var_type(dtype))},
                             ("out", "indices"), name=name))


def cummax(x: Tensor, axis: int | None = None, dtype: DTypeLike = "int64", name: str | None = None
          ) -> tuple[Tensor, ...]:
    """(the running maximum along ``axis``, where it was); None: over x flattened."""
    return _running_extreme("cummax", x, axis, dtype, name)


def cummin(x: Tensor, axis: int | None = None, dtype: DTypeLike = "int64", name: str | None = None
          ) -> tuple[Tensor, ...]:
    """(the running minimum along ``axis``, where it was); None: over x flattened."""
    return _running_extreme("cummin", x, axis, dtype, name)


def frac(x: Tensor, name: str | None = None) -> Tensor:
    """The fractional part, x - trunc(x)."""
    return _subtract(x, _unary("trunc", x, None), name=name)


def deg2rad(x: Tensor, name: str | None = None) -> Tensor:
    """Degrees to radians (a ``scale`` by pi / 180, written to ``deg2rad_N.tmp_0``)."""
    expect_variable(x, "x", "deg2rad")
    return append_out("scale", {"X": x}, {"scale": numpy.pi / 180.0, "bias": 0.0,
                                          "bias_after_scale": True}, helper="deg2rad", name=name)


def rad2deg(x: Tensor, name: str | None = None) -> Tensor:
    """Radians to degrees (a ``scale`` by 180 / pi)."""
    expect_variable(x, "x", "rad2deg")
    return append_out("scale", {"X": x}, {"scale": 180.0 / numpy.pi, "bias": 0.0,
                                          "bias_after_scale": True}, helper="rad2deg", name=name)


def sgn(x: Tensor, name: str | None = None) -> Tensor:
    """The sign of a real x (``sign``)."""
    return _unary("sign", x, name)


def logaddexp(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """log(exp(x) + exp(y)) = log1p(exp(-|x - y|)) + max(x, y), as PaddlePaddle builds it."""
    expect_variable(x, "x", "logaddexp")
    expect_variable(y, "y", "logaddexp")
    spread = -_unary("abs", x - y, None)
    return _unary("log1p", _unary("exp", spread, None), None) + append_named(
        "elementwise_max", {"X": x, "Y": y}, {"axis": -1})


def _nan_to_zero(x: Tensor) -> Tensor:
    zero = append_out("fill_any_like", {"X": x}, {"value": 0.0,
                                                  "dtype": int(to_var_type(x.dtype))},
                      helper="full_like")
    return append_out("where", {"Condition": append_out("isnan_v2", {"X": x}), "X": zero,
                                "Y": x})


def nansum(x: Tensor, axis: int | None = None, dtype: DTypeLike | None = None,
           keepdim: bool = False, name: str | None = None) -> Tensor:
    """The sum over ``axis`` with NaNs taken as 0."""
    expect_variable(x, "x", "nansum")
    return sum(_nan_to_zero(x), axis=axis, dtype=dtype, keepdim=keepdim, name=name)


def nanmean(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
           ) -> Tensor:
    """The mean over ``axis`` of the elements that are not NaN."""
    expect_variable(x, "x", "nanmean")
    count = sum(append_out("bitwise_not", {"X": append_out("isnan_v2", {"X": x})}), axis=axis,
                keepdim=keepdim)
    total = nansum(x, axis=axis, keepdim=keepdim)
    return append_named("elementwise_div", {"X": total, "Y": append_tmp_cast(count, x.dtype)},
                        {"axis": -1}, name=name)


def append_tmp_cast(x: Tensor, dtype: DTypeLike) -> Tensor:
    """``x.astype(dtype)`` as a Variable method writes it (``tmp_N``)."""
    return append_tmp("cast", {"X": x}, {"in_dtype": x.dtype, "out_dtype": dtype})


def _subtract(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """paddle.subtract's op and naming (``elementwise_sub_N``)."""
    return append_named("elementwise_sub", {"X": x, "Y": y}, {"axis": -1}, name=name)


register_tensor_methods({n: globals()[n] for n in __all__ if n != "multiplex"})
