"""Contract cases for paddle_nb/ops/conv.py: conv2d and pool2d against plain loops.

The references walk every output position and read the input through explicit
index arithmetic (padding as out-of-range indices), so they share nothing with
the kernels' strided-window code.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(3)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def distinct(*shape):
    """Values spaced far apart (no ties, no kinks within the grad check's eps)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 + 0.05).astype(F)


def _pads(attrs, hw, ksize, strides, dilations):
    """(top, bottom, left, right), dilations: Paddle's rule, written out per dimension."""
    p = list(attrs.get("paddings", [0, 0]))
    p = p if len(p) == 4 else [p[0], p[0], p[1], p[1]]
    algo = attrs.get("padding_algorithm", "EXPLICIT")
    if algo == "VALID":
        return [0, 0, 0, 0], dilations
    if algo == "SAME":
        p = []
        for size, k, s in zip(hw, ksize, strides):
            total = max((math.ceil(size / s) - 1) * s + k - size, 0)
            p += [total // 2, total - total // 2]
        return p, [1, 1]
    return p, dilations


def _at(x, h, w):
    """x[..., h, w] or 0 outside the image."""
    return x[..., h, w] if 0 <= h < x.shape[-2] and 0 <= w < x.shape[-1] else 0.0


def conv_ref(ins, attrs):
    x, f = ins["Input"].astype(np.float64), ins["Filter"].astype(np.float64)
    nhwc = attrs.get("data_format") == "NHWC"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    m, cg, kh, kw = f.shape
    g = attrs.get("groups", 1)
    st = attrs.get("strides", [1, 1])
    pads, dil = _pads(attrs, (h, w), (kh, kw), st, attrs.get("dilations", [1, 1]))
    oh = (h + pads[0] + pads[1] - (dil[0] * (kh - 1) + 1)) // st[0] + 1
    ow = (w + pads[2] + pads[3] - (dil[1] * (kw - 1) + 1)) // st[1] + 1
    out = np.zeros((n, m, oh, ow))
    for b in range(n):
        for o in range(m):
            grp = o // (m // g)
            for i in range(oh):
                for j in range(ow):
                    total = 0.0
                    for ci in range(cg):
                        for a in range(kh):
                            for e in range(kw):
                                hh = i * st[0] - pads[0] + a * dil[0]
                                ww = j * st[1] - pads[2] + e * dil[1]
                                total += _at(x[b, grp * cg + ci], hh, ww) * f[o, ci, a, e]
                    out[b, o, i, j] = total
    return {"Output": out.transpose(0, 2, 3, 1) if nhwc else out}


def conv(x, f, name, grad=("Input", "Filter"), **attrs):
    return Case(inputs={"Input": x, "Filter": f}, attrs=attrs, ref=conv_ref, grad=grad,
                name=name, rtol=1e-4, atol=1e-5)


def depthwise(x, f, name, grad=("Input", "Filter"), **attrs):
    return conv(x, f, name, grad, groups=x.shape[3 if attrs.get("data_format") == "NHWC" else 1],
                **attrs)


X5 = arr(1, 2, 5, 5)
CONV = [
    conv(X5, arr(3, 2, 3, 3), "plain 3x3"),
    conv(arr(2, 2, 4, 4), arr(2, 2, 2, 2), "batch 2, 2x2, stride 2", strides=[2, 2]),
    conv(X5, arr(2, 2, 3, 3), "padding 1, stride 2", strides=[2, 2], paddings=[1, 1]),
    conv(X5, arr(2, 2, 2, 3), "4-value paddings", paddings=[1, 0, 2, 1]),
    conv(X5, arr(2, 2, 2, 2), "dilation 2", dilations=[2, 2], paddings=[1, 1]),
    conv(arr(1, 4, 4, 4), arr(2, 2, 3, 3), "groups 2", groups=2, paddings=[1, 1]),
    conv(arr(1, 2, 4, 4), arr(2, 1, 3, 3), "depthwise", groups=2),
    conv(X5, arr(2, 2, 2, 2), "SAME stride 2", strides=[2, 2], padding_algorithm="SAME",
         dilations=[2, 2]),
    conv(X5, arr(2, 2, 3, 3), "SAME stride 1", padding_algorithm="SAME"),
    conv(X5, arr(2, 2, 3, 3), "VALID ignores paddings", padding_algorithm="VALID",
         paddings=[2, 2]),
    conv(arr(1, 4, 4, 2), arr(3, 2, 3, 3), "NHWC", data_format="NHWC", paddings=[1, 1]),
    conv(arr(2, 3, 9, 8), arr(4, 3, 3, 2), "larger, forward only", grad=(),
         strides=[2, 1], paddings=[1, 2], dilations=[1, 2]),
]

DEPTHWISE = [
    depthwise(arr(1, 3, 5, 5), arr(3, 1, 3, 3), "3x3 pad 1", paddings=[1, 1]),
    depthwise(arr(2, 2, 6, 5), arr(4, 1, 3, 3), "multiplier 2, stride 2, odd size",
              strides=[2, 2], paddings=[1, 1]),
    depthwise(arr(1, 2, 7, 7), arr(2, 1, 3, 3), "dilation 2", dilations=[2, 2], paddings=[2, 2]),
    depthwise(arr(1, 5, 4, 2), arr(2, 1, 3, 3), "NHWC", data_format="NHWC", paddings=[1, 1]),
    depthwise(arr(1, 3, 6, 6), arr(3, 1, 3, 3), "SAME stride 2", strides=[2, 2],
              padding_algorithm="SAME"),
]

CASES = {"conv2d": CONV, "depthwise_conv2d": DEPTHWISE}


def _m(*shape):
    return Meta(tuple(shape), np.dtype(F))


BAD = {
    "depthwise_conv2d": [
        Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(3, 1, 3, 3)}, attrs={"groups": 2},
            error=ShapeError, match=r"groups=2 does not divide Input's 3 channels"),
        Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(3, 2, 3, 3)}, attrs={"groups": 3},
            error=ShapeError, match=r"Input has 3 channels .* expects 6"),
    ],
    "conv2d": [
        Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(2, 2, 3, 3)}, error=ShapeError,
            match=r"Input has 3 channels \(shape \(1, 3, 5, 5\).*Filter of shape \(2, 2, 3, 3\)"),
        Bad(inputs={"Input": _m(3, 5, 5), "Filter": _m(2, 3, 3, 3)}, error=ShapeError,
            match=r"Input must be a 4-D tensor, got shape \(3, 5, 5\)"),
        Bad(inputs={"Input": _m(1, 3, 5, 5), "Filter": _m(2, 1, 3, 3)}, attrs={"groups": 2},
            error=ShapeError, match=r"groups=2 does not divide Input's 3 channels"),
        Bad(inputs={"Input": _m(1, 4, 5, 5), "Filter": _m(3, 2, 3, 3)}, attrs={"groups": 2},
            error=ShapeError, match=r"does not divide the 3 output channels"),
        Bad(inputs={"Input": _m(1, 2, 2, 2), "Filter": _m(2, 2, 3, 3)}, error=ShapeError,
            match=r"too small"),
        Bad(inputs={"Input": _m(1, 2, 5, 5), "Filter": Meta((2, 2, 3, 3), np.dtype(np.float64))},
            error=ShapeError, match="same dtype"),
        Bad(inputs={"Input": _m(1, 2, 5, 5), "Filter": _m(2, 2, 3, 3)},
            attrs={"paddings": [1, 1, 1]}, error=AttrError, match="paddings needs 2 or 4"),
    ],
}
