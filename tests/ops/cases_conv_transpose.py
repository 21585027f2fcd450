"""Contract cases for paddle_nb/ops/conv_transpose.py against a scatter loop.

The reference spreads every input pixel over its output window, one tap at a
time (out[oh*s - pad + a*d] += x * w), the textbook definition; the kernels
instead run conv2d's GEMMs backwards.
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.cases_conv import _pads, arr
from tests.ops.harness import Bad, Case

F = np.float32


def _out_side(size, k, s, p0, p1, d, i, attrs):
    base = (size - 1) * s - p0 - p1 + d * (k - 1) + 1
    if attrs.get("output_size"):
        return attrs["output_size"][i]
    return base + (attrs["output_padding"][i] if attrs.get("output_padding") else 0)


def transpose_ref(ins, attrs):
    x, f = ins["Input"].astype(np.float64), ins["Filter"].astype(np.float64)
    nhwc = attrs.get("data_format") == "NHWC"
    x = x.transpose(0, 3, 1, 2) if nhwc else x
    n, c, h, w = x.shape
    _, mg, kh, kw = f.shape
    g, st = attrs.get("groups", 1), attrs.get("strides", [1, 1])
    pads, dil = _pads(attrs, (h, w), (kh, kw), st, attrs.get("dilations", [1, 1]))
    oh = _out_side(h, kh, st[0], pads[0], pads[1], dil[0], 0, attrs)
    ow = _out_side(w, kw, st[1], pads[2], pads[3], dil[1], 1, attrs)
    out = np.zeros((n, mg * g, oh + kh * dil[0] + pads[0] + pads[1],
                    ow + kw * dil[1] + pads[2] + pads[3]))         # room for every tap
    for ci in range(c):
        grp = ci // (c // g)
        for i in range(h):
            for j in range(w):
                for a in range(kh):
                    for e in range(kw):
                        hh, ww = i * st[0] + a * dil[0], j * st[1] + e * dil[1]
                        out[:, grp * mg:(grp + 1) * mg, hh, ww] += \
                            x[:, ci, i, j, None] * f[ci, :, a, e]
    out = out[:, :, pads[0]:pads[0] + oh, pads[2]:pads[2] + ow]     # Bias: ignored, as in 2.6
    return {"Output": out.transpose(0, 2, 3, 1) if nhwc else out}


def tconv(x, f, name, grad=("Input", "Filter"), bias=None, **attrs):
    inputs = {"Input": x, "Filter": f}
    if bias is not None:
        inputs["Bias"] = bias
    return Case(inputs=inputs, attrs=attrs, ref=transpose_ref, grad=grad, name=name,
                rtol=1e-4, atol=1e-5)


X4 = arr(1, 2, 4, 4)
TRANSPOSE = [
    tconv(X4, arr(2, 3, 3, 3), "plain 3x3"),
    tconv(arr(2, 2, 3, 4), arr(2, 2, 3, 3), "stride 2, pad 1, odd sizes", strides=[2, 2],
          paddings=[1, 1]),
    tconv(X4, arr(2, 2, 3, 3), "output_padding 1", strides=[2, 2], paddings=[1, 1],
          output_padding=[1, 1]),
    tconv(arr(1, 2, 3, 3), arr(2, 2, 3, 2), "output_size", strides=[2, 3], output_size=[8, 9]),
    tconv(X4, arr(2, 2, 2, 2), "dilation 2, 4-value paddings", dilations=[2, 2],
          paddings=[1, 0, 0, 1]),
    tconv(arr(1, 4, 3, 3), arr(4, 3, 3, 3), "groups 2", groups=2, strides=[2, 1]),
    tconv(arr(1, 3, 4, 4), arr(3, 1, 3, 3), "SAME stride 2", strides=[2, 2],
          padding_algorithm="SAME"),
    tconv(X4, arr(2, 2, 3, 3), "VALID", padding_algorithm="VALID", paddings=[1, 1]),
    tconv(arr(1, 3, 4, 2), arr(2, 2, 3, 3), "NHWC", data_format="NHWC", strides=[2, 2]),
    tconv(X4, arr(2, 3, 2, 2), "Bias ignored (2.6's CPU kernel)", bias=arr(3)),
]

DEPTHWISE_T = [
    tconv(arr(1, 3, 4, 3), arr(3, 1, 3, 3), "depthwise stride 2 pad 1", groups=3,
          strides=[2, 2], paddings=[1, 1]),
    tconv(arr(1, 2, 3, 3), arr(2, 2, 2, 2), "multiplier 2", groups=2, output_padding=[0, 1],
          strides=[2, 2]),
]

CASES = {"conv2d_transpose": TRANSPOSE, "depthwise_conv2d_transpose": DEPTHWISE_T}


def _m(*shape):
    return Meta(tuple(shape), np.dtype(F))


def _bad(x, f, error=ShapeError, match="", **attrs):
    return Bad(inputs={"Input": _m(*x), "Filter": _m(*f)}, attrs=attrs, error=error, match=match)


BAD = {
    "conv2d_transpose": [
        _bad((1, 3, 4, 4), (2, 2, 3, 3), match=r"Input has 3 channels .* expects 2"),
        _bad((3, 4, 4), (3, 2, 3, 3), match=r"Input must be a 4-D tensor, got shape \(3, 4, 4\)"),
        _bad((1, 3, 4, 4), (3, 2, 3, 3), groups=2, match="groups=2 does not divide Input's 3"),
        _bad((1, 2, 4, 4), (2, 2, 3, 3), strides=[2, 2], output_size=[11, 9],
             match=r"output_size\[0\] = 11 must be in \[9, 11\)"),
        _bad((1, 2, 4, 4), (2, 2, 3, 3), strides=[2, 2], output_padding=[2, 0],
             match=r"output_padding\[0\] = 2 must be less than max\(stride, dilation\) = 2"),
        _bad((1, 2, 1, 1), (2, 2, 1, 1), paddings=[1, 1], match="gives an output side of -1"),
        _bad((1, 2, 4, 4), (2, 2, 3, 3), error=AttrError, output_size=[3],
             match="output_size needs 0 or 2 values"),
    ],
    "depthwise_conv2d_transpose": [
        _bad((1, 3, 4, 4), (2, 1, 3, 3), groups=3, match=r"Input has 3 channels .* expects 2"),
    ],
}
