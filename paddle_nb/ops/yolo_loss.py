"""yolov3_loss: the training loss of one YOLOv3 head.

X [N, mask_num * (5 + class_num), H, W] holds, per anchor of ``anchor_mask`` and cell, the
box offsets (tx, ty, tw, th), the objectness logit and the class logits. Ground truth:
GTBox [N, B, 4] (center x, y, width, height, relative to the image; a box with width or
height <= 0 is padding), GTLabel [N, B], GTScore [N, B] (ones when absent). Each image's loss
(Loss [N]) adds, for every ground-truth box whose best-fitting anchor (by shape IoU, over
all ``anchors``) is in ``anchor_mask``, at the cell holding its center: sigmoid cross
entropy of tx, ty against the center's place in the cell and L1 of tw, th against the log
size ratio, both weighted by ``(2 - w * h) * score``; sigmoid cross entropy of each class
logit against 1 - s / 0 + s (s the label smoothing, min(1 / class_num, 1 / 40)) times the
score; then objectness: against the score where a box was matched (ObjectnessMask holds it),
against 0 elsewhere, except cells whose predicted box overlaps some ground truth by more than
``ignore_thresh`` (mask -1, no loss). GTMatchMask [N, B] is each box's anchor (-1 for none).
The gradient (X only) is each term's slope: sigmoid(x) - target for the cross entropies,
sign(x - target) for L1. Where two ground-truth boxes fall on the same cell and anchor, the
loss counts both, but 2.6.2's gradient holds only the later box's terms (it writes each
slope rather than adding them); paddle_nb's does the same.
"""

import math

import numpy

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

ATTRS = {"anchors": Attr("ints", []), "anchor_mask": Attr("ints", []),
         "class_num": Attr("int", 1), "ignore_thresh": Attr("float", 0.7),
         "downsample_ratio": Attr("int", 32), "use_label_smooth": Attr("bool", True),
         "scale_x_y": Attr("float", 1.0)}


def _infer(x, gt_box, gt_label, gt_score, *, anchor_mask, class_num, **_):
    if len(x.shape) != 4 or x.shape[1] not in (-1, len(anchor_mask) * (5 + class_num)):
        fail(f"X must be [N, len(anchor_mask) * (5 + class_num)] = [N, "
             f"{len(anchor_mask) * (5 + class_num)}, H, W], got shape {list(x.shape)}")
    if len(gt_box.shape) != 3 or gt_box.shape[2] != 4:
        fail(f"GTBox must be [N, B, 4], got shape {list(gt_box.shape)}")
    if list(gt_label.shape) != list(gt_box.shape[:2]):
        fail(f"GTLabel must be [N, B] = {list(gt_box.shape[:2])}, got {list(gt_label.shape)}")
    n, h, w = x.shape[0], x.shape[2], x.shape[3]
    return (x.with_shape((n,)), x.with_shape((n, len(anchor_mask), h, w)),
            gt_label.with_shape(tuple(gt_box.shape[:2])).with_dtype("int32"))


def _sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def _sce(v, target):
    return max(v, 0.0) - v * target + math.log1p(math.exp(-abs(v)))


