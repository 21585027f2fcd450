"""Matrix functions: ``trace`` (the sum of a diagonal, with its grad op) and ``diag_embed``
(vectors laid on diagonals).

``trace`` sums the diagonal ``offset`` (above the main one when positive) of the planes
spanned by ``axis1`` and ``axis2`` (taken in increasing order, as PaddlePaddle does: the
offset counts along the later axis whichever is named first); its gradient puts the output
gradient back on that diagonal and zeros elsewhere.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = []


def _axes(shape, axis1, axis2):
    rank = len(shape)
    if rank < 2:
        fail(f"Input must have rank >= 2, got shape {tuple(shape)}")
    for a in (axis1, axis2):
        if not -rank <= a < rank:
            fail(f"axis1 and axis2 must name dimensions of Input (rank {rank}), got {axis1}, "
                 f"{axis2}")
    a1, a2 = axis1 % rank, axis2 % rank
    if a1 == a2:
        fail(f"axis1 and axis2 must differ, got {axis1} and {axis2} (rank {rank})")
    return min(a1, a2), max(a1, a2)     # PaddlePaddle takes the plane's axes in order


def _trace_infer(x, *, offset, axis1, axis2):
    a1, a2 = _axes(x.shape, axis1, axis2)
    return x.with_shape(tuple(d for k, d in enumerate(x.shape) if k not in (a1, a2)))


def _trace_kernel(ctx, x, *, offset, axis1, axis2):
    a1, a2 = _axes(x.shape, axis1, axis2)
    return ctx.xp.asarray(ctx.xp.trace(x, offset, a1, a2)).astype(x.dtype, copy=False)


def _trace_grad_kernel(ctx, x, dout, *, offset, axis1, axis2):
    """dout broadcast onto the chosen diagonal: a mask of that diagonal times dout."""
    xp = ctx.xp
    a1, a2 = _axes(x.shape, axis1, axis2)
    n1, n2 = x.shape[a1], x.shape[a2]
    mask = xp.eye(n1, n2, k=offset, dtype=x.dtype)
    moved = xp.moveaxis(xp.zeros_like(x), (a1, a2), (-2, -1))
    grad = moved + dout.reshape(dout.shape + (1, 1)) * mask
    return xp.moveaxis(grad, (-2, -1), (a1, a2)).astype(x.dtype, copy=False)


TRACE_ATTRS = {"offset": Attr("int", 0, comment="the diagonal: 0 the main one, > 0 above"),
               "axis1": Attr("int", 0), "axis2": Attr("int", 1)}

register(OpDef("trace", inputs=["Input"], outputs=["Out"], attrs=TRACE_ATTRS,
               infer=_trace_infer, kernel=_trace_kernel,
               grad=grad_op("trace_grad", inputs=("Input",), in_grads=("Input",)),
               doc="Out = the sum of Input's diagonal offset over the planes (axis1, axis2)"))
register(OpDef("trace_grad", inputs=["Input", "Out@GRAD"], outputs=["Input@GRAD"],
               attrs=TRACE_ATTRS, infer=lambda x, dout, **_: x, kernel=_trace_grad_kernel,
               doc="the gradient of trace: Out@GRAD on the diagonal, zeros elsewhere"))


# ---- diag_embed: vectors onto the diagonals of new matrices ------------------------------

def _embed_axes(rank, dim1, dim2):
    out_rank = rank + 1
    for d in (dim1, dim2):
        if not -out_rank <= d < out_rank:
            fail(f"dim1 and dim2 must name dimensions of Out (rank {out_rank}), got {dim1}, {dim2}")
    d1, d2 = dim1 % out_rank, dim2 % out_rank
    if d1 == d2:
        fail(f"dim1 and dim2 must differ, got {dim1} and {dim2} (Out has rank {out_rank})")
    return d1, d2


def _diag_embed_infer(x, *, offset, dim1, dim2):
    if not x.shape:
        fail("Input must have rank >= 1, got a 0-D tensor")
    d1, d2 = _embed_axes(len(x.shape), dim1, dim2)
    n = x.shape[-1]
    side = -1 if n < 0 else n + abs(offset)
    batch = iter(x.shape[:-1])
    return x.with_shape(tuple(side if k in (d1, d2) else next(batch)
                              for k in range(len(x.shape) + 1)))


def _diag_embed_kernel(ctx, x, *, offset, dim1, dim2):
    xp = ctx.xp
    d1, d2 = _embed_axes(x.ndim, dim1, dim2)
    n = x.shape[-1]
    side = n + abs(offset)
    out = xp.zeros(x.shape[:-1] + (side, side), dtype=x.dtype)
    rows = xp.arange(n) + max(-offset, 0)
    out[..., rows, rows + offset] = x
    return xp.moveaxis(out, (-2, -1), (d1, d2))


register(OpDef("diag_embed", inputs=["Input"], outputs=["Out"],
               attrs={"offset": Attr("int", 0, comment="the diagonal: 0 the main one, > 0 above"),
                      "dim1": Attr("int", -2), "dim2": Attr("int", -1)},
               infer=_diag_embed_infer, kernel=_diag_embed_kernel,
               doc="Out's diagonal offset over the planes (dim1, dim2) holds Input's last axis; "
                   "zeros elsewhere (no gradient op, as in PaddlePaddle 2.6)"))
