"""PaddlePaddle's broadcasting rule for elementwise ops, for shapes and arrays.

``elementwise_add(X, Y, axis)`` lines Y up with X starting at dimension
``axis`` of X (``axis=-1``: at the end, NumPy's rule). Y of shape (3,) and X
of shape (2, 3, 4) with ``axis=1`` means Y varies along X's dimension 1.
After the line-up, NumPy's broadcasting does the rest. The gradient of a
broadcast input sums the output gradient over the dimensions it was
stretched along.

>>> align_shapes((2, 3, 4), (3,), 1)
((2, 3, 4), (1, 3, 1))
>>> broadcast_shape((-1, 3), (1, 3))
(-1, 3)
"""

from collections.abc import Sequence
from typing import Any

from paddle_nb.ops.machinery.registry import fail

__all__ = ["align_shapes", "broadcast_shape", "align", "sum_to"]


def _pad(small: Sequence[int], big_rank: int, axis: int) -> tuple[int, ...]:
    if axis == -1:
        axis = big_rank - len(small)
    if axis < 0 or axis + len(small) > big_rank:
        fail(f"axis {axis} does not fit a rank-{len(small)} operand into a rank-{big_rank} one")
    return (1,) * axis + tuple(small) + (1,) * (big_rank - axis - len(small))


def align_shapes(x: Sequence[int], y: Sequence[int], axis: int
                 ) -> tuple[Sequence[int], Sequence[int]]:
    """Shapes of X and Y made equal in rank, as PaddlePaddle's ``axis`` says."""
    x, y = tuple(x), tuple(y)
    if len(y) < len(x):
        return x, _pad(y, len(x), axis)
    if len(x) < len(y):
        return _pad(x, len(y), axis), y
    return x, y


def broadcast_shape(x: Sequence[int], y: Sequence[int], what: str | None = None
                    ) -> tuple[int, ...]:
    """NumPy broadcasting of two shapes in which -1 means unknown (the shorter one is
    padded with leading 1s); the error names ``what`` (default: the two shapes)."""
    x, y = tuple(x), tuple(y)
    rank = max(len(x), len(y))
    a_dims, b_dims = (1,) * (rank - len(x)) + x, (1,) * (rank - len(y)) + y
    out = []
    for a, b in zip(a_dims, b_dims):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a == -1 or b == -1:
            out.append(max(a, b))
        else:
            fail(f"{what or f'shapes {x} and {y}'} do not broadcast: dimension {len(out)} is "
                 f"{a} and {b}")
    return tuple(out)


def align(x: Any, y: Any, axis: int) -> tuple[Any, Any]:
    """Reshape arrays X and Y so that NumPy broadcasting applies Paddle's rule."""
    xs, ys = align_shapes(x.shape, y.shape, axis)
    if xs != x.shape:
        x = x.reshape(xs)
    if ys != y.shape:
        y = y.reshape(ys)
    return x, y


def sum_to(grad: Any, shape: Sequence[int]) -> Any:
    """Sum ``grad`` over the dimensions NumPy's broadcasting added to ``shape`` (the leading
    ones, and those where ``shape`` has 1): the gradient of a broadcast operand.

    >>> import numpy as np
    >>> sum_to(np.ones((2, 3, 4)), (3, 1)).tolist()
    [[8.0], [8.0], [8.0]]
    """
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    if lead:
        grad = grad.sum(axis=tuple(range(lead)) if lead > 1 else 0)
        if grad.shape == shape:
            return grad
    axes = tuple(i for i, (s, g) in enumerate(zip(shape, grad.shape)) if s == 1 and g != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad
