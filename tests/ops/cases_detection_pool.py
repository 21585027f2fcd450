"""Contract cases for roi_pool, psroi_pool (paddle_nb/ops/detection_pool.py) and nms
(detection_nms_single.py).

The references loop over every output bin and every pixel, with the bin edges written out
from the definitions (Fast R-CNN's rounded corners, R-FCN's position-sensitive channels),
and nms with a NumPy IoU matrix. ROIs sit away from ties so the maxima (and so the
gradients) are unambiguous.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(5)
F = np.float32


def c_round(v):
    return float(np.sign(v) * np.floor(abs(v) + 0.5))


def roi_pool_ref(ins, attrs):
    x, rois = ins["X"].astype(np.float64), ins["ROIs"]
    counts = ins.get("RoisNum", [len(rois)])
    image = np.repeat(np.arange(len(counts)), counts)
    ph, pw, s = attrs["pooled_height"], attrs["pooled_width"], attrs.get("spatial_scale", 1.0)
    _, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw))
    arg = np.full(out.shape, -1)
    for r, roi in enumerate(rois):
        x1, y1, x2, y2 = (c_round(v * s) for v in roi)
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        for i in range(ph):
            hs = int(min(max(math.floor(i * bh) + y1, 0), h))
            he = int(min(max(math.ceil((i + 1) * bh) + y1, 0), h))
            for j in range(pw):
                ws = int(min(max(math.floor(j * bw) + x1, 0), w))
                we = int(min(max(math.ceil((j + 1) * bw) + x1, 0), w))
                for ch in range(c):
                    best, where = -np.inf, -1
                    for yy in range(hs, he):
                        for xx in range(ws, we):
                            if x[image[r], ch, yy, xx] > best:
                                best, where = x[image[r], ch, yy, xx], yy * w + xx
                    out[r, ch, i, j] = best if where >= 0 else 0.0
                    arg[r, ch, i, j] = where
    return {"Out": out, "Argmax": arg}


def psroi_ref(ins, attrs):
    x, rois = ins["X"].astype(np.float64), ins["ROIs"]
    counts = ins.get("RoisNum", [len(rois)])
    image = np.repeat(np.arange(len(counts)), counts)
    oc, ph, pw = attrs["output_channels"], attrs["pooled_height"], attrs["pooled_width"]
    s = attrs.get("spatial_scale", 1.0)
    h, w = x.shape[2:]
    out = np.zeros((len(rois), oc, ph, pw))
    for r, roi in enumerate(rois):
        x1, y1 = c_round(roi[0]) * s, c_round(roi[1]) * s
        x2, y2 = (c_round(roi[2]) + 1) * s, (c_round(roi[3]) + 1) * s
        bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
        for c in range(oc):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(bh * i + y1), 0), h)
                    he = min(max(math.ceil(bh * (i + 1) + y1), 0), h)
                    ws = min(max(math.floor(bw * j + x1), 0), w)
                    we = min(max(math.ceil(bw * (j + 1) + x1), 0), w)
                    if he > hs and we > ws:
                        patch = x[image[r], (c * ph + i) * pw + j, hs:he, ws:we]
                        out[r, c, i, j] = patch.mean()
    return {"Out": out}


def nms_ref(ins, attrs):
    b = ins["Boxes"].astype(np.float64)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(b[:, None, :2], b[None, :, :2])
    rb = np.minimum(b[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=-1)
    over = inter / (area[:, None] + area[None, :] - inter)
    kept = []
    for m in range(len(b)):
        if all(over[k, m] <= attrs["iou_threshold"] for k in kept):
            kept.append(m)
    return {"KeepBoxesIdxs": np.array(kept, np.int64)}


X2 = rng.permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6).astype(F) / 10
ROIS = np.array([[0.4, 0.6, 3.2, 4.1], [1.0, 1.0, 5.0, 2.0], [2.2, 0.0, 4.9, 5.4]], F)
PS_X = rng.standard_normal((1, 8, 5, 5)).astype(F)
POOL = {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0}
NMS_BOXES = np.array([[0, 0, 4, 4], [0.5, 0.5, 4, 4], [5, 5, 8, 8], [0, 0, 3.5, 4.2],
                      [5.2, 5.1, 8, 8.3], [1, 6, 3, 8]], F)

CASES = {
    "roi_pool": [
        Case({"X": X2, "ROIs": ROIS, "RoisNum": np.array([2, 1], np.int32)}, dict(POOL),
             ref=roi_pool_ref, grad=("X",), grad_outputs=("Out",)),
        Case({"X": X2[:1], "ROIs": ROIS * 2},
             {"pooled_height": 3, "pooled_width": 2, "spatial_scale": 0.5},
             ref=roi_pool_ref, name="scaled"),
    ],
    "psroi_pool": [
        Case({"X": PS_X, "ROIs": ROIS}, {"output_channels": 2, **POOL}, ref=psroi_ref,
             grad=("X",)),
        Case({"X": np.concatenate([PS_X, PS_X[:, ::-1]]), "ROIs": ROIS * 2,
              "RoisNum": np.array([1, 2], np.int32)},
             {"output_channels": 2, **POOL, "spatial_scale": 0.5}, ref=psroi_ref,
             name="scaled"),
    ],
    "nms": [
        Case({"Boxes": NMS_BOXES}, {"iou_threshold": 0.5}, ref=nms_ref),
        Case({"Boxes": NMS_BOXES}, {"iou_threshold": 0.05}, ref=nms_ref, name="strict"),
    ],
}

BAD = {
    "roi_pool": [Bad({"X": Meta((2, 6, 6), np.float32, 0), "ROIs": Meta((3, 4), np.float32, 0)},
                     POOL, ShapeError, "X must be NCHW")],
    "psroi_pool": [Bad({"X": Meta((1, 6, 5, 5), np.float32, 0),
                        "ROIs": Meta((3, 4), np.float32, 0)},
                       {"output_channels": 2, **POOL}, ShapeError, "8 channels")],
    "nms": [Bad({"Boxes": Meta((3, 5), np.float32, 0)}, {"iou_threshold": 0.5}, ShapeError,
                r"Boxes must be \[M, 4\]")],
}
