"""Resizing images: ``bilinear_interp_v2`` and ``nearest_interp_v2`` with their grads.

Both map output pixel k of a side to a source position ``ratio * k`` (or
``ratio * (k + 0.5) - 0.5``, half-pixel, when align_mode = 0 and not
align_corners), where ratio is (in - 1) / (out - 1) with ``align_corners``,
else 1 / scale when a scale is given, else in / out. Bilinear blends the two
neighbouring source pixels; nearest takes one (rounded with align_corners,
truncated otherwise). Coordinates are computed in float32 as Paddle does, so
the same pixels are picked. Each side is a small (out, in) weight matrix, so
a resize is ``A_h @ x @ A_w^T`` and its gradient ``A_h^T @ dout @ A_w``. The
output size comes from, in order of precedence: the SizeTensor list, the
OutSize tensor, the scale (Scale tensor, else attribute: out = int(in * scale)),
out_h / out_w. An unchanged size copies X, as Paddle does, whatever the scale.
"""

import numpy

from paddle_nb.ops.grad import grad_op
from paddle_nb.ops.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.window import from_nchw, from_nchw_shape, nchw_shape, one_of, to_nchw


def _scale_check(v):
    if len(v) not in (0, 2):
        return f"scale needs 0 or 2 values, got {len(v)}"
    return None if all(s > 0 for s in v) else "every scale must be positive"


INTERP_ATTRS = {
    "data_layout": Attr("str", "NCHW", one_of("NCHW", "NHWC", "AnyLayout")),
    "out_d": Attr("int", 0, comment="unused by 2-D resizes"),
    "out_h": Attr("int", 0), "out_w": Attr("int", 0),
    "scale": Attr("floats", [], _scale_check, comment="[scale_h, scale_w], or []"),
    "interp_method": Attr("str", "bilinear", comment="the op type decides; kept as Paddle writes"),
    "align_corners": Attr("bool", True, comment="map the corner pixels onto each other"),
    "align_mode": Attr("int", 1, lambda v: None if v in (0, 1) else "expected 0 or 1",
                       comment="0: half-pixel source positions (unless align_corners)"),
}
SIZE_SLOTS = [Slot("OutSize", dispensable=True, comment="int32 [2]: (out_h, out_w)"),
              Slot("SizeTensor", duplicable=True, dispensable=True,
                   comment="int32 [1] each: out_h, out_w"),
              Slot("Scale", dispensable=True, comment="float32 [1] or [2]")]


# ---- output size ----

def _infer(x, out_size, size_tensor, scale_tensor, *, data_layout, out_d, out_h, out_w, scale,
           interp_method, align_corners, align_mode):
    if len(x.shape) != 4:
        fail(f"X must be a 4-D tensor, got shape {tuple(x.shape)}")
    n, c, h, w = nchw_shape(tuple(x.shape), data_layout)
    if size_tensor and len(size_tensor) != 2:
        fail(f"SizeTensor must hold 2 tensors (out_h, out_w), got {len(size_tensor)}")
    if out_size is not None and out_size.shape not in ((2,), (-1,)):
        fail(f"OutSize must have shape (2,), got {tuple(out_size.shape)}")
    if size_tensor:                       # Paddle keeps the attributes it wrote (-1: a tensor)
        oh, ow = (v if v > 0 else -1 for v in (out_h, out_w))
    elif out_size is not None or scale_tensor is not None:
        oh = ow = -1                      # a tensor decides, when the program runs
    elif scale:
        oh, ow = _scaled(h, scale[0]), _scaled(w, scale[1])
        if oh == 0 or ow == 0:
            fail(f"scale {scale} makes X's spatial size {(h, w)} into {(oh, ow)}: the output "
                 f"would be empty")
    else:
        oh, ow = out_h, out_w
        if oh <= 0 or ow <= 0:
            fail(f"out_h and out_w must be positive when no scale, OutSize or SizeTensor is "
                 f"given, got out_h={out_h}, out_w={out_w}")
    return x.with_shape(from_nchw_shape((n, c, oh, ow), data_layout))


def _scaled(size, scale):
    """int(size * scale) in float32, as Paddle computes it; -1 stays unknown."""
    # host scalars (shape rules run without an array module): float32 rounding decides
    return int(numpy.float32(size) * numpy.float32(scale)) if size >= 0 else -1


def _values(t):
    return t.reshape(-1).tolist()      # a small size or scale tensor, read on the host


def _run_sizes(hw, out_size, size_tensor, scale_tensor, out_h, out_w, scale):
    """((out_h, out_w), (scale_h, scale_w) or None) at run time, in Paddle's precedence."""
    scales = None
    if size_tensor:
        return (int(_values(size_tensor[0])[0]), int(_values(size_tensor[1])[0])), None
    if scale_tensor is not None:
        v = _values(scale_tensor)
        scales = (v[0], v[1] if len(v) > 1 else v[0])
        if min(scales) <= 0:
            raise ValueError(f"Scale must be positive, got {v}")
    elif scale:
        scales = tuple(scale)
    size = (out_h, out_w) if scales is None else (_scaled(hw[0], scales[0]),
                                                  _scaled(hw[1], scales[1]))
    if out_size is not None:
        size = tuple(int(v) for v in _values(out_size)[:2])
    if min(size) <= 0:
        raise ValueError(f"the output size must be positive, got {size}")
    return size, scales


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


