"""Volumetric pooling: ``pool3d`` and ``max_pool3d_with_index``, with their grads.

The 3-D twins of pool.py's ops, written for any number of spatial dimensions
over window_nd.py. Fixed windows run a max or a sum over the kernel
positions' strided views of the padded input (padded with -inf for max, so
padding never wins); the mean divides by the window's size inside the input
(``exclusive``) or by its size clipped to the padded input. *Adaptive* windows
tile the input into the given output size, window i covering
[floor(i*S/O), ceil((i+1)*S/O)): their mean is one small matrix product per
axis, their max a gather of the windows (each padded to the longest by
repeating its last index). A max's gradient goes to the first voxel of its
window that holds it (row-major order), found from the flat index
d * H * W + h * W + w that ``max_pool3d_with_index`` also returns as Mask.
"""

from typing import Any

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register
from paddle_nb.ops.machinery.window import adaptive_bounds, one_of
from paddle_nb.ops.machinery.window_nd import (channel_first_shape, channel_last_shape,
                                     from_channel_first, kernel_positions, out_sizes, pad_nd,
                                     resolve_padding_nd, slices_nd, to_channel_first)

__all__ = ["pool_nd", "pool_nd_grad", "max_with_index_nd", "scatter_to_index"]


def _triple(name, lengths=(3,), positive=False):
    def check(v):
        if len(v) not in lengths:
            return f"{name} needs {' or '.join(map(str, lengths))} values, got {len(v)}"
        return "every value must be positive" if positive and min(v) <= 0 else None
    return check


POOL3D_ATTRS = {
    "ksize": Attr("ints", [1, 1, 1], _triple("ksize", positive=True)),
    "strides": Attr("ints", [1, 1, 1], _triple("strides", positive=True)),
    "paddings": Attr("ints", [0, 0, 0], _triple("paddings", (3, 6)),
                     comment="[d, h, w] or [front, back, top, bottom, left, right]"),
    "ceil_mode": Attr("bool", False, comment="round the output size up"),
    "exclusive": Attr("bool", True, comment="avg divides by the window's unpadded size"),
    "data_format": Attr("str", "NCDHW", one_of("NCDHW", "NDHWC", "AnyLayout")),
    "pooling_type": Attr("str", "max", one_of("max", "avg")),
    "global_pooling": Attr("bool", False, comment="pool the whole volume"),
    "adaptive": Attr("bool", False, comment="ksize is the output size; windows tile the input"),
    "padding_algorithm": Attr("str", "EXPLICIT", one_of("EXPLICIT", "SAME", "VALID")),
    "use_cudnn": Attr("bool", True, comment="does nothing here; 2.6's Python writes it"),
}


def _plan(shape, ksize, strides, paddings, global_pooling, adaptive, ceil_mode, algorithm):
    """(ksize, flat pads, output sizes) for a channel-first shape."""
    sizes, n = tuple(shape[2:]), len(shape) - 2
    if global_pooling:
        return sizes, (0,) * (2 * n), (1,) * n
    if adaptive:
        return tuple(ksize), (0,) * (2 * n), tuple(ksize)
    pads, _ = resolve_padding_nd(sizes, ksize, strides, paddings, (1,) * n, algorithm)
    return tuple(ksize), pads, out_sizes(sizes, ksize, strides, pads, ceil_mode=ceil_mode,
                                         what="X", truncate=True)


def _full_pads(sizes, k, strides, pads, outs):
    """Pads with the far sides grown so that every window (ceil_mode too) lies inside."""
    full = list(pads)
    for i in range(len(sizes)):
        need = (outs[i] - 1) * strides[i] + k[i] - sizes[i] - pads[2 * i]
        full[2 * i + 1] = max(pads[2 * i + 1], need)
    return full


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _divisor(xp, sizes, k, strides, pads, outs, exclusive, dtype):
    """Per-output divisor (broadcastable over the outputs)."""
    total: Any = None
    for i in range(len(sizes)):
        start = xp.arange(outs[i]) * strides[i] - pads[2 * i]
        if exclusive:
            d = xp.minimum(start + k[i], sizes[i]) - xp.maximum(start, 0)
        else:
            d = xp.minimum(start + k[i], sizes[i] + pads[2 * i + 1]) - start
        d = d.reshape((-1,) + (1,) * (len(sizes) - 1 - i))
        total = d if total is None else total * d
    return total.astype(dtype)


# ---- fixed windows ----

def _fixed_max(xp, x, k, strides, pads, outs):
    """(max, flat index of each window's first max)."""
    sizes = x.shape[2:]
    padded = pad_nd(xp, x, _full_pads(sizes, k, strides, pads, outs), _lowest(xp, x.dtype))
    ones, positions = (1,) * len(k), list(kernel_positions(k))
    views = [slices_nd(padded, pos, strides, ones, outs) for pos in positions]
    best = views[0].copy()
    for view in views[1:]:
        xp.maximum(best, view, out=best)
    pick = xp.full(best.shape, len(views) - 1, dtype=xp.int64)
    for p in range(len(views) - 2, -1, -1):
        xp.copyto(pick, p, where=views[p] == best)
    flat, rest = 0, pick
    for i in range(len(k)):
        step = 1
        for kk in k[i + 1:]:
            step *= kk
        offset, rest = rest // step, rest % step
        coord = (xp.arange(outs[i]) * strides[i] - pads[2 * i]).reshape(
            (-1,) + (1,) * (len(k) - 1 - i)) + offset
        flat = flat * sizes[i] + coord
    return best, flat


