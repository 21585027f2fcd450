"""Convolution and pooling over NCHW images: ``conv2d`` and ``pool2d`` with their grads.

Both slide a window (kh x kw, spaced by ``dilations``, stepped by ``strides``)
over an input padded by ``paddings`` ([h, w] or [top, bottom, left, right];
``padding_algorithm`` "SAME" or "VALID" computes them instead). conv2d turns
the windows into columns (im2col, a strided view of the padded input) and
multiplies them by the filter, per group; its grad multiplies back and adds
the columns into place (col2im, one strided slice per kernel position).
pool2d takes the max or the mean of each window.
"""

from paddle_nb.ops.grad import grad_op
from paddle_nb.ops.registry import Attr, OpDef, Slot, fail, register

__all__ = ["out_size", "resolve_padding"]


def _pair_check(name, lengths=(2,)):
    def check(v):
        if len(v) not in lengths:
            return f"{name} needs {' or '.join(map(str, lengths))} values, got {len(v)}"
        return None
    return check


def _positive(v):
    return None if all(i > 0 for i in v) else "every value must be positive"


def _both(*checks):
    return lambda v: next((p for p in (c(v) for c in checks) if p), None)


def _one_of(*names):
    return lambda v: None if v in names else f"expected one of {list(names)}"


WINDOW_ATTRS = {
    "strides": Attr("ints", [1, 1], _both(_pair_check("strides"), _positive)),
    "paddings": Attr("ints", [0, 0], _pair_check("paddings", (2, 4)),
                     comment="[h, w] or [top, bottom, left, right]"),
    "padding_algorithm": Attr("str", "EXPLICIT", _one_of("EXPLICIT", "SAME", "VALID")),
    "data_format": Attr("str", "NCHW", _one_of("NCHW", "NHWC", "AnyLayout")),
}
CONV_ATTRS = {
    **WINDOW_ATTRS,
    "dilations": Attr("ints", [1, 1], _both(_pair_check("dilations"), _positive)),
    "groups": Attr("int", 1, lambda v: None if v >= 1 else "must be at least 1"),
}
POOL_ATTRS = {
    **WINDOW_ATTRS,
    "pooling_type": Attr("str", "max", _one_of("max", "avg")),
    "ksize": Attr("ints", [1, 1], _both(_pair_check("ksize"), _positive)),
    "global_pooling": Attr("bool", False, comment="pool the whole image (ksize = H, W)"),
    "exclusive": Attr("bool", True, comment="avg divides by the window's unpadded size"),
    "ceil_mode": Attr("bool", False, comment="round the output size up"),
    "adaptive": Attr("bool", False, comment="ksize is the output size; windows tile the input"),
}


# ---- window geometry (shared by infer and kernels; -1 = unknown stays unknown) ----

def out_size(size, k, stride, pad0, pad1, dilation=1, ceil_mode=False):
    """Output length of a window sliding over ``size``.

    >>> out_size(5, 3, 2, 1, 1), out_size(5, 2, 2, 0, 0, ceil_mode=True), out_size(-1, 3, 1, 0, 0)
    (3, 3, -1)
    """
    if size < 0:
        return -1
    span = size + pad0 + pad1 - (dilation * (k - 1) + 1)
    return (span + (stride - 1 if ceil_mode else 0)) // stride + 1


