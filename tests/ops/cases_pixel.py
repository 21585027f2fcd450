"""Contract cases for paddle_nb/ops/pixel.py and fold.py: rearrangements and im2col.

The references move one element at a time by the index rule each op states.
"""

import itertools

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(23)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _nchw(x, attrs):
    return x.transpose(0, 3, 1, 2) if attrs.get("data_format") == "NHWC" else x


def _back(y, attrs):
    return y.transpose(0, 2, 3, 1) if attrs.get("data_format") == "NHWC" else y


def shuffle_ref(ins, attrs):
    x, r = _nchw(ins["X"], attrs), attrs["upscale_factor"]
    n, c, h, w = x.shape
    y = np.zeros((n, c // (r * r), h * r, w * r), F)
    for ch, i, j, hh, ww in itertools.product(range(c), range(1), range(1), range(h), range(w)):
        oc, i, j = ch // (r * r), (ch % (r * r)) // r, ch % r
        y[:, oc, hh * r + i, ww * r + j] = x[:, ch, hh, ww]
    return {"Out": _back(y, attrs)}


def unshuffle_ref(ins, attrs):
    x, r = _nchw(ins["X"], attrs), attrs["downscale_factor"]
    n, c, h, w = x.shape
    y = np.zeros((n, c * r * r, h // r, w // r), F)
    for ch, hh, ww in itertools.product(range(c), range(h), range(w)):
        y[:, ch * r * r + (hh % r) * r + ww % r, hh // r, ww // r] = x[:, ch, hh, ww]
    return {"Out": _back(y, attrs)}


def channel_ref(ins, attrs):
    x, g = _nchw(ins["X"], attrs), attrs["groups"]
    c = x.shape[1]
    y = np.zeros_like(x)
    for ch in range(c):            # channel (i, j) of the (g, c/g) grid goes to j * g + i
        i, j = ch // (c // g), ch % (c // g)
        y[:, j * g + i] = x[:, ch]
    return {"Out": _back(y, attrs)}


def _pads(p):
    return (p[0], p[0], p[1], p[1]) if len(p) == 2 else (p[0], p[2], p[1], p[3])


def unfold_ref(ins, attrs):
    x = ins["X"]
    n, c, h, w = x.shape
    (kh, kw), st, dl = attrs["kernel_sizes"], attrs.get("strides", [1, 1]), attrs.get(
        "dilations", [1, 1])
    t, b, lft, rgt = _pads(attrs.get("paddings", [0, 0, 0, 0]))
    oh = (h + t + b - dl[0] * (kh - 1) - 1) // st[0] + 1
    ow = (w + lft + rgt - dl[1] * (kw - 1) - 1) // st[1] + 1
    y = np.zeros((n, c * kh * kw, oh * ow), F)
    for ch, i, j, a, bb in itertools.product(range(c), range(kh), range(kw), range(oh), range(ow)):
        hh, ww = a * st[0] - t + i * dl[0], bb * st[1] - lft + j * dl[1]
        if 0 <= hh < h and 0 <= ww < w:
            y[:, (ch * kh + i) * kw + j, a * ow + bb] = x[:, ch, hh, ww]
    return {"Y": y}


def fold_ref(ins, attrs):
    """fold is unfold's adjoint: <fold(y), x> = <y, unfold(x)> for every x (basis images)."""
    y = ins["X"]
    n, ck, _ = y.shape
    (kh, kw), (h, w) = attrs["kernel_sizes"], attrs["output_sizes"]
    c = ck // (kh * kw)
    p = attrs.get("paddings", [0, 0])
    attrs = {**attrs, "paddings": [p[0], p[1]]}        # fold pads H by p[0], W by p[1]
    out = np.zeros((n, c, h, w))
    for ch, hh, ww in itertools.product(range(c), range(h), range(w)):
        basis = np.zeros((1, c, h, w), F)
        basis[0, ch, hh, ww] = 1
        cols = unfold_ref({"X": basis}, attrs)["Y"][0]
        out[:, ch, hh, ww] = (y * cols).sum(axis=(1, 2))
    return {"Y": out}


FOLD = {"kernel_sizes": [2, 3], "strides": [1, 2], "paddings": [1, 0, 0, 1], "dilations": [2, 1]}

CASES = {
    "pixel_shuffle": [
        Case(inputs={"X": arr(1, 8, 2, 3)}, attrs={"upscale_factor": 2}, ref=shuffle_ref,
             grad=("X",), name="nchw"),
        Case(inputs={"X": arr(1, 2, 3, 9)}, attrs={"upscale_factor": 3, "data_format": "NHWC"},
             ref=shuffle_ref, grad=("X",), name="nhwc"),
    ],
    "pixel_unshuffle": [
        Case(inputs={"X": arr(1, 2, 4, 6)}, attrs={"downscale_factor": 2}, ref=unshuffle_ref,
             grad=("X",), name="nchw"),
        Case(inputs={"X": arr(1, 4, 2, 3)}, attrs={"downscale_factor": 2, "data_format": "NHWC"},
             ref=unshuffle_ref, grad=("X",), name="nhwc"),
    ],
    "channel_shuffle": [
        Case(inputs={"X": arr(2, 6, 2, 2)}, attrs={"groups": 3}, ref=channel_ref, grad=("X",),
             name="nchw"),
        Case(inputs={"X": arr(1, 2, 2, 6)}, attrs={"groups": 2, "data_format": "NHWC"},
             ref=channel_ref, grad=("X",), name="nhwc"),
    ],
    "unfold": [
        Case(inputs={"X": arr(1, 2, 4, 5)}, attrs={"kernel_sizes": [2, 2]}, ref=unfold_ref,
             grad=("X",), name="plain"),
        Case(inputs={"X": arr(2, 2, 4, 5)}, attrs=FOLD, ref=unfold_ref, grad=("X",),
             name="strides-pads-dilations"),
    ],
    "fold": [
        Case(inputs={"X": arr(1, 8, 12)}, attrs={"kernel_sizes": [2, 2], "output_sizes": [4, 5]},
             ref=fold_ref, grad=("X",), name="plain"),
        Case(inputs={"X": arr(1, 12, 8)}, attrs={**FOLD, "output_sizes": [4, 5]}, ref=fold_ref,
             grad=("X",), name="strides-pads-dilations"),
    ],
}


def _m(*shape):
    return Meta(shape, np.dtype(F), 0)


BAD = {
    "pixel_shuffle": [Bad(inputs={"X": _m(1, 6, 2, 2)}, attrs={"upscale_factor": 2},
                          error=ShapeError, match="divisible by upscale_factor")],
    "pixel_unshuffle": [Bad(inputs={"X": _m(1, 6, 3, 2)}, attrs={"downscale_factor": 2},
                            error=ShapeError, match="divisible by downscale_factor")],
    "channel_shuffle": [Bad(inputs={"X": _m(1, 6, 3, 2)}, attrs={"groups": 4},
                            error=ShapeError, match="does not divide")],
    "unfold": [Bad(inputs={"X": _m(1, 6, 3)}, attrs={"kernel_sizes": [2, 2]},
                   error=ShapeError, match="4-D")],
    "fold": [Bad(inputs={"X": _m(1, 8, 10)}, attrs={"kernel_sizes": [2, 2],
                                                    "output_sizes": [4, 5]},
                 error=ShapeError, match="holds 3 x 4")],
}


def temporal_ref(ins, attrs):
    x, t, r = _nchw(ins["X"], attrs), attrs["seg_num"], attrs.get("shift_ratio", 0.25)
    nt, c = x.shape[:2]
    c1, c2 = int(c * r), int(c * 2 * r)
    y = np.zeros_like(x)
    for i in range(nt):
        seg = i % t
        for ch in range(c):
            src = seg - 1 if ch < c1 else seg + 1 if ch < c2 else seg
            if 0 <= src < t:
                y[i, ch] = x[i - seg + src, ch]
    return {"Out": _back(y, attrs)}


CASES["temporal_shift"] = [
    Case(inputs={"X": arr(6, 4, 2, 2)}, attrs={"seg_num": 3}, ref=temporal_ref, grad=("X",),
         name="nchw"),
    Case(inputs={"X": arr(4, 2, 1, 8)}, attrs={"seg_num": 2, "shift_ratio": 0.3,
                                               "data_format": "NHWC"},
         ref=temporal_ref, grad=("X",), name="nhwc"),
]
BAD["temporal_shift"] = [Bad(inputs={"X": _m(5, 4, 2, 2)}, attrs={"seg_num": 2},
                             error=ShapeError, match="divisible by seg_num")]