def _fixed_pool(xp, x, k, strides, pads, outs, pooling_type, exclusive):
    if pooling_type == "max":
        return _fixed_max(xp, x, k, strides, pads, outs)[0]
    sizes = x.shape[2:]
    padded = pad_nd(xp, x, _full_pads(sizes, k, strides, pads, outs))
    out = None
    for pos in kernel_positions(k):
        view = slices_nd(padded, pos, strides, (1,) * len(k), outs)
        out = view.copy() if out is None else out + view
    return out / _divisor(xp, sizes, k, strides, pads, outs, exclusive, x.dtype)


def _fixed_avg_grad(xp, x, dout, k, strides, pads, outs, exclusive):
    sizes = x.shape[2:]
    full = _full_pads(sizes, k, strides, pads, outs)
    g = dout / _divisor(xp, sizes, k, strides, pads, outs, exclusive, x.dtype)
    dx = pad_nd(xp, xp.zeros_like(x), full)
    for pos in kernel_positions(k):
        slices_nd(dx, pos, strides, (1,) * len(k), outs)[...] += g
    inner = tuple(slice(full[2 * i], full[2 * i] + sizes[i]) for i in range(len(sizes)))
    return dx[(Ellipsis,) + inner]


# ---- adaptive windows ----

def _mean_matrix(xp, size, out, dtype):
    starts, ends = adaptive_bounds(size, out)
    pos = xp.arange(size)[None, :]
    lo, hi = xp.asarray(starts)[:, None], xp.asarray(ends)[:, None]
    return (((pos >= lo) & (pos < hi)) / (hi - lo)).astype(dtype)


def _along(xp, x, m, axis):
    """``m`` (out, in) applied along ``axis`` of x."""
    moved = xp.moveaxis(x, axis, -1)
    return xp.moveaxis(xp.matmul(moved, m.T), -1, axis)


def _adaptive_index(xp, size, out):
    starts, ends = adaptive_bounds(size, out)
    k = max(e - s for s, e in zip(starts, ends))
    idx = xp.asarray(starts)[:, None] + xp.arange(k)[None, :]
    return xp.minimum(idx, xp.asarray(ends)[:, None] - 1)


def _adaptive_max(xp, x, outs):
    """(max, flat index of each window's first max), windows gathered and padded."""
    n = len(outs)
    idx = [_adaptive_index(xp, x.shape[2 + i], outs[i]) for i in range(n)]
    grids = []
    for i, ix in enumerate(idx):
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = ix.shape
        grids.append(ix.reshape(shape))
    win = x[(slice(None), slice(None)) + tuple(grids)]       # (N, C, *outs, *K)
    flat = win.reshape(win.shape[:2 + n] + (-1,))
    pick = xp.argmax(flat, axis=-1)
    index, rest = 0, pick
    for i in range(n):
        step = 1
        for ix in idx[i + 1:]:
            step *= ix.shape[1]
        offset, rest = rest // step, rest % step
        pos = xp.arange(outs[i]).reshape((-1,) + (1,) * (n - 1 - i))
        index = index * x.shape[2 + i] + idx[i][pos, offset]
    return flat.max(axis=-1), index


def scatter_to_index(xp, index, dout, x_shape):
    """dx with each dout value added at its flat spatial position ``index`` in x[n, c]."""
    nc, vol = x_shape[0] * x_shape[1], 1
    for s in x_shape[2:]:
        vol *= s
    base = (xp.arange(nc) * vol).reshape(x_shape[:2] + (1,) * (len(x_shape) - 2))
    dx = xp.bincount((index + base).reshape(-1), weights=dout.reshape(-1), minlength=nc * vol)
    return dx.reshape(x_shape).astype(dout.dtype, copy=False)


# ---- the whole op, channel-first ----

def pool_nd(xp, x, k, strides, pads, outs, pooling_type, exclusive, adaptive):
    if adaptive:
        if pooling_type == "max":
            return _adaptive_max(xp, x, outs)[0]
        for i, o in enumerate(outs):
            x = _along(xp, x, _mean_matrix(xp, x.shape[2 + i], o, x.dtype), 2 + i)
        return x
    return _fixed_pool(xp, x, k, strides, pads, outs, pooling_type, exclusive)


def pool_nd_grad(xp, x, dout, k, strides, pads, outs, pooling_type, exclusive, adaptive):
    if pooling_type == "max":
        index = max_with_index_nd(xp, x, k, strides, pads, outs, adaptive)[1]
        return scatter_to_index(xp, index, dout, x.shape)
    if adaptive:
        for i, o in enumerate(outs):
            dout = _along(xp, dout, _mean_matrix(xp, x.shape[2 + i], o, x.dtype).T, 2 + i)
        return dout
    return _fixed_avg_grad(xp, x, dout, k, strides, pads, outs, exclusive)


