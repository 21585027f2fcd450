"""Choosing among tensors: ``multiplex`` picks each row from one of several tensors.

``multiplex(Ids, X)``: Out[i] = X[Ids[i]][i]; its gradient sends Out@GRAD's row i back to
the tensor it came from. (``gumbel_softmax``, which chooses at random, is in random.py.)
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import OpDef, Slot, fail, register

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
