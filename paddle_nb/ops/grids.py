"""Tensors made from a few numbers: ``linspace``, ``logspace``, ``eye``, ``empty``,
``tril_indices``, ``triu_indices``.

None reads a tensor's values except linspace, whose Start, Stop and Num are one-value
tensors (PaddlePaddle writes each with a ``fill_constant``); so linspace's length is
unknown (-1) at build time unless nothing else is known either.
"""

import numpy

from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.tensor_args import host_ints, ints_at_build, ints_at_run

__all__ = []


def _one_value(m, slot):
    if any(d > 1 for d in m.shape):
        fail(f"{slot} must hold one value, got shape {tuple(m.shape)}")


def _linspace_infer(start, stop, num, *, dtype):
    for slot, m in (("Start", start), ("Stop", stop), ("Num", num)):
        _one_value(m, slot)
    if num.dtype.kind not in "iu":
        fail(f"Num must be an integer tensor, got {num.dtype}")
    return Meta((-1,), dtype, 0)


def _linspace(ctx, start, stop, num, *, dtype):
    n = host_ints(num)[0]
    xp = ctx.xp
    a, b = start.reshape(()).astype("float64"), stop.reshape(()).astype("float64")
    out = xp.linspace(a, b, n) if n != 1 else xp.reshape(a, (1,))
    if numpy.dtype(dtype).kind in "iu":
        out = xp.trunc(out)
    return out.astype(dtype)


register(OpDef(
    "linspace", inputs=["Start", "Stop", "Num"], outputs=["Out"],
    attrs={"dtype": Attr("dtype", "float32")}, infer=_linspace_infer, kernel=_linspace,
    doc="Out = Num evenly spaced numbers from Start to Stop (both included)"))


def _eye_infer(*, num_rows, num_columns, dtype):
    if num_rows < 0:
        fail(f"num_rows must be 0 or more, got {num_rows}")
    return Meta((num_rows, num_columns if num_columns >= 0 else num_rows), dtype, 0)


register(OpDef(
    "eye", outputs=["Out"],
    attrs={"num_rows": Attr("long", 0), "num_columns": Attr("long", -1, comment="-1: num_rows"),
           "dtype": Attr("dtype", "float32")},
    infer=_eye_infer,
    kernel=lambda ctx, *, num_rows, num_columns, dtype: ctx.xp.eye(
        num_rows, num_columns if num_columns >= 0 else num_rows, dtype=dtype),
    doc="Out = ones on the main diagonal, zeros elsewhere"))


def _empty_infer(shape_t, shape_l, *, shape, dtype):
    return Meta(tuple(ints_at_build(shape, shape_t, shape_l)), dtype, 0)


register(OpDef(
    "empty", inputs=[Slot("ShapeTensor", dispensable=True),
                     Slot("ShapeTensorList", duplicable=True, dispensable=True)],
    outputs=["Out"], attrs={"shape": Attr("longs", []), "dtype": Attr("dtype", "float32")},
    infer=_empty_infer,
    # PaddlePaddle leaves the memory as it was; paddle_nb gives zeros, a value it may hold
    kernel=lambda ctx, st, sl, *, shape, dtype: ctx.xp.zeros(ints_at_run(shape, st, sl), dtype),
    doc="Out = a tensor of the shape whose values are not set (zeros in paddle_nb)"))


def _tril_count(rows, cols, offset):
    return sum(max(0, min(cols, r + offset + 1)) for r in range(rows))


register(OpDef(
    "tril_indices", outputs=["out"],
    attrs={"rows": Attr("int", 0), "cols": Attr("int", 0), "offset": Attr("int", 0),
           "dtype": Attr("dtype", "int64")},
    infer=lambda *, rows, cols, offset, dtype: Meta((2, _tril_count(rows, cols, offset)), dtype, 0),
    kernel=lambda ctx, *, rows, cols, offset, dtype: ctx.xp.stack(
        ctx.xp.tril_indices(rows, offset, cols)).astype(dtype).reshape(2, -1),
    doc="out = the (row, column) positions of a rows x cols lower triangle, row by row"))


def _triu_count(rows, cols, offset):
    return sum(max(0, cols - max(r + offset, 0)) for r in range(rows))


register(OpDef(
    "triu_indices", outputs=["out"],
    attrs={"row": Attr("int", 0), "col": Attr("int", 0), "offset": Attr("int", 0),
           "dtype": Attr("dtype", "int64")},
    infer=lambda *, row, col, offset, dtype: Meta((2, _triu_count(row, col, offset)), dtype, 0),
    kernel=lambda ctx, *, row, col, offset, dtype: ctx.xp.stack(
        ctx.xp.triu_indices(row, offset, col)).astype(dtype).reshape(2, -1),
    doc="out = the (row, column) positions of a row x col upper triangle, row by row"))


def _logspace_infer(start, stop, num, base, *, dtype):
    _linspace_infer(start, stop, num, dtype=dtype)
    _one_value(base, "Base")
    return Meta((-1,), dtype, 0)


def _logspace(ctx, start, stop, num, base, *, dtype):
    exponents = _linspace(ctx, start, stop, num, dtype=numpy.dtype("float64"))
    out = ctx.xp.power(base.reshape(()).astype("float64"), exponents)
    if numpy.dtype(dtype).kind in "iu":
        out = ctx.xp.trunc(out)
    return out.astype(dtype)


register(OpDef(
    "logspace", inputs=["Start", "Stop", "Num", "Base"], outputs=["Out"],
    attrs={"dtype": Attr("dtype", "float32")}, infer=_logspace_infer, kernel=_logspace,
    doc="Out = Base ** (Num evenly spaced exponents from Start to Stop)"))
