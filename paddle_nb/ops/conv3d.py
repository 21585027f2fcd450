"""Volumetric convolution: ``conv3d`` and ``conv3d_transpose``, with their grads.

The same three GEMMs as conv2d (conv.py), over windows in any number of
spatial dimensions (window_nd.py): the forward copies every window of the
padded input into columns (N, G, C/G * kd*kh*kw, OD*OH*OW) and multiplies by
the filter; the input gradient multiplies back by the filter and adds each
kernel position's block into place (col2im); the filter gradient is the output
gradient times the columns. conv3d_transpose is conv3d's adjoint, so its
forward is conv3d's input gradient, and so on, as conv_transpose.py explains.
conv3d's layout is NCDHW or NDHWC; conv3d_transpose is written by
PaddlePaddle 2.6 with ``data_format="NCHW"`` for a channel-first volume.
"""

from paddle_nb.ops.conv import check_groups
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.window import one_of, positive
from paddle_nb.ops.machinery.window_nd import (channel_first_shape, channel_last_shape,
                                     from_channel_first, kernel_positions, out_sizes, pad_nd,
                                     resolve_padding_nd, slices_nd, to_channel_first, windows_nd)

__all__ = ["conv_nd_forward", "conv_nd_input_grad", "conv_nd_filter_grad"]


def _triple(name, lengths=(3,)):
    def check(v):
        if len(v) not in lengths:
            return f"{name} needs {' or '.join(map(str, lengths))} values, got {len(v)}"
        return positive(v) if name in ("strides", "dilations") else None
    return check


LAYOUTS = one_of("NCDHW", "NDHWC", "NCHW", "NHWC", "AnyLayout")
CONV3D_ATTRS = {
    "strides": Attr("ints", [1, 1, 1], _triple("strides")),
    "paddings": Attr("ints", [0, 0, 0], _triple("paddings", (3, 6)),
                     comment="[d, h, w] or [front, back, top, bottom, left, right]"),
    "padding_algorithm": Attr("str", "EXPLICIT", one_of("EXPLICIT", "SAME", "VALID")),
    "groups": Attr("int", 1, lambda v: None if v >= 1 else "must be at least 1"),
    "dilations": Attr("ints", [1, 1, 1], _triple("dilations")),
    "data_format": Attr("str", "NCDHW", LAYOUTS),
}


# ---- the three GEMMs, channel-first arrays of any spatial rank ----

def _columns(xp, x, ksize, strides, pads, dil, outs, groups):
    view = windows_nd(xp, pad_nd(xp, x, pads), ksize, strides, dil, outs)
    return xp.ascontiguousarray(view).reshape(x.shape[0], groups, -1, _prod(outs))


def _prod(values):
    p = 1
    for v in values:
        p *= int(v)
    return p


