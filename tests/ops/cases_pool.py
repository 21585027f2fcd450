"""Contract cases for paddle_nb/ops/pool.py: pool2d and max_pool2d_with_index vs plain loops.

The references walk every output position and slice its window out of the
input (clipped to the image: padding never wins a max nor counts in an
exclusive mean), so they share nothing with the kernels' strided views,
index gathers and averaging matrices.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.cases_conv import _pads, arr, distinct
from tests.ops.harness import Bad, Case

F = np.float32


def pool_ref(ins, attrs):
    if attrs.get("data_format") == "NHWC":
        out = pool_ref({"X": ins["X"].transpose(0, 3, 1, 2)}, {**attrs, "data_format": "NCHW"})
        return {"Out": out["Out"].transpose(0, 2, 3, 1)}
    x = ins["X"].astype(np.float64)
    n, c, h, w = x.shape
    st = attrs.get("strides", [1, 1])
    k = list(attrs.get("ksize", [1, 1]))
    adaptive = attrs.get("adaptive", False)
    pads, _ = _pads(attrs, (h, w), k, st, [1, 1])
    if attrs.get("global_pooling", False):
        k, pads, adaptive = [h, w], [0, 0, 0, 0], False
    if adaptive:
        oh, ow = k
    else:
        up = [st[0] - 1, st[1] - 1] if attrs.get("ceil_mode", False) else [0, 0]
        # C++ division (toward zero), as PaddlePaddle's pool2d: a window larger than the
        # image still gives one output, over the part of the window that is inside
        oh = math.trunc((h - k[0] + pads[0] + pads[1] + up[0]) / st[0]) + 1
        ow = math.trunc((w - k[1] + pads[2] + pads[3] + up[1]) / st[1]) + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            if adaptive:
                h0, h1 = i * h // oh, math.ceil((i + 1) * h / oh)
                w0, w1 = j * w // ow, math.ceil((j + 1) * w / ow)
            else:
                h0, w0 = i * st[0] - pads[0], j * st[1] - pads[2]
                # inclusive avg divides by the window within the image and its padding (a
                # ceil_mode window may hang past both), as PaddlePaddle 2.6 does
                inclusive = (min(h0 + k[0], h + pads[1]) - h0) * (min(w0 + k[1], w + pads[3]) - w0)
                h1, w1 = min(h0 + k[0], h), min(w0 + k[1], w)
                h0, w0 = max(h0, 0), max(w0, 0)
            win = x[:, :, h0:h1, w0:w1]
            if attrs.get("pooling_type", "max") == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                exclusive = attrs.get("exclusive", True) or adaptive
                size = (h1 - h0) * (w1 - w0) if exclusive else inclusive
                out[:, :, i, j] = win.sum(axis=(2, 3)) / size
    return {"Out": out}




def index_ref(ins, attrs):
    """max_pool2d_with_index: the first max of each clipped window and its h * W + w."""
    x = ins["X"].astype(np.float64)
    n, c, h, w = x.shape
    st, k = attrs.get("strides", [1, 1]), list(attrs.get("ksize", [1, 1]))
    p = list(attrs.get("paddings", [0, 0]))
    p = p if len(p) == 4 else [p[0], p[0], p[1], p[1]]
    adaptive = attrs.get("adaptive", False)
    if attrs.get("global_pooling", False):
        k, p, adaptive = [h, w], [0, 0, 0, 0], False
    oh, ow = k if adaptive else ((h - k[0] + p[0] + p[1]) // st[0] + 1,
                                 (w - k[1] + p[2] + p[3]) // st[1] + 1)
    out, mask = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=np.int32)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    if adaptive:
                        h0, h1 = i * h // oh, math.ceil((i + 1) * h / oh)
                        w0, w1 = j * w // ow, math.ceil((j + 1) * w / ow)
                    else:
                        h0, w0 = max(i * st[0] - p[0], 0), max(j * st[1] - p[2], 0)
                        h1 = min(i * st[0] - p[0] + k[0], h)
                        w1 = min(j * st[1] - p[2] + k[1], w)
                    best = (-np.inf, 0)
                    for hh in range(h0, h1):
                        for ww in range(w0, w1):
                            if x[b, ch, hh, ww] > best[0]:
                                best = (x[b, ch, hh, ww], hh * w + ww)
                    out[b, ch, i, j], mask[b, ch, i, j] = best
    return {"Out": out, "Mask": mask}

def pool(x, name, grad=("X",), **attrs):
    return Case(inputs={"X": x}, attrs=attrs, ref=pool_ref, grad=grad, name=name,
                rtol=1e-5, atol=1e-6)




def index(x, name, grad=("X",), **attrs):
    return Case(inputs={"X": x}, attrs=attrs, ref=index_ref, grad=grad, name=name,
                grad_outputs=("Out",))

P5 = distinct(1, 2, 5, 5)
POOL = [
    pool(P5, "max 2x2 stride 2", ksize=[2, 2], strides=[2, 2]),
    pool(P5, "max 3x3 pad 1 stride 2", ksize=[3, 3], strides=[2, 2], paddings=[1, 1]),
    pool(P5, "max ceil_mode", ksize=[2, 2], strides=[2, 2], ceil_mode=True),
    pool(arr(2, 2, 4, 4), "avg 2x2", pooling_type="avg", ksize=[2, 2], strides=[2, 2]),
    pool(P5, "avg exclusive padded", pooling_type="avg", ksize=[3, 3], strides=[2, 2],
         paddings=[1, 1]),
    pool(P5, "avg inclusive padded", pooling_type="avg", ksize=[3, 3], strides=[2, 2],
         paddings=[1, 1], exclusive=False),
    pool(P5, "avg ceil_mode inclusive", pooling_type="avg", ksize=[2, 2], strides=[2, 2],
         ceil_mode=True, exclusive=False),
    pool(arr(1, 2, 6, 6), "avg ceil_mode inclusive padded, the last window past the padding",
         pooling_type="avg", ksize=[3, 3], strides=[2, 2], paddings=[1, 1], ceil_mode=True,
         exclusive=False),
    pool(P5, "avg 4-value paddings", pooling_type="avg", ksize=[2, 3], paddings=[1, 0, 0, 2]),
    pool(P5, "global max", ksize=[2, 2], global_pooling=True),
    pool(arr(2, 2, 4, 3), "global avg", pooling_type="avg", global_pooling=True),
    pool(P5, "SAME max", ksize=[2, 2], strides=[2, 2], padding_algorithm="SAME"),
    pool(P5, "VALID avg", pooling_type="avg", ksize=[3, 3], strides=[2, 2],
         padding_algorithm="VALID", paddings=[1, 1]),
    pool(P5, "adaptive max 2x3", ksize=[2, 3], adaptive=True),
    pool(P5, "adaptive avg 3x2", pooling_type="avg", ksize=[3, 2], adaptive=True),
    pool(arr(2, 3, 8, 7), "overlapping, forward only", grad=(), ksize=[3, 3], strides=[2, 1],
         paddings=[1, 1]),
    pool(distinct(2, 2, 7, 5), "adaptive max 3x2 overlapping", ksize=[3, 2], adaptive=True),
    pool(arr(1, 3, 7, 5), "adaptive avg 3x4 overlapping", pooling_type="avg", ksize=[3, 4],
         adaptive=True),
    pool(distinct(1, 2, 4, 3), "adaptive max NHWC", ksize=[2, 2], adaptive=True,
         data_format="NHWC"),
    pool(arr(1, 2, 6, 6), "adaptive avg 1x1", pooling_type="avg", ksize=[1, 1], adaptive=True),
    pool(arr(2, 2, 6, 4), "adaptive avg 3x2, windows that tile the image", pooling_type="avg",
         ksize=[3, 2], adaptive=True),
]


INDEX = [
    index(P5, "2x2 stride 2", ksize=[2, 2], strides=[2, 2]),
    index(P5, "3x3 pad 1 stride 2", ksize=[3, 3], strides=[2, 2], paddings=[1, 1]),
    index(distinct(2, 2, 7, 5), "adaptive 3x2 overlapping", ksize=[3, 2], adaptive=True),
    index(distinct(1, 3, 4, 6), "global", ksize=[2, 2], global_pooling=True),
    index(np.ones((1, 1, 3, 3), F), "ties go to the first max", grad=(), ksize=[2, 2]),
]

# a 3x3 window, stride 2, over a 2x2 image (squeezenet1_0 at 32x32): one output, as
# PaddlePaddle 2.6.2 gives (max of the 4 values; their mean, exclusive)
POOL += [Case(inputs={"X": distinct(2, 3, 2, 2)}, attrs={"ksize": [3, 3], "strides": [2, 2],
                                                        "pooling_type": kind},
              ref=pool_ref, grad=("X",), name=f"{kind}: window larger than the image")
         for kind in ("max", "avg")]

CASES = {"pool2d": POOL, "max_pool2d_with_index": INDEX}


def _m(*shape):
    return Meta(tuple(shape), np.dtype(F))


BAD = {
    "pool2d": [
        Bad(inputs={"X": _m(2, 5, 5)}, error=ShapeError,
            match=r"X must be a 4-D tensor, got shape \(2, 5, 5\)"),
        Bad(inputs={"X": _m(1, 2, 2, 2)}, attrs={"ksize": [3, 3]}, error=ShapeError,
            match="too small"),
        Bad(inputs={"X": _m(1, 2, 5, 5)}, attrs={"pooling_type": "min"}, error=AttrError,
            match="expected one of"),
    ],

    "max_pool2d_with_index": [
        Bad(inputs={"X": _m(2, 5, 5)}, attrs={"ksize": [2, 2]}, error=ShapeError,
            match=r"X must be a 4-D tensor, got shape \(2, 5, 5\)"),
        Bad(inputs={"X": _m(1, 2, 2, 2)}, attrs={"ksize": [3, 3]}, error=ShapeError,
            match="too small"),
    ],
}
