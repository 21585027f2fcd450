"""Searching and sorting at paddle's top level: argmax, argmin, argsort, sort, topk, where,
nonzero, masked_select, index_sample, kthvalue, mode, searchsorted, bucketize.

As in PaddlePaddle 2.6: argmax and argmin without an axis search the whole tensor and give
a 0-D int64 result; ``where`` with one argument is ``nonzero(condition, as_tuple=True)``;
``where`` with three broadcasts its operands by adding zeros shaped like each of them.
"""

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor.creation import cast_to, full, zeros_like
from paddle_nb.tensor.naming import append, append_many, append_named, generated_name, is_var

__all__ = ["argmax", "argmin", "argsort", "sort", "topk", "where", "nonzero", "masked_select",
           "index_sample", "kthvalue", "mode", "searchsorted", "bucketize", "bincount",
           "histogram"]


def _arg(key, op_type, x, axis, keepdim, dtype, name):
    dtype = convert_dtype(dtype)
    if dtype not in (numpy.dtype("int32"), numpy.dtype("int64")):
        raise TypeError(f"paddle.{key}: dtype must be int32 or int64, got {dtype}")
    attrs = {"axis": 0 if axis is None else int(axis), "keepdims": bool(keepdim),
             "flatten": axis is None, "dtype": dtype}
    return append(key, op_type, {"X": x}, attrs, name=name)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Where the largest value of ``x`` is along ``axis`` (of the whole tensor: 0-D)."""
    return _arg("argmax", "arg_max", x, axis, keepdim, dtype, name)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Where the smallest value of ``x`` is along ``axis`` (of the whole tensor: 0-D)."""
    return _arg("argmin", "arg_min", x, axis, keepdim, dtype, name)


def _sorted(key, x, axis, descending, name):
    return append_many(key, "argsort", {"X": x},
                       {"axis": int(axis), "descending": bool(descending)},
                       ["Out", "Indices"], name=name)


def argsort(x, axis=-1, descending=False, name=None):
    """The int64 positions that sort ``x`` along ``axis``."""
    return _sorted("argsort", x, axis, descending, name)[1]


def sort(x, axis=-1, descending=False, name=None):
    """``x`` sorted along ``axis``."""
    return _sorted("sort", x, axis, descending, name)[0]


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
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


def _add(x, y):
    return append_named(generated_name("elementwise_add"), "elementwise_add",
                        {"X": x, "Y": y}, {"axis": -1})


def _broadcast_operands(condition, x, y):
    """PaddlePaddle 2.6's broadcast for where: zeros like each operand, added up, added to each."""
    zeros_x, zeros_y = zeros_like(x), zeros_like(y)
    zeros_c = cast_to(zeros_like(condition), x.dtype)
    cond = cast_to(condition, x.dtype)
    zeros = _add(_add(zeros_x, zeros_y), zeros_c)
    x, y = _add(x, zeros), _add(y, zeros)
    return cast_to(_add(cond, zeros), numpy.dtype(bool)), x, y


def where(condition, x=None, y=None, name=None):
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


def nonzero(x, as_tuple=False):
    """The positions of ``x``'s nonzero elements: one row each (int64), or, ``as_tuple``,
    one column per dim."""
    out = append("where_index", "where_index", {"Condition": x})
    if not as_tuple:
        return out
    from paddle_nb.tensor.manipulation import slice as slice_
    return tuple(slice_(out, [1], [i], [i + 1]) for i in range(len(x.shape)))


def masked_select(x, mask, name=None):
    """The elements of ``x`` where ``mask`` holds, in order, as one row."""
    return append("masked_select", "masked_select", {"X": x, "Mask": mask}, slot="Y", name=name)


def index_sample(x, index):
    """``out[i, j] = x[i, index[i, j]]``: each row of the 2-D ``x`` picks its own columns."""
    return append("index_sample", "index_sample", {"X": x, "Index": index})


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The ``k``-th smallest value along ``axis`` (-1) and its position."""
    attrs = {"k": int(k), "axis": -1 if axis is None else int(axis), "keepdim": bool(keepdim)}
    values, indices = append_many("kthvalue", "kthvalue", {"X": x}, attrs, ["Out", "Indices"],
                                  name=name)
    return values, indices


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along ``axis`` and its (last) position."""
    values, indices = append_many("mode", "mode", {"X": x},
                                  {"axis": int(axis), "keepdim": bool(keepdim)},
                                  ["Out", "Indices"], name=name)
    return values, indices


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Where each of ``values`` would go in ``sorted_sequence`` to keep it sorted."""
    return append("searchsorted", "searchsorted",
                  {"SortedSequence": sorted_sequence, "Values": values},
                  {"out_int32": bool(out_int32), "right": bool(right)}, name=name)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket of ``sorted_sequence`` (1-D) each element of ``x`` falls in."""
    if len(sorted_sequence.shape) != 1:
        raise ValueError("paddle.bucketize: sorted_sequence must be 1-D, got shape "
                         f"{list(sorted_sequence.shape)}")
    return searchsorted(sorted_sequence, x, out_int32, right, name)


# bincount and histogram sit in PaddlePaddle's paddle.tensor.linalg; here they sit with the
# other counting searches

def bincount(x, weights=None, minlength=0, name=None):
    """How many times each value 0, 1, ... occurs in the 1-D int ``x`` (or the sum of its
    ``weights``)."""
    ins = {"X": x} if weights is None else {"X": x, "Weights": weights}
    return append("bincount", "bincount", ins, {"minlength": int(minlength)}, name=name)


def histogram(input, bins=100, min=0, max=0, name=None):
    """How many elements of ``input`` fall in each of ``bins`` equal bins from ``min`` to
    ``max`` (both 0: the input's own range)."""
    return append("histogram", "histogram", {"X": input},
                  {"bins": int(bins), "min": int(min), "max": int(max)}, name=name)


register_tensor_methods({name: globals()[name] for name in (
    "argmax", "argmin", "argsort", "sort", "topk", "nonzero", "masked_select", "index_sample",
    "kthvalue", "mode", "bucketize")})