def conv_nd_forward(xp, x, w, strides, pads, dil, outs, groups):
    """y[n, m] = sum over m's group of w[m] * the windows of x."""
    cols = _columns(xp, x, w.shape[2:], strides, pads, dil, outs, groups)
    wg = w.reshape(groups, w.shape[0] // groups, -1)
    return xp.matmul(wg, cols).reshape((x.shape[0], w.shape[0]) + tuple(outs))


def conv_nd_filter_grad(xp, x, dy, w_shape, strides, pads, dil, groups):
    """dL/dw: the output gradient times the columns, one GEMM per image accumulated in
    place (no (N, G, M/G, K) stack of per-image products to sum)."""
    cols = _columns(xp, x, w_shape[2:], strides, pads, dil, dy.shape[2:], groups)
    dyg = dy.reshape(dy.shape[0], groups, w_shape[0] // groups, -1)
    dw = xp.matmul(dyg[0], cols[0].transpose(0, 2, 1))
    for n in range(1, dy.shape[0]):
        dw += xp.matmul(dyg[n], cols[n].transpose(0, 2, 1))
    return dw.reshape(w_shape)


def conv_nd_input_grad(xp, dy, w, sizes, strides, pads, dil, groups):
    """dL/dx for an input of spatial ``sizes``: w^T times dy, then col2im."""
    n, outs, ksize = dy.shape[0], tuple(dy.shape[2:]), tuple(w.shape[2:])
    m, cg = w.shape[:2]
    wt = w.reshape(groups, m // groups, -1).transpose(0, 2, 1)
    dcols = xp.matmul(wt, dy.reshape(n, groups, m // groups, -1))
    dcols = dcols.reshape((n, groups * cg) + ksize + outs)
    full = [sizes[i] + pads[2 * i] + pads[2 * i + 1] for i in range(len(sizes))]
    dx = xp.zeros((n, groups * cg) + tuple(full), dtype=dy.dtype)
    for pos in kernel_positions(ksize):
        slices_nd(dx, pos, strides, dil, outs)[...] += dcols[(slice(None), slice(None)) + pos]
    inner = tuple(slice(pads[2 * i], pads[2 * i] + sizes[i]) for i in range(len(sizes)))
    return dx[(Ellipsis,) + inner]


# ---- conv3d ----

def _rank5(slot, meta):
    if len(meta.shape) != 5:
        fail(f"{slot} must be a 5-D tensor, got shape {tuple(meta.shape)}")


def _plan(shape, w_shape, strides, paddings, dilations, algorithm):
    pads, dil = resolve_padding_nd(shape[2:], w_shape[2:], strides, paddings, dilations,
                                   algorithm)
    return pads, dil, out_sizes(shape[2:], w_shape[2:], strides, pads, dil)


def _infer(x, w, *, strides, paddings, padding_algorithm, groups, dilations, data_format):
    _rank5("Input", x)
    _rank5("Filter", w)
    if x.dtype != w.dtype:
        fail(f"Input and Filter must have the same dtype, got {x.dtype} and {w.dtype}")
    shape = channel_first_shape(x.shape, data_format)
    check_groups(groups, shape[1], w.shape[0], x, w, data_format, w.shape[1])
    _, _, outs = _plan(shape, w.shape, strides, paddings, dilations, padding_algorithm)
    return x.with_shape(channel_last_shape((shape[0], w.shape[0]) + outs, data_format))


def _kernel(ctx, x, w, *, strides, paddings, padding_algorithm, groups, dilations, data_format):
    x = to_channel_first(x, data_format)
    pads, dil, outs = _plan(x.shape, w.shape, strides, paddings, dilations, padding_algorithm)
    out = conv_nd_forward(ctx.xp, x, w, strides, pads, dil, outs, groups)
    return from_channel_first(out, data_format).astype(x.dtype, copy=False)


def _grad_kernel(ctx, x, w, dout, *, strides, paddings, padding_algorithm, groups, dilations,
                 data_format):
    xp = ctx.xp
    x, dout = to_channel_first(x, data_format), to_channel_first(dout, data_format)
    pads, dil, _ = _plan(x.shape, w.shape, strides, paddings, dilations, padding_algorithm)
    dx = dw = None
    if ctx.want(0):
        dx = conv_nd_input_grad(xp, dout, w, x.shape[2:], strides, pads, dil, groups)
        dx = from_channel_first(dx, data_format).astype(x.dtype, copy=False)
    if ctx.want(1):
        dw = conv_nd_filter_grad(xp, x, dout, w.shape, strides, pads, dil, groups)
        dw = dw.astype(w.dtype, copy=False)
    return dx, dw


GRAD_OUTPUTS = [Slot("Input@GRAD", dispensable=True), Slot("Filter@GRAD", dispensable=True)]

register(OpDef(
    "conv3d", inputs=["Input", "Filter"], outputs=["Output"], attrs=CONV3D_ATTRS,
    infer=_infer, kernel=_kernel,
    grad=grad_op("conv3d_grad", inputs=("Input", "Filter"), out_grads=("Output",),
                 in_grads=("Input", "Filter")),
    doc="Output = 3-D convolution of Input [N, C, D, H, W] with Filter [M, C/groups, kd, kh, kw]"))
register(OpDef(
    "conv3d_grad", inputs=["Input", "Filter", "Output@GRAD"], outputs=GRAD_OUTPUTS,
    attrs=CONV3D_ATTRS, infer=lambda x, w, dout, **attrs: (x, w), kernel=_grad_kernel,
    doc="the gradients of conv3d: Input@GRAD (col2im) and Filter@GRAD from Output@GRAD"))


# ---- conv3d_transpose: conv3d's adjoint ----

TRANSPOSE_ATTRS = {
    **CONV3D_ATTRS,
    "output_padding": Attr("ints", [], _triple("output_padding", (0, 3))),
    "output_size": Attr("ints", [], _triple("output_size", (0, 3)),
                        comment="[D_out, H_out, W_out], or [] to compute it"),
    "data_format": Attr("str", "NCHW", LAYOUTS, comment="2.6 writes NCHW for NCDHW"),
}


def _side(size, k, s, p0, p1, d, output_padding, output_size, i):
    if size < 0:
        return -1
    base = (size - 1) * s - p0 - p1 + d * (k - 1) + 1
    if output_size:
        if not base <= output_size[i] < base + s:
            fail(f"output_size[{i}] = {output_size[i]} must be in [{base}, {base + s}) for an "
                 f"input side of {size}, kernel {k}, stride {s}, paddings ({p0}, {p1})")
        return output_size[i]
    if output_padding:
        if output_padding[i] >= max(s, d):
            fail(f"output_padding[{i}] = {output_padding[i]} must be less than "
                 f"max(stride, dilation) = {max(s, d)}")
        base += output_padding[i]
    if base <= 0:
        fail(f"Input side {size} with kernel {k}, stride {s} gives an output side of {base}")
    return base


def _t_plan(shape, w_shape, strides, paddings, dilations, algorithm, output_padding,
            output_size):
    k = tuple(w_shape[2:])
    pads, dil = resolve_padding_nd(shape[2:], k, strides, paddings, dilations, algorithm)
    outs = tuple(_side(shape[2 + i], k[i], strides[i], pads[2 * i], pads[2 * i + 1], dil[i],
                       output_padding, output_size, i) for i in range(3))
    return pads, dil, outs


def _t_infer(x, w, *, strides, paddings, padding_algorithm, groups, dilations, data_format,
             output_padding, output_size):
    _rank5("Input", x)
    _rank5("Filter", w)
    if x.dtype != w.dtype:
        fail(f"Input and Filter must have the same dtype, got {x.dtype} and {w.dtype}")
    shape = channel_first_shape(x.shape, data_format)
    c, m = shape[1], (w.shape[1] * groups if w.shape[1] >= 0 else -1)
    if c >= 0 and w.shape[0] >= 0 and c != w.shape[0]:
        fail(f"Input has {c} channels (shape {tuple(x.shape)}, {data_format}) but Filter of "
             f"shape {tuple(w.shape)} expects {w.shape[0]} (Filter is [C_in, C_out/groups, kd, "
             f"kh, kw])")
    if c >= 0 and c % groups:
        fail(f"groups={groups} does not divide Input's {c} channels (Input shape {tuple(x.shape)})")
    _, _, outs = _t_plan(shape, w.shape, strides, paddings, dilations, padding_algorithm,
                         output_padding, output_size)
    return x.with_shape(channel_last_shape((shape[0], m) + outs, data_format))


def _t_kernel(ctx, x, w, *, strides, paddings, padding_algorithm, groups, dilations,
              data_format, output_padding, output_size):
    x = to_channel_first(x, data_format)
    pads, dil, outs = _t_plan(x.shape, w.shape, strides, paddings, dilations,
                              padding_algorithm, output_padding, output_size)
    out = conv_nd_input_grad(ctx.xp, x, w, outs, strides, pads, dil, groups)
    return from_channel_first(out, data_format).astype(x.dtype, copy=False)


def _t_grad_kernel(ctx, x, w, dout, *, strides, paddings, padding_algorithm, groups, dilations,
                   data_format, output_padding, output_size):
    xp = ctx.xp
    x, dout = to_channel_first(x, data_format), to_channel_first(dout, data_format)
    pads, dil = resolve_padding_nd(x.shape[2:], w.shape[2:], strides, paddings, dilations,
                                   padding_algorithm)
    dx = dw = None
    if ctx.want(0):     # the adjoint's adjoint: conv3d of the output gradient
        dx = conv_nd_forward(xp, dout, w, strides, pads, dil, tuple(x.shape[2:]), groups)
        dx = from_channel_first(dx, data_format).astype(x.dtype, copy=False)
    if ctx.want(1):
        dw = conv_nd_filter_grad(xp, dout, x, w.shape, strides, pads, dil, groups)
        dw = dw.astype(w.dtype, copy=False)
    return dx, dw


register(OpDef(
    "conv3d_transpose", inputs=["Input", "Filter"], outputs=["Output"], attrs=TRANSPOSE_ATTRS,
    infer=_t_infer, kernel=_t_kernel,
    grad=grad_op("conv3d_transpose_grad", inputs=("Input", "Filter"), out_grads=("Output",),
                 in_grads=("Input", "Filter")),
    doc="Output = transposed 3-D convolution (conv3d's adjoint) of Input [N, C, D, H, W] with "
        "Filter [C, M/groups, kd, kh, kw]"))
register(OpDef(
    "conv3d_transpose_grad", inputs=["Input", "Filter", "Output@GRAD"], outputs=GRAD_OUTPUTS,
    attrs=TRANSPOSE_ATTRS, infer=lambda x, w, dout, **attrs: (x, w), kernel=_t_grad_kernel,
    doc="the gradients of conv3d_transpose: Input@GRAD (a conv3d) and Filter@GRAD"))
