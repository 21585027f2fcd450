"""``paddle.quantile`` and ``paddle.nanquantile``: the q-th quantiles along an axis, by linear
interpolation between the two nearest sorted values, as PaddlePaddle 2.6 builds them.

Op for op as in 2.6: the count of non-NaN values (``isnan_v2``, ``logical_not``, a float64
``reduce_sum``), the fractional position ``q * (count - 1)`` (two ``scale`` ops); ``quantile``
then points a slice holding a NaN at its last value (``full_like``, ``reduce_any``,
``where``), so NaN comes out as PaddlePaddle's does; ``nanquantile`` skips NaNs, which sort
last. The sorted values (``paddle.sort``) at the floor and ceil of the position
(``take_along_axis``) are mixed by ``lerp`` in float64, so the result is float64.

>>> import paddle_nb as paddle
>>> with paddle.program_guard(paddle.Program(), paddle.Program()):
...     q = paddle.quantile(paddle.static.data("x", [2, 3]), 0.5, axis=1)
>>> q.dtype.name, list(q.shape)
('float64', [2])
"""

from __future__ import annotations

from paddle_nb.errors import ShapeError
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor import creation, logic, manipulation, math, reduction, search
from paddle_nb.tensor.building import expect_variable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["quantile", "nanquantile"]


def _refuse(function: Any, message: str) -> None:
    raise ShapeError(f"paddle.{function}: {message}\n  built at {format_site(callstack_strings())}")


def _quantiles(function: str, x: Tensor, q: Any, axis: int | None, keepdim: bool, ignore_nan: bool
              ) -> Tensor:
    expect_variable(x, "x", function)
    qs = list(q) if isinstance(q, (list, tuple)) else [q]
    if not qs or any(not isinstance(v, (int, float)) or not 0 <= v <= 1 for v in qs):
        _refuse(function, f"q must be a number or a list of numbers in [0, 1], got {q!r}")
    if axis is None:
        x, axis = manipulation.flatten(x), 0
    elif not isinstance(axis, int):
        _refuse(function, f"axis must be an int or None in paddle_nb, got {axis!r}")
    rank = len(x.shape)
    if not -rank <= axis < max(rank, 1):
        _refuse(function, f"axis must be in [-{rank}, {rank}), got {axis} for x {list(x.shape)}")
    axis = axis % max(rank, 1)
    mask = logic.isnan(x)
    count = reduction.sum(logic.logical_not(mask), axis=axis, keepdim=True, dtype="float64")
    positions = []
    for value in qs:
        position = (count - 1) * value
        if not ignore_nan:          # a slice with a NaN: its last sorted value, NaN
            last = creation.full_like(position, x.shape[axis] - 1)
            position = search.where(reduction.any(mask, axis=axis, keepdim=True), last, position)
        positions.append(position)
    ordered = search.sort(x, axis=axis)
    outs = [_interpolate(ordered, position, axis, keepdim) for position in positions]
    return outs[0] if len(outs) == 1 else manipulation.stack(outs, 0)


def _interpolate(ordered: Tensor, position: Tensor, axis: int, keepdim: bool) -> Tensor:
    below = manipulation.astype(math.floor(position), "int32")
    above = manipulation.astype(math.ceil(position), "int32")
    upper = manipulation.take_along_axis(ordered, above, axis=axis)
    lower = manipulation.take_along_axis(ordered, below, axis=axis)
    weight = position - manipulation.astype(below, "float64")
    out = math.lerp(manipulation.astype(lower, "float64"), manipulation.astype(upper, "float64"),
                    weight)
    if not keepdim:
        return manipulation.squeeze(out, axis=axis)
    kept = list(ordered.shape)      # as 2.6: a reshape to x's shape with axis of size 1
    kept[axis] = 1
    return manipulation.reshape(out, kept)


def quantile(x: Tensor, q: float | Sequence[float], axis: int | None = None, keepdim: bool = False,
             name: str | None = None) -> Tensor:
    """The ``q``-th quantiles (a number or a list, stacked first) of ``x`` along ``axis``
    (None: all elements), interpolated linearly; NaN where a slice holds a NaN; float64."""
    return _quantiles("quantile", x, q, axis, keepdim, ignore_nan=False)


def nanquantile(x: Tensor, q: float | Sequence[float], axis: int | None = None,
                keepdim: bool = False, name: str | None = None) -> Tensor:
    """``quantile`` over the non-NaN values of each slice."""
    return _quantiles("nanquantile", x, q, axis, keepdim, ignore_nan=True)


register_tensor_methods({"quantile": quantile, "nanquantile": nanquantile})
