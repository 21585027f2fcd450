"""``addmm``: a matrix product added to a scaled input, ``Out = Beta * Input + Alpha * X @ Y``,
and its grad op (PaddlePaddle 2.6's ``paddle.addmm``).

Input broadcasts to the product's shape [M, N] (it may be [M, N], [1, N], [M, 1] or [N]), so
its gradient is ``Beta * Out@GRAD`` summed back to Input's shape; ``X@GRAD = Alpha *
Out@GRAD @ Y^T`` and ``Y@GRAD = Alpha * X^T @ Out@GRAD``.
"""

from paddle_nb.ops.machinery.broadcast import sum_to
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

SLOTS = ["Input", "X", "Y"]
ATTRS = {"Alpha": Attr("float", 1.0, comment="the product's factor"),
         "Beta": Attr("float", 1.0, comment="Input's factor")}


def _fits(dim, want):
    return dim in (1, want, -1) or want < 0


def _addmm_infer(inp, x, y, *, Alpha, Beta):
    if len(x.shape) != 2 or len(y.shape) != 2:
        fail(f"X and Y must be matrices, got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    if x.shape[1] >= 0 and y.shape[0] >= 0 and x.shape[1] != y.shape[0]:
        fail(f"X [M, K] and Y [K, N] must agree on K, got {tuple(x.shape)} and {tuple(y.shape)}")
    if not (inp.dtype == x.dtype == y.dtype):
        fail(f"Input, X and Y must share a dtype, got {inp.dtype}, {x.dtype} and {y.dtype}")
    out = (x.shape[0], y.shape[1])
    shape = tuple(inp.shape)
    if len(shape) not in (1, 2) or not all(_fits(d, w) for d, w in zip(shape[::-1], out[::-1])):
        fail(f"Input must broadcast to the product's shape {out}, got {shape}")
    return x.with_shape(out)


def _addmm(ctx, inp, x, y, *, Alpha, Beta):
    return (Beta * inp + Alpha * (x @ y)).astype(x.dtype, copy=False)


def _addmm_grad(ctx, inp, x, y, dout, *, Alpha, Beta):
    d_inp = sum_to(Beta * dout, inp.shape).astype(inp.dtype, copy=False) if ctx.want(0) else None
    dx = (Alpha * (dout @ y.T)).astype(x.dtype, copy=False) if ctx.want(1) else None
    dy = (Alpha * (x.T @ dout)).astype(y.dtype, copy=False) if ctx.want(2) else None
    return d_inp, dx, dy


register(OpDef(
    "addmm", inputs=SLOTS, outputs=["Out"], attrs=ATTRS, infer=_addmm_infer, kernel=_addmm,
    grad=grad_op("addmm_grad", inputs=tuple(SLOTS), in_grads=tuple(SLOTS)),
    doc="Out = Beta * Input + Alpha * X @ Y (Input broadcast to [M, N])"))
register(OpDef(
    "addmm_grad", inputs=[*SLOTS, "Out@GRAD"],
    outputs=[Slot(f"{s}@GRAD", dispensable=True) for s in SLOTS], attrs=ATTRS,
    infer=lambda inp, x, y, dout, **_: (inp, x, y), kernel=_addmm_grad,
    doc="the gradients of addmm's Input, X and Y"))
