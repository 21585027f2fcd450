"""Boxes for detection heads: yolo_box, box_coder, prior_box (forward only).

``yolo_box`` turns a YOLOv3 head's raw map [N, anchors * (5 + classes), H, W] into boxes in
the image's pixels [N, anchors * H * W, 4] (x1, y1, x2, y2) and per-class scores; a box
whose objectness is below ``conf_thresh`` is all zeros. ``box_coder`` encodes boxes as
offsets from prior (anchor) boxes, or decodes such offsets back into boxes ("center size":
centers shifted by a fraction of the prior's size, sizes scaled by an exponent, each term
scaled by a variance). ``prior_box`` lays SSD's prior boxes over a feature map: for each
cell, one box per (min size, aspect ratio) and one per max size, normalized by the image.
Every box is (x1, y1, x2, y2); an unnormalized box counts its last pixel (width x2 - x1 + 1).
"""

import math

import numpy

from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["expand_aspect_ratios", "prior_sizes"]


def _sigmoid(xp, x):
    return 1.0 / (1.0 + xp.exp(-x))


# -- yolo_box --------------------------------------------------------------------------------------
def _yolo_channels(anchors, class_num, iou_aware):
    return len(anchors) // 2 * (5 + class_num + (1 if iou_aware else 0))


def _yolo_infer(x, img_size, *, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
                scale_x_y, iou_aware, iou_aware_factor):
    if len(x.shape) != 4:
        fail(f"X must be [N, C, H, W], got shape {list(x.shape)}")
    if not anchors or len(anchors) % 2:
        fail(f"anchors must be (width, height) pairs, got {list(anchors)}")
    want = _yolo_channels(anchors, class_num, iou_aware)
    if x.shape[1] >= 0 and x.shape[1] != want:
        fail(f"X must have {want} channels for {len(anchors) // 2} anchors and {class_num} "
             f"classes{' (iou_aware)' if iou_aware else ''}, got {x.shape[1]}")
    if img_size.dtype.kind not in "iu" or len(img_size.shape) != 2:
        fail(f"ImgSize must be an integer [N, 2] (height, width), got "
             f"{img_size.dtype}{list(img_size.shape)}")
    n, _, h, w = x.shape
    boxes = -1 if h < 0 or w < 0 else len(anchors) // 2 * h * w
    return x.with_shape((n, boxes, 4)), x.with_shape((n, boxes, class_num))


def _yolo_box(ctx, x, img_size, *, anchors, class_num, conf_thresh, downsample_ratio,
              clip_bbox, scale_x_y, iou_aware, iou_aware_factor):
    xp = ctx.xp
    n, _, h, w = x.shape
    an = len(anchors) // 2
    if iou_aware:                       # the first `an` channels predict each box's IoU
        iou, x = _sigmoid(xp, x[:, :an]), x[:, an:]
    x = x.reshape(n, an, 5 + class_num, h, w)
    sig = _sigmoid(xp, x)
    conf = sig[:, :, 4]
    if iou_aware:
        conf = conf ** (1 - iou_aware_factor) * iou ** iou_aware_factor
    img_h = img_size[:, 0].astype(x.dtype).reshape(n, 1, 1, 1)
    img_w = img_size[:, 1].astype(x.dtype).reshape(n, 1, 1, 1)
    bias = -0.5 * (scale_x_y - 1.0)
    cols = xp.arange(w, dtype=x.dtype).reshape(1, 1, 1, w)
    rows = xp.arange(h, dtype=x.dtype).reshape(1, 1, h, 1)
    anchor = xp.asarray(anchors, dtype=x.dtype).reshape(an, 2)
    cx = (cols + sig[:, :, 0] * scale_x_y + bias) * img_w / w
    cy = (rows + sig[:, :, 1] * scale_x_y + bias) * img_h / h
    bw = xp.exp(x[:, :, 2]) * anchor[:, 0].reshape(1, an, 1, 1) * img_w / (downsample_ratio * w)
    bh = xp.exp(x[:, :, 3]) * anchor[:, 1].reshape(1, an, 1, 1) * img_h / (downsample_ratio * h)
    x1, y1, x2, y2 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
    if clip_bbox:
        x1, y1 = xp.maximum(x1, 0), xp.maximum(y1, 0)
        x2, y2 = xp.minimum(x2, img_w - 1), xp.minimum(y2, img_h - 1)
    keep = (conf >= conf_thresh).astype(x.dtype)
    boxes = xp.stack([x1, y1, x2, y2], axis=-1) * keep[..., None]
    scores = (conf * keep)[:, :, None] * sig[:, :, 5:]           # [n, an, classes, h, w]
    return (boxes.reshape(n, an * h * w, 4).astype(x.dtype, copy=False),
            scores.transpose(0, 1, 3, 4, 2).reshape(n, an * h * w, class_num)
            .astype(x.dtype, copy=False))


