"""Pooling over NCHW images: ``pool2d`` and ``max_pool2d_with_index`` with their grads.

A pooling op takes the max or the mean of each window (window.py). Fixed
windows are walked one kernel position at a time: each position sees a
strided view of the padded input (padded with -inf for max, so padding never
wins), and the max or sum runs over the kh * kw views; a window that is the
whole image is one reduction. *Adaptive* windows tile the input into a given output
size: window i covers [floor(i*H/OH), ceil((i+1)*H/OH)), so neighbours may
overlap by a row and sizes may differ by one. Their mean is two small matrix
products (rows, then columns); their max gathers the windows, padded to the
longest by repeating each window's last index. Max pooling's gradient goes to
the first pixel of each window that equals Out. ``max_pool2d_with_index`` (what
``AdaptiveMaxPool2D`` and ``max_pool2d(return_mask=True)`` write) also returns
where each max came from (h * W + w, int32); its grad sends the output
gradient back there. Ties go to the first max in row-major order, as in Paddle.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, register
from paddle_nb.ops.machinery.window import (WINDOW_ATTRS, adaptive_bounds, add_windows, both,
                                            from_nchw, from_nchw_shape, nchw_shape, one_of, out_hw,
                                            pad, pair_check, positive, rank4, resolve_padding,
                                            to_nchw, window_slices)

POOL_ATTRS = {
    **WINDOW_ATTRS,
    "pooling_type": Attr("str", "max", one_of("max", "avg")),
    "ksize": Attr("ints", [1, 1], both(pair_check("ksize"), positive)),
    "global_pooling": Attr("bool", False, comment="pool the whole image (ksize = H, W)"),
    "exclusive": Attr("bool", True, comment="avg divides by the window's unpadded size"),
    "ceil_mode": Attr("bool", False, comment="round the output size up"),
    "adaptive": Attr("bool", False, comment="ksize is the output size; windows tile the input"),
}


def _pool_plan(shape, ksize, strides, paddings, global_pooling, adaptive, ceil_mode, algorithm):
    """(ksize, pads, output (OH, OW)) for an NCHW shape, as Paddle's pool2d computes them."""
    hw = tuple(shape[2:])
    if global_pooling:
        return hw, (0, 0, 0, 0), (1, 1)
    if adaptive:
        return tuple(ksize), (0, 0, 0, 0), tuple(ksize)
    pads, _ = resolve_padding(hw, ksize, strides, paddings, (1, 1), algorithm)
    return tuple(ksize), pads, out_hw(hw, ksize, strides, pads, ceil_mode=ceil_mode, what="X",
                                      truncate=True)


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _full_pads(hw, k, strides, pads, o_hw):
    """Pads with the bottom/right grown so every window (ceil_mode too) lies inside."""
    extra = [max(0, (o_hw[i] - 1) * strides[i] + k[i] - hw[i] - pads[2 * i]) for i in range(2)]
    return (pads[0], max(pads[1], extra[0]), pads[2], max(pads[3], extra[1]))


def _avg_divisor(xp, hw, k, strides, pads, o_hw, exclusive, dtype):
    """Per-output divisor: the window's size inside the image (exclusive), else inside the
    image and its padding. Only a ceil_mode window hanging past the padding is smaller than
    kh * kw then: PaddlePaddle divides by the part within input plus padding, not by 9."""
    sizes = []
    for i in range(2):
        start = xp.arange(o_hw[i]) * strides[i] - pads[2 * i]
        if exclusive:
            sizes.append(xp.minimum(start + k[i], hw[i]) - xp.maximum(start, 0))
        else:
            sizes.append(xp.minimum(start + k[i], hw[i] + pads[2 * i + 1]) - start)
    return (sizes[0][:, None] * sizes[1][None, :]).astype(dtype)


# ---- adaptive windows ----

def _mean_matrix(xp, size, out, dtype):
    """(out, size): row i averages adaptive window i, so mean pooling is A_h @ x @ A_w^T."""
    starts, ends = adaptive_bounds(size, out)
    pos = xp.arange(size)[None, :]
    lo, hi = xp.asarray(starts)[:, None], xp.asarray(ends)[:, None]
    return (((pos >= lo) & (pos < hi)) / (hi - lo)).astype(dtype)


def _adaptive_index(xp, size, out):
    """(out, K) input positions of each window, K the longest; short ones repeat their last."""
    starts, ends = adaptive_bounds(size, out)
    k = max(e - s for s, e in zip(starts, ends))
    idx = xp.asarray(starts)[:, None] + xp.arange(k)[None, :]
    return xp.minimum(idx, xp.asarray(ends)[:, None] - 1)


