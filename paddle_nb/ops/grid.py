"""Sampling at given points: ``affine_grid`` and ``grid_sampler``, with their grads.

``affine_grid`` maps a regular grid of normalized coordinates in [-1, 1]
(x across the width first, then y, then z) through an affine matrix Theta per
image: Output[n, h, w] = Theta[n] @ (x_w, y_h, 1). With ``align_corners`` the
extreme coordinates are the corner pixels' centres; without, the grid is
shrunk by (size - 1) / size so they are the corners' outer edges.

``grid_sampler`` reads X [N, C, H, W] at the points of Grid [N, Ho, Wo, 2]
((x, y) in [-1, 1], the same convention), or a volume X [N, C, D, H, W] at
the points of Grid [N, Do, Ho, Wo, 3] ((x, y, z)). A point is first scaled
to pixel units, then kept inside by ``padding_mode``: ``zeros`` leaves it
(pixels outside read 0), ``border`` clamps it, ``reflection`` mirrors it back
(about the corner centres with align_corners, the outer edges without).
``bilinear`` blends the 4 pixels around it (the 8 voxels of a volume),
``nearest`` rounds it (half to even). The gradient goes to X (each output's
gradient spread back over the pixels it read) and to Grid (the blend's
slope, times the scaling and the padding's).
"""

import itertools
from typing import Any

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register
from paddle_nb.ops.machinery.window import one_of

__all__ = ["base_grid"]


# ---- affine_grid ----

def _linspace(xp, size, align_corners, dtype):
    if size <= 1:
        return xp.zeros(max(size, 0), dtype)
    line = xp.linspace(-1.0, 1.0, size, dtype=dtype)
    return line if align_corners else line * dtype.type((size - 1) / size)


def base_grid(xp, sizes, align_corners, dtype):
    """(*sizes, n + 1): the normalized coordinates (x, y[, z], 1) of every output pixel."""
    n = len(sizes)
    lines = [_linspace(xp, s, align_corners, dtype) for s in sizes]
    mesh = xp.meshgrid(*lines, indexing="ij")                # D, H, W order
    coords = [mesh[n - 1 - i] for i in range(n)]            # x (width) first
    return xp.stack(coords + [xp.ones(tuple(sizes), dtype)], axis=-1)


def _shape_of(output_shape_tensor, output_shape):
    if output_shape_tensor is not None:
        return [int(v) for v in output_shape_tensor.reshape(-1).tolist()]
    return list(output_shape)


def _affine_infer(theta, output_shape_tensor, *, output_shape, align_corners):
    """[N, -1, -1, 2] (or [N, -1, -1, -1, 3]): PaddlePaddle 2.6's rule leaves the grid's
    sizes unknown until the program runs, even when ``output_shape`` gives them."""
    if len(theta.shape) != 3 or tuple(theta.shape[1:]) not in ((2, 3), (3, 4)):
        fail(f"Theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), got shape {tuple(theta.shape)}")
    n = theta.shape[1]
    if output_shape_tensor is None and len(output_shape) != n + 2:
        fail(f"output_shape must hold {n + 2} values [N, C, {'D, ' if n == 3 else ''}H, W] for "
             f"Theta of shape {tuple(theta.shape)}, got {list(output_shape)}")
    return theta.with_shape((theta.shape[0],) + (-1,) * n + (n,))


def _affine_kernel(ctx, theta, output_shape_tensor, *, output_shape, align_corners):
    xp = ctx.xp
    sizes = _shape_of(output_shape_tensor, output_shape)[2:]
    base = base_grid(xp, sizes, align_corners, theta.dtype)
    flat = base.reshape(-1, base.shape[-1])
    out = xp.matmul(flat[None], theta.transpose(0, 2, 1))    # (N, P, n)
    return out.reshape((theta.shape[0],) + tuple(sizes) + (theta.shape[1],))


def _affine_grad_kernel(ctx, theta, output_shape_tensor, dout, *, output_shape, align_corners):
    xp = ctx.xp
    sizes = _shape_of(output_shape_tensor, output_shape)[2:]
    flat = base_grid(xp, sizes, align_corners, dout.dtype).reshape(-1, len(sizes) + 1)
    dflat = dout.reshape(dout.shape[0], -1, len(sizes))
    return xp.matmul(dflat.transpose(0, 2, 1), flat[None])


OUTPUT_SHAPE = Slot("OutputShape", dispensable=True, comment="int32 [4] or [5], at run time")
AFFINE_ATTRS = {"output_shape": Attr("ints", [], comment="[N, C, H, W] or [N, C, D, H, W]"),
                "align_corners": Attr("bool", True)}

