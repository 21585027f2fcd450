"""Transposed convolution: ``conv2d_transpose`` and ``depthwise_conv2d_transpose``, with grads.

A transposed convolution is the adjoint of conv2d: where conv2d gathers each
window of its input into one output pixel, conv2d_transpose spreads each input
pixel, weighted by the filter, over a window of its output. So it reuses
conv2d's three GEMMs (conv.py) with the roles swapped: its forward is conv2d's
input gradient (filter^T times the input, then col2im), its input gradient is
conv2d's forward, and its filter gradient is conv2d's filter gradient with the
output gradient as the image. Filter is [C_in, C_out / groups, kh, kw]; the
output side is (H - 1) * stride - paddings + dilation * (k - 1) + 1, plus
``output_padding`` or set to ``output_size`` (below the next stride step).
"""

from paddle_nb.ops.conv import CONV_ATTRS, conv_filter_grad, conv_forward, conv_input_grad
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.window import (from_nchw, from_nchw_shape, nchw_shape, pair_check,
                                            rank4, resolve_padding, to_nchw)


def _nonnegative(v):
    return None if all(i >= 0 for i in v) else "every value must be at least 0"


TRANSPOSE_ATTRS = {
    **CONV_ATTRS,
    "output_padding": Attr("ints", [], lambda v: pair_check("output_padding", (0, 2))(v)
                           or _nonnegative(v), comment="rows/columns added at the bottom/right"),
    "output_size": Attr("ints", [], pair_check("output_size", (0, 2)),
                        comment="[H_out, W_out], or [] to compute it"),
}


def _side(size, k, s, p0, p1, d, output_padding, output_size, i):
    """One output side; -1 when ``size`` is unknown. Checks output_size / output_padding."""
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
        fail(f"Input side {size} with kernel {k}, stride {s}, paddings ({p0}, {p1}) gives an "
             f"output side of {base}")
    return base


def _plan(x_shape, f_shape, strides, paddings, dilations, algorithm, output_padding,
          output_size):
    """(pads, dilations, output (OH, OW)) for an NCHW input shape."""
    k = tuple(f_shape[2:])
    pads, dil = resolve_padding(x_shape[2:], k, strides, paddings, dilations, algorithm)
    o_hw = tuple(_side(x_shape[2 + i], k[i], strides[i], pads[2 * i], pads[2 * i + 1], dil[i],
                       output_padding, output_size, i) for i in range(2))
    return pads, dil, o_hw


def _infer(x, w, bias, *, strides, paddings, padding_algorithm, data_format, dilations, groups,
           output_padding, output_size, is_test):
    rank4("Input", x)
    rank4("Filter", w)
    if x.dtype != w.dtype:
        fail(f"Input and Filter must have the same dtype, got {x.dtype} and {w.dtype}")
    shape = nchw_shape(tuple(x.shape), data_format)
    c, m = shape[1], (w.shape[1] * groups if w.shape[1] >= 0 else -1)
    if c >= 0 and c % groups:
        fail(f"groups={groups} does not divide Input's {c} channels (Input shape {tuple(x.shape)})")
    if c >= 0 and w.shape[0] >= 0 and c != w.shape[0]:
        fail(f"Input has {c} channels (shape {tuple(x.shape)}, {data_format}) but Filter "
             f"of shape {tuple(w.shape)} expects {w.shape[0]} (Filter is [C_in, C_out/groups, "
             f"kh, kw])")
    _, _, o_hw = _plan(shape, w.shape, strides, paddings, dilations, padding_algorithm,
                       output_padding, output_size)
    return x.with_shape(from_nchw_shape((shape[0], m) + o_hw, data_format))


def _kernel(ctx, x, w, bias, *, strides, paddings, padding_algorithm, data_format, dilations,
            groups, output_padding, output_size, is_test):
    xp = ctx.xp
    x = to_nchw(x, data_format)
    pads, dil, o_hw = _plan(x.shape, w.shape, strides, paddings, dilations, padding_algorithm,
                            output_padding, output_size)
    # Bias is left alone: 2.6 reads it only in its oneDNN kernels, not on the CPU or GPU (its
    # Python API never sets it, adding the bias with elementwise_add instead)
    out = conv_input_grad(xp, x, w, o_hw, strides, pads, dil, groups)
    return from_nchw(out, data_format).astype(x.dtype, copy=False)


def _grad_infer(x, w, bias, dout, **attrs):
    return x, w


def _grad_kernel(ctx, x, w, bias, dout, *, strides, paddings, padding_algorithm, data_format,
                 dilations, groups, output_padding, output_size, is_test):
    xp = ctx.xp
    x, dout = to_nchw(x, data_format), to_nchw(dout, data_format)
    pads, dil = resolve_padding(x.shape[2:], w.shape[2:], strides, paddings, dilations,
                                padding_algorithm)
    dx = dw = None
    if ctx.want(0):     # the adjoint's adjoint: conv2d of the output gradient
        dx = conv_forward(xp, dout, w, strides, pads, dil, tuple(x.shape[2:]), groups)
        dx = from_nchw(dx, data_format).astype(x.dtype, copy=False)
    if ctx.want(1):     # conv2d's filter gradient, the output gradient playing the image
        dw = conv_filter_grad(xp, dout, x, w.shape, strides, pads, dil, groups)
        dw = dw.astype(w.dtype, copy=False)
    return dx, dw


ALL = {**TRANSPOSE_ATTRS, "is_test": Attr("bool", False)}
BIAS = Slot("Bias", dispensable=True, comment="[C_out]; read only by oneDNN kernels, ignored")


def _register(op_type, doc):
    register(OpDef(
        op_type, inputs=["Input", "Filter", BIAS], outputs=["Output"], attrs=ALL,
        infer=_infer, kernel=_kernel,
        grad=grad_op(op_type + "_grad", inputs=("Input", "Filter"), out_grads=("Output",),
                     in_grads=("Input", "Filter")),
        doc=doc))
    register(OpDef(
        op_type + "_grad", inputs=["Input", "Filter", BIAS, "Output@GRAD"],
        outputs=[Slot("Input@GRAD", dispensable=True), Slot("Filter@GRAD", dispensable=True)],
        attrs=ALL, infer=_grad_infer, kernel=_grad_kernel,
        doc=f"the gradients of {op_type}: Input@GRAD (a conv2d) and Filter@GRAD (one GEMM)"))


_register("conv2d_transpose", "Output = transposed 2-D convolution (conv2d's adjoint) of Input "
                              "[N, C, H, W] with Filter [C, M/groups, kh, kw]")
_register("depthwise_conv2d_transpose", "Output = conv2d_transpose with groups = C (what "
                                        "Conv2DTranspose(groups=C) writes)")
