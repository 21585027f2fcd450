"""Ranking and evaluation ops: ``top_k``, ``arg_max``, ``arg_min``, ``accuracy`` (no gradients).

top_k keeps the k largest values along the last axis and their positions
(int64), largest first; arg_max gives the position of the largest value
along ``axis``; accuracy counts the rows whose Label is among top_k's
Indices and reports the fraction. They read a model's output, so nothing
flows back through them.
"""

import numpy

from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = []

INT64 = numpy.dtype(numpy.int64)
INT32 = numpy.dtype(numpy.int32)


# ---- top_k ----

def _top_k_infer(x, *, k):
    if len(x.shape) < 1:
        fail(f"X must have at least one dimension, got shape {tuple(x.shape)}")
    last = x.shape[-1]
    if last >= 0 and k > last:
        fail(f"k={k} is larger than X's last dimension: X has shape {tuple(x.shape)}")
    shape = tuple(x.shape[:-1]) + (k,)
    return x.with_shape(shape), x.with_shape(shape).with_dtype(INT64)


def _top_k_kernel(ctx, x, *, k):
    xp = ctx.xp
    order = xp.argsort(-x, axis=-1, kind="stable")[..., :k].astype(INT64, copy=False)
    return xp.take_along_axis(x, order, axis=-1), order


register(OpDef(
    "top_k", inputs=["X"], outputs=["Out", "Indices"],
    attrs={"k": Attr("int", 1, lambda v: None if v >= 1 else "must be at least 1")},
    infer=_top_k_infer, kernel=_top_k_kernel,
    doc="Out, Indices = the k largest values of X along its last axis (largest first), and where"))


# ---- arg_max ----

def _arg_max_axis(shape, axis):
    rank = len(shape)
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for X of shape {tuple(shape)} (rank {rank})")
    return axis % rank


def _arg_max_shape(shape, axis, keepdims, flatten):
    if flatten:                    # the whole tensor: 0-D, as PaddlePaddle 2.6 gives
        return (1,) * len(shape) if keepdims else ()
    axis = _arg_max_axis(shape, axis)
    return tuple(shape[:axis]) + ((1,) if keepdims else ()) + tuple(shape[axis + 1:])


def _arg_max_infer(x, *, axis, keepdims, flatten, dtype):
    if len(x.shape) < 1:
        fail(f"X must have at least one dimension, got shape {tuple(x.shape)}")
    if dtype not in (INT32, INT64):
        fail(f"dtype must be int32 or int64, got {dtype}")
    return x.with_shape(_arg_max_shape(x.shape, axis, keepdims, flatten)).with_dtype(dtype)


def _arg_max_kernel(ctx, x, *, axis, keepdims, flatten, dtype):
    xp = ctx.xp
    if flatten:
        out = xp.argmax(x.reshape(-1))
    else:
        out = xp.argmax(x, axis=_arg_max_axis(x.shape, axis))
    return out.reshape(_arg_max_shape(x.shape, axis, keepdims, flatten)).astype(dtype)


register(OpDef(
    "arg_max", inputs=["X"], outputs=["Out"],
    attrs={"axis": Attr("long", -1), "keepdims": Attr("bool", False),
           "flatten": Attr("bool", False, comment="search the whole tensor; Out is 0-D"),
           "dtype": Attr("dtype", INT64, comment="int32 or int64 (Paddle's 3)")},
    infer=_arg_max_infer, kernel=_arg_max_kernel,
    doc="Out = the position of the largest value of X along axis (the first one on ties)"))


def _arg_min_kernel(ctx, x, *, axis, keepdims, flatten, dtype):
    xp = ctx.xp
    if flatten:
        out = xp.argmin(x.reshape(-1))
    else:
        out = xp.argmin(x, axis=_arg_max_axis(x.shape, axis))
    return out.reshape(_arg_max_shape(x.shape, axis, keepdims, flatten)).astype(dtype)


register(OpDef(
    "arg_min", inputs=["X"], outputs=["Out"],
    attrs={"axis": Attr("long", -1), "keepdims": Attr("bool", False),
           "flatten": Attr("bool", False, comment="search the whole tensor; Out is 0-D"),
           "dtype": Attr("dtype", INT64, comment="int32 or int64 (Paddle's 3)")},
    infer=_arg_max_infer, kernel=_arg_min_kernel,
    doc="Out = the position of the smallest value of X along axis (the first one on ties)"))


# ---- accuracy ----

def _accuracy_infer(out, indices, label):
    if len(indices.shape) != 2:
        fail(f"Indices must be rank 2 [N, k], got shape {tuple(indices.shape)}")
    if len(label.shape) != 2 or label.shape[1] not in (1, -1):
        fail(f"Label must have shape [N, 1], got {tuple(label.shape)}")
    n, m = indices.shape[0], label.shape[0]
    if n >= 0 and m >= 0 and n != m:
        fail(f"Indices and Label must have the same batch size, got Indices {tuple(indices.shape)} "
             f"and Label {tuple(label.shape)}")
    if tuple(out.shape) != tuple(indices.shape) and -1 not in out.shape + indices.shape:
        fail(f"Out and Indices must have the same shape, got {tuple(out.shape)} and "
             f"{tuple(indices.shape)}")
    one = out.with_shape(())             # 0-D, as PaddlePaddle 2.5+ (fluid 1.x: shape [1])
    return one.with_dtype("float32"), one.with_dtype(INT32), one.with_dtype(INT32)


def _accuracy_kernel(ctx, out, indices, label):
    xp = ctx.xp
    total = indices.shape[0]
    correct = (indices == label.reshape(-1, 1)).any(axis=1).sum()
    accuracy = correct.astype(numpy.float32) / max(total, 1)
    return (accuracy.reshape(()).astype(numpy.float32), correct.reshape(()).astype(INT32),
            xp.full((), total, dtype=INT32))


register(OpDef(
    "accuracy", inputs=["Out", "Indices", "Label"], outputs=["Accuracy", "Correct", "Total"],
    infer=_accuracy_infer, kernel=_accuracy_kernel,
    doc="Accuracy = Correct / Total: the fraction of rows whose Label is among top_k's Indices"))
