"""Counting values: ``unique``, ``unique_consecutive``, ``bincount`` and ``histogram``; and
the index arithmetic of ``shard_index``.

Their outputs' lengths depend on the data (how many distinct values there are), so shape
inference leaves them unknown (-1). None has a gradient: they count, and counts do not
change under a small nudge of the input.
"""

import numpy
from typing import Any

from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register

__all__ = []


def _index_dtype(dtype):
    if numpy.dtype(dtype) not in (numpy.dtype("int32"), numpy.dtype("int64")):
        fail(f"dtype must be int32 or int64, got {dtype}")
    return numpy.dtype(dtype)


def _unique_infer(x, *, return_index, return_inverse, return_counts, axis, dtype, is_sorted):
    d = _index_dtype(dtype)
    if axis:
        shape = list(x.shape)
        shape[axis[0] % len(shape)] = -1
        out, n = x.with_shape(tuple(shape)), x.shape[axis[0] % len(shape)]
    else:
        out, n = x.with_shape((-1,)), -1 if -1 in x.shape else int(numpy.prod(x.shape))
    return (out, Meta((-1,), d, 0), Meta((n,), d, 0), Meta((-1,), d, 0))


def _unique(ctx, x, *, return_index, return_inverse, return_counts, axis, dtype, is_sorted):
    xp = ctx.xp
    ax = axis[0] % x.ndim if axis else None
    out, index, inverse, counts = xp.unique(
        x if ax is not None else x.reshape(-1), return_index=True, return_inverse=True,
        return_counts=True, axis=ax)
    return (out, index.astype(dtype), inverse.reshape(-1).astype(dtype), counts.astype(dtype))


register(OpDef(
    "unique", inputs=["X"],
    outputs=["Out", Slot("Indices", dispensable=True), "Index", Slot("Counts", dispensable=True)],
    attrs={"return_index": Attr("bool", False), "return_inverse": Attr("bool", False),
           "return_counts": Attr("bool", False),
           "axis": Attr("ints", [], comment="[]: X flattened"),
           "dtype": Attr("dtype", "int64", comment="of Indices, Index and Counts"),
           "is_sorted": Attr("bool", False, comment="True: PaddlePaddle 2.x's sorted unique")},
    infer=_unique_infer, kernel=_unique,
    doc="Out = X's distinct values, sorted; Indices = where each first occurs; Index = which "
        "of Out each element of X is; Counts = how often each occurs"))


def _runs(xp, x, ax):
    """Out, Index (run number of each element), Counts of the runs of equal values."""
    moved = xp.moveaxis(x, ax, 0).reshape(x.shape[ax], -1)
    if moved.shape[0] == 0:
        starts = xp.zeros((0,), dtype=bool)
    else:
        changed = (moved[1:] != moved[:-1]).any(axis=1)
        starts = xp.concatenate([xp.ones((1,), dtype=bool), changed])
    run = xp.cumsum(starts) - 1
    first = xp.nonzero(starts)[0]
    counts = xp.diff(xp.concatenate([first, xp.asarray([moved.shape[0]])]))
    return xp.take(x, first, axis=ax), run, counts


def _unique_consecutive(ctx, x, *, return_inverse, return_counts, axis, dtype):
    if axis:
        out, run, counts = _runs(ctx.xp, x, axis[0] % x.ndim)
    else:
        out, run, counts = _runs(ctx.xp, x.reshape(-1), 0)
    return out, run.astype(dtype), counts.astype(dtype)


def _unique_consecutive_infer(x, *, return_inverse, return_counts, axis, dtype):
    d = _index_dtype(dtype)
    if axis:
        shape = list(x.shape)
        n = shape[axis[0] % len(shape)]
        shape[axis[0] % len(shape)] = -1
        out = x.with_shape(tuple(shape))
    else:
        out, n = x.with_shape((-1,)), -1 if -1 in x.shape else int(numpy.prod(x.shape))
    return out, Meta((n,), d, 0), Meta((-1,), d, 0)


