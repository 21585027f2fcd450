"""data_norm: normalization by running totals kept as parameters (CTR models' input layer).

X [N, C] is shifted and scaled per column by statistics summed over all the data seen:
``Means = BatchSum / BatchSize``, ``Scales = sqrt(BatchSize / BatchSquareSum)``,
``Y = (X - Means) * Scales``. The gradient op gives X@GRAD = Y@GRAD * Scales and, as the
"gradients" of the three totals, this batch's own totals: its row count, its column sums and
its squared deviations from Means (plus epsilon per row), which PaddlePaddle's trainers add
into the totals. It lists the totals among its outputs, as 2.6 writes it, and leaves them as
they are. ``slot_dim`` (CTR show/click slots) and ``enable_scale_and_shift`` are not
available here.
"""

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

ATTRS = {"epsilon": Attr("float", 1e-4), "slot_dim": Attr("int", -1),
         "summary_decay_rate": Attr("float", 0.9999999), "sync_stats": Attr("bool", False),
         "data_layout": Attr("str", "NCHW"), "enable_scale_and_shift": Attr("bool", False)}
TOTALS = ("BatchSize", "BatchSum", "BatchSquareSum")


def _infer(x, size, total, square, scale_w, bias, *, slot_dim, enable_scale_and_shift, **_):
    if len(x.shape) != 2:
        fail(f"X must be [N, C], got shape {list(x.shape)}")
    if slot_dim != -1 or enable_scale_and_shift:
        fail("slot_dim and enable_scale_and_shift are not available in paddle_nb's data_norm")
    for slot, meta in zip(TOTALS, (size, total, square)):
        if list(meta.shape) not in ([x.shape[1]], [-1]):
            fail(f"{slot} must be [C] = [{x.shape[1]}], got shape {list(meta.shape)}")
    stat = size.with_shape((x.shape[1],))
    return x, stat, stat


def _statistics(xp, size, total, square):
    return total / size, xp.sqrt(size / square)


def _kernel(ctx, x, size, total, square, scale_w, bias, **_):
    means, scales = _statistics(ctx.xp, size, total, square)
    return ((x - means) * scales).astype(x.dtype, copy=False), means, scales


def _grad_maker(g):
    ins = {"X": g.input("X"), "Means": g.output("Means"), "Scales": g.output("Scales"),
           "Y@GRAD": g.output_grad("Y")}
    outs = {"X@GRAD": g.input_grad("X")}
    for slot in TOTALS:
        outs[slot] = g.input(slot)
        outs[f"{slot}@GRAD"] = g.input_grad(slot)
    return [OpSpec("data_norm_grad", ins, outs, dict(g.attrs))]


def _grad_infer(x, means, scales, dy, scale_w, bias, **_):
    stat = means.with_shape((x.shape[1],))
    return x, None, stat, None, stat, None, stat


def _grad_kernel(ctx, x, means, scales, dy, scale_w, bias, *, epsilon, **_):
    xp, rows = ctx.xp, x.shape[0]
    dx = (dy * scales).astype(x.dtype, copy=False)
    d_size = xp.full(means.shape, rows, dtype=means.dtype)
    d_sum = x.sum(axis=0).astype(means.dtype, copy=False)
    d_square = (((x - means) ** 2).sum(axis=0) + rows * epsilon).astype(means.dtype, copy=False)
    return dx, None, d_size, None, d_sum, None, d_square


register(OpDef(
    "data_norm", inputs=["X", *TOTALS, Slot("scale_w", dispensable=True),
                         Slot("bias", dispensable=True)],
    outputs=["Y", "Means", "Scales"], attrs=ATTRS, infer=_infer, kernel=_kernel,
    grad=_grad_maker,
    doc="Y = (X - BatchSum / BatchSize) * sqrt(BatchSize / BatchSquareSum), per column"))
register(OpDef(
    "data_norm_grad", inputs=["X", "Means", "Scales", "Y@GRAD", Slot("scale_w", dispensable=True),
                              Slot("bias", dispensable=True)],
    outputs=["X@GRAD"] + [Slot(s, dispensable=True) for t in TOTALS for s in (t, f"{t}@GRAD")],
    attrs=ATTRS, infer=_grad_infer, kernel=_grad_kernel,
    doc="the gradient of data_norm: X@GRAD and this batch's totals as the totals' gradients"))