def _nearest_index(xp, size, out, ratio, align_corners):
    """Source pixel of each output pixel: ratio * k rounded (align_corners) or truncated."""
    src = ratio * xp.arange(out).astype(xp.float32)
    src = src.astype(xp.float64) + 0.5 if align_corners else src
    return xp.minimum(src.astype(xp.int64), size - 1)


def _ratios(xp, hw, o_hw, scales, align_corners):
    return [_ratio(xp, hw[i], o_hw[i], align_corners, scales[i] if scales else None)
            for i in range(2)]


def _matrices(xp, method, hw, o_hw, scales, align_corners, align_mode, dtype):
    """(A_h, A_w), so that the resize of x is A_h @ x @ A_w^T."""
    mats = []
    for i, r in enumerate(_ratios(xp, hw, o_hw, scales, align_corners)):
        if method == "nearest":
            idx = _nearest_index(xp, hw[i], o_hw[i], r, align_corners)
            m = xp.arange(hw[i])[None, :] == idx[:, None]
        else:
            m = _linear_matrix(xp, hw[i], o_hw[i], r, align_mode == 0 and not align_corners)
        mats.append(m.astype(dtype))
    return mats


# ---- kernels ----

def _make_kernels(method):
    def kernel(ctx, x, out_size, size_tensor, scale_tensor, *, data_layout, out_d, out_h, out_w,
               scale, interp_method, align_corners, align_mode):
        xp, x = ctx.xp, to_nchw(x, data_layout)
        o_hw, scales = _run_sizes(x.shape[2:], out_size, size_tensor, scale_tensor, out_h,
                                  out_w, scale)
        if o_hw == tuple(x.shape[2:]):      # Paddle copies when the size does not change
            return from_nchw(x, data_layout).copy()
        if method == "nearest":             # a gather picks exact values
            ih, iw = (_nearest_index(xp, x.shape[2 + i], o_hw[i], r, align_corners) for i, r
                      in enumerate(_ratios(xp, x.shape[2:], o_hw, scales, align_corners)))
            return from_nchw(x[:, :, ih[:, None], iw[None, :]], data_layout)
        # integer images (uint8) blend in float32 and truncate back, as Paddle's kernel does
        # (its other order of float sums can land one below where a blend is a whole number)
        dtype = x.dtype if x.dtype.kind == "f" else xp.dtype(xp.float32)
        ah, aw = _matrices(xp, method, x.shape[2:], o_hw, scales, align_corners, align_mode,
                           dtype)
        out = xp.matmul(xp.matmul(ah, x.astype(dtype, copy=False)), aw.T)
        return from_nchw(out.astype(x.dtype, copy=False), data_layout)

    def grad_kernel(ctx, x, out_size, size_tensor, scale_tensor, dout, *, data_layout, out_d,
                    out_h, out_w, scale, interp_method, align_corners, align_mode):
        xp, dout = ctx.xp, to_nchw(dout, data_layout)
        hw = tuple(nchw_shape(tuple(x.shape), data_layout)[2:])
        _, scales = _run_sizes(hw, out_size, size_tensor, scale_tensor, out_h, out_w, scale)
        o_hw = tuple(dout.shape[2:])
        if o_hw == hw:
            return from_nchw(dout, data_layout).copy()
        ah, aw = _matrices(xp, method, hw, o_hw, scales, align_corners, align_mode, dout.dtype)
        return from_nchw(xp.matmul(xp.matmul(ah.T, dout), aw), data_layout)

    return kernel, grad_kernel


def _grad_infer(x, out_size, size_tensor, scale_tensor, dout, **attrs):
    return x


def _register(op_type, method, doc):
    kernel, grad_kernel = _make_kernels(method)
    register(OpDef(
        op_type, inputs=["X"] + SIZE_SLOTS, outputs=["Out"], attrs=INTERP_ATTRS, infer=_infer,
        kernel=kernel,
        grad=grad_op(op_type + "_grad", inputs=("X", "OutSize", "SizeTensor", "Scale")),
        doc=doc))
    register(OpDef(
        op_type + "_grad", inputs=["X"] + SIZE_SLOTS + ["Out@GRAD"], outputs=["X@GRAD"],
        attrs=INTERP_ATTRS, infer=_grad_infer, kernel=grad_kernel, no_need_buffer=("X",),
        doc=f"the gradient of {op_type}: A_h^T @ Out@GRAD @ A_w"))


_register("bilinear_interp_v2", "bilinear",
          "Out = X [N, C, H, W] resized to (out_h, out_w) by blending the 2x2 nearest pixels")
_register("nearest_interp_v2", "nearest",
          "Out = X [N, C, H, W] resized to (out_h, out_w) by picking the nearest pixel")
