"""Contract cases for paddle_nb/ops/interp.py: bilinear and nearest resizes vs pixel loops.

The reference finds each output pixel's source position one scalar at a time,
in float32 as PaddlePaddle's CPU kernel does, and blends or picks input pixels
directly, where the kernels build (out, in) weight matrices and multiply.
"""

import itertools

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.cases_conv import arr
from tests.ops.harness import Bad, Case

F, f32 = np.float32, np.float32


def _out_size(ins, attrs, hw):
    """(out_h, out_w), (scale_h, scale_w) or None: SizeTensor, then scale, then OutSize."""
    if ins.get("SizeTensor"):
        return tuple(int(t[0]) for t in ins["SizeTensor"]), None
    scales = None
    if ins.get("Scale") is not None:
        v = list(ins["Scale"].reshape(-1))
        scales = (v[0], v[-1])
    elif attrs.get("scale"):
        scales = tuple(attrs["scale"])
    size = (attrs.get("out_h", 0), attrs.get("out_w", 0))
    if scales:
        size = tuple(int(f32(n) * f32(s)) for n, s in zip(hw, scales))
    if ins.get("OutSize") is not None:
        size = tuple(int(v) for v in ins["OutSize"])
    return size, scales


def _ratio(n_in, n_out, align_corners, scale):
    if n_out <= 1:
        return f32(0)
    if align_corners:
        return f32(n_in - 1) / f32(n_out - 1)
    return f32(1.0 / float(f32(scale))) if scale else f32(n_in) / f32(n_out)


def _source(k, n_in, ratio, attrs, nearest):
    """(lo, hi, weight of hi) for output pixel k: Paddle's rule, one scalar at a time."""
    corners = attrs.get("align_corners", True)
    if nearest:
        i = int(float(ratio * f32(k)) + 0.5) if corners else int(ratio * f32(k))
        return i, i, 0.0
    if attrs.get("align_mode", 1) == 0 and not corners:
        src = float(ratio) * (k + 0.5) - 0.5
        lo = max(int(src), 0)
        d = f32(max(f32(src), f32(0))) - f32(lo)
    else:
        lo = int(ratio * f32(k))
        d = ratio * f32(k) - f32(lo)
    return lo, min(lo + 1, n_in - 1), float(d)


def interp_ref(ins, attrs, nearest):
    x = ins["X"].astype(np.float64)
    nhwc = attrs.get("data_layout") == "NHWC"
    x = x.transpose(0, 3, 1, 2) if nhwc else x
    h, w = x.shape[2:]
    (oh, ow), scales = _out_size(ins, attrs, (h, w))
    out = np.zeros(x.shape[:2] + (oh, ow))
    if (oh, ow) == (h, w):
        out = x.copy()
    else:
        rh = _ratio(h, oh, attrs.get("align_corners", True), scales and scales[0])
        rw = _ratio(w, ow, attrs.get("align_corners", True), scales and scales[1])
        for i in range(oh):
            y0, y1, dy = _source(i, h, rh, attrs, nearest)
            for j in range(ow):
                x0, x1, dx = _source(j, w, rw, attrs, nearest)
                out[:, :, i, j] = ((1 - dy) * ((1 - dx) * x[:, :, y0, x0] + dx * x[:, :, y0, x1])
                                   + dy * ((1 - dx) * x[:, :, y1, x0] + dx * x[:, :, y1, x1]))
    out = out if ins["X"].dtype.kind == "f" else np.floor(out)     # blended, then truncated
    return {"Out": out.transpose(0, 2, 3, 1) if nhwc else out}


# ---- any number of resized axes: linear (W), trilinear (D, H, W), bicubic, 5-D nearest ----