register(OpDef(
    "unique_consecutive", inputs=["X"],
    outputs=["Out", Slot("Index", dispensable=True), Slot("Counts", dispensable=True)],
    attrs={"return_inverse": Attr("bool", False), "return_counts": Attr("bool", False),
           "axis": Attr("ints", [], comment="[]: X flattened"),
           "dtype": Attr("dtype", "int64", comment="of Index and Counts")},
    infer=_unique_consecutive_infer, kernel=_unique_consecutive,
    doc="Out = X with each run of equal consecutive values kept once; Index = the run of "
        "each element; Counts = each run's length"))


def _bincount_infer(x, weights, *, minlength):
    if x.dtype.kind not in "iu" or len(x.shape) != 1:
        fail(f"X must be a 1-D integer tensor, got {x.dtype} of shape {tuple(x.shape)}")
    if weights is not None and tuple(weights.shape) != tuple(x.shape):
        fail(f"Weights must have X's shape {tuple(x.shape)}, got {tuple(weights.shape)}")
    dtype: numpy.dtype[Any]
    if weights is None:
        dtype = numpy.dtype("int64")
    else:
        dtype = weights.dtype if weights.dtype == numpy.dtype("float32") else numpy.dtype("float64")
    return Meta((-1,), dtype, 0)


def _bincount(ctx, x, weights, *, minlength):
    out = ctx.xp.bincount(x, weights=weights, minlength=minlength)
    if weights is None:
        return out.astype("int64")
    return out.astype(weights.dtype if weights.dtype == numpy.dtype("float32") else "float64")


register(OpDef(
    "bincount", inputs=["X", Slot("Weights", dispensable=True)], outputs=["Out"],
    attrs={"minlength": Attr("int", 0)}, infer=_bincount_infer, kernel=_bincount,
    doc="Out[v] = how many times v occurs in X (or the sum of its Weights)"))


def _histogram(ctx, x, *, bins, min, max):
    xp = ctx.xp
    lo, hi = float(min), float(max)
    if lo == hi:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = xp.histogram(x.reshape(-1), bins=bins, range=(lo, hi))
    return counts.astype("int64")


register(OpDef(
    "histogram", inputs=["X"], outputs=["Out"],
    attrs={"bins": Attr("long", 100), "min": Attr("int", 0), "max": Attr("int", 0,
                                                             comment="min == max: X's range")},
    infer=lambda x, *, bins, min, max: Meta((bins,), numpy.dtype("int64"), 0),
    kernel=_histogram,
    doc="Out = how many elements of X fall in each of bins equal-width bins from min to max"))


# ---- shard_index: index arithmetic for a table cut into shards -------------------------------

SHARD_ATTRS = {"index_num": Attr("int", 0, comment="the size of the whole index range"),
               "nshards": Attr("int", 0), "shard_id": Attr("int", 0),
               "ignore_value": Attr("int", -1, comment="for an index of another shard")}


def _shard_infer(x, *, index_num, nshards, shard_id, ignore_value):
    if x.dtype.kind not in "iu":
        fail(f"X must be an integer tensor, got {x.dtype}")
    if nshards <= 0 or not 0 <= shard_id < nshards:
        fail(f"shard_id must be in 0..nshards-1, got shard_id {shard_id} and nshards {nshards}")
    return x


def _shard_index(ctx, x, *, index_num, nshards, shard_id, ignore_value):
    size = (index_num + nshards - 1) // nshards
    mine = (x // size) == shard_id
    return ctx.xp.where(mine, x - shard_id * size, ignore_value).astype(x.dtype)


register(OpDef(
    "shard_index", inputs=["X"], outputs=["Out"], attrs=SHARD_ATTRS, infer=_shard_infer,
    kernel=_shard_index,
    doc="Out = X's index within shard shard_id's range (ceil(index_num / nshards) wide), "
        "ignore_value for an index of another shard"))
