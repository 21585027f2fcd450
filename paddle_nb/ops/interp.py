"""Resizing: ``linear``, ``bilinear``, ``trilinear``, ``bicubic`` and ``nearest_interp_v2``.

Each maps output pixel k of a side to a source position ``ratio * k`` (or
``ratio * (k + 0.5) - 0.5``, half-pixel, when align_mode = 0 and not
align_corners; bicubic takes half-pixel whenever not align_corners), where
ratio is (in - 1) / (out - 1) with ``align_corners``, else 1 / scale when a
scale is given, else in / out. Linear blends the two neighbouring source
pixels; bicubic the four around it, with Keys' cubic weights (a = -0.75) and
the edge pixels repeated; nearest takes one (rounded with align_corners,
truncated otherwise). Coordinates are computed in float32 as Paddle does, so
the same pixels are picked. Every method is separable: each side is a small
(out, in) weight matrix applied along its axis, and the gradient applies the
transposes. linear resizes 1 spatial axis (W), bilinear and bicubic 2 (H, W),
trilinear 3 (D, H, W), nearest 2 or 3. The output size comes from, in order
of precedence: the SizeTensor list, the OutSize tensor, the scale (Scale
tensor, else attribute: out = int(in * scale)), out_d / out_h / out_w. An
unchanged size copies X, as Paddle does, whatever the scale.
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.window import one_of
from paddle_nb.ops.machinery.window_nd import (channel_first_shape, channel_last_shape,
                                     from_channel_first, to_channel_first)


def _scale_check(v):
    if len(v) > 3:
        return f"scale needs at most 3 values, got {len(v)}"
    return None if all(s > 0 for s in v) else "every scale must be positive"


INTERP_ATTRS = {
    "data_layout": Attr("str", "NCHW", one_of("NCHW", "NHWC", "NCDHW", "NDHWC", "NCW", "NWC",
                                              "AnyLayout")),
    "out_d": Attr("int", 0), "out_h": Attr("int", 0), "out_w": Attr("int", 0),
    "scale": Attr("floats", [], _scale_check, comment="one per resized axis, or []"),
    "interp_method": Attr("str", "bilinear", comment="the op type decides; kept as Paddle writes"),
    "align_corners": Attr("bool", True, comment="map the corner pixels onto each other"),
    "align_mode": Attr("int", 1, lambda v: None if v in (0, 1) else "expected 0 or 1",
                       comment="0: half-pixel source positions (unless align_corners)"),
}
SIZE_SLOTS = [Slot("OutSize", dispensable=True, comment="int32 [n]: the output sizes"),
              Slot("SizeTensor", duplicable=True, dispensable=True,
                   comment="int32 [1] each: one per resized axis"),
              Slot("Scale", dispensable=True, comment="float32 [1] or [n]")]
AXES = {1: "W", 2: "HW", 3: "DHW"}


# ---- output size ----

def _attr_sizes(n, out_d, out_h, out_w):
    return (out_d, out_h, out_w)[3 - n:]


def _make_infer(op_type, ranks):
    def infer(x, out_size, size_tensor, scale_tensor, *, data_layout, out_d, out_h, out_w,
              scale, interp_method, align_corners, align_mode):
        n = len(x.shape) - 2
        if n not in ranks:
            fail(f"X must be a {' or '.join(f'{r + 2}-D' for r in ranks)} tensor, got shape "
                 f"{tuple(x.shape)} ({op_type} resizes {' or '.join(AXES[r] for r in ranks)})")
        shape = channel_first_shape(x.shape, data_layout)
        if size_tensor and len(size_tensor) != n:
            fail(f"SizeTensor must hold {n} tensors (one per resized axis), got "
                 f"{len(size_tensor)}")
        if out_size is not None and tuple(out_size.shape) not in ((n,), (-1,)):
            fail(f"OutSize must have shape ({n},), got {tuple(out_size.shape)}")
        if scale and len(scale) not in (1, n):
            fail(f"scale needs 1 or {n} values for X of shape {tuple(x.shape)}, got {scale}")
        sizes = _attr_sizes(n, out_d, out_h, out_w)
        if size_tensor:                   # Paddle keeps the attributes it wrote (-1: a tensor)
            outs = tuple(v if v > 0 else -1 for v in sizes)
        elif out_size is not None or scale_tensor is not None:
            outs = (-1,) * n              # a tensor decides, when the program runs
        elif scale:
            scales = _per_axis(scale, n)
            outs = tuple(_scaled(s, f) for s, f in zip(shape[2:], scales))
            if 0 in outs:
                fail(f"scale {scale} makes X's spatial size {tuple(shape[2:])} into {outs}: "
                     f"the output would be empty")
        else:
            outs = sizes
            if min(outs) <= 0:
                names = [f"out_{a.lower()}" for a in AXES[n]]
                fail(f"{' and '.join(names)} must be positive when no scale, OutSize or "
                     f"SizeTensor is given, got " +
                     ", ".join(f"{k}={v}" for k, v in zip(names, outs)))
        return x.with_shape(channel_last_shape(shape[:2] + outs, data_layout))
    return infer


def _per_axis(values, n):
    return tuple(values) if len(values) == n else (values[0],) * n


def _scaled(size, scale):
    """int(size * scale) in float32, as Paddle computes it; -1 stays unknown."""
    # host scalars (shape rules run without an array module): float32 rounding decides
    return int(numpy.float32(size) * numpy.float32(scale)) if size >= 0 else -1


def _values(t):
    return t.reshape(-1).tolist()      # a small size or scale tensor, read on the host


def _run_sizes(sizes, out_size, size_tensor, scale_tensor, attr_sizes, scale):
    """(output sizes, per-axis scales or None) at run time, in Paddle's precedence."""
    n, scales = len(sizes), None
    if size_tensor:
        return tuple(int(_values(t)[0]) for t in size_tensor), None
    if scale_tensor is not None:
        v = _values(scale_tensor)
        scales = _per_axis(v, n)
        if min(scales) <= 0:
            raise ValueError(f"Scale must be positive, got {v}")
    elif scale:
        scales = _per_axis(scale, n)
    outs = tuple(attr_sizes) if scales is None else tuple(
        _scaled(s, f) for s, f in zip(sizes, scales))
    if out_size is not None:
        outs = tuple(int(v) for v in _values(out_size)[:n])
    if min(outs) <= 0:
        raise ValueError(f"the output size must be positive, got {outs}")
    return outs, scales


# ---- source positions, as (out, in) weight matrices ----

def _ratio(xp, size, out, align_corners, scale):
    """Source step per output pixel, a float32 as Paddle keeps it."""
    f32 = xp.float32
    if out <= 1:
        return f32(0)
    if align_corners:
        return f32(size - 1) / f32(out - 1)
    return f32(1.0 / float(f32(scale))) if scale else f32(size) / f32(out)


def _linear_matrix(xp, size, out, ratio, half_pixel):
    """(out, size): row k blends source pixels lo and lo + 1 (clipped) by d and 1 - d."""
    f32, k = xp.float32, xp.arange(out)
    if half_pixel:      # the product is taken in float64, the offset d in float32
        src = float(ratio) * (k + 0.5) - 0.5
        lo = xp.maximum(src.astype(xp.int64), 0)           # astype truncates toward zero
        d = xp.maximum(src.astype(f32), f32(0)) - lo.astype(f32)
    else:
        src = ratio * k.astype(f32)
        lo = src.astype(xp.int64)
        d = src - lo.astype(f32)
    hi = xp.minimum(lo + 1, size - 1)
    pos = xp.arange(size)[None, :]
    return (pos == lo[:, None]) * (f32(1) - d)[:, None] + (pos == hi[:, None]) * d[:, None]


def _cubic_weights(xp, t):
    """Keys' cubic convolution weights (a = -0.75) of the 4 pixels around offset t."""
    a = xp.float32(-0.75)

    def near(v):        # |v| <= 1
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def far(v):         # 1 < |v| < 2
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_matrix(xp, size, out, ratio, align_corners):
    """(out, size): row k weighs the 4 source pixels around its position (edges repeated)."""
    f32, k = xp.float32, xp.arange(out).astype(xp.float32)
    src = ratio * k if align_corners else ratio * (k + f32(0.5)) - f32(0.5)
    lo = xp.floor(src)
    weights = _cubic_weights(xp, (src - lo).astype(f32))
    pos, lo = xp.arange(size)[None, :], lo.astype(xp.int64)
    m = 0
    for i, w in enumerate(weights):
        idx = xp.clip(lo - 1 + i, 0, size - 1)
        m = m + (pos == idx[:, None]) * w[:, None]
    return m


def _nearest_index(xp, size, out, ratio, align_corners):
    """Source pixel of each output pixel: ratio * k rounded (align_corners) or truncated."""
    src = ratio * xp.arange(out).astype(xp.float32)
    src = src.astype(xp.float64) + 0.5 if align_corners else src
    return xp.minimum(src.astype(xp.int64), size - 1)


def _ratios(xp, sizes, outs, scales, align_corners):
    return [_ratio(xp, sizes[i], outs[i], align_corners, scales[i] if scales else None)
            for i in range(len(sizes))]


def _matrices(xp, method, sizes, outs, scales, align_corners, align_mode, dtype):
    """One (out, in) matrix per resized axis."""
    mats = []
    for i, r in enumerate(_ratios(xp, sizes, outs, scales, align_corners)):
        if method == "nearest":
            idx = _nearest_index(xp, sizes[i], outs[i], r, align_corners)
            m = xp.arange(sizes[i])[None, :] == idx[:, None]
        elif method == "cubic":
            m = _cubic_matrix(xp, sizes[i], outs[i], r, align_corners)
        else:
            m = _linear_matrix(xp, sizes[i], outs[i], r, align_mode == 0 and not align_corners)
        mats.append(m.astype(dtype))
    return mats


