"""Sliding blocks as columns: ``unfold`` (im2col) and ``fold`` (col2im), with their grads.

``unfold`` copies every kh x kw block of a padded image into a column:
X [N, C, H, W] -> Y [N, C * kh * kw, L], L the number of blocks (OH * OW),
the rows in (c, i, j) order. ``fold`` is its adjoint: each column is added
back into place in an image of ``output_sizes``, overlapping blocks summing.
So each is the other's gradient. unfold's paddings are [top, left, bottom,
right] (PaddlePaddle's order), or [h, w]; fold, as PaddlePaddle 2.6's, pads
both sides of H by paddings[0] and of W by paddings[1], whatever follows.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register
from paddle_nb.ops.machinery.window_nd import (kernel_positions, out_sizes, pad_nd, slices_nd,
                                               windows_nd)

__all__ = ["im2col", "col2im"]


def _pair(name, lengths=(2,), positive=True):
    def check(v):
        if len(v) not in lengths:
            return f"{name} needs {' or '.join(map(str, lengths))} values, got {len(v)}"
        return "every value must be positive" if positive and min(v) <= 0 else None
    return check


FOLD_ATTRS = {
    "kernel_sizes": Attr("ints", [1, 1], _pair("kernel_sizes")),
    "strides": Attr("ints", [1, 1], _pair("strides")),
    "paddings": Attr("ints", [0, 0, 0, 0], _pair("paddings", (2, 4), positive=False),
                     comment="[top, left, bottom, right]"),
    "dilations": Attr("ints", [1, 1], _pair("dilations")),
}


def _flat_pads(paddings):
    """(top, bottom, left, right) from [top, left, bottom, right] or [h, w]."""
    p = list(paddings)
    if len(p) == 2:
        return (p[0], p[0], p[1], p[1])
    return (p[0], p[2], p[1], p[3])


def _fold_pads(paddings):
    """(top, bottom, left, right) as fold reads its paddings: [h, w, ...] on both sides."""
    return (paddings[0], paddings[0], paddings[1], paddings[1])


def _blocks(hw, kernel_sizes, strides, pads, dilations, what):
    return out_sizes(hw, kernel_sizes, strides, pads, dilations, what=what)


def im2col(xp, x, kernel_sizes, strides, pads, dilations):
    """[N, C, H, W] -> [N, C * kh * kw, L]; pads (top, bottom, left, right)."""
    outs = _blocks(x.shape[2:], kernel_sizes, strides, pads, dilations, "X")
    view = windows_nd(xp, pad_nd(xp, x, pads), kernel_sizes, strides, dilations, outs)
    return xp.ascontiguousarray(view).reshape(x.shape[0], -1, outs[0] * outs[1])


def col2im(xp, y, hw, kernel_sizes, strides, pads, dilations):
    """[N, C * kh * kw, L] -> [N, C, H, W], overlapping blocks summed."""
    outs = _blocks(hw, kernel_sizes, strides, pads, dilations, "output_sizes")
    kh, kw = kernel_sizes
    cols = y.reshape((y.shape[0], -1, kh, kw) + tuple(outs))
    full = (hw[0] + pads[0] + pads[1], hw[1] + pads[2] + pads[3])
    dx = xp.zeros((y.shape[0], cols.shape[1]) + full, dtype=y.dtype)
    for pos in kernel_positions(kernel_sizes):
        slices_nd(dx, pos, strides, dilations, outs)[...] += cols[:, :, pos[0], pos[1]]
    return dx[:, :, pads[0]:pads[0] + hw[0], pads[2]:pads[2] + hw[1]]


def _unfold_infer(x, *, kernel_sizes, strides, paddings, dilations):
    if len(x.shape) != 4:
        fail(f"X must be a 4-D tensor [N, C, H, W], got shape {tuple(x.shape)}")
    n, c, h, w = x.shape
    outs = _blocks((h, w), kernel_sizes, strides, _flat_pads(paddings), dilations, "X")
    k = kernel_sizes[0] * kernel_sizes[1]
    return x.with_shape((n, c * k if c >= 0 else -1,
                         outs[0] * outs[1] if min(outs) >= 0 else -1))


def _fold_infer(x, *, output_sizes, kernel_sizes, strides, paddings, dilations):
    if len(x.shape) != 3:
        fail(f"X must be a 3-D tensor [N, C * kh * kw, L], got shape {tuple(x.shape)}")
    n, ck, length = x.shape
    k = kernel_sizes[0] * kernel_sizes[1]
    if ck >= 0 and ck % k:
        fail(f"X's {ck} rows must be divisible by kernel_sizes {list(kernel_sizes)} = {k}")
    outs = _blocks(output_sizes, kernel_sizes, strides, _fold_pads(paddings), dilations,
                   "output_sizes")
    if length >= 0 and length != outs[0] * outs[1]:
        fail(f"X has {length} blocks but output_sizes {list(output_sizes)} with kernel_sizes "
             f"{list(kernel_sizes)} holds {outs[0]} x {outs[1]} = {outs[0] * outs[1]}")
    return x.with_shape((n, ck // k if ck >= 0 else -1) + tuple(output_sizes))


register(OpDef(
    "unfold", inputs=["X"], outputs=["Y"], attrs=FOLD_ATTRS, infer=_unfold_infer,
    kernel=lambda ctx, x, **a: im2col(ctx.xp, x, a["kernel_sizes"], a["strides"],
                                      _flat_pads(a["paddings"]), a["dilations"]),
    grad=grad_op("unfold_grad", inputs=("X",), out_grads=("Y",)),
    doc="Y [N, C*kh*kw, L] = every kh x kw block of X [N, C, H, W] as a column (im2col)"))
register(OpDef(
    "unfold_grad", inputs=["X", "Y@GRAD"], outputs=["X@GRAD"], attrs=FOLD_ATTRS,
    infer=lambda x, dy, **a: x, no_need_buffer=("X",),
    kernel=lambda ctx, x, dy, **a: col2im(ctx.xp, dy, x.shape[2:], a["kernel_sizes"],
                                          a["strides"], _flat_pads(a["paddings"]),
                                          a["dilations"]),
    doc="the gradient of unfold: Y@GRAD's columns added back into place (col2im)"))

FOLD_ALL = {"output_sizes": Attr("ints", [1, 1], _pair("output_sizes")), **FOLD_ATTRS}

register(OpDef(
    "fold", inputs=["X"], outputs=["Y"], attrs=FOLD_ALL, infer=_fold_infer,
    kernel=lambda ctx, x, **a: col2im(ctx.xp, x, a["output_sizes"], a["kernel_sizes"],
                                      a["strides"], _fold_pads(a["paddings"]), a["dilations"]),
    grad=grad_op("fold_grad", inputs=("X",), out_grads=("Y",)),
    doc="Y [N, C, H, W] = the columns of X [N, C*kh*kw, L] added into place (col2im)"))
register(OpDef(
    "fold_grad", inputs=["X", "Y@GRAD"], outputs=["X@GRAD"], attrs=FOLD_ALL,
    infer=lambda x, dy, **a: x, no_need_buffer=("X",),
    kernel=lambda ctx, x, dy, **a: im2col(ctx.xp, dy, a["kernel_sizes"], a["strides"],
                                          _fold_pads(a["paddings"]), a["dilations"]),
    doc="the gradient of fold: Y@GRAD's blocks as columns (im2col)"))
