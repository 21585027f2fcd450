"""Contract cases for the detection post-processing ops (paddle_nb/ops/detection_*.py).

Forward only (no gradients). The references loop element by element: yolo_box per cell and
anchor, box_coder per box pair, prior_box per cell and prior, roi_align per sample point
(without the kernel's separable matrices), and the two NMS with NumPy IoU matrices.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(31)
F = np.float32


def sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def boxes(*lead, size=10.0):
    xy = rng.uniform(0, size * 0.7, lead + (2,))
    wh = rng.uniform(size * 0.1, size * 0.3, lead + (2,))
    return np.concatenate([xy, xy + wh], axis=-1).astype(F)


# -- yolo_box -------------------------------------------------------------------------------------
def yolo_ref(ins, attrs):
    x, img = ins["X"].astype(np.float64), ins["ImgSize"]
    anchors, classes = attrs["anchors"], attrs["class_num"]
    an, (n, _, h, w) = len(anchors) // 2, x.shape
    scale = attrs.get("scale_x_y", 1.0)
    out_b, out_s = np.zeros((n, an * h * w, 4)), np.zeros((n, an * h * w, classes))
    for b in range(n):
        ih, iw = img[b]
        for a in range(an):
            base = a * (5 + classes)
            for i in range(h):
                for j in range(w):
                    conf = sig(x[b, base + 4, i, j])
                    if conf < attrs["conf_thresh"]:
                        continue
                    cx = (j + sig(x[b, base, i, j]) * scale - 0.5 * (scale - 1)) * iw / w
                    cy = (i + sig(x[b, base + 1, i, j]) * scale - 0.5 * (scale - 1)) * ih / h
                    bw = math.exp(x[b, base + 2, i, j]) * anchors[2 * a] * iw / (
                        attrs["downsample_ratio"] * w)
                    bh = math.exp(x[b, base + 3, i, j]) * anchors[2 * a + 1] * ih / (
                        attrs["downsample_ratio"] * h)
                    k = a * h * w + i * w + j
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if attrs.get("clip_bbox", True):
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1),
                               min(box[3], ih - 1)]
                    out_b[b, k] = box
                    out_s[b, k] = [conf * sig(x[b, base + 5 + c, i, j]) for c in range(classes)]
    return {"Boxes": out_b, "Scores": out_s}


YOLO = {"anchors": [10, 13, 16, 30], "class_num": 2, "conf_thresh": 0.3, "downsample_ratio": 8}


# -- box_coder ------------------------------------------------------------------------------------
def coder_ref(ins, attrs):
    prior, target = ins["PriorBox"].astype(np.float64), ins["TargetBox"].astype(np.float64)
    var = ins.get("PriorBoxVar")
    one = 0.0 if attrs.get("box_normalized", True) else 1.0

    def v(j):
        if var is not None:
            return var[j]
        return attrs.get("variance") or [1.0] * 4

    def geometry(b):
        w, h = b[2] - b[0] + one, b[3] - b[1] + one
        return b[0] + w / 2, b[1] + h / 2, w, h

    if attrs["code_type"] == "encode_center_size":
        out = np.zeros((len(target), len(prior), 4))
        for i, t in enumerate(target):
            for j, p in enumerate(prior):
                pcx, pcy, pw, ph = geometry(p)
                tw, th = t[2] - t[0] + one, t[3] - t[1] + one
                raw = [((t[0] + t[2]) / 2 - pcx) / pw, ((t[1] + t[3]) / 2 - pcy) / ph,
                       math.log(abs(tw / pw)), math.log(abs(th / ph))]
                out[i, j] = np.array(raw) / np.array(v(j))
        return {"OutputBox": out}
    out = np.zeros(target.shape)
    for i in range(target.shape[0]):
        for j in range(target.shape[1]):
            k = j if attrs.get("axis", 0) == 0 else i
            pcx, pcy, pw, ph = geometry(prior[k])
            t, var_k = target[i, j], v(k)
            cx, cy = var_k[0] * t[0] * pw + pcx, var_k[1] * t[1] * ph + pcy
            w, h = math.exp(var_k[2] * t[2]) * pw, math.exp(var_k[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - one, cy + h / 2 - one]
    return {"OutputBox": out}


# -- prior_box ------------------------------------------------------------------------------------
def prior_ref(ins, attrs):
    _, _, h, w = ins["Input"].shape
    _, _, ih, iw = ins["Image"].shape
    ratios = [1.0]
    for r in attrs.get("aspect_ratios", []):
        if all(abs(r - q) >= 1e-6 for q in ratios):
            ratios += [r, 1 / r] if attrs.get("flip", True) else [r]
    sizes = []
    maxes = attrs.get("max_sizes", [])
    for k, low in enumerate(attrs["min_sizes"]):
        for r in ratios:
            sizes.append((low * math.sqrt(r), low / math.sqrt(r)))
        if maxes:
            sizes.append((math.sqrt(low * maxes[k]),) * 2)
    sw, sh = attrs.get("step_w") or iw / w, attrs.get("step_h") or ih / h
    off = attrs.get("offset", 0.5)
    out = np.zeros((h, w, len(sizes), 4))
    for i in range(h):
        for j in range(w):
            for p, (bw, bh) in enumerate(sizes):
                cx, cy = (j + off) * sw, (i + off) * sh
                box = [(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw,
                       (cy + bh / 2) / ih]
                out[i, j, p] = np.clip(box, 0, 1) if attrs.get("clip", True) else box
    var = np.broadcast_to(np.array(attrs.get("variances", [0.1, 0.1, 0.2, 0.2])), out.shape)
    return {"Boxes": out, "Variances": var}


# -- roi_align ------------------------------------------------------------------------------------
def bilinear(img, y, x):
    h, w = img.shape[1:]
    if y < -1 or y > h or x < -1 or x > w:
        return np.zeros(img.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = min(int(y), h - 1), min(int(x), w - 1)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = (y - y0 if y0 < h - 1 else 0.0), (x - x0 if x0 < w - 1 else 0.0)
    return ((1 - ly) * (1 - lx) * img[:, y0, x0] + (1 - ly) * lx * img[:, y0, x1]
            + ly * (1 - lx) * img[:, y1, x0] + ly * lx * img[:, y1, x1])


def roi_ref(ins, attrs):
    x, rois, nums = ins["X"].astype(np.float64), ins["ROIs"], ins["RoisNum"]
    ph, pw, scale = attrs["pooled_height"], attrs["pooled_width"], attrs["spatial_scale"]
    off = 0.5 if attrs.get("aligned", False) else 0.0
    owner = np.repeat(np.arange(len(nums)), nums)
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    for r, (x1, y1, x2, y2) in enumerate(rois):
        sx, sy = x1 * scale - off, y1 * scale - off
        rw, rh = (x2 - x1) * scale, (y2 - y1) * scale
        if not attrs.get("aligned", False):
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        ratio = attrs.get("sampling_ratio", -1)
        gy = ratio if ratio > 0 else math.ceil(rh / ph)
        gx = ratio if ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(x.shape[1])
                for a in range(gy):
                    for b in range(gx):
                        acc += bilinear(x[owner[r]], sy + i * rh / ph + (a + 0.5) * rh / ph / gy,
                                        sx + j * rw / pw + (b + 0.5) * rw / pw / gx)
                out[r, :, i, j] = acc / (gy * gx)
    return {"Out": out}


# -- NMS ------------------------------------------------------------------------------------------
def iou_matrix(b, normalized):
    one = 0.0 if normalized else 1.0
    x1, y1 = np.maximum(b[:, None, 0], b[None, :, 0]), np.maximum(b[:, None, 1], b[None, :, 1])
    x2, y2 = np.minimum(b[:, None, 2], b[None, :, 2]), np.minimum(b[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1 + one, 0, None) * np.clip(y2 - y1 + one, 0, None)
    inter[(x2 < x1) | (y2 < y1)] = 0.0
    area = (b[:, 2] - b[:, 0] + one) * (b[:, 3] - b[:, 1] + one)
    return inter / (area[:, None] + area[None, :] - inter)


def nms3_ref(ins, attrs):
    bb, sc = ins["BBoxes"].astype(np.float64), ins["Scores"].astype(np.float64)
    rows, index, counts = [], [], []
    for n in range(bb.shape[0]):
        ious, found = iou_matrix(bb[n], attrs["normalized"]), []
        for c in range(sc.shape[1]):
            if c == attrs["background_label"]:
                continue
            order = np.argsort(-sc[n, c], kind="stable")
            order = [i for i in order if sc[n, c, i] > attrs["score_threshold"]]
            alive = np.ones(bb.shape[1], bool)
            for i in order[:attrs["nms_top_k"]] if attrs["nms_top_k"] > -1 else order:
                if alive[i]:
                    found.append((c, sc[n, c, i], i))
                    alive &= ious[i] <= attrs["nms_threshold"]
        if -1 < attrs["keep_top_k"] < len(found):
            cut = sorted(found, key=lambda t: -t[1])[attrs["keep_top_k"] - 1][1]
            found = [t for t in found if t[1] >= cut]
        for c, s, i in found:
            rows.append([c, s, *bb[n, i]])
            index.append(n * bb.shape[1] + i)
        counts.append(len(found))
    return {"Out": np.array(rows).reshape(-1, 6), "Index": np.array(index).reshape(-1, 1),
            "NmsRoisNum": np.array(counts)}


def matrix_ref(ins, attrs):
    bb, sc = ins["BBoxes"].astype(np.float64), ins["Scores"].astype(np.float64)
    rows, index, counts = [], [], []
    for n in range(bb.shape[0]):
        found = []
        for c in range(sc.shape[1]):
            if c == attrs["background_label"]:
                continue
            order = [i for i in np.argsort(-sc[n, c], kind="stable")
                     if sc[n, c, i] > attrs["score_threshold"]]
            ious = np.triu(iou_matrix(bb[n][order], attrs["normalized"]), 1)
            worst = ious.max(axis=0)                     # each box's overlap with one above it
            linear = (1 - ious) / (1 - worst[:, None])
            decay = np.where(np.triu(np.ones_like(ious), 1) > 0, linear, 1.0).min(axis=0)
            for k, i in enumerate(order):
                if decay[k] * sc[n, c, i] > attrs["post_threshold"]:
                    found.append((decay[k] * sc[n, c, i], c, i))
        found.sort(key=lambda t: -t[0])
        for s, c, i in found:
            rows.append([c, s, *bb[n, i]])
            index.append(n * bb.shape[1] + i)
        counts.append(len(found))
    return {"Out": np.array(rows).reshape(-1, 6), "Index": np.array(index).reshape(-1, 1),
            "RoisNum": np.array(counts)}


NMS3 = {"background_label": 0, "score_threshold": 0.05, "nms_top_k": -1, "nms_threshold": 0.4,
        "nms_eta": 1.0, "keep_top_k": -1, "normalized": False}
MATRIX = {"background_label": -1, "score_threshold": 0.1, "post_threshold": 0.2,
          "nms_top_k": -1, "keep_top_k": -1, "normalized": True}

CASES = {
    "yolo_box": [Case({"X": rng.standard_normal((2, 14, 2, 3)).astype(F),
                       "ImgSize": np.array([[40, 50], [24, 32]], np.int32)}, YOLO, yolo_ref),
                 Case({"X": rng.standard_normal((1, 7, 2, 2)).astype(F),
                       "ImgSize": np.array([[20, 30]], np.int32)},
                      {"anchors": [6, 9], "class_num": 2, "conf_thresh": 0.0,
                       "downsample_ratio": 16, "clip_bbox": False, "scale_x_y": 1.1}, yolo_ref)],
    "box_coder": [
        Case({"PriorBox": boxes(4), "PriorBoxVar": rng.uniform(0.1, 0.3, (4, 4)).astype(F),
              "TargetBox": boxes(3)}, {"code_type": "encode_center_size"}, coder_ref),
        Case({"PriorBox": boxes(4), "TargetBox": rng.standard_normal((2, 4, 4)).astype(F)},
             {"code_type": "decode_center_size", "box_normalized": False,
              "variance": [0.1, 0.1, 0.2, 0.2]}, coder_ref),
        Case({"PriorBox": boxes(2), "TargetBox": rng.standard_normal((2, 3, 4)).astype(F)},
             {"code_type": "decode_center_size", "axis": 1}, coder_ref)],
    "prior_box": [Case({"Input": np.zeros((1, 2, 2, 3), F), "Image": np.zeros((1, 3, 16, 24), F)},
                       {"min_sizes": [4.0, 6.0], "max_sizes": [8.0, 9.0],
                        "aspect_ratios": [2.0, 2.0]}, prior_ref),
                  Case({"Input": np.zeros((1, 2, 3, 2), F), "Image": np.zeros((1, 3, 9, 8), F)},
                       {"min_sizes": [3.0], "aspect_ratios": [3.0], "flip": False,
                        "clip": False, "step_w": 5.0, "offset": 0.2}, prior_ref)],
    "roi_align": [Case({"X": rng.standard_normal((2, 2, 5, 6)).astype(F),
                        "ROIs": np.array([[0, 0, 4, 4], [1, 2, 7, 9], [2.5, 1, 4, 3.5]], F),
                        "RoisNum": np.array([1, 2], np.int32)},
                       {"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.6,
                        "sampling_ratio": -1, "aligned": aligned}, roi_ref)
                  for aligned in (False, True)],
    "multiclass_nms3": [Case({"BBoxes": boxes(2, 7), "Scores": rng.uniform(0, 1, (2, 3, 7))
                              .astype(F)}, NMS3, nms3_ref),
                        Case({"BBoxes": boxes(1, 6, size=1.0), "Scores": rng.uniform(
                            0, 1, (1, 2, 6)).astype(F)},
                            {**NMS3, "background_label": -1, "nms_top_k": 4, "keep_top_k": 3,
                             "normalized": True}, nms3_ref)],
    "matrix_nms": [Case({"BBoxes": boxes(2, 6, size=1.0),
                         "Scores": rng.uniform(0, 1, (2, 2, 6)).astype(F)}, MATRIX, matrix_ref)],
}

BAD = {
    "yolo_box": [Bad({"X": Meta((1, 13, 2, 2), np.dtype(F)), "ImgSize": Meta((1, 2), np.dtype(
        np.int32))}, YOLO, ShapeError, "X must have 14 channels")],
    "box_coder": [Bad({"PriorBox": Meta((4, 4), np.dtype(F)), "TargetBox": Meta((3, 4), np.dtype(
        F))}, {"code_type": "decode_center_size"}, ShapeError, r"TargetBox must be \[N, M, 4\]")],
    "prior_box": [Bad({"Input": Meta((1, 2, 2, 2), np.dtype(F)), "Image": Meta((1, 3, 8, 8),
                       np.dtype(F))}, {"min_sizes": [2.0, 3.0], "max_sizes": [4.0]},
                      ShapeError, "max_sizes must be as many as min_sizes")],
    "roi_align": [Bad({"X": Meta((1, 2, 4, 4), np.dtype(F)), "ROIs": Meta((3, 5), np.dtype(F))},
                      {}, ShapeError, r"ROIs must be \[R, 4\]")],
    "multiclass_nms3": [Bad({"BBoxes": Meta((5, 2, 4), np.dtype(F)), "Scores": Meta((5, 2),
                             np.dtype(F))}, {}, ShapeError, r"Scores must be \[N, C, M\]"),
                        Bad({"BBoxes": Meta((5, 2, 4), np.dtype(F)), "Scores": Meta((5, 2),
                             np.dtype(F)), "RoisNum": Meta((1,), np.dtype(np.int32))}, {},
                            ShapeError, "RoisNum .* is not available")],
    "matrix_nms": [Bad({"BBoxes": Meta((1, 6, 4), np.dtype(F)), "Scores": Meta((1, 2, 5),
                        np.dtype(F))}, {}, ShapeError, "6 boxes per image")],
}


# -- generate_proposals_v2 and distribute_fpn_proposals --------------------------------------------
def proposals_ref(ins, attrs):
    sc, de, im = ins["Scores"], ins["BboxDeltas"], ins["ImShape"]
    anchors, var = ins["Anchors"].reshape(-1, 4), ins["Variances"].reshape(-1, 4)
    n, a, h, w = sc.shape
    off = 1.0 if attrs["pixel_offset"] else 0.0
    rois, probs, counts = [], [], []
    for b in range(n):
        cands = []                                   # (score, box) in (h, w, anchor) order
        for i in range(h):
            for j in range(w):
                for k in range(a):
                    an, v = anchors[(i * w + j) * a + k], var[(i * w + j) * a + k]
                    d = de[b, 4 * k:4 * k + 4, i, j]
                    aw, ah = an[2] - an[0] + off, an[3] - an[1] + off
                    cx = v[0] * d[0] * aw + an[0] + aw / 2
                    cy = v[1] * d[1] * ah + an[1] + ah / 2
                    bw = math.exp(min(v[2] * d[2], math.log(1000 / 16))) * aw
                    bh = math.exp(min(v[3] * d[3], math.log(1000 / 16))) * ah
                    box = [min(max(cx - bw / 2, 0), im[b, 1] - off),
                           min(max(cy - bh / 2, 0), im[b, 0] - off),
                           min(max(cx + bw / 2 - off, 0), im[b, 1] - off),
                           min(max(cy + bh / 2 - off, 0), im[b, 0] - off)]
                    cands.append((float(sc[b, k, i, j]), box))
        cands.sort(key=lambda t: -t[0])
        cands = cands[:attrs["pre_nms_topN"]] if attrs["pre_nms_topN"] > 0 else cands
        low = max(attrs["min_size"], 1.0)
        cands = [(s, bx) for s, bx in cands
                 if bx[2] - bx[0] + off >= low and bx[3] - bx[1] + off >= low]
        if not cands:
            cands = [(0.0, [0.0] * 4)]
        else:
            ious = iou_matrix(np.array([bx for _, bx in cands]), not attrs["pixel_offset"])
            alive, kept = np.ones(len(cands), bool), []
            for i in range(len(cands)):
                if alive[i]:
                    kept.append(cands[i])
                    alive &= ious[i] <= attrs["nms_thresh"]
            cands = kept[:attrs["post_nms_topN"]] if attrs["post_nms_topN"] > 0 else kept
        rois += [bx for _, bx in cands]
        probs += [[s] for s, _ in cands]
        counts.append(len(cands))
    return {"RpnRois": np.array(rois), "RpnRoiProbs": np.array(probs),
            "RpnRoisNum": np.array(counts)}


def distribute_ref(ins, attrs):
    rois, nums = ins["FpnRois"], ins["RoisNum"]
    off = 1.0 if attrs["pixel_offset"] else 0.0
    owner = np.repeat(np.arange(len(nums)), nums)
    levels = []
    for x1, y1, x2, y2 in rois:
        lv = math.floor(math.log2(math.sqrt((x2 - x1 + off) * (y2 - y1 + off))
                                  / attrs["refer_scale"] + 1e-8) + attrs["refer_level"])
        levels.append(min(max(lv, attrs["min_level"]), attrs["max_level"]))
    multi, counts, order = [], [], []
    for lv in range(attrs["min_level"], attrs["max_level"] + 1):
        picked = [r for r in range(len(rois)) if levels[r] == lv]
        order += picked
        multi.append(rois[picked].reshape(-1, 4))
        counts.append(np.array([sum(owner[r] == b for r in picked) for b in range(len(nums))]))
    restore = np.array([order.index(r) for r in range(len(rois))]).reshape(-1, 1)
    return {"MultiFpnRois": multi, "RestoreIndex": restore, "MultiLevelRoIsNum": counts}


def sized_rois(sides):
    centers = rng.uniform(200, 300, (len(sides), 2))
    half = np.array(sides, float)[:, None] / 2 * rng.uniform(0.8, 1.2, (len(sides), 2))
    return np.concatenate([centers - half, centers + half], axis=1).astype(F)


PROPOSALS = {"Scores": rng.uniform(0, 1, (2, 2, 3, 3)).astype(F),
             "BboxDeltas": (rng.standard_normal((2, 8, 3, 3)) * 0.3).astype(F),
             "ImShape": np.array([[20, 24], [16, 12]], F),
             "Anchors": boxes(3, 3, 2, size=20.0), "Variances": np.full((3, 3, 2, 4), 0.5, F)}
CASES["generate_proposals_v2"] = [
    Case(PROPOSALS, {"pre_nms_topN": 10, "post_nms_topN": 4, "nms_thresh": 0.5,
                     "min_size": 2.0, "eta": 1.0, "pixel_offset": False}, proposals_ref),
    Case(PROPOSALS, {"pre_nms_topN": -1, "post_nms_topN": -1, "nms_thresh": 0.7,
                     "min_size": 0.1, "eta": 1.0, "pixel_offset": True}, proposals_ref)]
CASES["distribute_fpn_proposals"] = [
    Case({"FpnRois": sized_rois([10, 300, 40, 700, 120, 15, 250]),
          "RoisNum": np.array([3, 4], np.int32)},
         {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224,
          "pixel_offset": pixel_offset}, distribute_ref) for pixel_offset in (False, True)]
BAD["generate_proposals_v2"] = [
    Bad({k: Meta(v.shape if k != "BboxDeltas" else (2, 6, 3, 3), np.dtype(F))
         for k, v in PROPOSALS.items()}, {}, ShapeError, "4 channels per anchor")]
BAD["distribute_fpn_proposals"] = [
    Bad({"FpnRois": Meta((5, 4), np.dtype(F))}, {"min_level": 5, "max_level": 2},
        ShapeError, "max_level")]
