"""Convolution over NCHW images: ``conv2d`` and ``depthwise_conv2d`` with their grads.

conv2d turns the windows of the padded input into columns (im2col, a strided
view copied once into a work array reused across runs) and multiplies them by
the filter, one GEMM per image and group. Its
grad runs the same two pieces backwards: the filter's gradient is one GEMM of
the output gradient with the columns, the input's gradient multiplies back by
the filter and adds the columns into place (col2im). These three functions
(:func:`conv_forward`, :func:`conv_filter_grad`, :func:`conv_input_grad`) are
also conv2d_transpose's kernels (conv_transpose.py), which is conv2d's adjoint.
``depthwise_conv2d`` (what ``Conv2D(groups=C)`` writes) is the same math with
groups equal to the channels. Small images, filters the ``filter_layout`` pass laid channels
last, and depthwise filters over narrow outputs take the forms of conv_channels_last.py;
depthwise filters over short images (a text line's few rows) conv_depthwise.py's.
"""

import functools

from paddle_nb.ops.conv_channels_last import (channels_last, depthwise_channels_last,
                                              forward_channels_last, forward_depthwise,
                                              prefers_channels_last)
from paddle_nb.ops.conv_depthwise import forward_short, serves
from paddle_nb.ops.machinery.gemm import blocked, few_columns
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.window import (WINDOW_ATTRS, add_windows, both, from_nchw,
                                            from_nchw_shape, live_window, nchw_shape, out_hw,
                                            out_size, pad, pair_check, positive, rank4,
                                            resolve_padding, row_windows, scratch, to_nchw,
                                            windows)

__all__ = ["out_size", "resolve_padding", "CONV_ATTRS", "conv_forward", "conv_filter_grad",
           "conv_input_grad", "check_groups", "channels_last", "prefers_channels_last",
           "conv2d_output"]

CONV_ATTRS = {
    **WINDOW_ATTRS,
    "dilations": Attr("ints", [1, 1], both(pair_check("dilations"), positive)),
    "groups": Attr("int", 1, lambda v: None if v >= 1 else "must be at least 1"),
}


# ---- the three GEMMs (NCHW arrays; pads, dil already resolved) ----

def _pointwise(k_hw, strides, pads):
    """A 1x1 filter at stride 1 without padding: the columns are the image's pixels."""
    return tuple(k_hw) == (1, 1) and tuple(strides) == (1, 1) and not any(pads)


def _columns(xp, x, k_hw, strides, pads, dil, o_hw, groups):
    """Columns (N, G, C/G*kh*kw, OH*OW) of padded ``x``: the windows copied once into a
    reused work array, or x itself for a 1x1 stride-1 filter (its columns are its pixels)."""
    n, p = x.shape[0], o_hw[0] * o_hw[1]
    if _pointwise(k_hw, strides, pads):
        return x.reshape(n, groups, -1, p)
    view = windows(xp, pad(xp, x, pads, reuse=True), k_hw, strides, dil, o_hw)
    cols = scratch(xp, view.shape, x.dtype)
    xp.copyto(cols, view)
    return cols.reshape(n, groups, -1, p)


