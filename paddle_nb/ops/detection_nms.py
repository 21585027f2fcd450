"""Non-maximum suppression: multiclass_nms3 and matrix_nms (forward only).

Both take BBoxes [N, M, 4] (x1, y1, x2, y2) and Scores [N, C, M] and return, for the whole
batch, one row per kept box, ``[label, score, x1, y1, x2, y2]`` (Out [K, 6]), the kept box's
index in the batch (``n * M + m``, Index [K, 1]) and how many rows each image has ([N]).

``multiclass_nms3`` (PaddleDetection's PicoDet and PP-YOLOE models end with it) keeps, per
class, the boxes above ``score_threshold`` in score order (at most ``nms_top_k``), dropping a
box that overlaps a kept one by more than ``nms_threshold`` (IoU; the threshold shrinks by
``nms_eta`` after each kept box while above 0.5); then at most ``keep_top_k`` per image by
score. Rows are by class, each class by score. ``matrix_nms`` (SOLOv2) drops nothing at
first: each box's score decays by how much it overlaps a higher-scoring box (linearly, or by
a Gaussian), and the boxes whose decayed score passes ``post_threshold`` are kept, in score
order, at most ``keep_top_k``. The loops run on the host: a handful of boxes per image.
"""

import numpy

from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, fail, register

__all__ = ["iou"]

_INT32 = numpy.dtype("int32")


def iou(a, b, normalized):
    """Intersection over union of boxes ``a`` and ``b`` (x1, y1, x2, y2); an unnormalized
    box counts its last pixel (+1 on each side length)."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    one = 0.0 if normalized else 1.0
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + one) * (min(a[3], b[3]) - max(a[1], b[1]) + one)
    return inter / (_area(a, one) + _area(b, one) - inter)


def _area(box, one):
    if box[2] < box[0] or box[3] < box[1]:
        return 0.0
    return (box[2] - box[0] + one) * (box[3] - box[1] + one)


def _candidates(scores, threshold, top_k):
    """Indices of the scores above ``threshold``, highest first (ties in index order)."""
    picked = sorted((i for i, s in enumerate(scores) if s > threshold), key=lambda i: -scores[i])
    return picked[:top_k] if top_k > -1 else picked


def _nms_infer(bboxes, scores, rois_num=None, **attrs):
    if rois_num is not None:
        fail("RoisNum (boxes [M, C, 4] with scores [M, C] per ROI) is not available in "
             "paddle_nb: pass BBoxes [N, M, 4] and Scores [N, C, M]")
    if len(bboxes.shape) != 3 or bboxes.shape[2] not in (4, -1):
        fail(f"BBoxes must be [N, M, 4] (the [M, C, 4] form with RoisNum is not available), "
             f"got shape {list(bboxes.shape)}")
    if len(scores.shape) != 3:
        fail(f"Scores must be [N, C, M], got shape {list(scores.shape)}")
    if min(bboxes.shape[0], scores.shape[0]) >= 0 and bboxes.shape[0] != scores.shape[0]:
        fail(f"BBoxes has {bboxes.shape[0]} images and Scores {scores.shape[0]}")
    if min(bboxes.shape[1], scores.shape[2]) >= 0 and bboxes.shape[1] != scores.shape[2]:
        fail(f"BBoxes has {bboxes.shape[1]} boxes per image, Scores scores {scores.shape[2]}")
    return bboxes.with_shape((-1, 6)), Meta((-1, 1), _INT32), Meta((-1,), _INT32)


def _outputs(ctx, rows, index, counts, dtype):
    out = numpy.asarray(rows, dtype=dtype).reshape(-1, 6)
    idx = numpy.asarray(index, dtype=_INT32).reshape(-1, 1)
    return (ctx.to_device(out), ctx.to_device(idx),
            ctx.to_device(numpy.asarray(counts, dtype=_INT32)))


# -- multiclass_nms3 -------------------------------------------------------------------------------
def _iou_matrix(boxes, normalized):
    """IoU of every pair of ``boxes`` [K, 4] (float64), exactly as :func:`iou` computes each:
    the same float64 operations in the same order, 0 for boxes apart."""
    one = 0.0 if normalized else 1.0
    x1, y1, x2, y2 = (boxes[:, k] for k in range(4))
    area = numpy.where((x2 < x1) | (y2 < y1), 0.0, (x2 - x1 + one) * (y2 - y1 + one))
    iw = numpy.minimum(x2[:, None], x2) - numpy.maximum(x1[:, None], x1) + one
    ih = numpy.minimum(y2[:, None], y2) - numpy.maximum(y1[:, None], y1) + one
    inter = iw * ih
    apart = ((x1 > x2[:, None]) | (x2 < x1[:, None]) | (y1 > y2[:, None]) | (y2 < y1[:, None]))
    with numpy.errstate(divide="ignore", invalid="ignore"):
        out = inter / (area[:, None] + area - inter)
    return numpy.where(apart, 0.0, out)


def _picked(scores, attrs):
    """Indices of one class's candidates, best score first (ties in index order)."""
    picked = numpy.flatnonzero(scores > attrs["score_threshold"])
    picked = picked[numpy.argsort(-scores[picked], kind="stable")]
    return picked[:attrs["nms_top_k"]] if attrs["nms_top_k"] > -1 else picked