register(OpDef(
    "affine_grid", inputs=["Theta", OUTPUT_SHAPE], outputs=["Output"], attrs=AFFINE_ATTRS,
    infer=_affine_infer, kernel=_affine_kernel,
    grad=grad_op("affine_grid_grad", inputs=("Theta", "OutputShape"), out_grads=("Output",),
                 in_grads=("Theta",)),
    doc="Output [N, H, W, 2] = Theta [N, 2, 3] applied to the normalized grid (x, y, 1)"))
register(OpDef(
    "affine_grid_grad", inputs=["Theta", OUTPUT_SHAPE, "Output@GRAD"], outputs=["Theta@GRAD"],
    attrs=AFFINE_ATTRS, infer=lambda theta, s, dout, **a: theta, kernel=_affine_grad_kernel,
    no_need_buffer=("Theta",),
    doc="the gradient of affine_grid: Output@GRAD times the grid, summed over the pixels"))


# ---- grid_sampler ----

def _unnormalize(g, size, align_corners):
    """(pixel coordinate, its derivative by g)."""
    if align_corners:
        scale = (size - 1) / 2
        return (g + 1) * scale, scale
    return ((g + 1) * size - 1) / 2, size / 2


def _reflect(xp, c, low2, high2):
    """c mirrored into [low2 / 2, high2 / 2], and the sign of its derivative."""
    if low2 == high2:
        return xp.zeros_like(c), xp.zeros_like(c)
    lo, span = low2 / 2, (high2 - low2) / 2
    d = c - lo
    sign = xp.where(d < 0, -1.0, 1.0)
    d = xp.abs(d)
    flips = xp.floor(d / span)
    extra = d - flips * span
    even = (flips % 2) == 0
    return xp.where(even, extra + lo, span - extra + lo), xp.where(even, sign, -sign)


def _source(xp, g, size, padding_mode, align_corners):
    """(pixel coordinate, d coordinate / d g) after the padding mode."""
    c, slope = _unnormalize(g, size, align_corners)
    slope = xp.full(g.shape, slope, dtype=g.dtype)
    if padding_mode == "reflection":
        c, sign = _reflect(xp, c, 0, 2 * (size - 1)) if align_corners else \
            _reflect(xp, c, -1, 2 * size - 1)
        slope = slope * sign
    if padding_mode in ("border", "reflection"):
        inside = (c > 0) & (c < size - 1)
        c, slope = xp.clip(c, 0, size - 1), slope * inside
    return c.astype(g.dtype, copy=False), slope.astype(g.dtype, copy=False)


def _taps(xp, coords, mode):
    """[(indices per axis, weight, d weight / d coordinate per axis)] for each point.

    ``coords`` are the pixel coordinates in axis order (D,) H, W. Linear ("bilinear", and
    trilinear for a volume) blends the 2^n corners around a point; nearest rounds it."""
    if mode == "nearest":
        zero = xp.zeros_like(coords[0])
        return [([xp.rint(c).astype(xp.int64) for c in coords], xp.ones_like(zero),
                 [zero] * len(coords))]
    lows = [xp.floor(c) for c in coords]
    fracs = [c - lo for c, lo in zip(coords, lows)]
    lows = [lo.astype(xp.int64) for lo in lows]
    taps = []
    for corner in itertools.product((0, 1), repeat=len(coords)):
        parts = [f if up else 1 - f for f, up in zip(fracs, corner)]
        slopes = [xp.ones_like(f) if up else -xp.ones_like(f) for f, up in zip(fracs, corner)]
        weight, dweights = 1, []
        for a in range(len(coords)):
            weight = weight * parts[a]
            others = 1
            for b in range(len(coords)):
                others = others * (slopes[b] if b == a else parts[b])
            dweights.append(others)
        taps.append(([lo + up for lo, up in zip(lows, corner)], weight, dweights))
    return taps


def _gather(xp, x, index):
    """x[n, :, *index] as (N, C, *out), 0 where the index is outside; and the inside mask."""
    sizes = x.shape[2:]
    inside: Any = 1
    for i, s in zip(index, sizes):
        inside = inside & (i >= 0) & (i < s)
    batch = xp.arange(x.shape[0]).reshape((-1,) + (1,) * (index[0].ndim - 1))
    clipped = tuple(xp.clip(i, 0, s - 1) for i, s in zip(index, sizes))
    vals = x[(batch, slice(None)) + clipped]                  # (N, *out, C)
    return xp.moveaxis(vals, -1, 1) * inside[:, None], inside