def _cubic(t):
    a = -0.75
    near = lambda v: ((a + 2) * v - (a + 3)) * v * v + 1          # noqa: E731
    far = lambda v: ((a * v - 5 * a) * v + 8 * a) * v - 4 * a      # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _taps(k, n_in, ratio, attrs, method):
    """[(source index, weight)] of output position k along one axis."""
    corners = attrs.get("align_corners", True)
    if method == "cubic":
        src = f32(ratio * f32(k)) if corners else f32(ratio * f32(k + 0.5) - f32(0.5))
        lo = int(np.floor(src))
        return [(min(max(lo - 1 + i, 0), n_in - 1), float(w))
                for i, w in enumerate(_cubic(f32(src - f32(lo))))]
    lo, hi, d = _source(k, n_in, ratio, attrs, method == "nearest")
    return [(lo, 1 - d), (hi, d)]


def interp_nd_ref(ins, attrs, method):
    x = ins["X"].astype(np.float64)
    last = attrs.get("data_layout", "NCHW") in ("NHWC", "NDHWC", "NWC")
    perm = (0, x.ndim - 1) + tuple(range(1, x.ndim - 1))
    x = x.transpose(perm) if last else x
    sizes = x.shape[2:]
    n = len(sizes)
    scales = attrs.get("scale") or None
    if scales and len(scales) == 1:
        scales = scales * n
    outs = [attrs.get(k, 0) for k in ("out_d", "out_h", "out_w")[3 - n:]]
    if scales:
        outs = [int(f32(s) * f32(f)) for s, f in zip(sizes, scales)]
    if tuple(outs) == tuple(sizes):
        out = x.copy()
    else:
        taps = [[_taps(k, sizes[i], _ratio(sizes[i], outs[i], attrs.get("align_corners", True),
                                           scales and scales[i]), attrs, method)
                 for k in range(outs[i])] for i in range(n)]
        out = np.zeros(x.shape[:2] + tuple(outs))
        for o in np.ndindex(*outs):
            for combo in itertools.product(*(taps[i][o[i]] for i in range(n))):
                w = np.prod([c[1] for c in combo])
                out[(Ellipsis,) + o] += w * x[(Ellipsis,) + tuple(c[0] for c in combo)]
    inv = np.argsort(perm)
    return {"Out": out.transpose(inv) if last else out}


def case_nd(op, x, name, **attrs):
    method = {"nearest": "nearest", "bicubic": "cubic"}.get(op.split("_")[0], "linear")
    return Case(inputs={"X": x}, attrs=attrs, grad=("X",), name=name,
                ref=lambda ins, at: interp_nd_ref(ins, at, method), rtol=1e-5, atol=1e-6)


def cases_nd(op, n):
    shape = {1: (1, 2, 5), 2: (1, 2, 4, 3), 3: (1, 2, 3, 2, 4)}[n]
    up = {"out_d": 4, "out_h": 5, "out_w": 6}
    down = {"out_d": 2, "out_h": 3, "out_w": 2}
    last = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]
    return [
        case_nd(op, arr(*shape), f"{n}-d up half-pixel", **up, **HALF),
        case_nd(op, arr(*shape), f"{n}-d down align_mode 1", **down, align_corners=False),
        case_nd(op, arr(*shape), f"{n}-d align_corners", **up, align_corners=True),
        case_nd(op, arr(*shape), f"{n}-d scale 1.5", scale=[1.5], **HALF),
        case_nd(op, arr(*shape[:1], *shape[2:], shape[1]), f"{n}-d channel last",
                data_layout=last, **up, **HALF),
    ]


def case(op, x, name, grad=("X",), extra=None, **attrs):
    nearest = op.startswith("nearest")
    return Case(inputs={"X": x, **(extra or {})}, attrs=attrs, grad=grad, name=name,
                ref=lambda ins, at: interp_ref(ins, at, nearest), rtol=1e-5, atol=1e-6)


HALF = dict(align_corners=False, align_mode=0)
I32 = np.int32


