"""Searching and sorting at paddle's top level: argmax, argmin, argsort, sort, topk, where,
nonzero, masked_select, index_sample, kthvalue, mode, searchsorted, bucketize.

As in PaddlePaddle 2.6: argmax and argmin without an axis search the whole tensor and give
a 0-D int64 result; ``where`` with one argument is ``nonzero(condition, as_tuple=True)``;
``where`` with three broadcasts its operands by adding zeros shaped like each of them.
"""

from __future__ import annotations

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor.creation import cast_to, full, zeros_like
from paddle_nb.tensor.naming import append, append_many, append_named, generated_name, is_var
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["argmax", "argmin", "argsort", "sort", "topk", "where", "nonzero", "masked_select",
           "index_sample", "kthvalue", "mode", "searchsorted", "bucketize", "bincount",
           "histogram"]


def _arg(key: str, op_type: str, x: Tensor, axis: int | None, keepdim: bool, dtype: DTypeLike,
         name: str | None) -> Tensor:
    dtype = convert_dtype(dtype)
    if dtype not in (numpy.dtype("int32"), numpy.dtype("int64")):
        raise TypeError(f"paddle.{key}: dtype must be int32 or int64, got {dtype}")
    attrs = {"axis": 0 if axis is None else int(axis), "keepdims": bool(keepdim),
             "flatten": axis is None, "dtype": dtype}
    return append(key, op_type, {"X": x}, attrs, name=name)


def argmax(x: Tensor, axis: int | None = None, keepdim: bool = False, dtype: DTypeLike = "int64",
           name: str | None = None) -> Tensor:
    """Where the largest value of ``x`` is along ``axis`` (of the whole tensor: 0-D)."""
    return _arg("argmax", "arg_max", x, axis, keepdim, dtype, name)


def argmin(x: Tensor, axis: int | None = None, keepdim: bool = False, dtype: DTypeLike = "int64",
           name: str | None = None) -> Tensor:
    """Where the smallest value of ``x`` is along ``axis`` (of the whole tensor: 0-D)."""
    return _arg("argmin", "arg_min", x, axis, keepdim, dtype, name)


def _sorted(key: str, x: Tensor, axis: int, descending: bool, name: str | None) -> Any:
    return append_many(key, "argsort", {"X": x},
                       {"axis": int(axis), "descending": bool(descending)},
                       ["Out", "Indices"], name=name)


def argsort(x: Tensor, axis: int = -1, descending: bool = False, name: str | None = None) -> Tensor:
    """The int64 positions that sort ``x`` along ``axis``."""
    return _sorted("argsort", x, axis, descending, name)[1]


def sort(x: Tensor, axis: int = -1, descending: bool = False, name: str | None = None) -> Tensor:
    """``x`` sorted along ``axis``."""
    return _sorted("sort", x, axis, descending, name)[0]


def topk(x: Tensor, k: int, axis: int | None = None, largest: bool = True, sorted: bool = True,
         name: str | None = None) -> tuple[Tensor, ...]:
    """The ``k`` largest (or smallest) values along ``axis`` (-1) and their positions."""
    ins, attrs = {"X": x}, {"axis": -1 if axis is None else int(axis), "largest": largest,
                            "sorted": sorted}
    if is_var(k):
        ins["K"] = k
    else:
        attrs["k"] = int(k)
    values, indices = append_many("top_k_v2", "top_k_v2", ins, attrs, ["Out", "Indices"],
                                  name=name)
    return values, indices


def _add(x: Tensor, y: Tensor) -> Tensor:
    return append_named(generated_name("elementwise_add"), "elementwise_add",
                        {"X": x, "Y": y}, {"axis": -1})


def _broadcast_operands(condition: Tensor, x: Tensor, y: Tensor) -> Any:
    """PaddlePaddle 2.6's broadcast for where: zeros like each operand, added up, added to each."""
    zeros_x, zeros_y = zeros_like(x), zeros_like(y)
    zeros_c = cast_to(zeros_like(condition), x.dtype)
    cond = cast_to(condition, x.dtype)
    zeros = _add(_add(zeros_x, zeros_y), zeros_c)
    x, y = _add(x, zeros), _add(y, zeros)
    return cast_to(_add(cond, zeros), numpy.dtype(bool)), x, y


@overload
def where(condition: Tensor, x: None = None, y: None = None, name: str | None = None
          ) -> tuple[Tensor, ...]: ...
@overload
def where(condition: Tensor, x: Tensor | float, y: Tensor | float, name: str | None = None
          ) -> Tensor: ...
