"""Statistics at paddle's top level: mean, var, std.

``mean`` is one ``reduce_mean``. ``var`` and ``std`` build what PaddlePaddle 2.6 builds, op
for op and name for name: the mean (dims kept), the squared deviations
(``elementwise_sub``, ``pow``), their sum, and the count divided out, taken at run time from
the two sizes (``size`` ops and casts), less one for the unbiased estimate but never below
one (``greater_than`` and ``where``). ``median`` and ``quantile`` are not available yet.
"""

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor.building import (
    append_out, append_tmp, axis_list, constant, expect_variable, reduces_all,
)
from paddle_nb.tensor.reduction import reduce_attrs
from paddle_nb.tensor.reduction import sum as reduce_sum

__all__ = ["mean", "var", "std", "median", "quantile"]


def mean(x, axis=None, keepdim=False, name=None):
    """The mean over ``axis`` (None: every element, a 0-D result); x is a float tensor."""
    expect_variable(x, "x", "mean")
    if x.dtype.kind != "f":
        raise TypeError(f"mean: x must be a float tensor (float16/32/64), got {x.dtype}")
    return append_out("reduce_mean", {"X": x}, reduce_attrs(x, axis, keepdim), helper="mean",
                      name=name)


def _count(x):
    """numel(x) as a 0-D int64 tensor: ``size``, then ``cast`` to int64, as PaddlePaddle."""
    n = append_out("size", {"Input": x}, helper="numel")
    return append_out("cast", {"X": n}, {"in_dtype": n.dtype, "out_dtype": "int64"})


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
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


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The standard deviation over ``axis``: sqrt(var)."""
    return append_out("sqrt", {"X": var(x, axis, unbiased, keepdim)}, name=name)


def median(x, axis=None, keepdim=False, name=None):
    """Not available in paddle_nb yet."""
    raise NotImplementedError("paddle.median is not available in paddle_nb; sort x "
                              "(paddle.sort or paddle.topk) and take the middle element(s)")


def quantile(x, q, axis=None, keepdim=False, name=None):
    """Not available in paddle_nb yet."""
    raise NotImplementedError("paddle.quantile is not available in paddle_nb; sort x "
                              "(paddle.sort) and interpolate between neighbours with "
                              "paddle.lerp")


register_tensor_methods({n: globals()[n] for n in __all__})
