"""Contract cases for paddle_nb/ops/pad.py: pad3d in its four modes, and pad.

The reference builds each output voxel from the rule of its mode, index by
index (reflect mirrors without the edge, replicate clamps, circular wraps).
"""

import itertools

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(19)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _src(i, size, mode):
    if mode == "reflect":
        while i < 0 or i >= size:
            i = -i if i < 0 else 2 * (size - 1) - i
        return i
    if mode == "replicate":
        return min(max(i, 0), size - 1)
    if mode == "circular":
        return i % size
    return i if 0 <= i < size else None


def pad3d_ref(ins, attrs):
    x = ins["X"].astype(np.float64)
    ndhwc = attrs.get("data_format") == "NDHWC"
    x = x.transpose(0, 4, 1, 2, 3) if ndhwc else x
    p = attrs["paddings"]
    mode = attrs.get("mode", "constant")
    before = [p[4], p[2], p[0]]
    outs = [x.shape[2 + i] + before[i] + [p[5], p[3], p[1]][i] for i in range(3)]
    y = np.full(x.shape[:2] + tuple(outs), attrs.get("value", 0.0))
    for o in itertools.product(*map(range, outs)):
        src = [_src(o[i] - before[i], x.shape[2 + i], mode) for i in range(3)]
        if None not in src:
            y[(Ellipsis,) + o] = x[(Ellipsis,) + tuple(src)]
    return {"Out": y.transpose(0, 2, 3, 4, 1) if ndhwc else y}


def pad_ref(ins, attrs):
    x, p = ins["X"], attrs["paddings"]
    y = np.full([s + p[2 * i] + p[2 * i + 1] for i, s in enumerate(x.shape)],
                attrs.get("pad_value", 0.0))
    y[tuple(slice(p[2 * i], p[2 * i] + s) for i, s in enumerate(x.shape))] = x
    return {"Out": y}


def _case(mode, paddings, shape=(1, 2, 3, 3, 4), **attrs):
    return Case(inputs={"X": arr(*shape)}, attrs={"paddings": paddings, "mode": mode, **attrs},
                ref=pad3d_ref, grad=("X",), name=mode)


CASES = {
    "pad3d": [
        _case("constant", [1, 0, 2, 1, 0, 1], value=0.5),
        _case("reflect", [2, 1, 1, 2, 1, 0]),
        _case("replicate", [3, 1, 0, 2, 1, 2]),
        _case("circular", [2, 4, 1, 3, 0, 1]),
        _case("reflect", [1, 1, 2, 0, 0, 1], shape=(1, 3, 3, 4, 2), data_format="NDHWC"),
        Case(inputs={"X": arr(1, 1, 2, 3, 3), "Paddings": np.array([1, 0, 2, 1, 0, 1], np.int32)},
             attrs={"paddings": [1, 0, 2, 1, 0, 1], "mode": "replicate"}, ref=pad3d_ref,
             grad=("X",), name="paddings-tensor"),
    ],
    "pad": [
        Case(inputs={"X": arr(2, 3)}, attrs={"paddings": [1, 0, 2, 1], "pad_value": 1.5},
             ref=pad_ref, grad=("X",), name="2d"),
        Case(inputs={"X": arr(1, 2, 2, 3)}, attrs={"paddings": [0, 1, 1, 0, 0, 0, 2, 1]},
             ref=pad_ref, grad=("X",), name="4d"),
    ],
}

BAD = {
    "pad3d": [
        Bad(inputs={"X": Meta((1, 2, 3, 3), np.dtype(F), 0)}, attrs={"paddings": [1] * 6},
            error=ShapeError, match="X must be a 5-D tensor"),
        Bad(inputs={"X": Meta((1, 2, 3, 3, 3), np.dtype(F), 0)},
            attrs={"paddings": [3, 0, 0, 0, 0, 0], "mode": "reflect"},
            error=ShapeError, match="reflect padding"),
    ],
    "pad": [Bad(inputs={"X": Meta((2, 3), np.dtype(F), 0)}, attrs={"paddings": [1, 1]},
                error=ShapeError, match="2 values per axis")],
}