def resolve_padding(hw, ksize, strides, paddings, dilations, algorithm):
    """(top, bottom, left, right) and dilations after ``padding_algorithm``, as Paddle does.

    SAME pads so that out = ceil(in / stride) (extra on the bottom/right) and sets
    dilations to 1; VALID pads nothing.

    >>> resolve_padding((5, 5), (2, 2), (2, 2), [0, 0], [1, 1], "SAME")
    ((0, 1, 0, 1), (1, 1))
    """
    pads = list(paddings) if len(paddings) == 4 else [paddings[0]] * 2 + [paddings[1]] * 2
    if algorithm == "VALID":
        return (0, 0, 0, 0), tuple(dilations)
    if algorithm == "SAME":
        for i, (size, k, s) in enumerate(zip(hw, ksize, strides)):
            total = max((-(-size // s) - 1) * s + k - size, 0) if size >= 0 else 0
            pads[2 * i:2 * i + 2] = [total // 2, total - total // 2]
        return tuple(pads), (1, 1)
    return tuple(pads), tuple(dilations)


def _out_hw(hw, ksize, strides, pads, dilations=(1, 1), ceil_mode=False, what="Input"):
    out = tuple(out_size(hw[i], ksize[i], strides[i], pads[2 * i], pads[2 * i + 1],
                         dilations[i], ceil_mode) for i in range(2))
    if any(size >= 0 and o <= 0 for size, o in zip(hw, out)):
        fail(f"{what} of spatial size {tuple(hw)} is too small for a {tuple(ksize)} window with "
             f"paddings {pads}, dilations {tuple(dilations)}: the output would be {out}")
    return out


def _nchw_shape(shape, data_format):
    return shape if data_format != "NHWC" else (shape[0], shape[3], shape[1], shape[2])


def _from_nchw_shape(shape, data_format):
    return shape if data_format != "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def _to_nchw(x, data_format):
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def _from_nchw(x, data_format):
    return x.transpose(0, 2, 3, 1) if data_format == "NHWC" else x


def _rank4(slot, meta):
    if len(meta.shape) != 4:
        fail(f"{slot} must be a 4-D tensor, got shape {tuple(meta.shape)}")


def _windows(xp, x, ksize, strides, dilations, out_hw):
    """A strided view (N, C, kh, kw, OH, OW) of every window of padded ``x`` (no copy)."""
    sn, sc, sh, sw = x.strides
    shape = tuple(x.shape[:2]) + tuple(ksize) + tuple(out_hw)
    steps = (sn, sc, sh * dilations[0], sw * dilations[1], sh * strides[0], sw * strides[1])
    return xp.lib.stride_tricks.as_strided(x, shape, steps)


def _pad(xp, x, pads, value=0):
    if not any(pads):
        return x
    width = ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3]))
    return xp.pad(x, width, mode="constant", constant_values=value)


def _add_windows(dst, cols, strides, dilations, out_hw):
    """col2im: add cols (N, C, kh, kw, OH, OW) back into the padded image ``dst``, in place."""
    kh, kw = cols.shape[2:4]
    (oh, ow), (sh, sw) = out_hw, strides
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dilations[0], j * dilations[1]
            rows = slice(h0, h0 + sh * (oh - 1) + 1, sh)
            dst[:, :, rows, w0:w0 + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return dst


# ---- conv2d ----

def _conv_plan(x_shape, f_shape, strides, paddings, dilations, algorithm):
    pads, dil = resolve_padding(x_shape[2:], f_shape[2:], strides, paddings, dilations, algorithm)
    return pads, dil, _out_hw(x_shape[2:], f_shape[2:], strides, pads, dil)


def _conv_infer(x, w, *, strides, paddings, padding_algorithm, data_format, dilations, groups,
                is_test):
    _rank4("Input", x)
    _rank4("Filter", w)
    if x.dtype != w.dtype:
        fail(f"Input and Filter must have the same dtype, got {x.dtype} and {w.dtype}")
    shape = _nchw_shape(tuple(x.shape), data_format)
    c, m = shape[1], w.shape[0]
    if c >= 0 and c % groups:
        fail(f"groups={groups} does not divide Input's {c} channels (Input shape {tuple(x.shape)})")
    if m >= 0 and m % groups:
        fail(f"groups={groups} does not divide Filter's {m} output channels "
             f"(Filter shape {tuple(w.shape)})")
    if c >= 0 and w.shape[1] >= 0 and c != w.shape[1] * groups:
        fail(f"Input has {c} channels (shape {tuple(x.shape)}, {data_format}) but Filter of shape "
             f"{tuple(w.shape)} with groups={groups} expects {w.shape[1] * groups}")
    _, _, out_hw = _conv_plan(shape, w.shape, strides, paddings, dilations, padding_algorithm)
    return x.with_shape(_from_nchw_shape((shape[0], m) + out_hw, data_format))


def _conv_columns(xp, x, w_shape, strides, pads, dil, out_hw, groups):
    """Columns (N, G, C/G*kh*kw, OH*OW) of padded ``x`` (NCHW): one copy, of the windows."""
    cols = _windows(xp, _pad(xp, x, pads), w_shape[2:], strides, dil, out_hw)
    n = x.shape[0]
    return cols.reshape(n, groups, -1, out_hw[0] * out_hw[1])


def _conv_kernel(ctx, x, w, *, strides, paddings, padding_algorithm, data_format, dilations,
                 groups, is_test):
    xp = ctx.xp
    x = _to_nchw(x, data_format)
    pads, dil, out_hw = _conv_plan(x.shape, w.shape, strides, paddings, dilations,
                                   padding_algorithm)
    cols = _conv_columns(xp, x, w.shape, strides, pads, dil, out_hw, groups)
    wg = w.reshape(groups, w.shape[0] // groups, -1)
    out = xp.matmul(wg, cols).reshape((x.shape[0], w.shape[0]) + out_hw)
    return _from_nchw(out, data_format).astype(x.dtype, copy=False)


def _conv_grad_infer(x, w, dout, **attrs):
    return x, w


def _conv_grad_kernel(ctx, x, w, dout, *, strides, paddings, padding_algorithm, data_format,
                      dilations, groups, is_test):
    xp = ctx.xp
    x, dout = _to_nchw(x, data_format), _to_nchw(dout, data_format)
    pads, dil, out_hw = _conv_plan(x.shape, w.shape, strides, paddings, dilations,
                                   padding_algorithm)
    n, c, h, wd = x.shape
    cols = _conv_columns(xp, x, w.shape, strides, pads, dil, out_hw, groups)
    dy = dout.reshape(n, groups, w.shape[0] // groups, -1)
    dw = xp.matmul(dy, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w.shape)
    wg = w.reshape(groups, w.shape[0] // groups, -1)
    dcols = xp.matmul(wg.transpose(0, 2, 1), dy).reshape((n, c) + tuple(w.shape[2:]) + out_hw)
    dx = xp.zeros((n, c, h + pads[0] + pads[1], wd + pads[2] + pads[3]), dtype=x.dtype)
    dx = _add_windows(dx, dcols, strides, dil, out_hw)
    dx = dx[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + wd]
    return _from_nchw(dx, data_format).astype(x.dtype, copy=False), dw.astype(w.dtype, copy=False)


CONV_ALL = {**CONV_ATTRS, "is_test": Attr("bool", False)}

register(OpDef(
    "conv2d", inputs=["Input", "Filter"], outputs=["Output"], attrs=CONV_ALL,
    infer=_conv_infer, kernel=_conv_kernel,
    grad=grad_op("conv2d_grad", inputs=("Input", "Filter"), out_grads=("Output",),
                 in_grads=("Input", "Filter")),
    doc="Output = 2-D convolution of Input [N, C, H, W] with Filter [M, C/groups, kh, kw]"))
register(OpDef(
    "conv2d_grad", inputs=["Input", "Filter", "Output@GRAD"],
    outputs=[Slot("Input@GRAD", dispensable=True), Slot("Filter@GRAD", dispensable=True)],
    attrs=CONV_ALL, infer=_conv_grad_infer, kernel=_conv_grad_kernel,
    doc="the gradients of conv2d: Input@GRAD (col2im) and Filter@GRAD from Output@GRAD"))


# ---- pool2d ----

def _pool_plan(shape, ksize, strides, paddings, global_pooling, adaptive, ceil_mode, algorithm):
    """(ksize, pads, output (OH, OW)) for an NCHW shape, as Paddle's pool2d computes them."""
    hw = tuple(shape[2:])
    if global_pooling:
        return hw, (0, 0, 0, 0), (1, 1)
    if adaptive:
        return tuple(ksize), (0, 0, 0, 0), tuple(ksize)
    pads, _ = resolve_padding(hw, ksize, strides, paddings, (1, 1), algorithm)
    return tuple(ksize), pads, _out_hw(hw, ksize, strides, pads, ceil_mode=ceil_mode, what="X")


def _pool_infer(x, *, strides, paddings, padding_algorithm, data_format, pooling_type, ksize,
                global_pooling, exclusive, ceil_mode, adaptive, is_test):
    _rank4("X", x)
    shape = _nchw_shape(tuple(x.shape), data_format)
    _, _, out_hw = _pool_plan(shape, ksize, strides, paddings, global_pooling, adaptive,
                              ceil_mode, padding_algorithm)
    return x.with_shape(_from_nchw_shape(shape[:2] + out_hw, data_format))


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _full_pads(hw, k, strides, pads, out_hw):
    """Pads with the bottom/right grown so every window (ceil_mode too) lies inside."""
    extra = [max(0, (out_hw[i] - 1) * strides[i] + k[i] - hw[i] - pads[2 * i]) for i in range(2)]
    return (pads[0], max(pads[1], extra[0]), pads[2], max(pads[3], extra[1]))


def _avg_divisor(xp, hw, k, strides, pads, out_hw, exclusive, dtype):
    """Per-output divisor: the window's size inside the image (exclusive) or kh * kw."""
    if not exclusive:
        return dtype.type(k[0] * k[1])
    sizes = []
    for i in range(2):
        start = xp.arange(out_hw[i]) * strides[i] - pads[2 * i]
        end = xp.minimum(start + k[i], hw[i])
        sizes.append(end - xp.maximum(start, 0))
    return (sizes[0][:, None] * sizes[1][None, :]).astype(dtype)


def _adaptive_bounds(size, out):
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _adaptive_cells(hw, out_hw):
    for i, (h0, h1) in enumerate(_adaptive_bounds(hw[0], out_hw[0])):
        for j, (w0, w1) in enumerate(_adaptive_bounds(hw[1], out_hw[1])):
            yield i, j, (slice(None), slice(None), slice(h0, h1), slice(w0, w1))


def _adaptive_pool(xp, x, out_hw, pooling_type):
    out = xp.empty(tuple(x.shape[:2]) + tuple(out_hw), dtype=x.dtype)
    for i, j, cell in _adaptive_cells(x.shape[2:], out_hw):
        win = x[cell]
        out[:, :, i, j] = win.max(axis=(2, 3)) if pooling_type == "max" else win.mean(axis=(2, 3))
    return out


def _pool_kernel(ctx, x, *, strides, paddings, padding_algorithm, data_format, pooling_type,
                 ksize, global_pooling, exclusive, ceil_mode, adaptive, is_test):
    xp = ctx.xp
    x = _to_nchw(x, data_format)
    k, pads, out_hw = _pool_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive,
                                 ceil_mode, padding_algorithm)
    if adaptive and not global_pooling:
        return _from_nchw(_adaptive_pool(xp, x, out_hw, pooling_type), data_format)
    full = _full_pads(x.shape[2:], k, strides, pads, out_hw)
    fill = _lowest(xp, x.dtype) if pooling_type == "max" else 0
    win = _windows(xp, _pad(xp, x, full, fill), k, strides, (1, 1), out_hw)
    if pooling_type == "max":
        out = win.max(axis=(2, 3))
    else:
        out = win.sum(axis=(2, 3)) / _avg_divisor(xp, x.shape[2:], k, strides, pads, out_hw,
                                                  exclusive, x.dtype)
    return _from_nchw(out, data_format).astype(x.dtype, copy=False)


def _pool_grad_infer(x, out, dout, **attrs):
    return x


def _first_max_mask(xp, win):
    """One-hot (…, kh, kw) of each window's first maximum, as Paddle's max-pool grad picks it."""
    flat = win.reshape(win.shape[:-2] + (-1,))
    pick = xp.argmax(flat, axis=-1)
    return (xp.arange(flat.shape[-1]) == pick[..., None]).reshape(win.shape)


def _adaptive_pool_grad(xp, x, dout, pooling_type):
    dx = xp.zeros_like(x)
    for i, j, cell in _adaptive_cells(x.shape[2:], dout.shape[2:]):
        g = dout[:, :, i, j, None, None]
        win = x[cell]
        dx[cell] += g * _first_max_mask(xp, win) if pooling_type == "max" else g / win[0, 0].size
    return dx


def _pool_grad_kernel(ctx, x, out, dout, *, strides, paddings, padding_algorithm, data_format,
                      pooling_type, ksize, global_pooling, exclusive, ceil_mode, adaptive,
                      is_test):
    xp = ctx.xp
    x, dout = _to_nchw(x, data_format), _to_nchw(dout, data_format)
    k, pads, out_hw = _pool_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive,
                                 ceil_mode, padding_algorithm)
    if adaptive and not global_pooling:
        return _from_nchw(_adaptive_pool_grad(xp, x, dout, pooling_type), data_format)
    n, c, h, w = x.shape
    full = _full_pads((h, w), k, strides, pads, out_hw)
    padded = _pad(xp, x, full, _lowest(xp, x.dtype))
    if pooling_type == "max":
        win = _windows(xp, padded, k, strides, (1, 1), out_hw)      # (N, C, kh, kw, OH, OW)
        cols = _first_max_mask(xp, win.transpose(0, 1, 4, 5, 2, 3)).transpose(0, 1, 4, 5, 2, 3)
        cols = cols * dout[:, :, None, None]
    else:
        g = dout / _avg_divisor(xp, (h, w), k, strides, pads, out_hw, exclusive, x.dtype)
        cols = xp.broadcast_to(g[:, :, None, None], (n, c) + tuple(k) + tuple(out_hw))
    dx = _add_windows(xp.zeros(padded.shape, dtype=x.dtype), cols, strides, (1, 1), out_hw)
    dx = dx[:, :, full[0]:full[0] + h, full[2]:full[2] + w]
    return _from_nchw(dx, data_format).astype(x.dtype, copy=False)


POOL_ALL = {**POOL_ATTRS, "is_test": Attr("bool", False)}

register(OpDef(
    "pool2d", inputs=["X"], outputs=["Out"], attrs=POOL_ALL, infer=_pool_infer,
    kernel=_pool_kernel, grad=grad_op("pool2d_grad", inputs=("X",), outputs=("Out",)),
    doc="Out = max or mean of each ksize window of X [N, C, H, W] (global, adaptive, ceil_mode)"))
register(OpDef(
    "pool2d_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=POOL_ALL,
    infer=_pool_grad_infer, kernel=_pool_grad_kernel,
    doc="the gradient of pool2d: Out@GRAD to each window's first max, or spread over it (avg)"))