def _adaptive_max(xp, x, o_hw):
    """(max (N, C, OH, OW), flat index h * W + w of each window's first max)."""
    ih, iw = _adaptive_index(xp, x.shape[2], o_hw[0]), _adaptive_index(xp, x.shape[3], o_hw[1])
    win = x[:, :, ih[:, None, :, None], iw[None, :, None, :]]    # (N, C, OH, OW, KH, KW)
    flat = win.reshape(win.shape[:4] + (-1,))
    pick, kw = xp.argmax(flat, axis=-1), iw.shape[1]
    rows = ih[xp.arange(o_hw[0])[:, None], pick // kw]              # broadcast over (N, C)
    cols = iw[xp.arange(o_hw[1]), pick % kw]
    return flat.max(axis=-1), rows * x.shape[3] + cols


def _adaptive_pool(xp, x, o_hw, pooling_type):
    if pooling_type == "max":
        return _adaptive_max(xp, x, o_hw)[0]
    (h, w), (oh, ow) = x.shape[2:], o_hw
    if h % oh == 0 and w % ow == 0:
        # the windows tile the image (a squeeze-excitation's 1x1 output: the whole image): a
        # mean over a reshape; the two products below are N*C tiny GEMMs each (~60 us for
        # 256 channels where the mean takes ~5)
        return x.reshape(x.shape[0], x.shape[1], oh, h // oh, ow, w // ow).mean(axis=(3, 5))
    ah = _mean_matrix(xp, x.shape[2], o_hw[0], x.dtype)
    aw = _mean_matrix(xp, x.shape[3], o_hw[1], x.dtype)
    return xp.matmul(xp.matmul(ah, x), aw.T)


def _scatter_to_index(xp, index, dout, x_shape):
    """dx with each dout[n, c, i, j] added at flat position index[n, c, i, j] of x[n, c]."""
    n, c, h, w = x_shape
    base = (xp.arange(n * c) * (h * w)).reshape(n, c, 1, 1)
    flat = (index + base).reshape(-1)
    dx = xp.bincount(flat, weights=dout.reshape(-1), minlength=n * c * h * w)
    return dx.reshape(x_shape).astype(dout.dtype, copy=False)


def _adaptive_pool_grad(xp, x, dout, pooling_type):
    o_hw = tuple(dout.shape[2:])
    if pooling_type == "max":
        return _scatter_to_index(xp, _adaptive_max(xp, x, o_hw)[1], dout, x.shape)
    ah = _mean_matrix(xp, x.shape[2], o_hw[0], x.dtype)
    aw = _mean_matrix(xp, x.shape[3], o_hw[1], x.dtype)
    return xp.matmul(xp.matmul(ah.T, dout), aw)


# ---- fixed windows ----

def _padded(xp, x, k, strides, pads, o_hw, pooling_type):
    """x padded for the windows, in the reused "pad" work array (every caller here reads it
    before returning, and returns none of it)."""
    full = _full_pads(x.shape[2:], k, strides, pads, o_hw)
    return pad(xp, x, full, _lowest(xp, x.dtype) if pooling_type == "max" else 0, reuse=True)


def _fixed_max(xp, x, k, strides, pads, o_hw):
    """(max, flat index h * W + w of each window's first max).

    A running max over the kernel positions' views gives the max; then, going
    backwards, every position that holds it overwrites the pick, so the first wins.
    """
    padded = _padded(xp, x, k, strides, pads, o_hw, "max")
    views = [view for _, _, view in window_slices(padded, k, strides, (1, 1), o_hw)]
    best = views[0].copy()
    for view in views[1:]:
        xp.maximum(best, view, out=best)
    pick = xp.full(best.shape, len(views) - 1, dtype=xp.int32)
    for p in range(len(views) - 2, -1, -1):
        xp.copyto(pick, p, where=views[p] == best)
    rows = (xp.arange(o_hw[0]) * strides[0] - pads[0])[:, None] + pick // k[1]
    cols = xp.arange(o_hw[1]) * strides[1] - pads[2] + pick % k[1]
    return best, rows * x.shape[3] + cols


def _tiles(x, k, strides, pads, o_hw):
    """x as (N, C, OH, kh, OW, kw) when the windows tile it exactly (stride == kernel, no
    padding, sizes multiples of the kernel): a reshape, no copy. Else None."""
    if (tuple(strides) != tuple(k) or any(pads) or x.shape[2] != o_hw[0] * k[0]
            or x.shape[3] != o_hw[1] * k[1]):
        return None
    return x.reshape(tuple(x.shape[:2]) + (o_hw[0], k[0], o_hw[1], k[1]))


def _tile_pool(xp, t6, pooling_type):
    """Max or mean of tiles: first across the kh rows of each tile (whole image rows, long
    contiguous runs), then across the kw columns of the (N, C, OH, OW, kw) result."""
    op = xp.maximum if pooling_type == "max" else xp.add
    rows = t6[:, :, :, 0].copy()
    for i in range(1, t6.shape[3]):
        op(rows, t6[:, :, :, i], out=rows)
    out = rows[..., 0].copy()
    for j in range(1, t6.shape[5]):
        op(out, rows[..., j], out=out)
    return out if pooling_type == "max" else out / t6.dtype.type(t6.shape[3] * t6.shape[5])


def _fixed_pool(xp, x, k, strides, pads, o_hw, pooling_type, exclusive):
    """Max or sum over the windows, then the mean's divisor.

    A single window covering the whole image (global pooling) is one reduction, windows
    that tile the image (stride == kernel) are a reshape (:func:`_tile_pool`), and other
    windows are separable (:func:`_separable_pool`)."""
    if tuple(o_hw) == (1, 1) and tuple(k) == tuple(x.shape[2:]) and not any(pads):
        if pooling_type == "max":
            return x.max(axis=(2, 3), keepdims=True)
        return x.mean(axis=(2, 3), keepdims=True, dtype=x.dtype)
    t6 = _tiles(x, k, strides, pads, o_hw)
    if t6 is not None:
        return _tile_pool(xp, t6, pooling_type)
    out = _separable_pool(xp, _padded(xp, x, k, strides, pads, o_hw, pooling_type), k, strides,
                          o_hw, pooling_type)
    if pooling_type == "max":
        return out
    return out / _avg_divisor(xp, x.shape[2:], k, strides, pads, o_hw, exclusive, x.dtype)


def _separable_pool(xp, padded, k, strides, o_hw, pooling_type):
    """Max or sum of each window of ``padded``: down the kh rows of every window (whole
    padded rows), then across the kw columns of that. kh + kw whole-array steps instead of
    kh * kw (a 13x13 max pool: 26 instead of 169); max is exact, a sum adds in another order.
    """
    op = xp.maximum if pooling_type == "max" else xp.add
    (oh, ow), (sh, sw) = o_hw, strides
    rows = padded[..., 0:sh * (oh - 1) + 1:sh, :].copy()
    for i in range(1, k[0]):
        op(rows, padded[..., i:i + sh * (oh - 1) + 1:sh, :], out=rows)
    out = rows[..., 0:sw * (ow - 1) + 1:sw].copy()
    for j in range(1, k[1]):
        op(out, rows[..., j:j + sw * (ow - 1) + 1:sw], out=out)
    return out


def _fixed_avg_grad(xp, x, dout, k, strides, pads, o_hw, exclusive):
    """Spread each output's gradient evenly over its window: the same block added at
    every kernel position (col2im of a broadcast, never materialized); for tiles, one
    broadcast copy."""
    n, c, h, w = x.shape
    full = _full_pads((h, w), k, strides, pads, o_hw)
    g = dout / _avg_divisor(xp, (h, w), k, strides, pads, o_hw, exclusive, x.dtype)
    t6 = _tiles(x, k, strides, pads, o_hw)
    if t6 is not None:
        return xp.broadcast_to(g[:, :, :, None, :, None], t6.shape).reshape(x.shape)
    dx = xp.zeros((n, c, h + full[0] + full[1], w + full[2] + full[3]), dtype=x.dtype)
    dx = add_windows(dx, lambda i, j: g, k, strides, (1, 1), o_hw)
    return dx[:, :, full[0]:full[0] + h, full[2]:full[2] + w]


def _fixed_max_grad(xp, x, out, dout, k, strides, pads, o_hw):
    """Each output's gradient to its window's first max, found from Out (no argmax pass).

    Kernel positions are visited in row-major order, carrying the gradient not yet
    given: a position takes it where its pixel equals Out, and what it took is
    subtracted (r - r * 1 is exactly 0), so ties go to the first max, as in Paddle.
    """
    padded = _padded(xp, x, k, strides, pads, o_hw, "max")
    full = _full_pads(x.shape[2:], k, strides, pads, o_hw)
    dx = xp.zeros(padded.shape, dtype=dout.dtype)
    left, took = dout.copy(), xp.empty_like(dout)
    last, disjoint = k[0] * k[1] - 1, strides[0] >= k[0] and strides[1] >= k[1]
    for p, ((_, _, view), (_, _, dview)) in enumerate(zip(
            window_slices(padded, k, strides, (1, 1), o_hw),
            window_slices(dx, k, strides, (1, 1), o_hw))):
        xp.multiply(left, view == out, out=took)
        if disjoint:        # windows that do not overlap: each pixel written once
            dview[...] = took
        else:
            dview += took
        if p < last:
            left -= took
    h, w = x.shape[2:]
    return dx[:, :, full[0]:full[0] + h, full[2]:full[2] + w]


# ---- pool2d ----

def _pool_infer(x, *, strides, paddings, padding_algorithm, data_format, pooling_type, ksize,
                global_pooling, exclusive, ceil_mode, adaptive, use_cudnn, is_test):
    rank4("X", x)
    shape = nchw_shape(tuple(x.shape), data_format)
    _, _, o_hw = _pool_plan(shape, ksize, strides, paddings, global_pooling, adaptive,
                            ceil_mode, padding_algorithm)
    return x.with_shape(from_nchw_shape(shape[:2] + o_hw, data_format))


def _pool_kernel(ctx, x, *, strides, paddings, padding_algorithm, data_format, pooling_type,
                 ksize, global_pooling, exclusive, ceil_mode, adaptive, use_cudnn, is_test):
    xp = ctx.xp
    x = to_nchw(x, data_format)
    k, pads, o_hw = _pool_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive,
                               ceil_mode, padding_algorithm)
    if adaptive and not global_pooling:
        out = _adaptive_pool(xp, x, o_hw, pooling_type)
    else:
        out = _fixed_pool(xp, x, k, strides, pads, o_hw, pooling_type, exclusive)
    return from_nchw(out, data_format).astype(x.dtype, copy=False)


def _pool_grad_infer(x, out, dout, **attrs):
    return x


def _pool_grad_kernel(ctx, x, out, dout, *, strides, paddings, padding_algorithm, data_format,
                      pooling_type, ksize, global_pooling, exclusive, ceil_mode, adaptive,
                      use_cudnn, is_test):
    xp = ctx.xp
    x, dout = to_nchw(x, data_format), to_nchw(dout, data_format)
    k, pads, o_hw = _pool_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive,
                               ceil_mode, padding_algorithm)
    if adaptive and not global_pooling:
        dx = _adaptive_pool_grad(xp, x, dout, pooling_type)
    elif pooling_type == "max":
        dx = _fixed_max_grad(xp, x, to_nchw(out, data_format), dout, k, strides, pads, o_hw)
    else:
        dx = _fixed_avg_grad(xp, x, dout, k, strides, pads, o_hw, exclusive)
    return from_nchw(dx, data_format).astype(x.dtype, copy=False)


