"""roi_pool and psroi_pool: a fixed-size map for each region of interest, by whole-pixel bins.

Both cut each ROI (x1, y1, x2, y2 in the image; times ``spatial_scale`` into the feature
map; RoisNum [N] says how many ROIs each image has, in order) into ``pooled_height`` x
``pooled_width`` bins of whole pixels, a bin's rows running from floor of its start to ceil
of its end, clipped to the map.

- ``roi_pool`` (Fast R-CNN): the corners are rounded first and the ROI spans
  ``end - start + 1`` pixels; each bin is the max over its pixels of every channel, and
  ``Argmax`` keeps where it was (``h * W + w``, -1 for an empty bin, whose output is 0).
  The gradient goes to that pixel.
- ``psroi_pool`` (R-FCN's position-sensitive pooling): X has ``output_channels * ph * pw``
  channels; bin (i, j) of output channel c averages input channel ``(c * ph + i) * pw + j``
  over its pixels. The ROI runs from round(x1) to round(x2) + 1 before scaling. The
  gradient spreads each bin's gradient evenly over its pixels.
"""

import math

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["rois_per_image", "half_away"]


def half_away(v):
    """``v`` rounded half away from zero (C's ``round``, as the ROI corners are)."""
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def rois_per_image(op_type, x_shape, rois, rois_num):
    """The image index of each ROI, from RoisNum (or all of one image without it)."""
    counts = [len(rois)] if rois_num is None else [int(c) for c in rois_num.tolist()]
    if sum(counts) != len(rois) or len(counts) != x_shape[0]:
        raise ValueError(f"{op_type}: RoisNum {counts} must give each of the {x_shape[0]} "
                         f"images its ROIs, {len(rois)} in all")
    return numpy.repeat(numpy.arange(len(counts)), counts)


def _bins(start, length, pooled, limit):
    """[(lo, hi)] pixel ranges of ``pooled`` bins over ``length`` pixels from ``start``."""
    size = length / pooled
    return [(min(max(math.floor(b * size) + start, 0), limit),
             min(max(math.ceil((b + 1) * size) + start, 0), limit)) for b in range(pooled)]


def _pool_infer(op_type, channels_of):
    def infer(x, rois, rois_num, **attrs):
        if len(x.shape) != 4:
            fail(f"X must be NCHW, got shape {list(x.shape)}")
        if len(rois.shape) != 2 or rois.shape[1] not in (4, -1):
            fail(f"ROIs must be [R, 4] (x1, y1, x2, y2), got shape {list(rois.shape)}")
        if rois_num is not None and rois_num.dtype.kind not in "iu":
            fail(f"RoisNum must be integers, got {rois_num.dtype}")
        channels = channels_of(x, attrs)
        return x.with_shape((rois.shape[0], channels, attrs["pooled_height"],
                             attrs["pooled_width"]))
    return infer


# ---- roi_pool ----

def _roi_pool_bins(roi, scale, ph, pw, h, w):
    x1, y1, x2, y2 = (half_away(v * scale) for v in roi)
    return (_bins(y1, max(y2 - y1 + 1, 1), ph, h), _bins(x1, max(x2 - x1 + 1, 1), pw, w))


