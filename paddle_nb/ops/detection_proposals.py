"""Two-stage detectors' proposals: generate_proposals_v2 and distribute_fpn_proposals.

``generate_proposals_v2`` (Faster R-CNN's RPN) turns per-anchor objectness Scores
[N, A, H, W] and BboxDeltas [N, 4A, H, W] into proposals: for each image, the
``pre_nms_topN`` best anchors are decoded (center-size deltas scaled by Variances, the log
size change capped at log(1000 / 16)), clipped to the image (ImShape: height, width),
those smaller than ``min_size`` (at least 1) dropped, NMS'd (``nms_thresh``, ``eta``) and cut
to ``post_nms_topN``. An image with no box left yields one zero box of probability 0.
``pixel_offset`` counts a box's last pixel (+1 on each side length).

``distribute_fpn_proposals`` sends each ROI to an FPN level by its scale:
``floor(log2(sqrt(w * h) / refer_scale) + refer_level)``, clipped to [min_level, max_level].
It returns the ROIs of each level (by image, in their order), each level's count per image,
and RestoreIndex: where each input ROI went in the levels' concatenation.
"""

import math

import numpy

from paddle_nb.ops.detection_nms import iou
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register

__all__ = []

_INT32 = numpy.dtype("int32")
_DELTA_CAP = math.log(1000.0 / 16.0)      # the largest log size change a delta may ask


# -- generate_proposals_v2 -------------------------------------------------------------------------
def _proposals_infer(scores, deltas, im_shape, anchors, variances, **attrs):
    if len(scores.shape) != 4 or len(deltas.shape) != 4:
        fail(f"Scores [N, A, H, W] and BboxDeltas [N, 4A, H, W] expected, got shapes "
             f"{list(scores.shape)} and {list(deltas.shape)}")
    if min(scores.shape[1], deltas.shape[1]) >= 0 and deltas.shape[1] != 4 * scores.shape[1]:
        fail(f"BboxDeltas must have 4 channels per anchor ({4 * scores.shape[1]}), got "
             f"{deltas.shape[1]}")
    if anchors.shape[-1] not in (4, -1) or tuple(anchors.shape) != tuple(variances.shape):
        fail(f"Anchors and Variances must be [H, W, A, 4] alike, got {list(anchors.shape)} and "
             f"{list(variances.shape)}")
    return (scores.with_shape((-1, 4)), scores.with_shape((-1, 1)), Meta((-1,), _INT32))


def _decode(anchors, deltas, variances, offset):
    w = anchors[:, 2] - anchors[:, 0] + offset
    h = anchors[:, 3] - anchors[:, 1] + offset
    cx, cy = anchors[:, 0] + 0.5 * w, anchors[:, 1] + 0.5 * h
    ncx = variances[:, 0] * deltas[:, 0] * w + cx
    ncy = variances[:, 1] * deltas[:, 1] * h + cy
    nw = numpy.exp(numpy.minimum(variances[:, 2] * deltas[:, 2], _DELTA_CAP)) * w
    nh = numpy.exp(numpy.minimum(variances[:, 3] * deltas[:, 3], _DELTA_CAP)) * h
    return numpy.stack([ncx - nw / 2, ncy - nh / 2, ncx + nw / 2 - offset,
                        ncy + nh / 2 - offset], axis=1)


def _one_image(scores, deltas, anchors, variances, im_h, im_w, attrs):
    """(boxes [K, 4], probs [K]) of one image, on the host."""
    offset = 1.0 if attrs["pixel_offset"] else 0.0
    order = numpy.argsort(-scores, kind="stable")
    if 0 < attrs["pre_nms_topN"] < len(order):
        order = order[:attrs["pre_nms_topN"]]
    boxes = _decode(anchors[order], deltas[order], variances[order], offset)
    boxes[:, 0::2] = numpy.clip(boxes[:, 0::2], 0, im_w - offset)
    boxes[:, 1::2] = numpy.clip(boxes[:, 1::2], 0, im_h - offset)
    ws, hs = boxes[:, 2] - boxes[:, 0] + offset, boxes[:, 3] - boxes[:, 1] + offset
    low = max(attrs["min_size"], 1.0)
    keep = (ws >= low) & (hs >= low)
    if attrs["pixel_offset"]:
        keep &= (boxes[:, 0] + ws / 2 <= im_w) & (boxes[:, 1] + hs / 2 <= im_h)
    boxes, probs = boxes[keep], scores[order][keep]
    if not len(boxes):
        return numpy.zeros((1, 4)), numpy.zeros(1)
    kept: list[int] = []
    threshold, listed = attrs["nms_thresh"], boxes.tolist()
    for i in range(len(listed)):            # already in score order
        if all(iou(listed[i], listed[k], not attrs["pixel_offset"]) <= threshold for k in kept):
            kept.append(i)
            if attrs["eta"] < 1 and threshold > 0.5:
                threshold *= attrs["eta"]
    if 0 < attrs["post_nms_topN"] < len(kept):
        kept = kept[:attrs["post_nms_topN"]]
    return boxes[kept], probs[kept]