def _apply(xp, x, mats):
    """x with mats[i] (out, in) applied along spatial axis i: A_h @ x @ A_w^T in 2-D."""
    for i, m in enumerate(mats):
        axis = 2 + i
        if axis == x.ndim - 1:
            x = xp.matmul(x, m.T)
        elif axis == x.ndim - 2:
            x = xp.matmul(m, x)
        else:
            x = xp.moveaxis(xp.matmul(xp.moveaxis(x, axis, -1), m.T), -1, axis)
    return x


# ---- kernels ----

def _make_kernels(method):
    def kernel(ctx, x, out_size, size_tensor, scale_tensor, *, data_layout, out_d, out_h, out_w,
               scale, interp_method, align_corners, align_mode):
        xp, x = ctx.xp, to_channel_first(x, data_layout)
        sizes = tuple(x.shape[2:])
        outs, scales = _run_sizes(sizes, out_size, size_tensor, scale_tensor,
                                  _attr_sizes(len(sizes), out_d, out_h, out_w), scale)
        if outs == sizes:                   # Paddle copies when the size does not change
            return from_channel_first(x, data_layout).copy()
        if method == "nearest":             # a gather picks exact values
            ratios = _ratios(xp, sizes, outs, scales, align_corners)
            for i, r in enumerate(ratios):
                x = xp.take(x, _nearest_index(xp, sizes[i], outs[i], r, align_corners), 2 + i)
            return from_channel_first(x, data_layout)
        # integer images (uint8) blend in float32 and truncate back, as Paddle's kernel does
        # (its other order of float sums can land one below where a blend is a whole number)
        dtype = x.dtype if x.dtype.kind == "f" else xp.dtype(xp.float32)
        mats = _matrices(xp, method, sizes, outs, scales, align_corners, align_mode, dtype)
        out = _apply(xp, x.astype(dtype, copy=False), mats)
        return from_channel_first(out.astype(x.dtype, copy=False), data_layout)

    def grad_kernel(ctx, x, out_size, size_tensor, scale_tensor, dout, *, data_layout, out_d,
                    out_h, out_w, scale, interp_method, align_corners, align_mode):
        xp, dout = ctx.xp, to_channel_first(dout, data_layout)
        sizes = tuple(channel_first_shape(x.shape, data_layout)[2:])
        _, scales = _run_sizes(sizes, out_size, size_tensor, scale_tensor,
                               _attr_sizes(len(sizes), out_d, out_h, out_w), scale)
        outs = tuple(dout.shape[2:])
        if outs == sizes:
            return from_channel_first(dout, data_layout).copy()
        mats = _matrices(xp, method, sizes, outs, scales, align_corners, align_mode, dout.dtype)
        return from_channel_first(_apply(xp, dout, [m.T for m in mats]), data_layout)

    return kernel, grad_kernel


def _grad_infer(x, out_size, size_tensor, scale_tensor, dout, **attrs):
    return x


def _register(op_type, method, ranks, doc):
    kernel, grad_kernel = _make_kernels(method)
    register(OpDef(
        op_type, inputs=["X"] + SIZE_SLOTS, outputs=["Out"], attrs=INTERP_ATTRS,
        infer=_make_infer(op_type, ranks), kernel=kernel,
        grad=grad_op(op_type + "_grad", inputs=("X", "OutSize", "SizeTensor", "Scale")),
        doc=doc))
    register(OpDef(
        op_type + "_grad", inputs=["X"] + SIZE_SLOTS + ["Out@GRAD"], outputs=["X@GRAD"],
        attrs=INTERP_ATTRS, infer=_grad_infer, kernel=grad_kernel, no_need_buffer=("X",),
        doc=f"the gradient of {op_type}: the transposed weight matrices applied to Out@GRAD"))


_register("bilinear_interp_v2", "linear", (2,),
          "Out = X [N, C, H, W] resized to (out_h, out_w) by blending the 2x2 nearest pixels")
_register("nearest_interp_v2", "nearest", (2, 3),
          "Out = X [N, C, (D,) H, W] resized by picking the nearest pixel")
_register("linear_interp_v2", "linear", (1,),
          "Out = X [N, C, W] resized to out_w by blending the 2 nearest samples")
_register("trilinear_interp_v2", "linear", (3,),
          "Out = X [N, C, D, H, W] resized to (out_d, out_h, out_w) by blending the 2x2x2 "
          "nearest voxels")
_register("bicubic_interp_v2", "cubic", (2,),
          "Out = X [N, C, H, W] resized to (out_h, out_w) by cubic convolution over the 4x4 "
          "nearest pixels")