def _roi_pool(ctx, x, rois, rois_num, *, spatial_scale, pooled_height, pooled_width):
    xp = ctx.xp
    image = rois_per_image("roi_pool", x.shape, rois, rois_num)
    n_rois, channels, h, w = len(rois), x.shape[1], x.shape[2], x.shape[3]
    out = xp.zeros((n_rois, channels, pooled_height, pooled_width), dtype=x.dtype)
    argmax = xp.full(out.shape, -1, dtype=xp.int64)
    for r, roi in enumerate(rois.tolist()):
        rows, cols = _roi_pool_bins(roi, spatial_scale, pooled_height, pooled_width, h, w)
        for i, (h0, h1) in enumerate(rows):
            for j, (w0, w1) in enumerate(cols):
                if h1 <= h0 or w1 <= w0:
                    continue
                window = x[image[r], :, h0:h1, w0:w1].reshape(channels, -1)
                best = xp.argmax(window, axis=1)
                out[r, :, i, j] = window[xp.arange(channels), best]
                argmax[r, :, i, j] = (h0 + best // (w1 - w0)) * w + w0 + best % (w1 - w0)
    return out, argmax


def _roi_pool_grad(ctx, x, rois, rois_num, argmax, dout, **attrs):
    xp = ctx.xp
    image = rois_per_image("roi_pool_grad", x.shape, rois, rois_num)
    n, channels, h, w = x.shape
    dx = xp.zeros((n, channels, h * w), dtype=dout.dtype)
    for r in range(len(rois)):
        for c in range(channels):
            where = argmax[r, c].reshape(-1)
            keep = where >= 0
            xp.add.at(dx[image[r], c], where[keep], dout[r, c].reshape(-1)[keep])
    return dx.reshape(x.shape).astype(x.dtype, copy=False)


POOL_ATTRS = {"pooled_height": Attr("int", 1), "pooled_width": Attr("int", 1),
              "spatial_scale": Attr("float", 1.0)}
ROI_INPUTS = ["X", "ROIs", Slot("RoisNum", dispensable=True)]


def _with_argmax(infer):
    def both(x, rois, rois_num, **attrs):
        out = infer(x, rois, rois_num, **attrs)
        return out, out.with_dtype("int64")
    return both


register(OpDef(
    "roi_pool", inputs=ROI_INPUTS, outputs=["Out", "Argmax"], attrs=POOL_ATTRS,
    infer=_with_argmax(_pool_infer("roi_pool", lambda x, attrs: x.shape[1])),
    kernel=_roi_pool,
    grad=grad_op("roi_pool_grad", inputs=("X", "ROIs", "RoisNum"), outputs=("Argmax",)),
    doc="RoIPool: [R, C, pooled_height, pooled_width] maxima of each ROI's bins"))
register(OpDef(
    "roi_pool_grad", inputs=["X", "ROIs", Slot("RoisNum", dispensable=True), "Argmax",
                             "Out@GRAD"],
    outputs=["X@GRAD"], attrs=POOL_ATTRS,
    infer=lambda x, rois, rois_num, argmax, dout, **attrs: x, kernel=_roi_pool_grad,
    doc="the gradient of roi_pool: Out@GRAD added at each Argmax pixel"))


# ---- psroi_pool ----

def _ps_bins(roi, scale, ph, pw, h, w):
    x1, y1 = half_away(roi[0]) * scale, half_away(roi[1]) * scale
    x2, y2 = (half_away(roi[2]) + 1.0) * scale, (half_away(roi[3]) + 1.0) * scale
    rh, rw = max(y2 - y1, 0.1), max(x2 - x1, 0.1)
    rows = [(min(max(math.floor(rh / ph * i + y1), 0), h),
             min(max(math.ceil(rh / ph * (i + 1) + y1), 0), h)) for i in range(ph)]
    cols = [(min(max(math.floor(rw / pw * j + x1), 0), w),
             min(max(math.ceil(rw / pw * (j + 1) + x1), 0), w)) for j in range(pw)]
    return rows, cols


def _psroi_plan(x_shape, rois, rois_num, spatial_scale, output_channels, ph, pw):
    """(image of each ROI, [(roi, i, j, channels [output_channels], (h0, h1, w0, w1))])."""
    image = rois_per_image("psroi_pool", x_shape, rois, rois_num)
    plan = []
    channels = numpy.arange(output_channels) * ph * pw
    for r, roi in enumerate(rois.tolist()):
        rows, cols = _ps_bins(roi, spatial_scale, ph, pw, x_shape[2], x_shape[3])
        for i, (h0, h1) in enumerate(rows):
            for j, (w0, w1) in enumerate(cols):
                if h1 > h0 and w1 > w0:
                    plan.append((r, i, j, channels + i * pw + j, (h0, h1, w0, w1)))
    return image, plan


def _psroi_pool(ctx, x, rois, rois_num, *, spatial_scale, output_channels, pooled_height,
                pooled_width):
    xp = ctx.xp
    out = xp.zeros((len(rois), output_channels, pooled_height, pooled_width), dtype=x.dtype)
    image, plan = _psroi_plan(x.shape, rois, rois_num, spatial_scale, output_channels,
                              pooled_height, pooled_width)
    for r, i, j, chans, (h0, h1, w0, w1) in plan:
        window = x[image[r]][ctx.to_device(chans), h0:h1, w0:w1]
        out[r, :, i, j] = window.sum(axis=(1, 2)) / ((h1 - h0) * (w1 - w0))
    return out


def _psroi_pool_grad(ctx, x, rois, rois_num, dout, *, spatial_scale, output_channels,
                     pooled_height, pooled_width):
    xp = ctx.xp
    dx = xp.zeros(x.shape, dtype=dout.dtype)
    image, plan = _psroi_plan(x.shape, rois, rois_num, spatial_scale, output_channels,
                              pooled_height, pooled_width)
    for r, i, j, chans, (h0, h1, w0, w1) in plan:
        share = dout[r, :, i, j] / ((h1 - h0) * (w1 - w0))
        dx[image[r], ctx.to_device(chans), h0:h1, w0:w1] += share[:, None, None]
    return dx.astype(x.dtype, copy=False)


def _ps_channels(x, attrs):
    need = attrs["output_channels"] * attrs["pooled_height"] * attrs["pooled_width"]
    if x.shape[1] not in (need, -1):
        fail(f"X must have output_channels * pooled_height * pooled_width = {need} channels, "
             f"got shape {list(x.shape)}")
    return attrs["output_channels"]


PS_ATTRS = {"spatial_scale": Attr("float", 1.0), "output_channels": Attr("int", 1),
            "pooled_height": Attr("int", 1), "pooled_width": Attr("int", 1)}
register(OpDef(
    "psroi_pool", inputs=ROI_INPUTS, outputs=["Out"], attrs=PS_ATTRS,
    infer=_pool_infer("psroi_pool", _ps_channels), kernel=_psroi_pool,
    grad=grad_op("psroi_pool_grad", inputs=("X", "ROIs", "RoisNum")),
    doc="position-sensitive RoI pooling: bin (i, j) of channel c averages X's channel "
        "(c * ph + i) * pw + j"))
register(OpDef(
    "psroi_pool_grad", inputs=["X", "ROIs", Slot("RoisNum", dispensable=True), "Out@GRAD"],
    outputs=["X@GRAD"], attrs=PS_ATTRS,
    infer=lambda x, rois, rois_num, dout, **attrs: x, kernel=_psroi_pool_grad,
    doc="the gradient of psroi_pool: each bin's gradient spread evenly over its pixels"))