def _generate_proposals(ctx, scores, deltas, im_shape, anchors, variances, **attrs):
    n, a, h, w = scores.shape
    host = [numpy.asarray(v.tolist(), dtype=numpy.float64) for v in
            (scores, deltas, im_shape, anchors, variances)]
    s = host[0].transpose(0, 2, 3, 1).reshape(n, -1)                 # (h, w, anchor) order
    d = host[1].reshape(n, a, 4, h, w).transpose(0, 3, 4, 1, 2).reshape(n, -1, 4)
    anchors_, variances_ = host[3].reshape(-1, 4), host[4].reshape(-1, 4)
    rois, probs, counts = [], [], []
    for k in range(n):
        b, p = _one_image(s[k], d[k], anchors_, variances_, host[2][k, 0], host[2][k, 1], attrs)
        rois.append(b)
        probs.append(p)
        counts.append(len(b))
    dtype = scores.dtype
    return (ctx.to_device(numpy.concatenate(rois).astype(dtype)),
            ctx.to_device(numpy.concatenate(probs).astype(dtype).reshape(-1, 1)),
            ctx.to_device(numpy.asarray(counts, dtype=_INT32)))


register(OpDef(
    "generate_proposals_v2",
    inputs=["Scores", "BboxDeltas", "ImShape", "Anchors", "Variances"],
    outputs=["RpnRois", "RpnRoiProbs", Slot("RpnRoisNum", dispensable=True)],
    attrs={"pre_nms_topN": Attr("int", 6000), "post_nms_topN": Attr("int", 1000),
           "nms_thresh": Attr("float", 0.5), "min_size": Attr("float", 0.1),
           "eta": Attr("float", 1.0), "pixel_offset": Attr("bool", True)},
    infer=_proposals_infer, kernel=_generate_proposals,
    doc="RPN proposals: decode the best anchors, clip, drop small ones, NMS, keep the top"))


# -- distribute_fpn_proposals ----------------------------------------------------------------------
def _levels(attrs):
    return attrs["max_level"] - attrs["min_level"] + 1


def _distribute_infer(rois, rois_num, **attrs):
    if len(rois.shape) != 2 or rois.shape[1] not in (4, -1):
        fail(f"FpnRois must be [R, 4], got shape {list(rois.shape)}")
    if attrs["max_level"] < attrs["min_level"]:
        fail(f"max_level ({attrs['max_level']}) must be >= min_level ({attrs['min_level']})")
    levels = _levels(attrs)
    counts = [Meta((-1,), _INT32)] * levels if rois_num is not None else None
    return [rois.with_shape((-1, 4))] * levels, Meta((-1, 1), _INT32), counts


def _distribute(ctx, rois, rois_num, **attrs):
    boxes = numpy.asarray(rois.tolist(), dtype=numpy.float64).reshape(-1, 4)
    per_image = [len(boxes)] if rois_num is None else [int(c) for c in rois_num.tolist()]
    image = numpy.repeat(numpy.arange(len(per_image)), per_image)
    offset = 1.0 if attrs["pixel_offset"] else 0.0
    scale = numpy.sqrt((boxes[:, 2] - boxes[:, 0] + offset) * (boxes[:, 3] - boxes[:, 1] + offset))
    level = numpy.floor(numpy.log2(scale / attrs["refer_scale"] + 1e-8) + attrs["refer_level"])
    level = numpy.clip(level, attrs["min_level"], attrs["max_level"]).astype(int)
    outs, counts, order = [], [], []
    for lv in range(attrs["min_level"], attrs["max_level"] + 1):
        picked = numpy.flatnonzero(level == lv)       # by image, then input order
        order += picked.tolist()
        outs.append(ctx.to_device(boxes[picked].astype(rois.dtype).reshape(-1, 4)))
        counts.append(ctx.to_device(numpy.bincount(image[picked], minlength=len(per_image))
                                    .astype(_INT32)))
    restore = numpy.empty(len(boxes), dtype=_INT32)
    restore[order] = numpy.arange(len(boxes), dtype=_INT32)
    return outs, ctx.to_device(restore.reshape(-1, 1)), (counts if rois_num is not None else None)


register(OpDef(
    "distribute_fpn_proposals", inputs=["FpnRois", Slot("RoisNum", dispensable=True)],
    outputs=[Slot("MultiFpnRois", duplicable=True), "RestoreIndex",
             Slot("MultiLevelRoIsNum", duplicable=True, dispensable=True)],
    attrs={"min_level": Attr("int", 2), "max_level": Attr("int", 5),
           "refer_level": Attr("int", 4), "refer_scale": Attr("int", 224),
           "pixel_offset": Attr("bool", True)},
    infer=_distribute_infer, kernel=_distribute,
    doc="send each ROI to an FPN level by its scale; RestoreIndex undoes the grouping"))