register(OpDef(
    "yolo_box", inputs=["X", "ImgSize"], outputs=["Boxes", "Scores"],
    attrs={"anchors": Attr("ints", []), "class_num": Attr("int", 1),
           "conf_thresh": Attr("float", 0.01), "downsample_ratio": Attr("int", 32),
           "clip_bbox": Attr("bool", True), "scale_x_y": Attr("float", 1.0),
           "iou_aware": Attr("bool", False), "iou_aware_factor": Attr("float", 0.5)},
    infer=_yolo_infer, kernel=_yolo_box,
    doc="YOLOv3 head map -> boxes (x1, y1, x2, y2 in image pixels) and per-class scores"))


# -- box_coder -------------------------------------------------------------------------------------
def _coder_infer(prior, prior_var, target, *, code_type, box_normalized, axis, variance):
    if len(prior.shape) != 2 or prior.shape[1] not in (4, -1):
        fail(f"PriorBox must be [M, 4], got shape {list(prior.shape)}")
    if variance and len(variance) != 4:
        fail(f"variance must hold 4 values, got {list(variance)}")
    if code_type == "encode_center_size":
        if len(target.shape) != 2:
            fail(f"TargetBox must be [N, 4] to encode, got shape {list(target.shape)}")
        return target.with_shape((target.shape[0], prior.shape[0], 4))
    if code_type != "decode_center_size":
        fail(f"code_type must be 'encode_center_size' or 'decode_center_size', got {code_type!r}")
    if len(target.shape) != 3:
        fail(f"TargetBox must be [N, M, 4] to decode, got shape {list(target.shape)}")
    return target


def _centers(xp, boxes, one):
    w = boxes[..., 2] - boxes[..., 0] + one
    h = boxes[..., 3] - boxes[..., 1] + one
    return boxes[..., 0] + w / 2, boxes[..., 1] + h / 2, w, h


def _box_coder(ctx, prior, prior_var, target, *, code_type, box_normalized, axis, variance):
    xp = ctx.xp
    one = 0.0 if box_normalized else 1.0
    if prior_var is not None:
        var = prior_var                                   # one variance row per prior
    else:
        var = xp.asarray(variance or [1.0] * 4, dtype=prior.dtype).reshape(1, 4)
    if code_type == "encode_center_size":
        pcx, pcy, pw, ph = (a[None, :] for a in _centers(xp, prior, one))
        tw = (target[:, 2] - target[:, 0] + one)[:, None]
        th = (target[:, 3] - target[:, 1] + one)[:, None]
        tcx = ((target[:, 0] + target[:, 2]) / 2)[:, None]
        tcy = ((target[:, 1] + target[:, 3]) / 2)[:, None]
        out = xp.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, xp.log(xp.abs(tw / pw)),
                        xp.log(xp.abs(th / ph))], axis=-1)
        return (out / var[None, :, :]).astype(target.dtype, copy=False)
    expand = (lambda a: a[None, :]) if axis == 0 else (lambda a: a[:, None])
    pcx, pcy, pw, ph = (expand(a) for a in _centers(xp, prior, one))
    v = var[None, :, :] if axis == 0 else var[:, None, :]
    cx = v[..., 0] * target[..., 0] * pw + pcx
    cy = v[..., 1] * target[..., 1] * ph + pcy
    w = xp.exp(v[..., 2] * target[..., 2]) * pw
    h = xp.exp(v[..., 3] * target[..., 3]) * ph
    out = xp.stack([cx - w / 2, cy - h / 2, cx + w / 2 - one, cy + h / 2 - one], axis=-1)
    return out.astype(target.dtype, copy=False)


register(OpDef(
    "box_coder", inputs=["PriorBox", Slot("PriorBoxVar", dispensable=True), "TargetBox"],
    outputs=["OutputBox"],
    attrs={"code_type": Attr("str", "encode_center_size"), "box_normalized": Attr("bool", True),
           "axis": Attr("int", 0, lambda a: None if a in (0, 1) else "must be 0 or 1"),
           "variance": Attr("floats", [])},
    infer=_coder_infer, kernel=_box_coder,
    doc="encode boxes as center-size offsets from prior boxes, or decode them back"))


