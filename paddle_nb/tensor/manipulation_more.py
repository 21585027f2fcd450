"""More of paddle.tensor.manipulation, each built on a function of manipulation.py:
reverse (flip), vsplit (split), unflatten (reshape), atleast_1d/2d/3d (reshape, unsqueeze),
broadcast_shape (no op), the in-place forms (reshape_, squeeze_, unsqueeze_: in a static
program the out-of-place op) and the views PaddlePaddle has in dynamic mode only.
"""

from __future__ import annotations

import numpy

# (manipulation.py imports this module: its functions are looked up when called)
from paddle_nb.tensor import manipulation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__: list[str] = ["reverse", "vsplit", "unflatten", "atleast_1d", "atleast_2d", "atleast_3d",
           "broadcast_shape", "reshape_", "squeeze_", "unsqueeze_", "view", "view_as",
           "as_strided", "unfold"]


def reverse(x: Tensor, axis: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` reversed along each of ``axis`` (PaddlePaddle 2.6 writes a ``flip``)."""
    return manipulation.flip(x, axis, name)


def vsplit(x: Tensor, num_or_sections: int, name: str | None = None) -> list[Tensor]:
    """``x`` cut along its first axis (``split`` with axis 0)."""
    if len(x.shape) < 2:
        raise ValueError(f"paddle.vsplit: x must have 2 or more dims, got shape {list(x.shape)}")
    return manipulation.split(x, num_or_sections, 0, name)


def unflatten(x: Tensor, axis: int, shape: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` with dim ``axis`` split into the dims ``shape`` (a ``reshape2``)."""
    axis %= len(x.shape)
    new = list(x.shape[:axis]) + [int(d) for d in shape] + list(x.shape[axis + 1:])
    return manipulation.reshape(x, new, name)


def _atleast(rank: int, inputs: Any) -> Any:
    """Each input with at least ``rank`` dims: a 0-D one reshaped to ones, a 1-D one given a
    leading (and, for rank 3, a trailing) dim, a 2-D one a trailing dim (for rank 3)."""
    outs = []
    for x in inputs:
        have = len(x.shape)
        if have >= rank:
            outs.append(x)
        elif have == 0:
            outs.append(manipulation.reshape(x, [1] * rank))
        else:
            axes = {(1, 2): [0], (1, 3): [0, 2], (2, 3): [2]}[(have, rank)]
            outs.append(manipulation.unsqueeze(x, axes))
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs: Tensor, name: str | None = None) -> Tensor:
    """Each input with at least 1 dim (one input: its result; several: a list)."""
    return _atleast(1, inputs)


def atleast_2d(*inputs: Tensor, name: str | None = None) -> Tensor | list[Tensor]:
    """Each input with at least 2 dims."""
    return _atleast(2, inputs)


def atleast_3d(*inputs: Tensor, name: str | None = None) -> Tensor:
    """Each input with at least 3 dims."""
    return _atleast(3, inputs)


def broadcast_shape(x_shape: Sequence[int], y_shape: Sequence[int]) -> list[int]:
    """The shape two tensors of these shapes broadcast to (a Python list; no op)."""
    return list(numpy.broadcast_shapes(tuple(x_shape), tuple(y_shape)))


# -- in-place forms: PaddlePaddle 2.6 runs them in place in dynamic mode only; in a static
#    program they build the out-of-place op and return its new variable, as here

def reshape_(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """``paddle.reshape`` (in a static program the result is a new variable)."""
    return manipulation.reshape(x, shape, name)


def squeeze_(x: Tensor, axis: int | None = None, name: str | None = None) -> Tensor:
    """``paddle.squeeze`` (in a static program the result is a new variable)."""
    return manipulation.squeeze(x, axis, name)


def unsqueeze_(x: Tensor, axis: int, name: str | None = None) -> Tensor:
    """``paddle.unsqueeze`` (in a static program the result is a new variable)."""
    return manipulation.unsqueeze(x, axis, name)


# -- views share memory with their input: PaddlePaddle has them in dynamic mode only

def _dynamic_only(function: Any, instead: Any) -> None:
    raise NotImplementedError(f"paddle.{function} shares memory with its input, which only "
                              f"PaddlePaddle's dynamic mode does; paddle_nb builds static "
                              f"programs: use {instead}")


def view(x: Tensor, shape_or_dtype: Any, name: str | None = None) -> None:
    """Not in a static program (PaddlePaddle 2.6 refuses it too): use paddle.reshape."""
    _dynamic_only("view", "paddle.reshape (a shape) or paddle.cast (a dtype)")


def view_as(x: Tensor, other: Any, name: str | None = None) -> None:
    """Not in a static program: use paddle.reshape(x, other.shape)."""
    _dynamic_only("view_as", "paddle.reshape(x, other.shape)")


def as_strided(x: Tensor, shape: Any, stride: Any, offset: int = 0, name: str | None = None
              ) -> None:
    """Not in a static program: use paddle.strided_slice or indexing (x[::2])."""
    _dynamic_only("as_strided", "paddle.strided_slice or indexing such as x[::2]")


def unfold(x: Tensor, axis: int, size: Any, step: Any, name: str | None = None) -> None:
    """Not in a static program (PaddlePaddle 2.6 refuses it too: its windows share memory
    with x): gather the windows with paddle.gather along axis, or use
    paddle.nn.functional.unfold for image patches."""
    _dynamic_only("unfold", "paddle.gather of each window's positions along the axis, or "
                  "paddle.nn.functional.unfold for image patches")