def _shrinking_nms(overlap, picked, attrs):
    """A class's kept candidates when the threshold shrinks by ``nms_eta`` after each kept
    box: each candidate tested against every kept box, in order, as PaddlePaddle writes it."""
    kept: list[int] = []
    threshold = attrs["nms_threshold"]
    for j in range(len(picked)):
        if all(overlap[j, k] <= threshold for k in kept):
            kept.append(j)
            if threshold > 0.5:
                threshold *= attrs["nms_eta"]
    return picked[kept].tolist()


def _greedy_nms(over, valid):
    """Fixed-threshold NMS of many classes at once. ``over`` [C, K, K]: whether the j-th and
    k-th candidates of each class overlap by more than the threshold; ``valid`` [C, K]: which
    candidates exist. Step j settles every class's j-th candidate: alive, it suppresses the
    later ones it overlaps."""
    alive = valid.copy()
    for j in range(alive.shape[1] - 1):
        alive[:, j + 1:] &= ~(over[:, j, j + 1:] & alive[:, j:j + 1])
    return alive


MAX_UNION = 2048          # candidates of an image whose IoU matrix is worth computing at once


def _ranked(scores, attrs):
    """(order, valid) [C, K]: each class's box indices best first (ties in index order) and
    which of them are candidates (a prefix of each row); K is the most candidates a class has.
    One sort over every class when most boxes are candidates, else one sort per class of its
    candidates only (a few of many thousand boxes above the threshold)."""
    mask = scores > attrs["score_threshold"]
    top_k = attrs["nms_top_k"]
    if 2 * int(mask.sum()) >= mask.size:
        order = numpy.argsort(-scores, axis=1, kind="stable")
        valid = numpy.take_along_axis(mask, order, 1)
    else:
        picks = [_picked(row, attrs) for row in scores]
        order = numpy.zeros((len(scores), max(map(len, picks), default=0)), int)
        valid = numpy.zeros(order.shape, bool)
        for r, p in enumerate(picks):
            order[r, :len(p)], valid[r, :len(p)] = p, True
    if top_k > -1:
        valid[:, top_k:] = False
    k = int(valid.sum(1).max(initial=0))
    return order[:, :k], valid[:, :k]


def _image_nms(boxes, scores, attrs, classes):
    """(labels, picked): the kept boxes of one image (``boxes`` [M, 4], ``scores`` [C, M],
    float64), class by class, each class best first. The classes share the boxes, so one IoU
    matrix over the union of their candidates serves them all, and the classes run side by
    side (:func:`_greedy_nms`)."""
    classes = numpy.asarray(classes, int).reshape(-1)
    order, valid = _ranked(scores[classes], attrs)
    union = numpy.unique(order[valid])
    shrinking = attrs["nms_eta"] < 1 and attrs["nms_threshold"] > 0.5
    if len(union) > MAX_UNION or shrinking:       # one matrix per class, or one box at a time
        kept = [_one_class(boxes, order[r][valid[r]], attrs) for r in range(len(classes))]
        return (numpy.repeat(classes, [len(k) for k in kept]),
                numpy.concatenate([numpy.asarray(k, int) for k in kept] + [numpy.zeros(0, int)]))
    over = _iou_matrix(boxes[union], attrs["normalized"]) > attrs["nms_threshold"]
    at = order if len(union) == len(boxes) else numpy.minimum(   # every box, or some
        numpy.searchsorted(union, order), max(len(union) - 1, 0))
    alive = _settle(over, at, valid)
    return numpy.repeat(classes, alive.sum(1)), order[alive]


def _settle(over, at, valid):
    """Which candidates each class keeps, the classes side by side: ``over`` [U, U] says which
    boxes of the union overlap by more than the threshold, ``at`` [C, K] the union position of
    each class's candidates, best first. Step j settles every class's j-th candidate: not yet
    suppressed, it is kept and suppresses the boxes it overlaps (the earlier ones are settled
    already, so only the later ones' fate changes)."""
    free = numpy.ones((len(at), len(over)), bool)      # [C, U]: not suppressed so far
    kept = numpy.zeros(at.shape, bool)
    classes = numpy.arange(len(at))
    for j in range(at.shape[1]):
        kept[:, j] = free[classes, at[:, j]] & valid[:, j]
        free &= ~(over[at[:, j]] & kept[:, j, None])
    return kept