# use_cudnn does nothing here; its default is what PaddlePaddle 2.6's Python writes
POOL_ALL = {**POOL_ATTRS, "use_cudnn": Attr("bool", True), "is_test": Attr("bool", False)}

register(OpDef(
    "pool2d", inputs=["X"], outputs=["Out"], attrs=POOL_ALL, infer=_pool_infer,
    kernel=_pool_kernel, grad=grad_op("pool2d_grad", inputs=("X",), outputs=("Out",)),
    doc="Out = max or mean of each ksize window of X [N, C, H, W] (global, adaptive, ceil_mode)"))
register(OpDef(
    "pool2d_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=POOL_ALL,
    infer=_pool_grad_infer, kernel=_pool_grad_kernel,
    doc="the gradient of pool2d: Out@GRAD to each window's first max, or spread over it (avg)"))


# ---- max_pool2d_with_index ----

INDEX_ATTRS = {name: POOL_ATTRS[name] for name in
               ("ksize", "strides", "paddings", "global_pooling", "adaptive")}


def _index_plan(shape, ksize, strides, paddings, global_pooling, adaptive):
    return _pool_plan(shape, ksize, strides, paddings, global_pooling, adaptive, False,
                      "EXPLICIT")


def _index_infer(x, *, ksize, strides, paddings, global_pooling, adaptive):
    rank4("X", x)
    _, _, o_hw = _index_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive)
    out = x.with_shape(tuple(x.shape[:2]) + o_hw)
    return out, out.with_dtype("int32")


