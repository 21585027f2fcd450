"""nms: greedy non-maximum suppression of one list of boxes, already in score order.

Boxes [M, 4] (x1, y1, x2, y2), highest score first. Walking down the list, a box is kept
unless it overlaps an already kept box by more than ``iou_threshold`` (intersection over
union, areas without the +1 of pixel boxes). KeepBoxesIdxs [K] (int64) lists the kept
boxes' positions in order. ``paddle.vision.ops.nms`` sorts by score and loops over
categories around it.
"""

import numpy

from paddle_nb.ops.detection_nms import iou
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register


def _nms_infer(boxes, *, iou_threshold):
    if len(boxes.shape) != 2 or boxes.shape[1] not in (4, -1):
        fail(f"Boxes must be [M, 4] (x1, y1, x2, y2), got shape {list(boxes.shape)}")
    return boxes.with_shape((-1,)).with_dtype("int64")


def _nms(ctx, boxes, *, iou_threshold):
    kept: list[int] = []
    host = boxes.tolist()
    for m, box in enumerate(host):
        if all(iou(host[k], box, True) <= iou_threshold for k in kept):
            kept.append(m)
    return ctx.to_device(numpy.array(kept, dtype=numpy.int64))


register(OpDef(
    "nms", inputs=["Boxes"], outputs=["KeepBoxesIdxs"],
    attrs={"iou_threshold": Attr("float", 1.0)}, infer=_nms_infer, kernel=_nms,
    doc="KeepBoxesIdxs: the positions of the boxes greedy NMS keeps (Boxes in score order)"))