def _iou(a, b):
    """IoU of boxes given as (center x, center y, w, h)."""
    iw = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    ih = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    inter = max(iw, 0.0) * max(ih, 0.0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


class _Terms:
    """Each loss term of one image as (channel, row, col, target, weight, kind), kind
    "sce" or "l1", and the objectness mask; loss and gradient both read them."""

    def __init__(self, x, boxes, labels, scores, attrs):
        self.x, self.attrs = x, attrs
        self.mask_num = len(attrs["anchor_mask"])
        self.h, self.w = x.shape[1], x.shape[2]
        self.size = attrs["downsample_ratio"] * self.h
        self.obj = numpy.zeros((self.mask_num, self.h, self.w))
        self.match = numpy.full(len(boxes), -1, numpy.int32)
        self.terms = []
        valid = [t for t, b in enumerate(boxes) if b[2] > 0 and b[3] > 0]
        self._ignore(boxes[valid])
        for t in valid:
            self._match(t, boxes[t], int(labels[t]), float(scores[t]))
        self._objectness()

    def _channel(self, j, c):
        return j * (5 + self.attrs["class_num"]) + c

    def _ignore(self, gts):
        anchors, scale = self.attrs["anchors"], self.attrs["scale_x_y"]
        bias = -0.5 * (scale - 1.0)
        for j, a in enumerate(self.attrs["anchor_mask"]):
            for k in range(self.h):
                for i in range(self.w):
                    px = (i + _sigmoid(self.x[self._channel(j, 0), k, i]) * scale + bias) / self.w
                    py = (k + _sigmoid(self.x[self._channel(j, 1), k, i]) * scale + bias) / self.h
                    pw = math.exp(self.x[self._channel(j, 2), k, i]) * anchors[2 * a] / self.size
                    ph = math.exp(self.x[self._channel(j, 3), k, i]) * anchors[2 * a + 1] \
                        / self.size
                    best = max((_iou((px, py, pw, ph), g) for g in gts), default=0.0)
                    if best > self.attrs["ignore_thresh"]:
                        self.obj[j, k, i] = -1.0

    def _match(self, t, box, label, score):
        anchors, mask = self.attrs["anchors"], list(self.attrs["anchor_mask"])
        shapes = [(0.0, 0.0, anchors[2 * a] / self.size, anchors[2 * a + 1] / self.size)
                  for a in range(len(anchors) // 2)]
        ious = [_iou(s, (0.0, 0.0, box[2], box[3])) for s in shapes]
        best = max(range(len(ious)), key=lambda a: (ious[a], -a))
        if best not in mask:
            return
        j = mask.index(best)
        self.match[t] = j
        gi, gj = int(box[0] * self.w), int(box[1] * self.h)
        weight = (2.0 - box[2] * box[3]) * score
        targets = [(0, box[0] * self.w - gi, "sce"), (1, box[1] * self.h - gj, "sce"),
                   (2, math.log(box[2] * self.size / anchors[2 * best]), "l1"),
                   (3, math.log(box[3] * self.size / anchors[2 * best + 1]), "l1")]
        for c, target, kind in targets:
            self.terms.append((self._channel(j, c), gj, gi, target, weight, kind))
        self.obj[j, gj, gi] = score
        pos, neg = 1.0, 0.0
        if self.attrs["use_label_smooth"]:
            smooth = min(1.0 / self.attrs["class_num"], 1.0 / 40)
            pos, neg = 1.0 - smooth, smooth
        for c in range(self.attrs["class_num"]):
            self.terms.append((self._channel(j, 5 + c), gj, gi, pos if c == label else neg,
                               score, "sce"))

    def _objectness(self):
        for j in range(self.mask_num):
            for k in range(self.h):
                for col in range(self.w):
                    o = self.obj[j, k, col]
                    if o > 1e-5:
                        self.terms.append((self._channel(j, 4), k, col, 1.0, o, "sce"))
                    elif o > -0.5:
                        self.terms.append((self._channel(j, 4), k, col, 0.0, 1.0, "sce"))

    def loss(self):
        total = 0.0
        for c, k, col, target, weight, kind in self.terms:
            v = float(self.x[c, k, col])
            total += weight * (_sce(v, target) if kind == "sce" else abs(v - target))
        return total

    def grad(self, scale):
        dx = numpy.zeros(self.x.shape)
        for c, k, col, target, weight, kind in self.terms:
            v = float(self.x[c, k, col])
            slope = _sigmoid(v) - target if kind == "sce" else (1.0 if v > target else -1.0)
            dx[c, k, col] = scale * weight * slope      # 2.6 writes, not adds (see above)
        return dx


def _images(x, gt_box, gt_label, gt_score, attrs):
    host = [numpy.asarray(a.get() if hasattr(a, "get") else a) for a in (x, gt_box, gt_label)]
    scores = (numpy.ones(gt_label.shape) if gt_score is None
              else numpy.asarray(gt_score.get() if hasattr(gt_score, "get") else gt_score))
    return [_Terms(host[0][i].astype(numpy.float64), host[1][i].astype(numpy.float64),
                   host[2][i], scores[i], attrs) for i in range(x.shape[0])]


def _kernel(ctx, x, gt_box, gt_label, gt_score, **attrs):
    images = _images(x, gt_box, gt_label, gt_score, attrs)
    loss = numpy.array([im.loss() for im in images], dtype=x.dtype)
    obj = numpy.stack([im.obj for im in images]).astype(x.dtype)
    match = numpy.stack([im.match for im in images])
    return ctx.to_device(loss), ctx.to_device(obj), ctx.to_device(match)


def _grad_kernel(ctx, x, gt_box, gt_label, gt_score, dloss, obj_mask, match, **attrs):
    images = _images(x, gt_box, gt_label, gt_score, attrs)
    scale = numpy.asarray(dloss.get() if hasattr(dloss, "get") else dloss)
    dx = numpy.stack([im.grad(float(scale[i])) for i, im in enumerate(images)])
    return ctx.to_device(dx.astype(x.dtype))


def _grad_maker(g):
    ins = {s: g.input(s) for s in ("X", "GTBox", "GTLabel", "GTScore") if g.inputs.get(s)}
    ins.update({"Loss@GRAD": g.output_grad("Loss"),
                "ObjectnessMask": g.output("ObjectnessMask"),
                "GTMatchMask": g.output("GTMatchMask")})
    return [OpSpec("yolov3_loss_grad", ins, {"X@GRAD": g.input_grad("X")}, dict(g.attrs))]


register(OpDef(
    "yolov3_loss", inputs=["X", "GTBox", "GTLabel", Slot("GTScore", dispensable=True)],
    outputs=["Loss", "ObjectnessMask", "GTMatchMask"], attrs=ATTRS, infer=_infer,
    kernel=_kernel, grad=_grad_maker,
    doc="YOLOv3's loss per image: box, class and objectness terms for the matched anchors"))
register(OpDef(
    "yolov3_loss_grad", inputs=["X", "GTBox", "GTLabel", Slot("GTScore", dispensable=True),
                                "Loss@GRAD", "ObjectnessMask", "GTMatchMask"],
    outputs=["X@GRAD"], attrs=ATTRS,
    infer=lambda x, *rest, **a: x, kernel=_grad_kernel,
    doc="the gradient of yolov3_loss with respect to X"))