def _index_kernel(ctx, x, *, ksize, strides, paddings, global_pooling, adaptive):
    xp = ctx.xp
    k, pads, o_hw = _index_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive)
    if adaptive and not global_pooling:
        out, index = _adaptive_max(xp, x, o_hw)
    else:
        out, index = _fixed_max(xp, x, k, strides, pads, o_hw)
    return out.astype(x.dtype, copy=False), index.astype(xp.int32)


def _index_grad_kernel(ctx, x, mask, dout, **attrs):
    return _scatter_to_index(ctx.xp, mask, dout, x.shape).astype(x.dtype, copy=False)


register(OpDef(
    "max_pool2d_with_index", inputs=["X"], outputs=["Out", "Mask"], attrs=INDEX_ATTRS,
    infer=_index_infer, kernel=_index_kernel,
    grad=grad_op("max_pool2d_with_index_grad", inputs=("X",), outputs=("Mask",)),
    doc="Out = max of each window of X [N, C, H, W]; Mask = where it was (h * W + w, int32)"))
register(OpDef(
    "max_pool2d_with_index_grad", inputs=["X", "Mask", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=INDEX_ATTRS, infer=lambda x, mask, dout, **attrs: x, kernel=_index_grad_kernel,
    doc="the gradient of max_pool2d_with_index: Out@GRAD added at each Mask position"))
