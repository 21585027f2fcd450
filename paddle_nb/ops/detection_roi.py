"""roi_align: a fixed-size feature map for each region of interest (Mask R-CNN's RoIAlign).

Each ROI (x1, y1, x2, y2 in the image, times ``spatial_scale`` into the feature map) is cut
into ``pooled_height`` x ``pooled_width`` bins; each bin is the mean of a grid of bilinear
samples (``sampling_ratio`` per side, or as many as the bin is wide when it is <= 0).
``aligned`` shifts the ROI by half a pixel so that sample points sit on pixel centers.
RoisNum [N] says how many ROIs belong to each image, in order. Bilinear sampling is
separable, so each ROI's bins are ``Wy @ X @ Wx.T`` with one interpolation matrix per axis.
Forward only here (PaddlePaddle has roi_align_grad).
"""

import math

import numpy

from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["sample_weights"]


def sample_weights(positions, size):
    """[len(positions), size]: each row the bilinear weights of one sample position along an
    axis of ``size`` pixels (a position beyond (-1, size) samples nothing)."""
    weights = numpy.zeros((len(positions), size))
    for k, p in enumerate(positions):
        if p < -1.0 or p > size:
            continue
        p = max(p, 0.0)
        low = int(p)
        if low >= size - 1:
            low = high = size - 1
            p = float(low)
        else:
            high = low + 1
        weights[k, low] += 1.0 - (p - low)
        weights[k, high] += p - low
    return weights


def _axis(start, length, pooled, grid):
    """The sample positions of one axis: ``grid`` per bin, bins of ``length / pooled``."""
    size = length / pooled
    return [start + b * size + (g + 0.5) * size / grid for b in range(pooled) for g in range(grid)]


def _roi_infer(x, rois, rois_num, *, spatial_scale, pooled_height, pooled_width,
               sampling_ratio, aligned):
    if len(x.shape) != 4:
        fail(f"X must be NCHW, got shape {list(x.shape)}")
    if len(rois.shape) != 2 or rois.shape[1] not in (4, -1):
        fail(f"ROIs must be [R, 4] (x1, y1, x2, y2), got shape {list(rois.shape)}")
    if rois_num is not None and rois_num.dtype.kind not in "iu":
        fail(f"RoisNum must be integers, got {rois_num.dtype}")
    return x.with_shape((rois.shape[0], x.shape[1], pooled_height, pooled_width))


def _roi_align(ctx, x, rois, rois_num, *, spatial_scale, pooled_height, pooled_width,
               sampling_ratio, aligned):
    xp = ctx.xp
    counts = [len(rois)] if rois_num is None else [int(c) for c in rois_num.tolist()]
    if sum(counts) != len(rois) or len(counts) != x.shape[0]:
        raise ValueError(f"roi_align: RoisNum {counts} must give each of the {x.shape[0]} "
                         f"images its ROIs, {len(rois)} in all")
    image = numpy.repeat(numpy.arange(len(counts)), counts)
    offset = 0.5 if aligned else 0.0
    out = []
    for r, (x1, y1, x2, y2) in enumerate(rois.tolist()):
        x1, y1 = x1 * spatial_scale - offset, y1 * spatial_scale - offset
        w, h = x2 * spatial_scale - offset - x1, y2 * spatial_scale - offset - y1
        if not aligned:
            w, h = max(w, 1.0), max(h, 1.0)
        gy = sampling_ratio if sampling_ratio > 0 else math.ceil(h / pooled_height)
        gx = sampling_ratio if sampling_ratio > 0 else math.ceil(w / pooled_width)
        wy = sample_weights(_axis(y1, h, pooled_height, gy), x.shape[2])
        wx = sample_weights(_axis(x1, w, pooled_width, gx), x.shape[3])
        wy, wx = (ctx.to_device(a.astype(x.dtype)) for a in (wy, wx))
        samples = xp.matmul(xp.matmul(wy, x[image[r]]), wx.T)         # [C, ph*gy, pw*gx]
        c = samples.shape[0]
        grid = samples.reshape(c, pooled_height, gy, pooled_width, gx)
        out.append(grid.sum(axis=(2, 4)) / max(gy * gx, 1))
    if not out:
        return xp.zeros((0, x.shape[1], pooled_height, pooled_width), dtype=x.dtype)
    return xp.stack(out).astype(x.dtype, copy=False)


register(OpDef(
    "roi_align", inputs=["X", "ROIs", Slot("RoisNum", dispensable=True)], outputs=["Out"],
    attrs={"spatial_scale": Attr("float", 1.0), "pooled_height": Attr("int", 1),
           "pooled_width": Attr("int", 1), "sampling_ratio": Attr("int", -1),
           "aligned": Attr("bool", False)},
    infer=_roi_infer, kernel=_roi_align,
    doc="RoIAlign: [R, C, pooled_height, pooled_width] bilinear bins of each ROI"))
