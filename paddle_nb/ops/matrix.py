"""Matrix functions: ``trace`` (the sum of a diagonal), with its grad op.

``trace`` sums the diagonal ``offset`` (above the main one when positive) of the planes
spanned by ``axis1`` and ``axis2`` (taken in increasing order, as PaddlePaddle does: the
offset counts along the later axis whichever is named first); its gradient puts the output gradient back on that
diagonal and zeros elsewhere.
"""

from paddle_nb.ops.grad import grad_op
from paddle_nb.ops.registry import Attr, OpDef, fail, register

__all__ = []


def _axes(shape, axis1, axis2):
    rank = len(shape)
    if rank < 2:
        fail(f"Input must have rank >= 2, got shape {tuple(shape)}")
    for a in (axis1, axis2):
        if not -rank <= a < rank:
            fail(f"axis1 and axis2 must name dimensions of Input (rank {rank}), got {axis1}, {axis2}")
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
