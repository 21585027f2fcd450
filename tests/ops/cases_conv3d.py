"""Contract cases for paddle_nb/ops/conv3d.py: conv3d and conv3d_transpose against loops.

The conv3d reference walks every output voxel and reads the input through index
arithmetic (padding as out-of-range indices); the transpose reference scatters
every input voxel, weighted by the filter, over its window of the output.
"""

import itertools

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(13)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _pads3(attrs):
    p = list(attrs.get("paddings", [0, 0, 0]))
    return p if len(p) == 6 else [p[0], p[0], p[1], p[1], p[2], p[2]]


def _cf(x, attrs):
    return x.transpose(0, 4, 1, 2, 3) if attrs.get("data_format") == "NDHWC" else x


def conv3d_ref(ins, attrs):
    x, f = _cf(ins["Input"], attrs).astype(np.float64), ins["Filter"].astype(np.float64)
    g, st = attrs.get("groups", 1), attrs.get("strides", [1, 1, 1])
    dil, pads = attrs.get("dilations", [1, 1, 1]), _pads3(attrs)
    n, c = x.shape[:2]
    m, cg = f.shape[:2]
    k = f.shape[2:]
    outs = [(x.shape[2 + i] + pads[2 * i] + pads[2 * i + 1] - dil[i] * (k[i] - 1) - 1) // st[i] + 1
            for i in range(3)]
    y = np.zeros((n, m) + tuple(outs))
    for o in itertools.product(*map(range, outs)):
        for kk in itertools.product(*map(range, k)):
            src = [o[i] * st[i] - pads[2 * i] + kk[i] * dil[i] for i in range(3)]
            if all(0 <= src[i] < x.shape[2 + i] for i in range(3)):
                for mm in range(m):
                    grp = mm // (m // g)
                    xs = x[:, grp * cg:(grp + 1) * cg, src[0], src[1], src[2]]
                    y[(slice(None), mm) + o] += xs @ f[(mm, slice(None)) + kk]
    if attrs.get("data_format") == "NDHWC":
        y = y.transpose(0, 2, 3, 4, 1)
    return {"Output": y}


def conv3d_transpose_ref(ins, attrs):
    x, f = ins["Input"].astype(np.float64), ins["Filter"].astype(np.float64)
    g, st = attrs.get("groups", 1), attrs.get("strides", [1, 1, 1])
    dil, pads = attrs.get("dilations", [1, 1, 1]), _pads3(attrs)
    n, c = x.shape[:2]
    mg, k = f.shape[1], f.shape[2:]
    full = [(x.shape[2 + i] - 1) * st[i] + dil[i] * (k[i] - 1) + 1 for i in range(3)]
    size = attrs.get("output_size") or [full[i] - pads[2 * i] - pads[2 * i + 1] for i in range(3)]
    y = np.zeros((n, mg * g) + tuple(full[i] + 1 for i in range(3)))
    for ci in range(c):
        grp = ci // (c // g)
        for p in itertools.product(*(range(s) for s in x.shape[2:])):
            for kk in itertools.product(*map(range, k)):
                d = tuple(p[i] * st[i] + kk[i] * dil[i] for i in range(3))
                y[(slice(None), slice(grp * mg, (grp + 1) * mg)) + d] += \
                    x[(slice(None), ci) + p][:, None] * f[(ci, slice(None)) + kk]
    crop = tuple(slice(pads[2 * i], pads[2 * i] + size[i]) for i in range(3))
    return {"Output": y[(slice(None), slice(None)) + crop]}


CASES = {
    "conv3d": [
        Case(inputs={"Input": arr(1, 2, 3, 4, 3), "Filter": arr(2, 2, 2, 2, 2)},
             ref=conv3d_ref, grad=("Input", "Filter"), name="plain"),
        Case(inputs={"Input": arr(2, 4, 4, 3, 3), "Filter": arr(4, 2, 2, 1, 2)},
             attrs={"groups": 2, "strides": [2, 1, 1], "paddings": [1, 0, 0, 1, 1, 0],
                    "dilations": [1, 2, 1]},
             ref=conv3d_ref, grad=("Input", "Filter"), name="groups-strides-pads-dilation"),
        Case(inputs={"Input": arr(1, 3, 3, 4, 2), "Filter": arr(2, 2, 2, 2, 2)},
             attrs={"data_format": "NDHWC", "paddings": [1, 1, 0]},
             ref=conv3d_ref, grad=("Input", "Filter"), name="ndhwc"),
    ],
    "conv3d_transpose": [
        Case(inputs={"Input": arr(1, 2, 2, 3, 2), "Filter": arr(2, 2, 2, 2, 2)},
             ref=conv3d_transpose_ref, grad=("Input", "Filter"), name="plain"),
        Case(inputs={"Input": arr(1, 4, 2, 2, 2), "Filter": arr(4, 1, 2, 3, 2)},
             attrs={"groups": 2, "strides": [2, 1, 2], "paddings": [1, 0, 1],
                    "output_size": [3, 4, 3]},
             ref=conv3d_transpose_ref, grad=("Input", "Filter"), name="groups-output-size"),
    ],
}


def _m(*shape):
    return Meta(shape, np.dtype(F), 0)


BAD = {
    "conv3d": [
        Bad(inputs={"Input": _m(1, 3, 4, 4), "Filter": _m(2, 3, 2, 2, 2)}, error=ShapeError,
            match="Input must be a 5-D tensor"),
        Bad(inputs={"Input": _m(1, 3, 4, 4, 4), "Filter": _m(2, 2, 2, 2, 2)}, error=ShapeError,
            match="expects 2"),
    ],
    "conv3d_transpose": [
        Bad(inputs={"Input": _m(1, 3, 4, 4, 4), "Filter": _m(2, 2, 2, 2, 2)}, error=ShapeError,
            match="expects 2"),
    ],
}
