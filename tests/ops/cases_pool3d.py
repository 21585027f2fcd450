"""Contract cases for paddle_nb/ops/pool3d.py: pool3d and max_pool3d_with_index vs loops.

The reference walks every output voxel and slices its window out of the input
(clipped: padding never wins a max nor counts in an exclusive mean).
"""

import itertools
import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(17)
F = np.float32


def distinct(*shape):
    """Values spaced far apart (no ties, no kinks within the grad check's eps)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 + 0.05).astype(F)


def _windows(sizes, attrs):
    """[(output index, [(start, end) per axis], divisor)] as PaddlePaddle's pool3d takes them."""
    k, st = list(attrs.get("ksize", [1, 1, 1])), attrs.get("strides", [1, 1, 1])
    p = list(attrs.get("paddings", [0, 0, 0]))
    p = p if len(p) == 6 else [p[0], p[0], p[1], p[1], p[2], p[2]]
    if attrs.get("global_pooling"):
        k, p, st = list(sizes), [0] * 6, [1, 1, 1]
    adaptive = attrs.get("adaptive") and not attrs.get("global_pooling")
    if adaptive:
        outs = k
    else:
        up = [s - 1 if attrs.get("ceil_mode") else 0 for s in st]
        outs = [math.trunc((sizes[i] - k[i] + p[2 * i] + p[2 * i + 1] + up[i]) / st[i]) + 1
                for i in range(3)]
    result = []
    for o in itertools.product(*map(range, outs)):
        bounds, div = [], 1
        for i in range(3):
            if adaptive:
                a, b = o[i] * sizes[i] // outs[i], math.ceil((o[i] + 1) * sizes[i] / outs[i])
                d = b - a
            else:
                a = o[i] * st[i] - p[2 * i]
                d = (min(a + k[i], sizes[i] + p[2 * i + 1]) - a) if not attrs.get(
                    "exclusive", True) else None
                a, b = max(a, 0), min(a + k[i], sizes[i])
                d = d if d is not None else b - a
            bounds.append((a, b))
            div *= d
        result.append((o, bounds, div))
    return outs, result


def pool3d_ref(ins, attrs):
    ndhwc = attrs.get("data_format") == "NDHWC"
    x = ins["X"].astype(np.float64)
    x = x.transpose(0, 4, 1, 2, 3) if ndhwc else x
    outs, wins = _windows(x.shape[2:], attrs)
    y = np.zeros(x.shape[:2] + tuple(outs))
    for o, b, div in wins:
        w = x[:, :, b[0][0]:b[0][1], b[1][0]:b[1][1], b[2][0]:b[2][1]]
        if attrs.get("pooling_type", "max") == "max":
            y[(Ellipsis,) + o] = w.max(axis=(2, 3, 4))
        else:
            y[(Ellipsis,) + o] = w.sum(axis=(2, 3, 4)) / div
    return {"Out": y.transpose(0, 2, 3, 4, 1) if ndhwc else y}


def max_index_ref(ins, attrs):
    x = ins["X"].astype(np.float64)
    outs, wins = _windows(x.shape[2:], attrs)
    y, mask = np.zeros(x.shape[:2] + tuple(outs)), np.zeros(x.shape[:2] + tuple(outs), np.int32)
    h, w = x.shape[3:]
    for o, b, _ in wins:
        for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            best = None
            for d, i, j in itertools.product(*(range(a, e) for a, e in b)):
                if best is None or x[n, c, d, i, j] > best:
                    best, where = x[n, c, d, i, j], (d * h + i) * w + j
            y[(n, c) + o], mask[(n, c) + o] = best, where
    return {"Out": y, "Mask": mask}


