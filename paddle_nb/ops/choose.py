"""Choosing among values: ``multiplex`` picks each row from one of several tensors,
``gumbel_softmax`` draws a (soft or hard) one-hot sample from logits.

``multiplex(Ids, X)``: Out[i] = X[Ids[i]][i]; its gradient sends Out@GRAD's row i back to
the tensor it came from. ``gumbel_softmax`` adds Gumbel noise -log(-log(U)) to X and takes
softmax((X + noise) / temperature) along ``axis``; with ``hard`` the result is the one-hot
of its maximum. Its gradient is softmax's, read from Out (as PaddlePaddle's grad op does:
for a hard sample that is the gradient of the one-hot).
"""

import numpy

from paddle_nb.ops.grad import grad_op
from paddle_nb.ops.registry import Attr, OpDef, Slot, fail, register

__all__ = []

# ---- multiplex --------------------------------------------------------------------------------


def _multiplex_infer(ids, xs):
    if not xs:
        fail("X must list at least one tensor, got none")
    if ids.dtype.kind not in "iu":
        fail(f"Ids must be an integer tensor, got {ids.dtype}")
    if len(ids.shape) != 2 or ids.shape[1] not in (1, -1):
        fail(f"Ids must have shape [N, 1], got {tuple(ids.shape)}")
    for k, m in enumerate(xs[1:], 1):
        if tuple(m.shape) != tuple(xs[0].shape) or m.dtype != xs[0].dtype:
            fail(f"every X must have X[0]'s shape and dtype {tuple(xs[0].shape)} "
                 f"{xs[0].dtype}, X[{k}] has {tuple(m.shape)} {m.dtype}")
    return xs[0]


def _multiplex(ctx, ids, xs):
    xp = ctx.xp
    rows = xp.arange(xs[0].shape[0])
    return xp.stack(xs)[ids.reshape(-1).astype("int64"), rows]


def _multiplex_grad(ctx, ids, xs, dout):
    which = ids.reshape(-1, *([1] * (dout.ndim - 1)))
    return [ctx.xp.where(which == k, dout, 0).astype(dout.dtype) for k in range(len(xs))]


register(OpDef(
    "multiplex", inputs=["Ids", Slot("X", duplicable=True)], outputs=["Out"],
    infer=_multiplex_infer, kernel=_multiplex,
    grad=grad_op("multiplex_grad", inputs=("Ids", "X"), in_grads=("X",)),
    doc="Out[i] = X[Ids[i]][i]: row i of the tensor Ids[i] names"))
register(OpDef(
    "multiplex_grad", inputs=["Ids", Slot("X", duplicable=True), "Out@GRAD"],
    outputs=[Slot("X@GRAD", duplicable=True)], infer=lambda ids, xs, dout: list(xs),
    kernel=_multiplex_grad, doc="the gradient of multiplex: Out@GRAD's rows to their sources"))

# ---- gumbel_softmax ---------------------------------------------------------------------------

GUMBEL_ATTRS = {"temperature": Attr("float", 1.0, lambda v: None if v > 0 else "must be > 0"),
                "hard": Attr("bool", False, comment="a one-hot sample (else the soft one)"),
                "axis": Attr("int", -1)}


def _gumbel_infer(x, *, temperature, hard, axis):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    rank = max(len(x.shape), 1)
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for X of shape {tuple(x.shape)}")
    return x


def _gumbel(ctx, x, *, temperature, hard, axis):
    xp = ctx.xp
    u = ctx.generator(0).uniform(numpy.finfo(numpy.float64).tiny, 1.0, x.shape)  # on the host
    noise = ctx.to_device(-numpy.log(-numpy.log(u))).astype(x.dtype)
    z = (x + noise) / temperature
    e = xp.exp(z - z.max(axis=axis, keepdims=True))
    soft = e / e.sum(axis=axis, keepdims=True)
    if not hard:
        return soft.astype(x.dtype, copy=False)
    hit = soft == soft.max(axis=axis, keepdims=True)
    return (hit & (xp.cumsum(hit, axis=axis) == 1)).astype(x.dtype)     # the first maximum


def _gumbel_grad(ctx, out, dout, *, temperature, hard, axis):
    inner = (out * dout).sum(axis=axis, keepdims=True)
    return (out * (dout - inner) / temperature).astype(dout.dtype, copy=False)


register(OpDef(
    "gumbel_softmax", inputs=["X"], outputs=["Out"], attrs=GUMBEL_ATTRS, infer=_gumbel_infer,
    kernel=_gumbel, grad=grad_op("gumbel_softmax_grad", inputs=(), outputs=("Out",)),
    doc="Out = softmax((X + Gumbel noise) / temperature) along axis; hard: its one-hot"))
register(OpDef(
    "gumbel_softmax_grad", inputs=["Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=GUMBEL_ATTRS,
    infer=lambda out, dout, **a: dout, kernel=_gumbel_grad,
    doc="the gradient of gumbel_softmax: softmax's, from Out, divided by temperature"))
