"""Contract cases for paddle_nb/ops/grid.py: affine_grid and grid_sampler vs scalar loops.

The sampler reference takes one output point at a time: scale it to pixels,
apply the padding mode by its definition (clamp; mirror by repeated folding),
then blend the 4 pixels around it or take the nearest.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(29)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _coords(size, align):
    if size == 1:
        return [0.0]
    return [(-1 + 2 * i / (size - 1)) * (1 if align else (size - 1) / size) for i in range(size)]


def affine_ref(ins, attrs):
    theta = ins["Theta"].astype(np.float64)
    sizes = attrs["output_shape"][2:]
    n = len(sizes)
    align = attrs.get("align_corners", True)
    out = np.zeros((theta.shape[0],) + tuple(sizes) + (n,))
    lines = [_coords(s, align) for s in sizes]
    for idx in np.ndindex(*sizes):
        point = [lines[n - 1 - i][idx[n - 1 - i]] for i in range(n)] + [1.0]
        out[(slice(None),) + idx] = theta @ np.array(point)
    return {"Output": out}


def _fold(c, lo, hi):
    """c mirrored into [lo, hi] by folding it at the ends, again and again."""
    if lo == hi:
        return lo
    while c < lo or c > hi:
        c = 2 * lo - c if c < lo else 2 * hi - c
    return c


def _pixel(g, size, attrs):
    align, mode = attrs.get("align_corners", True), attrs.get("padding_mode", "zeros")
    c = (g + 1) * (size - 1) / 2 if align else ((g + 1) * size - 1) / 2
    if mode == "reflection":
        c = _fold(c, 0, size - 1) if align else _fold(c, -0.5, size - 0.5)
    if mode in ("border", "reflection"):
        c = min(max(c, 0), size - 1)
    return c


def sampler_ref(ins, attrs):
    x, grid = ins["X"].astype(np.float64), ins["Grid"].astype(np.float64)
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def at(b, yy, xx):
        return x[b, :, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(c)
    for b, i, j in np.ndindex(n, *grid.shape[1:3]):
        px, py = _pixel(grid[b, i, j, 0], w, attrs), _pixel(grid[b, i, j, 1], h, attrs)
        if attrs.get("mode", "bilinear") == "nearest":
            out[b, :, i, j] = at(b, int(np.rint(py)), int(np.rint(px)))
            continue
        x0, y0 = math.floor(px), math.floor(py)
        fx, fy = px - x0, py - y0
        out[b, :, i, j] = ((1 - fx) * (1 - fy) * at(b, y0, x0) + fx * (1 - fy) * at(b, y0, x0 + 1)
                           + (1 - fx) * fy * at(b, y0 + 1, x0) + fx * fy * at(b, y0 + 1, x0 + 1))
    return {"Output": out}


def sampler3d_ref(ins, attrs):
    """The volume version: the 8 voxels around each point, trilinear weights."""
    x, grid = ins["X"].astype(np.float64), ins["Grid"].astype(np.float64)
    n, c, d, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:4])

    def at(b, zz, yy, xx):
        inside = 0 <= zz < d and 0 <= yy < h and 0 <= xx < w
        return x[b, :, zz, yy, xx] if inside else np.zeros(c)
    for b, i, j, k in np.ndindex(n, *grid.shape[1:4]):
        p = [_pixel(grid[b, i, j, k, a], size, attrs) for a, size in enumerate((w, h, d))]
        if attrs.get("mode", "bilinear") == "nearest":
            out[b, :, i, j, k] = at(b, *(int(np.rint(v)) for v in p[::-1]))
            continue
        lo = [math.floor(v) for v in p]
        f = [v - q for v, q in zip(p, lo)]
        for dx, dy, dz in np.ndindex(2, 2, 2):
            wt = ((f[0] if dx else 1 - f[0]) * (f[1] if dy else 1 - f[1])
                  * (f[2] if dz else 1 - f[2]))
            out[b, :, i, j, k] += wt * at(b, lo[2] + dz, lo[1] + dy, lo[0] + dx)
    return {"Output": out}


def _grid(*shape, spread=1.0):
    return (rng.uniform(-spread, spread, shape)).astype(F)


def _sample(name, spread=0.9, **attrs):
    return Case(inputs={"X": arr(2, 2, 3, 4), "Grid": _grid(2, 2, 3, 2, spread=spread)},
                attrs=attrs, ref=sampler_ref, grad=("X", "Grid"), name=name, rtol=1e-4,
                atol=1e-5)


CASES = {
    "affine_grid": [
        Case(inputs={"Theta": arr(2, 2, 3)}, attrs={"output_shape": [2, 1, 3, 4]},
             ref=affine_ref, grad=("Theta",), name="2-d align_corners"),
        Case(inputs={"Theta": arr(1, 2, 3)},
             attrs={"output_shape": [1, 3, 4, 2], "align_corners": False},
             ref=affine_ref, grad=("Theta",), name="2-d edges"),
        Case(inputs={"Theta": arr(2, 3, 4)}, attrs={"output_shape": [2, 1, 2, 3, 2]},
             ref=affine_ref, grad=("Theta",), name="3-d"),
        Case(inputs={"Theta": arr(1, 2, 3), "OutputShape": np.array([1, 1, 2, 3], np.int32)},
             attrs={"align_corners": False}, ref=lambda ins, at: affine_ref(
                 ins, {**at, "output_shape": [1, 1, 2, 3]}),
             grad=("Theta",), name="OutputShape tensor"),
    ],
    "grid_sampler": [
        _sample("bilinear zeros corners"),
        _sample("bilinear zeros edges, outside", spread=1.3, align_corners=False),
        _sample("bilinear border", spread=1.3, padding_mode="border"),
        _sample("bilinear reflection corners", spread=1.6, padding_mode="reflection"),
        _sample("bilinear reflection edges", spread=1.6, padding_mode="reflection",
                align_corners=False),
        _sample("nearest zeros", mode="nearest", align_corners=False),
        _sample("nearest border", spread=1.3, mode="nearest", padding_mode="border"),
        Case(inputs={"X": arr(1, 2, 3, 3, 4), "Grid": _grid(1, 2, 2, 3, 3, spread=1.2)},
             ref=sampler3d_ref, grad=("X", "Grid"), name="volume trilinear zeros", rtol=1e-4,
             atol=1e-5),
        Case(inputs={"X": arr(1, 2, 3, 3, 4), "Grid": _grid(1, 2, 2, 3, 3, spread=1.5)},
             attrs={"padding_mode": "reflection", "align_corners": False},
             ref=sampler3d_ref, grad=("X", "Grid"), name="volume reflection edges",
             rtol=1e-4, atol=1e-5),
        Case(inputs={"X": arr(1, 2, 3, 3, 4), "Grid": _grid(1, 2, 2, 3, 3, spread=1.2)},
             attrs={"mode": "nearest", "padding_mode": "border"},
             ref=sampler3d_ref, grad=("X", "Grid"), name="volume nearest border"),
    ],
}


def _m(*shape):
    return Meta(shape, np.dtype(F), 0)


BAD = {
    "affine_grid": [Bad(inputs={"Theta": _m(2, 2, 2)}, attrs={"output_shape": [2, 1, 3, 3]},
                        error=ShapeError, match=r"Theta must be \[N, 2, 3\]"),
                    Bad(inputs={"Theta": _m(2, 2, 3)}, attrs={"output_shape": [2, 1, 3]},
                        error=ShapeError, match="output_shape must hold 4 values")],
    "grid_sampler": [Bad(inputs={"X": _m(2, 1, 3, 3), "Grid": _m(2, 3, 3, 3)},
                         error=ShapeError, match=r"Grid must be \[N, H_out, W_out, 2\]"),
                     Bad(inputs={"X": _m(2, 1, 3, 3), "Grid": _m(1, 3, 3, 2)},
                         error=ShapeError, match="same batch size")],
}
