"""Contract cases for yolov3_loss (paddle_nb/ops/yolo_loss.py).

The forward reference is PaddlePaddle 2.6.2's own loss for the same inputs (recorded by
interop/ops/detection_grad_refs.py); the gradient is checked against central differences
(the inputs sit away from the L1 kinks and the ignore threshold).
"""

import pathlib

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "detection_grad_ops.npz"
REFS = np.load(FIXTURE)
ATTRS = {"anchors": [10, 13, 16, 30, 33, 23], "anchor_mask": [0, 1], "class_num": 2,
         "ignore_thresh": 0.5, "downsample_ratio": 8, "use_label_smooth": True,
         "scale_x_y": 1.0}


def paddle_ref(case):
    loss = [k for k in REFS.files if k.startswith(f"{case}/fetch/yolov3_loss")][0]
    return lambda ins, attrs: {"Loss": REFS[loss]}


CASES = {
    "yolov3_loss": [
        Case({"X": REFS["yolo_loss/feed/x"], "GTBox": REFS["yolo_loss/feed/gb"],
              "GTLabel": REFS["yolo_loss/feed/gl"]}, dict(ATTRS), ref=paddle_ref("yolo_loss"),
             grad=("X",), grad_outputs=("Loss",), rtol=1e-5, atol=1e-4),
        Case({"X": REFS["yolo_loss_score/feed/x"], "GTBox": REFS["yolo_loss_score/feed/gb"],
              "GTLabel": REFS["yolo_loss_score/feed/gl"],
              "GTScore": REFS["yolo_loss_score/feed/gs"]},
             dict(ATTRS, anchor_mask=[1, 2], ignore_thresh=0.3, use_label_smooth=False),
             ref=paddle_ref("yolo_loss_score"), rtol=1e-5, atol=1e-4, name="scores"),
    ],
}
BAD = {
    "yolov3_loss": [Bad({"X": Meta((2, 13, 4, 4), np.dtype("float32"), 0),
                         "GTBox": Meta((2, 3, 4), np.dtype("float32"), 0),
                         "GTLabel": Meta((2, 3), np.dtype("int32"), 0)}, dict(ATTRS),
                        ShapeError, "X must be")],
}