# -- prior_box -------------------------------------------------------------------------------------
def expand_aspect_ratios(aspect_ratios, flip):
    """1.0, then each new ratio (and its inverse when ``flip``), duplicates left out."""
    ratios = [1.0]
    for ar in aspect_ratios:
        if any(abs(ar - r) < 1e-6 for r in ratios):
            continue
        ratios.append(ar)
        if flip:
            ratios.append(1.0 / ar)
    return ratios


def prior_sizes(min_sizes, max_sizes, aspect_ratios, flip, min_max_aspect_ratios_order):
    """The (width, height) of each prior box of one cell, in PaddlePaddle's order."""
    ratios = expand_aspect_ratios(aspect_ratios, flip)
    sizes = []
    for k, low in enumerate(min_sizes):
        by_ratio = [(low * math.sqrt(r), low / math.sqrt(r)) for r in ratios]
        big = [(math.sqrt(low * max_sizes[k]),) * 2] if max_sizes else []
        if min_max_aspect_ratios_order:      # the square first, then the max size, then ratios
            rest = [s for r, s in zip(ratios, by_ratio) if abs(r - 1.0) >= 1e-6]
            sizes += [(low, low)] + big + rest
        else:
            sizes += by_ratio + big
    return sizes


def _prior_infer(input, image, *, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
                 step_w, step_h, offset, min_max_aspect_ratios_order):
    if len(input.shape) != 4 or len(image.shape) != 4:
        fail(f"Input and Image must be NCHW, got shapes {list(input.shape)} and "
             f"{list(image.shape)}")
    if not min_sizes:
        fail("min_sizes must hold at least one size")
    if max_sizes and len(max_sizes) != len(min_sizes):
        fail(f"max_sizes must be as many as min_sizes ({len(min_sizes)}), got {len(max_sizes)}")
    if len(variances) != 4:
        fail(f"variances must hold 4 values, got {list(variances)}")
    count = len(prior_sizes(min_sizes, max_sizes, aspect_ratios, flip,
                            min_max_aspect_ratios_order))
    shape = (input.shape[2], input.shape[3], count, 4)
    return input.with_shape(shape), input.with_shape(shape)


def _prior_box(ctx, input, image, *, min_sizes, max_sizes, aspect_ratios, variances, flip,
               clip, step_w, step_h, offset, min_max_aspect_ratios_order):
    xp = ctx.xp
    h, w = input.shape[2:]
    img_h, img_w = image.shape[2:]
    sw = step_w or img_w / w
    sh = step_h or img_h / h
    sizes = numpy.asarray(prior_sizes(min_sizes, max_sizes, aspect_ratios, flip,
                                      min_max_aspect_ratios_order)) / 2
    half = ctx.to_device(sizes.astype(input.dtype))                       # [P, 2]
    cx = ((xp.arange(w, dtype=input.dtype) + offset) * sw).reshape(1, w, 1)
    cy = ((xp.arange(h, dtype=input.dtype) + offset) * sh).reshape(h, 1, 1)
    cx, cy = xp.broadcast_to(cx, (h, w, 1)), xp.broadcast_to(cy, (h, w, 1))
    boxes = xp.stack([(cx - half[:, 0]) / img_w, (cy - half[:, 1]) / img_h,
                      (cx + half[:, 0]) / img_w, (cy + half[:, 1]) / img_h], axis=-1)
    if clip:
        boxes = xp.clip(boxes, 0.0, 1.0)
    var = xp.broadcast_to(xp.asarray(variances, dtype=input.dtype), boxes.shape)
    return boxes.astype(input.dtype, copy=False), xp.array(var)


register(OpDef(
    "prior_box", inputs=["Input", "Image"], outputs=["Boxes", "Variances"],
    attrs={"min_sizes": Attr("floats", []), "max_sizes": Attr("floats", []),
           "aspect_ratios": Attr("floats", []),
           "variances": Attr("floats", [0.1, 0.1, 0.2, 0.2]),
           "flip": Attr("bool", True), "clip": Attr("bool", True),
           "step_w": Attr("float", 0.0), "step_h": Attr("float", 0.0),
           "offset": Attr("float", 0.5), "min_max_aspect_ratios_order": Attr("bool", False)},
    infer=_prior_infer, kernel=_prior_box,
    doc="SSD prior boxes [H, W, priors, 4] over a feature map, normalized by the image"))
