"""Top-level functions PaddlePaddle 2.6 builds from other tensor functions, no op of their own:
``hypot``, ``ldexp``, ``cdist``, ``tensordot``, ``multigammaln``, ``trapezoid``,
``cumulative_trapezoid``, ``combinations``, ``vander``, ``frexp``.

Each calls the same public functions and Variable operators, in the same order, as 2.6 does,
so the same op types come out under the same names (``paddle.hypot(x, y)`` is two ``pow``,
an ``elementwise_add`` named ``tmp_N`` and a ``sqrt``), and the gradients follow from theirs.

>>> import paddle_nb as paddle
>>> with paddle.program_guard(paddle.Program(), paddle.Program()):
...     x = paddle.static.data("x", [2, 3])
...     h = paddle.hypot(x, x)
>>> [op.type for op in h.block.ops]
['pow', 'pow', 'elementwise_add', 'sqrt']
"""

from __future__ import annotations

import math as pymath

from paddle_nb.errors import ShapeError
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor import logic
from paddle_nb.tensor import attribute, creation, indexing, linalg, manipulation, reduction, search
from paddle_nb.tensor import math as tmath
from paddle_nb.tensor.building import expect_variable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["hypot", "ldexp", "cdist", "tensordot", "multigammaln", "trapezoid",
           "cumulative_trapezoid", "combinations", "vander", "frexp"]


def _refuse(function: Any, message: str) -> None:
    raise ShapeError(f"paddle.{function}: {message}\n"
                     f"  built at {format_site(callstack_strings())}")