CASES = {
    "pool3d": [
        Case(inputs={"X": distinct(1, 2, 4, 4, 4)},
             attrs={"ksize": [2, 2, 2], "strides": [2, 2, 2]},
             ref=pool3d_ref, grad=("X",), name="max"),
        Case(inputs={"X": distinct(1, 2, 5, 4, 3)},
             attrs={"ksize": [3, 2, 2], "strides": [2, 1, 2], "paddings": [1, 0, 1],
                    "pooling_type": "avg"},
             ref=pool3d_ref, grad=("X",), name="avg-exclusive"),
        Case(inputs={"X": distinct(1, 2, 5, 4, 3)},
             attrs={"ksize": [2, 2, 2], "strides": [2, 2, 2], "ceil_mode": True,
                    "pooling_type": "avg", "exclusive": False},
             ref=pool3d_ref, grad=("X",), name="avg-ceil-inclusive"),
        Case(inputs={"X": distinct(1, 2, 5, 4, 3)},
             attrs={"ksize": [2, 3, 2], "strides": [2, 1, 2], "ceil_mode": True,
                    "paddings": [1, 0, 0, 0, 1, 0]},
             ref=pool3d_ref, grad=("X",), name="max-ceil-pads"),
        Case(inputs={"X": distinct(1, 2, 5, 4, 3)}, attrs={"ksize": [2, 3, 2], "adaptive": True},
             ref=pool3d_ref, grad=("X",), name="adaptive-max"),
        Case(inputs={"X": distinct(1, 2, 5, 4, 3)},
             attrs={"ksize": [3, 3, 2], "adaptive": True, "pooling_type": "avg"},
             ref=pool3d_ref, grad=("X",), name="adaptive-avg"),
        Case(inputs={"X": distinct(2, 3, 2, 4, 2)},
             attrs={"global_pooling": True, "pooling_type": "avg", "data_format": "NDHWC"},
             ref=pool3d_ref, grad=("X",), name="global-ndhwc"),
    ],
    "max_pool3d_with_index": [
        Case(inputs={"X": distinct(1, 2, 4, 5, 3)},
             attrs={"ksize": [2, 2, 2], "strides": [2, 2, 1], "paddings": [0, 1, 0]},
             ref=max_index_ref, grad=("X",), grad_outputs=("Out",), name="fixed"),
        Case(inputs={"X": distinct(1, 2, 5, 4, 3)}, attrs={"ksize": [2, 3, 2], "adaptive": True},
             ref=max_index_ref, grad=("X",), grad_outputs=("Out",), name="adaptive"),
    ],
}

BAD = {
    "pool3d": [Bad(inputs={"X": Meta((1, 2, 4, 4), np.dtype(F), 0)}, error=ShapeError,
                   match="X must be a 5-D tensor")],
    "max_pool3d_with_index": [
        Bad(inputs={"X": Meta((1, 2, 2, 2, 2), np.dtype(F), 0)}, attrs={"ksize": [3, 3, 3]},
            error=ShapeError, match="too small")],
}


# ---- unpool, unpool3d ----

def unpool_ref(ins, attrs):
    x, idx = ins["X"], ins["Indices"]
    n = x.ndim - 2
    outs = attrs.get("output_size") or [(x.shape[2 + i] - 1) * attrs["strides"][i]
                                        - 2 * attrs.get("paddings", [0] * n)[i]
                                        + attrs["ksize"][i] for i in range(n)]
    y = np.zeros(x.shape[:2] + tuple(outs))
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos in np.ndindex(*x.shape[2:]):
            y[b, c].reshape(-1)[idx[(b, c) + pos]] = x[(b, c) + pos]
    return {"Out": y}


def _unpool_case(n, name, **attrs):
    """Values and distinct positions for them in the output (even ones; odd in batch 1)."""
    shape = (2, 2) + (2,) * n
    base = np.arange(int(np.prod(shape[2:]))).reshape(shape[2:]) * 2
    idx = np.broadcast_to(base, shape).astype(np.int32).copy()
    idx[1] += 1
    return Case(inputs={"X": distinct(*shape), "Indices": idx},
                attrs={"ksize": [2] * n, "strides": [2] * n, **attrs}, ref=unpool_ref,
                grad=("X",), name=name)


CASES["unpool"] = [_unpool_case(2, "2-d"), _unpool_case(2, "2-d output_size",
                                                       output_size=[5, 4])]
CASES["unpool3d"] = [_unpool_case(3, "3-d")]
BAD["unpool"] = [Bad(inputs={"X": Meta((1, 2, 2, 2), np.dtype(F), 0),
                             "Indices": Meta((1, 2, 2, 1), np.dtype("int32"), 0)},
                     attrs={"ksize": [2, 2], "strides": [2, 2]}, error=ShapeError,
                     match="Indices must have X's shape")]
BAD["unpool3d"] = [Bad(inputs={"X": Meta((1, 2, 2, 2), np.dtype(F), 0),
                               "Indices": Meta((1, 2, 2, 2), np.dtype("int32"), 0)},
                       error=ShapeError, match="X must be a 5-D tensor")]
