"""Contract cases for deformable_conv and deformable_conv_v1 (paddle_nb/ops/deformable_conv.py).

The reference loops over every output element, kernel tap and input channel, and reads the
input at the moved point by bilinear interpolation written out corner by corner (zero outside
the map). Offsets keep clear of whole pixels so the central differences see smooth weights.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(9)
F = np.float32


def bilinear(img, y, x):
    h, w = img.shape
    if y <= -1 or y >= h or x <= -1 or x >= w:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy, xx in ((y0, x0), (y0, x0 + 1), (y0 + 1, x0), (y0 + 1, x0 + 1)):
        if 0 <= yy < h and 0 <= xx < w:
            total += (1 - abs(y - yy)) * (1 - abs(x - xx)) * img[yy, xx]
    return total


def deform_ref(ins, attrs):
    x, off, w = (ins[k].astype(np.float64) for k in ("Input", "Offset", "Filter"))
    mask = ins.get("Mask")
    (sh, sw), (ph, pw) = attrs.get("strides", [1, 1]), attrs.get("paddings", [0, 0])
    dh, dw = attrs.get("dilations", [1, 1])
    groups, dg = attrs.get("groups", 1), attrs.get("deformable_groups", 1)
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    ho, wo = off.shape[2:]
    out = np.zeros((n, m, ho, wo))
    for b in range(n):
        for o in range(m):
            g = o // (m // groups)
            for i in range(ho):
                for j in range(wo):
                    acc = 0.0
                    for cc in range(cg):
                        ch = g * cg + cc
                        d = ch // (c // dg)
                        for ki in range(kh):
                            for kj in range(kw):
                                k = ki * kw + kj
                                at = d * 2 * kh * kw + 2 * k     # this tap's (dy, dx)
                                y = i * sh - ph + ki * dh + off[b, at, i, j]
                                xx = j * sw - pw + kj * dw + off[b, at + 1, i, j]
                                v = bilinear(x[b, ch], y, xx)
                                if mask is not None:
                                    v *= mask[b, d * kh * kw + k, i, j]
                                acc += w[o, cc, ki, kj] * v
                    out[b, o, i, j] = acc
    return {"Output": out}


def offsets(*shape):
    whole = rng.integers(-1, 2, shape)
    return (whole + rng.uniform(0.15, 0.85, shape)).astype(F)


X = rng.standard_normal((1, 2, 4, 4)).astype(F)
W = rng.standard_normal((2, 2, 2, 2)).astype(F)
X4 = rng.standard_normal((1, 4, 4, 4)).astype(F)
W4 = rng.standard_normal((2, 2, 2, 2)).astype(F)

CASES = {
    "deformable_conv": [
        Case({"Input": X, "Offset": offsets(1, 8, 3, 3),
              "Mask": rng.uniform(0.2, 1, (1, 4, 3, 3)).astype(F), "Filter": W},
             {"im2col_step": 1}, ref=deform_ref, grad=("Input", "Offset", "Mask", "Filter"),
             rtol=1e-4, atol=1e-5),
        Case({"Input": X4, "Offset": offsets(1, 16, 3, 3),
              "Mask": rng.uniform(0.2, 1, (1, 8, 3, 3)).astype(F), "Filter": W4},
             {"strides": [2, 2], "paddings": [1, 1], "groups": 2, "deformable_groups": 2},
             ref=deform_ref, grad=("Input", "Offset", "Mask", "Filter"), rtol=1e-4,
             atol=1e-5, name="groups"),
    ],
    "deformable_conv_v1": [
        Case({"Input": X, "Offset": offsets(1, 8, 2, 2), "Filter": W},
             {"dilations": [2, 2]}, ref=deform_ref, grad=("Input", "Offset", "Filter"),
             rtol=1e-4, atol=1e-5),
    ],
}

BAD = {
    "deformable_conv": [Bad({"Input": Meta((1, 2, 4, 4), np.float32, 0),
                             "Offset": Meta((1, 6, 3, 3), np.float32, 0),
                             "Mask": Meta((1, 4, 3, 3), np.float32, 0),
                             "Filter": Meta((2, 2, 2, 2), np.float32, 0)}, {}, ShapeError,
                            "Offset must have 2 \\* deformable_groups")],
    "deformable_conv_v1": [Bad({"Input": Meta((1, 3, 4, 4), np.float32, 0),
                                "Offset": Meta((1, 8, 3, 3), np.float32, 0),
                                "Filter": Meta((2, 2, 2, 2), np.float32, 0)}, {}, ShapeError,
                               "does not fit Input's 3 channels")],
}
