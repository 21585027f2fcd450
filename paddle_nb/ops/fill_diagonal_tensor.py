"""``fill_diagonal_tensor``: X with one diagonal (``offset`` from the main one, in the plane
of dims ``dim1`` and ``dim2``) replaced by Y (PaddlePaddle 2.6's op under
``paddle.diagonal_scatter``), and its grad op.

Y holds the diagonal as ``paddle.diagonal`` gives it: X's other dims, then the diagonal's
length L (a 2-D X takes Y as [1, L] or [L]). As in PaddlePaddle, the grad op writes X's
gradient only (Out@GRAD with the diagonal zeroed); Y gets none.
"""

import math

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = []

ATTRS = {"offset": Attr("long", 0, comment="the diagonal: > 0 above the main one"),
         "dim1": Attr("int", 0, comment="the plane's first dim"),
         "dim2": Attr("int", 1, comment="the plane's second dim")}


def _plane(rank, dim1, dim2):
    d1, d2 = dim1 % rank if -rank <= dim1 < rank else None, \
        dim2 % rank if -rank <= dim2 < rank else None
    if d1 is None or d2 is None or d1 == d2:
        fail(f"dim1 and dim2 must be two different dims of X (rank {rank}), got {dim1}, {dim2}")
    return d1, d2


def _length(shape, d1, d2, offset):
    rows, cols = shape[d1], shape[d2]
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def _fdt_infer(x, y, *, offset, dim1, dim2):
    if len(x.shape) < 2:
        fail(f"X must have at least 2 dims, got shape {tuple(x.shape)}")
    d1, d2 = _plane(len(x.shape), dim1, dim2)
    if x.dtype != y.dtype:
        fail(f"X and Y must share a dtype, got {x.dtype} and {y.dtype}")
    if -1 not in x.shape and -1 not in y.shape:
        batch = [s for i, s in enumerate(x.shape) if i not in (d1, d2)]
        n = _length(x.shape, d1, d2, offset)
        if math.prod(y.shape) != math.prod(batch) * n or (y.shape and y.shape[-1] != n):
            fail(f"Y must hold the diagonal: shape {tuple(batch) + (n,)}, got {tuple(y.shape)}")
    return x


def _diagonal_index(xp, shape, offset, d1, d2):
    """An index tuple that reaches the diagonal's entries of an array moved to [..., d1, d2]."""
    n = _length(shape, d1, d2, offset)
    rows = xp.arange(n) + max(-offset, 0)
    return (Ellipsis, rows, rows + offset)


def _fdt(ctx, x, y, *, offset, dim1, dim2):
    xp = ctx.xp
    d1, d2 = _plane(x.ndim, dim1, dim2)
    out = xp.moveaxis(x.copy(), (d1, d2), (-2, -1))
    index = _diagonal_index(xp, x.shape, offset, d1, d2)
    out[index] = y.reshape(out[index].shape)
    return xp.moveaxis(out, (-2, -1), (d1, d2))


def _fdt_grad(ctx, dout, *, offset, dim1, dim2):
    xp = ctx.xp
    d1, d2 = _plane(dout.ndim, dim1, dim2)
    dx = xp.moveaxis(dout.copy(), (d1, d2), (-2, -1))
    dx[_diagonal_index(xp, dout.shape, offset, d1, d2)] = 0
    return xp.moveaxis(dx, (-2, -1), (d1, d2))


register(OpDef(
    "fill_diagonal_tensor", inputs=["X", "Y"], outputs=["Out"], attrs=ATTRS,
    infer=_fdt_infer, kernel=_fdt,
    grad=grad_op("fill_diagonal_tensor_grad", inputs=(), in_grads=("X",)),
    doc="Out = X with the diagonal (offset, dim1, dim2) set to Y"))
register(OpDef(
    "fill_diagonal_tensor_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=ATTRS,
    infer=lambda dout, **_: dout, kernel=_fdt_grad,
    doc="the gradient of fill_diagonal_tensor for X: Out@GRAD with the diagonal zeroed"))