def _plan(xp, x, grid, mode, padding_mode, align_corners):
    """(taps, d coordinate / d grid per axis) with the axes in (D,) H, W order; the grid's
    last axis holds them the other way round: (x, y[, z])."""
    n = x.ndim - 2
    sources = [_source(xp, grid[..., n - 1 - a], x.shape[2 + a], padding_mode, align_corners)
               for a in range(n)]
    return _taps(xp, [c for c, _ in sources], mode), [sl for _, sl in sources]


def _sampler_infer(x, grid, *, mode, padding_mode, align_corners):
    n = len(x.shape) - 2
    if n not in (2, 3):
        fail(f"X must be a 4-D [N, C, H, W] or 5-D [N, C, D, H, W] tensor, got shape "
             f"{tuple(x.shape)}")
    if len(grid.shape) != n + 2 or grid.shape[-1] != n:
        fail(f"Grid must be [N, {'D_out, ' if n == 3 else ''}H_out, W_out, {n}] for X of shape "
             f"{tuple(x.shape)}, got shape {tuple(grid.shape)}")
    if x.shape[0] >= 0 and grid.shape[0] >= 0 and x.shape[0] != grid.shape[0]:
        fail(f"X and Grid must have the same batch size, got shapes {tuple(x.shape)} and "
             f"{tuple(grid.shape)}")
    return x.with_shape(tuple(x.shape[:2]) + tuple(grid.shape[1:-1]))


def _sampler_kernel(ctx, x, grid, *, mode, padding_mode, align_corners):
    xp = ctx.xp
    taps, _ = _plan(xp, x, grid, mode, padding_mode, align_corners)
    out: Any = 0
    for index, wt, _ in taps:
        out = out + _gather(xp, x, index)[0] * wt[:, None]
    return out.astype(x.dtype, copy=False)


def _sampler_grad_kernel(ctx, x, grid, dout, *, mode, padding_mode, align_corners):
    xp = ctx.xp
    sizes, n = x.shape[2:], x.ndim - 2
    taps, slopes = _plan(xp, x, grid, mode, padding_mode, align_corners)
    volume = 1
    for s in sizes:
        volume *= s
    dx = xp.zeros(x.shape[0] * x.shape[1] * volume, dtype=x.dtype) if ctx.want(0) else None
    dcoords = [xp.zeros_like(grid[..., 0]) for _ in range(n)]
    base = (xp.arange(x.shape[0] * x.shape[1]) * volume).reshape(
        x.shape[:2] + (1,) * (dout.ndim - 2))
    for index, wt, dweights in taps:
        vals, inside = _gather(xp, x, index)
        if dx is not None:
            flat: Any = 0
            for i, s in zip(index, sizes):
                flat = flat * s + xp.clip(i, 0, s - 1)
            weights = dout * (wt * inside)[:, None]
            dx += xp.bincount((base + flat[:, None]).reshape(-1), weights=weights.reshape(-1),
                              minlength=dx.size)
        seen = (dout * vals).sum(axis=1)
        dcoords = [d + seen * dw for d, dw in zip(dcoords, dweights)]
    dgrid = xp.stack([dcoords[n - 1 - k] * slopes[n - 1 - k] for k in range(n)], axis=-1)
    return (dx.reshape(x.shape) if dx is not None else None), dgrid.astype(grid.dtype,
                                                                           copy=False)


SAMPLER_ATTRS = {
    "mode": Attr("str", "bilinear", one_of("bilinear", "nearest")),
    "padding_mode": Attr("str", "zeros", one_of("zeros", "border", "reflection")),
    "align_corners": Attr("bool", True),
}

register(OpDef(
    "grid_sampler", inputs=["X", "Grid"], outputs=["Output"], attrs=SAMPLER_ATTRS,
    infer=_sampler_infer, kernel=_sampler_kernel,
    grad=grad_op("grid_sampler_grad", inputs=("X", "Grid"), out_grads=("Output",),
                 in_grads=("X", "Grid")),
    doc="Output [N, C, Ho, Wo] = X [N, C, H, W] read at the points of Grid [N, Ho, Wo, 2] "
        "(or a volume at Grid [N, Do, Ho, Wo, 3])"))
register(OpDef(
    "grid_sampler_grad", inputs=["X", "Grid", "Output@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Grid@GRAD", dispensable=True)],
    attrs=SAMPLER_ATTRS, infer=lambda x, grid, dout, **a: (x, grid),
    kernel=_sampler_grad_kernel,
    doc="the gradients of grid_sampler: Output@GRAD spread back to X's pixels, and the "
        "blend's slope to Grid"))