def where(condition: Tensor, x: Tensor | float | None = None, y: Tensor | float | None = None,
          name: str | None = None) -> Tensor | tuple[Tensor, ...]:
    """``x`` where ``condition`` holds, else ``y``; with ``condition`` alone, its nonzero
    positions, one tensor per dim."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("paddle.where: give both x and y, or neither")
    if not is_var(x):
        x = full([1], x, numpy.asarray(x).dtype.name if not isinstance(x, float) else "float32")
    if not is_var(y):
        y = full([1], y, numpy.asarray(y).dtype.name if not isinstance(y, float) else "float32")
    if not (list(x.shape) == list(y.shape) == list(condition.shape)):
        condition, x, y = _broadcast_operands(condition, x, y)
    return append("where", "where", {"Condition": condition, "X": x, "Y": y}, name=name)


@overload
def nonzero(x: Tensor, as_tuple: Literal[False] = False) -> Tensor: ...
@overload
def nonzero(x: Tensor, as_tuple: Literal[True]) -> tuple[Tensor, ...]: ...
def nonzero(x: Tensor, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
    """The positions of ``x``'s nonzero elements: one row each (int64), or, ``as_tuple``,
    one column per dim."""
    out = append("where_index", "where_index", {"Condition": x})
    if not as_tuple:
        return out
    from paddle_nb.tensor.manipulation import slice as slice_
    return tuple(slice_(out, [1], [i], [i + 1]) for i in range(len(x.shape)))


def masked_select(x: Tensor, mask: Tensor, name: str | None = None) -> Tensor:
    """The elements of ``x`` where ``mask`` holds, in order, as one row."""
    return append("masked_select", "masked_select", {"X": x, "Mask": mask}, slot="Y", name=name)


def index_sample(x: Tensor, index: Tensor) -> Tensor:
    """``out[i, j] = x[i, index[i, j]]``: each row of the 2-D ``x`` picks its own columns."""
    return append("index_sample", "index_sample", {"X": x, "Index": index})


def kthvalue(x: Tensor, k: int, axis: int | None = None, keepdim: bool = False,
             name: str | None = None) -> tuple[Tensor, ...]:
    """The ``k``-th smallest value along ``axis`` (-1) and its position."""
    attrs = {"k": int(k), "axis": -1 if axis is None else int(axis), "keepdim": bool(keepdim)}
    values, indices = append_many("kthvalue", "kthvalue", {"X": x}, attrs, ["Out", "Indices"],
                                  name=name)
    return values, indices


def mode(x: Tensor, axis: int = -1, keepdim: bool = False, name: str | None = None
        ) -> tuple[Tensor, ...]:
    """The most frequent value along ``axis`` and its (last) position."""
    values, indices = append_many("mode", "mode", {"X": x},
                                  {"axis": int(axis), "keepdim": bool(keepdim)},
                                  ["Out", "Indices"], name=name)
    return values, indices


def searchsorted(sorted_sequence: Tensor, values: Tensor, out_int32: bool = False,
                 right: bool = False, name: str | None = None) -> Tensor:
    """Where each of ``values`` would go in ``sorted_sequence`` to keep it sorted."""
    return append("searchsorted", "searchsorted",
                  {"SortedSequence": sorted_sequence, "Values": values},
                  {"out_int32": bool(out_int32), "right": bool(right)}, name=name)


def bucketize(x: Tensor, sorted_sequence: Tensor, out_int32: bool = False, right: bool = False,
              name: str | None = None) -> Tensor:
    """The bucket of ``sorted_sequence`` (1-D) each element of ``x`` falls in."""
    if len(sorted_sequence.shape) != 1:
        raise ValueError("paddle.bucketize: sorted_sequence must be 1-D, got shape "
                         f"{list(sorted_sequence.shape)}")
    return searchsorted(sorted_sequence, x, out_int32, right, name)


# bincount and histogram sit in PaddlePaddle's paddle.tensor.linalg; here they sit with the
# other counting searches

def bincount(x: Tensor, weights: Any = None, minlength: int = 0, name: str | None = None) -> Tensor:
    """How many times each value 0, 1, ... occurs in the 1-D int ``x`` (or the sum of its
    ``weights``)."""
    ins = {"X": x} if weights is None else {"X": x, "Weights": weights}
    return append("bincount", "bincount", ins, {"minlength": int(minlength)}, name=name)


def histogram(input: Tensor, bins: int = 100, min: int = 0, max: int = 0, name: str | None = None
             ) -> Tensor:
    """How many elements of ``input`` fall in each of ``bins`` equal bins from ``min`` to
    ``max`` (both 0: the input's own range)."""
    return append("histogram", "histogram", {"X": input},
                  {"bins": int(bins), "min": int(min), "max": int(max)}, name=name)


register_tensor_methods({name: globals()[name] for name in (
    "argmax", "argmin", "argsort", "sort", "topk", "nonzero", "masked_select", "index_sample",
    "kthvalue", "mode", "bucketize")})