def max_with_index_nd(xp, x, k, strides, pads, outs, adaptive):
    if adaptive:
        return _adaptive_max(xp, x, outs)
    return _fixed_max(xp, x, k, strides, pads, outs)


def _rank5(meta):
    if len(meta.shape) != 5:
        fail(f"X must be a 5-D tensor, got shape {tuple(meta.shape)}")


def _infer(x, *, ksize, strides, paddings, ceil_mode, exclusive, data_format, pooling_type,
           global_pooling, adaptive, padding_algorithm, use_cudnn):
    _rank5(x)
    shape = channel_first_shape(x.shape, data_format)
    _, _, outs = _plan(shape, ksize, strides, paddings, global_pooling, adaptive, ceil_mode,
                       padding_algorithm)
    return x.with_shape(channel_last_shape(shape[:2] + outs, data_format))


def _kernel(ctx, x, *, ksize, strides, paddings, ceil_mode, exclusive, data_format,
            pooling_type, global_pooling, adaptive, padding_algorithm, use_cudnn):
    x = to_channel_first(x, data_format)
    k, pads, outs = _plan(x.shape, ksize, strides, paddings, global_pooling, adaptive,
                          ceil_mode, padding_algorithm)
    out = pool_nd(ctx.xp, x, k, strides, pads, outs, pooling_type, exclusive,
                  adaptive and not global_pooling)
    return from_channel_first(out, data_format).astype(x.dtype, copy=False)


def _grad_kernel(ctx, x, out, dout, *, ksize, strides, paddings, ceil_mode, exclusive,
                 data_format, pooling_type, global_pooling, adaptive, padding_algorithm,
                 use_cudnn):
    x, dout = to_channel_first(x, data_format), to_channel_first(dout, data_format)
    k, pads, outs = _plan(x.shape, ksize, strides, paddings, global_pooling, adaptive,
                          ceil_mode, padding_algorithm)
    dx = pool_nd_grad(ctx.xp, x, dout, k, strides, pads, outs, pooling_type, exclusive,
                      adaptive and not global_pooling)
    return from_channel_first(dx, data_format).astype(x.dtype, copy=False)


register(OpDef(
    "pool3d", inputs=["X"], outputs=["Out"], attrs=POOL3D_ATTRS, infer=_infer, kernel=_kernel,
    grad=grad_op("pool3d_grad", inputs=("X",), outputs=("Out",)),
    doc="Out = max or mean of each ksize window of X [N, C, D, H, W] (global, adaptive, "
        "ceil_mode)"))
register(OpDef(
    "pool3d_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=POOL3D_ATTRS,
    infer=lambda x, out, dout, **attrs: x, kernel=_grad_kernel,
    doc="the gradient of pool3d: Out@GRAD to each window's first max, or spread over it"))


# ---- max_pool3d_with_index ----

INDEX_ATTRS = {name: POOL3D_ATTRS[name] for name in
               ("ksize", "strides", "paddings", "global_pooling", "adaptive")}


def _index_plan(shape, ksize, strides, paddings, global_pooling, adaptive):
    return _plan(shape, ksize, strides, paddings, global_pooling, adaptive, False, "EXPLICIT")


def _index_infer(x, *, ksize, strides, paddings, global_pooling, adaptive):
    _rank5(x)
    _, _, outs = _index_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive)
    out = x.with_shape(tuple(x.shape[:2]) + outs)
    return out, out.with_dtype("int32")


def _index_kernel(ctx, x, *, ksize, strides, paddings, global_pooling, adaptive):
    k, pads, outs = _index_plan(x.shape, ksize, strides, paddings, global_pooling, adaptive)
    out, index = max_with_index_nd(ctx.xp, x, k, strides, pads, outs,
                                   adaptive and not global_pooling)
    return out.astype(x.dtype, copy=False), index.astype(ctx.xp.int32)


def _index_grad_kernel(ctx, x, mask, dout, **attrs):
    return scatter_to_index(ctx.xp, mask.astype(ctx.xp.int64), dout, x.shape).astype(
        x.dtype, copy=False)


register(OpDef(
    "max_pool3d_with_index", inputs=["X"], outputs=["Out", "Mask"], attrs=INDEX_ATTRS,
    infer=_index_infer, kernel=_index_kernel,
    grad=grad_op("max_pool3d_with_index_grad", inputs=("X",), outputs=("Mask",)),
    doc="Out = max of each window of X [N, C, D, H, W]; Mask = where it was "
        "(d * H * W + h * W + w, int32)"))
register(OpDef(
    "max_pool3d_with_index_grad", inputs=["X", "Mask", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=INDEX_ATTRS, infer=lambda x, mask, dout, **attrs: x, kernel=_index_grad_kernel,
    doc="the gradient of max_pool3d_with_index: Out@GRAD added at each Mask position"))