def hypot(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """sqrt(x**2 + y**2), elementwise (with broadcasting)."""
    expect_variable(x, "x", "hypot")
    expect_variable(y, "y", "hypot")
    return tmath.sqrt(tmath.pow(x, 2) + tmath.pow(y, 2))


def ldexp(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """x * 2**y (y is an exponent tensor, usually of ints); float32 unless x is float64."""
    expect_variable(x, "x", "ldexp")
    expect_variable(y, "y", "ldexp")
    dtype = "float64" if x.dtype == "float64" else "float32"
    x = manipulation.cast(x, dtype)
    y = manipulation.cast(y, dtype)
    two = manipulation.cast(creation.to_tensor(2, dtype="int64"), dtype)
    return tmath.multiply(x, tmath.pow(two, y))


def cdist(x: Tensor, y: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary", name: str | None = None
         ) -> Tensor:
    """The p-norm distance between each row of ``x`` [..., P, M] and of ``y`` [..., R, M]:
    [..., P, R] (computed as the norm of the broadcast difference, as 2.6 does)."""
    expect_variable(x, "x", "cdist")
    expect_variable(y, "y", "cdist")
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1]:
        _refuse("cdist", f"x [..., P, M] and y [..., R, M] must share M; got x "
                f"{list(x.shape)} and y {list(y.shape)}")
    diff = manipulation.unsqueeze(x, len(x.shape) - 1) - manipulation.unsqueeze(
        y, len(y.shape) - 2)
    return linalg.norm(diff, p=float(p), axis=-1)


def _tensordot_axes(axes: Any, x_rank: int, y_rank: int) -> Any:
    """(contracted axes of x, of y) from ``axes``: an int n (the last n of x with the first n
    of y), or a pair of lists (one list means the same axes in both)."""
    if isinstance(axes, int):
        return list(range(x_rank - axes, x_rank)), list(range(axes))
    axes = [list(a) if isinstance(a, (list, tuple)) else [a] for a in axes]
    ax, ay = (axes + [axes[0]])[:2] if len(axes) == 1 else axes[:2]
    return [a % x_rank for a in ax], [a % y_rank for a in ay]


def tensordot(x: Tensor, y: Tensor, axes: int | Sequence[list[Any]] = 2, name: str | None = None
             ) -> Tensor:
    """Sum of products over ``axes`` of x and y (transpose, reshape to 2-D, matmul, reshape)."""
    expect_variable(x, "x", "tensordot")
    expect_variable(y, "y", "tensordot")
    ax, ay = _tensordot_axes(axes, len(x.shape), len(y.shape))
    if len(ax) != len(ay) or any(x.shape[i] != y.shape[j] for i, j in zip(ax, ay)):
        _refuse("tensordot", f"contracted axes {ax} of x {list(x.shape)} and {ay} of y "
                f"{list(y.shape)} must pair up with equal sizes")
    free_x = [i for i in range(len(x.shape)) if i not in ax]
    free_y = [j for j in range(len(y.shape)) if j not in ay]
    size = pymath.prod(x.shape[i] for i in ax)
    out_shape = [x.shape[i] for i in free_x] + [y.shape[j] for j in free_y]
    a = manipulation.reshape(manipulation.transpose(x, free_x + ax), [-1, size]
                             if -1 in x.shape else [pymath.prod(x.shape) // size, size])
    b = manipulation.reshape(manipulation.transpose(y, ay + free_y), [size, -1]
                             if -1 in y.shape else [size, pymath.prod(y.shape) // size])
    return manipulation.reshape(linalg.matmul(a, b), out_shape)


def multigammaln(x: Tensor, p: int, name: str | None = None) -> Tensor:
    """log of the multivariate gamma function of dimension ``p``:
    p(p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2)."""
    expect_variable(x, "x", "multigammaln")
    if not isinstance(p, int) or p < 1:
        _refuse("multigammaln", f"'p' must be a positive int, got {p!r}")
    constant = 0.25 * p * (p - 1) * pymath.log(pymath.pi)
    b = creation.arange(-p + 1.0, 1.0, 1.0, dtype=x.dtype) * 0.5
    terms = tmath.lgamma(manipulation.unsqueeze(x, -1) + b)
    return reduction.sum(terms, axis=-1) + constant


def _trapezoid_parts(function: str, y: Tensor, x: Tensor | None, dx: float | None, axis: int
                    ) -> Any:
    """(the spacing, y's right and left neighbours along ``axis``) for the trapezoid rule."""
    expect_variable(y, "y", function)
    if x is not None:
        _refuse(function, "sample points 'x' are not available in paddle_nb; pass the "
                "spacing 'dx' (or none, for 1)")
    axis = axis % len(y.shape)
    n = y.shape[axis]
    spacing = creation.to_tensor(1.0 if dx is None else dx, dtype=y.dtype)
    right = manipulation.gather(y, creation.arange(1, n), axis=axis)
    left = manipulation.gather(y, creation.arange(0, n - 1), axis=axis)
    return spacing, right, left, axis


def trapezoid(y: Tensor, x: Tensor | None = None, dx: float | None = None, axis: int = -1,
              name: str | None = None) -> Tensor:
    """The integral of ``y`` along ``axis`` by the trapezoid rule, samples ``dx`` apart."""
    spacing, right, left, axis = _trapezoid_parts("trapezoid", y, x, dx, axis)
    return 0.5 * reduction.sum((right + left) * spacing, axis=axis)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, dx: float | None = None,
                         axis: int = -1, name: str | None = None) -> Tensor:
    """The running trapezoid-rule integral of ``y`` along ``axis`` (one fewer sample)."""
    spacing, right, left, axis = _trapezoid_parts("cumulative_trapezoid", y, x, dx, axis)
    return 0.5 * tmath.cumsum((right + left) * spacing, axis=axis)


def combinations(x: Tensor, r: int = 2, with_replacement: bool = False, name: str | None = None
                ) -> Tensor:
    """The length-``r`` combinations of the 1-D ``x``'s elements, one per row [C, r], in
    lexicographic order of positions (with repeats when ``with_replacement``)."""
    expect_variable(x, "x", "combinations")
    if len(x.shape) != 1 or not isinstance(r, int) or r < 1:
        _refuse("combinations", f"x must be 1-D and r a positive int, got x {list(x.shape)}, "
                f"r={r!r}")
    grids = creation.meshgrid(*[x] * r)
    positions = creation.arange(attribute.numel(x))
    position_grids = creation.meshgrid(*[positions] * r)
    mask = creation.full(list(x.shape) * r, True, dtype="bool")
    for left, right in zip(position_grids, position_grids[1:]):
        mask = mask * (left <= right if with_replacement else left < right)
    picked = [search.masked_select(grid, mask) for grid in grids]
    return manipulation.stack(picked, axis=1)


def vander(x: Tensor, n: int | None = None, increasing: bool = False, name: str | None = None
          ) -> Tensor:
    """The Vandermonde matrix of the 1-D ``x``: column j holds x**(n-1-j) (x**j when
    ``increasing``); ``n`` columns, len(x) by default."""
    expect_variable(x, "x", "vander")
    if len(x.shape) != 1:
        _refuse("vander", f"x must be 1-D, got shape {list(x.shape)}")
    n = x.shape[0] if n is None else n
    if not isinstance(n, int) or n < 0:
        _refuse("vander", f"n must be a non-negative int, got {n!r}")
    out = creation.empty([x.shape[0], n], dtype=x.dtype)
    every = slice(None)
    if n > 0:
        one = manipulation.cast(creation.to_tensor([1]), x.dtype)     # int64, cast, as 2.6
        out = indexing.setitem(out, (every, 0), one)
    if n > 1:
        out = indexing.setitem(out, (every, slice(1, None)), x[:, None])
        out = indexing.setitem(out, (every, slice(1, None)),
                               tmath.cumprod(out[:, 1:], dim=-1))
    return out if increasing else out[:, ::-1]


def frexp(x: Tensor, name: str | None = None) -> tuple[Tensor, ...]:
    """(mantissa, exponent) with x = mantissa * 2**exponent, |mantissa| in [0.5, 1) (0 for
    x = 0); both of x's float dtype."""
    expect_variable(x, "x", "frexp")
    if x.dtype.kind != "f":
        _refuse("frexp", f"x must be a float tensor, got {x.dtype}")
    magnitude = tmath.abs(x)
    exponent = tmath.floor(tmath.log2(magnitude))
    exponent = search.where(logic.isinf(exponent), creation.full_like(exponent, 0), exponent)
    mantissa = tmath.divide(magnitude, 2 ** exponent)
    exponent = search.where(mantissa >= 1, tmath.add(exponent, creation.ones_like(exponent)),
                            exponent)
    mantissa = search.where(mantissa >= 1, tmath.divide(
        mantissa, 2 ** creation.ones_like(exponent)), mantissa)
    return search.where(x < 0, mantissa * -1, mantissa), exponent


register_tensor_methods({n: globals()[n] for n in __all__})
