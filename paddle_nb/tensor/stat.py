"""Statistics at paddle's top level: mean, var, std, median.

``mean`` is one ``reduce_mean``. ``var`` and ``std`` build what PaddlePaddle 2.6 builds, op
for op and name for name: the mean (dims kept), the squared deviations
(``elementwise_sub``, ``pow``), their sum, and the count divided out, taken at run time from
the two sizes (``size`` ops and casts), less one for the unbiased estimate but never below
one (``greater_than`` and ``where``). ``median`` sorts with ``top_k_v2``; ``nanmedian`` is one op;
``quantile`` lives in quantile.py.
"""

from __future__ import annotations

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor.building import (
    append_out, append_outs, append_tmp, axis_list, constant, expect_variable, reduces_all,
)
from paddle_nb.tensor.reduction import reduce_attrs
from paddle_nb.tensor.reduction import sum as reduce_sum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paddle_nb.framework.variable import Tensor

__all__ = ["mean", "var", "std", "median", "nanmedian"]


def mean(x: Tensor, axis: int | Sequence[int] | None = None, keepdim: bool = False,
         name: str | None = None) -> Tensor:
    """The mean over ``axis`` (None: every element, a 0-D result); x is a float tensor."""
    expect_variable(x, "x", "mean")
    if x.dtype.kind != "f":
        raise TypeError(f"mean: x must be a float tensor (float16/32/64), got {x.dtype}")
    return append_out("reduce_mean", {"X": x}, reduce_attrs(x, axis, keepdim), helper="mean",
                      name=name)


def _count(x: Tensor) -> Tensor:
    """numel(x) as a 0-D int64 tensor: ``size``, then ``cast`` to int64, as PaddlePaddle."""
    n = append_out("size", {"Input": x}, helper="numel")
    return append_out("cast", {"X": n}, {"in_dtype": n.dtype, "out_dtype": "int64"})


def var(x: Tensor, axis: int | None = None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """The variance over ``axis``: the summed squared deviation divided by the count, less one
    when ``unbiased`` (never by less than 1). The count comes from the Variable operators
    (``a / b`` of two int64 counts casts both to float32), as in PaddlePaddle."""
    expect_variable(x, "x", "var")
    axes = axis_list(axis)
    u = append_out("reduce_mean", {"X": x}, {"dim": axes, "keep_dim": True,
                                             "reduce_all": reduces_all(axes, x)}, helper="mean")
    total = reduce_sum(append_out("pow", {"X": x - u}, {"factor": 2.0}), axis=axis,
                       keepdim=keepdim)
    ratio = _count(x) / _count(total)
    n = append_tmp("cast", {"X": ratio}, {"in_dtype": ratio.dtype, "out_dtype": x.dtype})
    if unbiased:
        one = constant(1.0, x.dtype)
        n = append_out("where", {"Condition": n > one, "X": n - 1, "Y": one})
    if name is not None:
        return append_out("elementwise_div", {"X": total, "Y": n}, {"axis": -1}, name=name)
    return total / n


def std(x: Tensor, axis: int | None = None, unbiased: bool = True, keepdim: bool = False,
        name: str | None = None) -> Tensor:
    """The standard deviation over ``axis``: sqrt(var)."""
    return append_out("sqrt", {"X": var(x, axis, unbiased, keepdim)}, name=name)


def median(x: Tensor, axis: int | None = None, keepdim: bool = False, name: str | None = None
          ) -> Tensor:
    """The median over ``axis`` (None: of every element, 0-D), built as PaddlePaddle 2.6
    builds it: the smallest half-plus-one values (``top_k_v2``), the middle one or the mean of
    the middle two (``slice``), plus sum(isnan(x) * x) over the axis, which is NaN exactly
    when x holds a NaN (and 0 otherwise)."""
    expect_variable(x, "x", "median")
    rank, everything = len(x.shape), axis is None
    if axis is None:
        x = append_outs("flatten_contiguous_range", {"X": x},
                        {"start_axis": 0, "stop_axis": max(rank - 1, 0)}, ("Out", "XShape"),
                        helper="flatten")[0]
        axis = 0
    else:
        axis = axis % max(rank, 1)
    size = x.shape[axis]
    if size < 0:
        raise ValueError(f"paddle_nb's median needs the size of axis {axis} known when the "
                         f"program is built; x has shape {list(x.shape)}")
    middle = size // 2
    top = append_outs("top_k_v2", {"X": x}, {"k": middle + 1, "axis": axis, "largest": False,
                                             "sorted": True}, ("Out", "Indices"))[0]

    def element(k: int) -> Tensor:
        return append_out("slice", {"Input": top}, {"axes": [axis], "starts": [k],
                                                    "ends": [k + 1], "decrease_axis": [],
                                                    "infer_flags": [1]})
    if size % 2 == 0:
        pair = element(middle - 1) + element(middle)
        out = append_out("cast", {"X": pair}, {"in_dtype": pair.dtype, "out_dtype": x.dtype}) * 0.5
    else:
        picked = element(middle)
        out = append_out("cast", {"X": picked}, {"in_dtype": picked.dtype, "out_dtype": x.dtype})
    nan = append_out("isnan_v2", {"X": x})
    nan = append_out("cast", {"X": nan}, {"in_dtype": nan.dtype, "out_dtype": x.dtype}) * x
    out = out + reduce_sum(nan, axis=axis, keepdim=True)
    if everything:
        return append_outs("reshape2", {"X": out}, {"shape": [1] * rank if keepdim else []},
                           ("Out", "XShape"), name=name)[0]
    if keepdim:
        return out
    return append_outs("squeeze2", {"X": out}, {"axes": [axis]}, ("Out", "XShape"),
                       helper="squeeze", name=name)[0]


def nanmedian(x: Tensor, axis: int | Sequence[int] | None = None, keepdim: bool = False,
              name: str | None = None) -> Tensor:
    """The median over ``axis`` of the elements that are not NaN (one ``nanmedian`` op)."""
    expect_variable(x, "x", "nanmedian")
    out, _ = append_outs("nanmedian", {"X": x}, {"axis": axis_list(axis), "keepdim": keepdim},
                         ("Out", "MedianIndex"), name=name)
    return out


register_tensor_methods({n: globals()[n] for n in __all__})