def conv_forward(xp, x, w, strides, pads, dil, o_hw, groups):
    """y[n, m] = sum over m's group of w[m] * windows of x: (N, M, OH, OW), one GEMM per image
    and group; or, for a batch of small images (:func:`_forward_merged`), one per group.
    Filter taps that only ever see padding are left out first (:func:`_live_filter`). A filter
    laid channels last (the ``filter_layout`` pass's) and a depthwise filter over a narrow
    output take conv_channels_last.py's forms, a depthwise filter over a short image
    conv_depthwise.py's; a 1x1 filter over a batch of 1x1 images one
    GEMM (:func:`_forward_pixels`). On a GPU a dense filter always takes the merged form."""
    whole, whole_pads = w, pads
    w, pads = _live_filter(x, w, strides, pads, dil, o_hw, groups)
    if groups == 1 and channels_last(xp, w):
        return forward_channels_last(xp, x, w, strides, pads, dil, o_hw)
    if groups > 1 and depthwise_channels_last(xp, x, w, o_hw):
        return forward_depthwise(xp, x, w, strides, pads, dil, o_hw)
    if groups > 1 and serves(x, w, o_hw):
        # the whole filter: its dead rows are never gathered, and its reshape is a view
        return forward_short(xp, x, whole, strides, whole_pads, dil, o_hw)
    if _by_rows(x, w, strides, pads, o_hw):
        return _forward_rows(xp, x, w, pads, dil, o_hw, groups)
    n, p = x.shape[0], o_hw[0] * o_hw[1]
    if groups == 1 and xp.__name__ != "numpy":
        # on a GPU the launches bound the time, not the arithmetic: one 2-D GEMM is 70-160 us
        # less host time than CuPy's batched matmul over the images (ResNet-18's convs on an
        # H200, CuPy 14.2: 120-165 against 190-280 us a conv, device time equal or less)
        return _forward_merged(xp, x, w, strides, pads, dil, o_hw, groups)
    if n > 1 and p == 1 and groups == 1 and _pointwise(w.shape[2:], strides, pads):
        return _forward_pixels(xp, x, w)
    if n > 1 and (1 < p <= MERGE_PIXELS and (groups > 1 or w.nbytes >= MERGE_FILTER_BYTES)
                  and not _pointwise(w.shape[2:], strides, pads)
                  or groups == 1 and blocked(xp, w.nbytes, n * p)):
        return _forward_merged(xp, x, w, strides, pads, dil, o_hw, groups)
    cols = _columns(xp, x, w.shape[2:], strides, pads, dil, o_hw, groups)
    wg = w.reshape(groups, w.shape[0] // groups, -1)
    return xp.matmul(wg, cols).reshape((n, w.shape[0]) + tuple(o_hw))


def _forward_pixels(xp, x, w):
    """A 1x1 filter over a batch of 1x1 images: one (M, C) x (C, N) GEMM, the images as the
    columns in place (a transposed view). Per image it would be N matrix-vector products, each
    reading the whole filter: ResNet-18's last stage (cropped to 1x1 filters, batch 2) 0.7x."""
    n, m = x.shape[0], w.shape[0]
    y = few_columns(xp, w.reshape(m, -1), x.reshape(n, -1).T)
    return xp.ascontiguousarray(y.T).reshape(n, m, 1, 1)


def _by_rows(x, w, strides, pads, o_hw):
    """Whether _forward_rows serves: stride 1 and a depthwise filter (one input channel per
    group), whose im2col is nearly its whole cost. Dense filters stay on _columns: by rows
    their GEMMs gain columns, and measured in the zoo models they ran slower (ResNet-18 1.6x:
    its 1x1 and 2x2 images turn matrix-vector products into GEMMs of 3 to 8 columns)."""
    return (tuple(strides) == (1, 1) and w.shape[1] == 1
            and not _pointwise(w.shape[2:], strides, pads))


def _forward_rows(xp, x, w, pads, dil, o_hw, groups):
    """conv_forward at stride 1 with im2col by whole rows (window.row_windows).

    The columns are (N, G, C/G * kh * kw, OH * W') for the padded width W': each tap's
    windows copy as one run, and the GEMM also computes the W' - OW outputs past the right
    edge, cropped at the end. Measured 0.5-0.9x the time of :func:`_columns` for the zoo's
    depthwise filters; PP-LCNet, PicoDet and MobileNetV2 0.87-0.94x their time.
    """
    n, m = x.shape[0], w.shape[0]
    padded = pad(xp, x, (pads[0], pads[1] + 1, pads[2], pads[3]), reuse=True)
    view = row_windows(xp, padded, w.shape[2:], dil, o_hw[0])
    cols = scratch(xp, view.shape, x.dtype)
    xp.copyto(cols, view)
    wide = padded.shape[3]
    y = xp.matmul(w.reshape(groups, m // groups, -1), cols.reshape(n, groups, -1, view.shape[4]))
    return xp.ascontiguousarray(y.reshape(n, m, o_hw[0], wide)[..., :o_hw[1]])


# a dense filter is cropped (_live_filter) only when it serves at least this many GEMM columns
CROP_COLUMNS = 16


def _live_filter(x, w, strides, pads, dil, o_hw, groups):
    """(filter, pads) without the kernel rows and columns whose taps read only padding.

    Small images with a large kernel (a 3x3 filter on a 1x1 image, a 5x5 one on a 2-row
    text line) spend most of im2col and the GEMM on zeros. The taps kept form a smaller
    kernel; the padding shrinks with it, so every window reads the same pixels. The
    cropped filter is a strided copy, which for a dense filter costs more than the GEMM
    saves when it serves only a few columns (ResNet's 3x3 512->512 filter on 1x1 images:
    slower cropped); a depthwise filter (one input channel per group) is tiny.
    """
    if w.shape[1] != 1 and x.shape[0] * o_hw[0] * o_hw[1] < CROP_COLUMNS:
        return w, pads
    cut = _live_cut(tuple(x.shape[2:]), tuple(w.shape[2:]), tuple(strides), tuple(pads),
                    tuple(dil), tuple(o_hw))
    return (w, pads) if cut is None else (w[:, :, cut[0], cut[1]], cut[2])


# the geometry of _live_filter, remembered per shapes and attributes
_live_cut = functools.lru_cache(maxsize=1024)(live_window)


# at most this many output pixels per image (and more than one: a GEMM of one column per image
# is a matrix-vector product, which BLAS does well): the batch goes into one GEMM, unless the
# columns are x itself (a 1x1 filter, stride 1, no padding: no copy beats a better GEMM); a
# large filter over a batch of a few pixels in all (gemm.blocked) always does: few_columns
# reads it once (a batch of 1x1 images would read it once per image, in matrix-vector products)
MERGE_PIXELS = 64
# ... and, for a dense filter, only one of at least this many bytes: merging saves reading the
# filter once per image, and costs a transposed copy of the columns and of the output. A small
# filter (LeNet's 16x6x5x5, 2 KB) is read from cache anyway: merged took 1.1-1.3x the per-image
# GEMMs over 36-64 pixels at batch 64 (a 64x64x3x3 filter, 147 KB: 0.73-0.96x; 256x256x3x3:
# 0.33-0.89x)
MERGE_FILTER_BYTES = 64 * 1024


def _forward_merged(xp, x, w, strides, pads, dil, o_hw, groups):
    """conv_forward with the batch in the GEMM's columns: (M, K) x (K, N*OH*OW) per group.

    Images of a few pixels make GEMMs of a few columns, where a single-threaded BLAS
    streams the whole filter from memory once per image (a 3x3 512->512 filter is 9.4 MB):
    one GEMM reads it once. The columns are laid (C, kh, kw, N, OH, OW); the result comes
    back (M, N, ...) and is copied once into (N, M, ...), a small array for small images.
    """
    n, m = x.shape[0], w.shape[0]
    view = windows(xp, pad(xp, x, pads, reuse=True), w.shape[2:], strides, dil, o_hw)
    view = view.transpose(1, 2, 3, 0, 4, 5)
    cols = scratch(xp, view.shape, x.dtype)
    xp.copyto(cols, view)
    wg, cols = w.reshape(groups, m // groups, -1), cols.reshape(groups, -1, n * view.shape[4]
                                                                 * view.shape[5])
    y = few_columns(xp, wg[0], cols[0]) if groups == 1 else xp.matmul(wg, cols)
    return xp.ascontiguousarray(y.reshape((m, n) + tuple(o_hw)).transpose(1, 0, 2, 3))


def conv_filter_grad(xp, x, dy, w_shape, strides, pads, dil, groups):
    """dL/dw for y = conv(x, w): one GEMM of dy with x's columns per image, summed over the
    batch (a single (M, N*P) x (N*P, K) GEMM is slower: its long inner dimension)."""
    o_hw = tuple(dy.shape[2:])
    cols = _columns(xp, x, w_shape[2:], strides, pads, dil, o_hw, groups)
    dyg = dy.reshape(dy.shape[0], groups, w_shape[0] // groups, -1)
    return xp.matmul(dyg, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w_shape)


def conv_input_grad(xp, dy, w, x_hw, strides, pads, dil, groups):
    """dL/dx for y = conv(x, w), x of spatial size ``x_hw``: w^T times dy, then col2im.

    col2im adds kh * kw blocks into the image; it runs with the batch as the *last*
    axis, so that each block's rows are long contiguous runs (OW * N values at stride
    1) instead of OW-long pieces. The filter's rows go in (kh, kw, C/G) order so the
    GEMM leaves each kernel position's block contiguous. The padded image is just big
    enough for every window; rows and columns the stride skips get no gradient.
    """
    n, o_hw = dy.shape[0], tuple(dy.shape[2:])
    m, cg, kh, kw = w.shape
    mg = m // groups
    wt = w.reshape(groups, mg, cg, kh * kw).transpose(0, 3, 2, 1).reshape(groups, -1, mg)
    dyl = xp.ascontiguousarray(dy.transpose(1, 2, 3, 0)).reshape(groups, mg, -1)
    if mg == 1:    # one output channel per group (depthwise): an outer product
        dcols = wt * dyl
    else:
        dcols = xp.matmul(wt, dyl)
    dcols = dcols.reshape((groups, kh, kw, cg) + o_hw + (n,))
    full = [x_hw[i] + pads[2 * i] + pads[2 * i + 1] for i in range(2)]
    dx = xp.zeros((groups, cg, full[0], full[1], n), dtype=dy.dtype)
    add_windows(dx.transpose(0, 1, 4, 2, 3), lambda i, j: dcols[:, i, j].transpose(0, 1, 4, 2, 3),
                (kh, kw), strides, dil, o_hw)
    dx = dx[:, :, pads[0]:pads[0] + x_hw[0], pads[2]:pads[2] + x_hw[1]]
    return xp.ascontiguousarray(dx.reshape((groups * cg,) + tuple(x_hw) + (n,))
                                .transpose(3, 0, 1, 2))


# ---- conv2d and depthwise_conv2d ----

def check_groups(groups, c, m, x, w, data_format, c_per_group):
    """The channel arithmetic of a grouped convolution, with messages naming both shapes."""
    if c >= 0 and c % groups:
        fail(f"groups={groups} does not divide Input's {c} channels (Input shape {tuple(x.shape)})")
    if m >= 0 and m % groups:
        fail(f"groups={groups} does not divide the {m} output channels "
             f"(Filter shape {tuple(w.shape)})")
    if c >= 0 and c_per_group >= 0 and c != c_per_group * groups:
        fail(f"Input has {c} channels (shape {tuple(x.shape)}, {data_format}) but Filter of shape "
             f"{tuple(w.shape)} with groups={groups} expects {c_per_group * groups}")


def _conv_plan(x_shape, f_shape, strides, paddings, dilations, algorithm):
    """(pads, dilations, (OH, OW)): remembered per shapes and attributes, as a model runs the
    same convolutions on every run (a bad plan raises, and is not remembered)."""
    return _plan(tuple(x_shape), tuple(f_shape), tuple(strides), tuple(paddings),
                 tuple(dilations), algorithm)


@functools.lru_cache(maxsize=1024)
def _plan(x_shape, f_shape, strides, paddings, dilations, algorithm):
    pads, dil = resolve_padding(x_shape[2:], f_shape[2:], strides, paddings, dilations, algorithm)
    return pads, dil, out_hw(x_shape[2:], f_shape[2:], strides, pads, dil)


def _conv_infer(x, w, *, strides, paddings, padding_algorithm, data_format, dilations, groups,
                is_test):
    rank4("Input", x)
    rank4("Filter", w)
    if x.dtype != w.dtype:
        fail(f"Input and Filter must have the same dtype, got {x.dtype} and {w.dtype}")
    shape = nchw_shape(tuple(x.shape), data_format)
    check_groups(groups, shape[1], w.shape[0], x, w, data_format, w.shape[1])
    _, _, o_hw = _conv_plan(shape, w.shape, strides, paddings, dilations, padding_algorithm)
    return x.with_shape(from_nchw_shape((shape[0], w.shape[0]) + o_hw, data_format))


def conv2d_output(xp, x, w, strides, paddings, padding_algorithm, data_format, dilations,
                  groups):
    """conv2d's Output for ``x`` in ``data_format``, from the op's attributes: the kernel of
    conv2d and depthwise_conv2d, and of fused_conv2d_bias_act before its bias and activation."""
    x = to_nchw(x, data_format)
    pads, dil, o_hw = _conv_plan(x.shape, w.shape, strides, paddings, dilations,
                                 padding_algorithm)
    out = conv_forward(xp, x, w, strides, pads, dil, o_hw, groups)
    return from_nchw(out, data_format).astype(x.dtype, copy=False)


def _conv_kernel(ctx, x, w, *, strides, paddings, padding_algorithm, data_format, dilations,
                 groups, is_test):
    return conv2d_output(ctx.xp, x, w, strides, paddings, padding_algorithm, data_format,
                         dilations, groups)


def _conv_grad_infer(x, w, dout, **attrs):
    return x, w


def _conv_grad_kernel(ctx, x, w, dout, *, strides, paddings, padding_algorithm, data_format,
                      dilations, groups, is_test):
    xp = ctx.xp
    x, dout = to_nchw(x, data_format), to_nchw(dout, data_format)
    pads, dil, _ = _conv_plan(x.shape, w.shape, strides, paddings, dilations, padding_algorithm)
    dx = dw = None
    if ctx.want(0):
        dx = conv_input_grad(xp, dout, w, x.shape[2:], strides, pads, dil, groups)
        dx = from_nchw(dx, data_format).astype(x.dtype, copy=False)
    if ctx.want(1):
        dw = conv_filter_grad(xp, x, dout, w.shape, strides, pads, dil, groups)
        dw = dw.astype(w.dtype, copy=False)
    return dx, dw


CONV_ALL = {**CONV_ATTRS, "is_test": Attr("bool", False)}


def _register_conv(op_type, doc):
    register(OpDef(
        op_type, inputs=["Input", "Filter"], outputs=["Output"], attrs=CONV_ALL,
        infer=_conv_infer, kernel=_conv_kernel,
        grad=grad_op(op_type + "_grad", inputs=("Input", "Filter"), out_grads=("Output",),
                     in_grads=("Input", "Filter")),
        doc=doc))
    register(OpDef(
        op_type + "_grad", inputs=["Input", "Filter", "Output@GRAD"],
        outputs=[Slot("Input@GRAD", dispensable=True), Slot("Filter@GRAD", dispensable=True)],
        attrs=CONV_ALL, infer=_conv_grad_infer, kernel=_conv_grad_kernel,
        doc=f"the gradients of {op_type}: Input@GRAD (col2im) and Filter@GRAD from Output@GRAD"))


_register_conv("conv2d", "Output = 2-D convolution of Input [N, C, H, W] with Filter "
                         "[M, C/groups, kh, kw]")
_register_conv("depthwise_conv2d", "Output = conv2d with groups = C: each channel convolved "
                                   "with its own filters, Filter [M, 1, kh, kw]")