def _one_class(boxes, picked, attrs):
    overlap = _iou_matrix(boxes[picked], attrs["normalized"])
    if attrs["nms_eta"] < 1 and attrs["nms_threshold"] > 0.5:
        return _shrinking_nms(overlap, picked, attrs)
    alive = _greedy_nms(overlap[None] > attrs["nms_threshold"],
                        numpy.ones((1, len(picked)), bool))
    return picked[alive[0]].tolist()


def _host64(ctx, array):
    """``array`` as a float64 NumPy array on the host (a device array is copied back)."""
    if ctx.xp is numpy:
        return array.astype(numpy.float64)
    return numpy.array(array.tolist(), numpy.float64).reshape(array.shape)


def _multiclass_nms3(ctx, bboxes, scores, rois_num, **attrs):
    boxes64, scores64 = _host64(ctx, bboxes), _host64(ctx, scores)
    rows, index, counts = [], [], []
    m = bboxes.shape[1]
    classes = [c for c in range(scores.shape[1]) if c != attrs["background_label"]]
    for n in range(bboxes.shape[0]):
        labels, picked = _image_nms(boxes64[n], scores64[n], attrs, classes)
        score = scores64[n, labels, picked]
        if -1 < attrs["keep_top_k"] < len(picked):    # the best overall, rows still by class
            best = numpy.argsort(-score, kind="stable")[:attrs["keep_top_k"]]
            chosen = numpy.zeros(len(picked), bool)
            chosen[best] = True
            labels, picked, score = labels[chosen], picked[chosen], score[chosen]
        rows.append(numpy.column_stack([labels, score, boxes64[n, picked]]))
        index.append(n * m + picked)
        counts.append(len(picked))
    return _outputs(ctx, numpy.concatenate(rows) if rows else [], numpy.concatenate(index)
                    if index else [], counts, bboxes.dtype)


NMS_ATTRS = {"background_label": Attr("int", 0), "score_threshold": Attr("float", 0.0),
             "nms_top_k": Attr("int", -1), "keep_top_k": Attr("int", -1),
             "normalized": Attr("bool", True)}
register(OpDef(
    "multiclass_nms3", inputs=["BBoxes", "Scores", Slot("RoisNum", dispensable=True)],
    outputs=["Out", "Index", "NmsRoisNum"],
    attrs={**NMS_ATTRS, "nms_threshold": Attr("float", 0.3), "nms_eta": Attr("float", 1.0)},
    infer=_nms_infer, kernel=_multiclass_nms3,
    doc="per-class NMS over [N, M, 4] boxes and [N, C, M] scores -> [label, score, box] rows"))


# -- matrix_nms ------------------------------------------------------------------------------------
def _decayed(boxes, scores, attrs):
    """(index, decayed score) of one class's boxes that pass ``post_threshold``."""
    order = _candidates(scores, attrs["score_threshold"], attrs["nms_top_k"])
    overlaps = [[iou(boxes[i], boxes[j], attrs["normalized"]) for j in order[:k]]
                for k, i in enumerate(order)]
    most = [max(row, default=0.0) for row in overlaps]   # each box's worst overlap above it
    kept = []
    for k, i in enumerate(order):
        decay = 1.0
        for j, overlap in enumerate(overlaps[k]):
            if attrs["use_gaussian"]:
                d = numpy.exp((most[j] ** 2 - overlap ** 2) * attrs["gaussian_sigma"])
            else:
                d = (1.0 - overlap) / (1.0 - most[j])
            decay = min(decay, d)
        score = decay * scores[i]
        if score > attrs["post_threshold"]:
            kept.append((i, float(score)))
    return kept


def _matrix_nms(ctx, bboxes, scores, **attrs):
    all_boxes, all_scores = bboxes.tolist(), scores.tolist()
    rows, index, counts = [], [], []
    m = bboxes.shape[1]
    for n, (boxes, image_scores) in enumerate(zip(all_boxes, all_scores)):
        found = [(score, c, i) for c, s in enumerate(image_scores)
                 if c != attrs["background_label"] for i, score in _decayed(boxes, s, attrs)]
        found.sort(key=lambda t: -t[0])
        if attrs["keep_top_k"] > -1:
            found = found[:attrs["keep_top_k"]]
        for score, c, i in found:
            rows.append([c, score, *boxes[i]])
            index.append(n * m + i)
        counts.append(len(found))
    return _outputs(ctx, rows, index, counts, bboxes.dtype)


register(OpDef(
    "matrix_nms", inputs=["BBoxes", "Scores"], outputs=["Out", "Index", "RoisNum"],
    attrs={**NMS_ATTRS, "post_threshold": Attr("float", 0.0),
           "use_gaussian": Attr("bool", False), "gaussian_sigma": Attr("float", 2.0)},
    infer=_nms_infer, kernel=_matrix_nms,
    doc="matrix NMS (scores decayed by overlap) -> [label, score, box] rows, by score"))
