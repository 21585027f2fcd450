"""Attributes that a tensor may give at run time: ``shape``, ``starts``, ``repeat_times``, ``k``.

PaddlePaddle 2.x lets a list attribute be decided by the program itself:
``paddle.full([paddle.shape(x)[0], 4], 1.0)`` writes ``fill_constant`` with
the attribute ``shape = [-1, 4]`` plus a ``ShapeTensorList`` input holding one
one-element tensor per entry, and ``paddle.reshape(x, paddle.shape(y))`` fills
a ``Shape`` input with one 1-D tensor. At run time a tensor wins over the
attribute; at build time shape inference cannot read tensors, so the dims they
decide are -1 (unknown), as they are for a batch dimension.

>>> from paddle_nb.ops.machinery.registry import Meta
>>> ints_at_build([-1, 4], None, [Meta((), None), Meta((1,), None)])
[-1, 4]
>>> ints_at_build([], Meta((3,), None), None)
[-1, -1, -1]
"""

from collections.abc import Sequence
from typing import Any

from paddle_nb.ops.machinery.registry import fail

__all__ = ["host_ints", "ints_at_run", "ints_at_build", "scalar_at_run"]


def host_ints(array: Any) -> list[int]:
    """The values of an integer tensor as Python ints (a device array is copied back)."""
    return [int(v) for v in array.reshape(-1).tolist()]


def scalar_at_run(attr: Any, tensor: Any) -> Any:
    """A one-value attribute (``k``, ``depth``, ``axis``) that a tensor may override."""
    return attr if tensor is None else host_ints(tensor)[0]


def ints_at_run(attr: Sequence[int], tensor: Any = None, tensor_list: Sequence[Any] | None = None
                ) -> list[int]:
    """An int-list attribute's value: one 1-D ``tensor`` wins, then ``tensor_list`` (one
    one-element tensor per entry), then the attribute itself."""
    if tensor is not None:
        return host_ints(tensor)
    if tensor_list:
        return [host_ints(t)[0] for t in tensor_list]
    return list(attr)


def ints_at_build(attr: Sequence[int], tensor: Any = None, tensor_list: Sequence[Any] | None = None,
                  slots: Sequence[str] = ("Shape", "ShapeTensor")) -> list[int]:
    """What shape inference knows of such an attribute: -1 where a tensor decides.

    With a list of one-element tensors, PaddlePaddle writes the constant entries into the
    attribute too (and -1 for the others), so entries >= 0 of an attribute of the list's
    length are kept. One 1-D tensor gives only its length. ``slots`` names the two input
    slots (the op's own names) for the error messages.
    """
    if tensor is not None:
        if len(tensor.shape) != 1 or tensor.shape[0] < 0:
            fail(f"{slots[0]} must be a 1-D tensor of known length, got shape "
                 f"{tuple(tensor.shape)}")
        return [-1] * tensor.shape[0]
    if tensor_list:
        for i, m in enumerate(tensor_list):
            if any(d > 1 for d in m.shape):
                fail(f"each tensor of {slots[1]} must hold one value, got shape "
                     f"{tuple(m.shape)} at {i}")
        if len(attr) == len(tensor_list):
            return [a if a >= 0 else -1 for a in attr]
        return [-1] * len(tensor_list)
    return list(attr)