def cases(op):
    return [
        case(op, arr(1, 2, 3, 4), "up 5x7 half-pixel", out_h=5, out_w=7, **HALF),
        case(op, arr(1, 2, 6, 5), "down 4x3 align_mode 1", out_h=4, out_w=3,
             align_corners=False),
        case(op, arr(2, 1, 3, 4), "align_corners 5x6", out_h=5, out_w=6, align_corners=True),
        case(op, arr(1, 2, 3, 3), "scale 1.7 (ratio 1 / scale)", scale=[1.7, 1.7], out_h=-1,
             out_w=-1, **HALF),
        case(op, arr(1, 5, 4, 2), "NHWC scale 1.5, 0.8", scale=[1.5, 0.8], data_layout="NHWC",
             **HALF),
        case(op, arr(1, 1, 4, 4), "OutSize tensor", extra={"OutSize": np.array([3, 6], I32)},
             out_h=-1, out_w=-1, **HALF),
        case(op, arr(1, 1, 3, 4), "SizeTensor", out_h=-1, out_w=-1, align_corners=False,
             extra={"SizeTensor": [np.array([5], I32), np.array([2], I32)]}),
        case(op, arr(1, 1, 3, 3), "Scale tensor beats the attribute", scale=[3.0, 3.0],
             extra={"Scale": np.array([1.5], F)}, **HALF),
        case(op, arr(1, 2, 5, 4), "same size: a copy, even with scale 1.1", scale=[1.1, 1.1],
             **HALF),
        case(op, arr(1, 1, 4, 3), "to 1x1", out_h=1, out_w=1, **HALF),
        case(op, np.arange(12, dtype=np.uint8).reshape(1, 1, 3, 4) * 20, "uint8 image",
             grad=(), out_h=5, out_w=6, **HALF),
    ]


CASES = {"bilinear_interp_v2": cases("bilinear_interp_v2"),
         "nearest_interp_v2": cases("nearest_interp_v2") + cases_nd("nearest_interp_v2", 3),
         "linear_interp_v2": cases_nd("linear_interp_v2", 1),
         "trilinear_interp_v2": cases_nd("trilinear_interp_v2", 3),
         "bicubic_interp_v2": cases_nd("bicubic_interp_v2", 2)}


def _m(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def bad(op):
    rank = "4-D or 5-D" if op.startswith("nearest") else "4-D"
    return [
        Bad(inputs={"X": _m(2, 4, 4)}, attrs={"out_h": 3, "out_w": 3}, error=ShapeError,
            match=rf"X must be a {rank} tensor, got shape \(2, 4, 4\)"),
        Bad(inputs={"X": _m(1, 2, 4, 4)}, error=ShapeError,
            match="out_h and out_w must be positive .* got out_h=0, out_w=0"),
        Bad(inputs={"X": _m(1, 2, 4, 4), "OutSize": _m(3, dtype=I32)}, error=ShapeError,
            match=r"OutSize must have shape \(2,\), got \(3,\)"),
        Bad(inputs={"X": _m(1, 2, 4, 4)}, attrs={"scale": [2.0, -1.0]}, error=AttrError,
            match="every scale must be positive"),
        Bad(inputs={"X": _m(1, 2, 4, 4), "SizeTensor": [_m(1, dtype=I32)]}, error=ShapeError,
            match="SizeTensor must hold 2 tensors"),
        Bad(inputs={"X": _m(1, 2, 4, 3)}, attrs={"scale": [0.5, 0.3]}, error=ShapeError,
            match=r"makes X's spatial size \(4, 3\) into \(2, 0\)"),
    ]


BAD = {"bilinear_interp_v2": bad("bilinear_interp_v2"),
       "nearest_interp_v2": bad("nearest_interp_v2"),
       "linear_interp_v2": [Bad(inputs={"X": _m(1, 2, 4, 4)}, attrs={"out_w": 3},
                                error=ShapeError, match="X must be a 3-D tensor")],
       "trilinear_interp_v2": [Bad(inputs={"X": _m(1, 2, 4, 4, 4),
                                           "SizeTensor": [_m(1, dtype=I32)]},
                                   error=ShapeError, match="SizeTensor must hold 3 tensors")],
       "bicubic_interp_v2": [Bad(inputs={"X": _m(1, 2, 4, 4)}, attrs={"scale": [2.0, 2.0, 2.0]},
                                 error=ShapeError, match="scale needs 1 or 2 values")]}
