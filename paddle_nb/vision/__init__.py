"""``paddle.vision``: here only ``paddle.vision.ops``, the detection post-processing functions
(yolo_box, box_coder, prior_box, roi_align, matrix_nms, PaddleDetection's multiclass_nms,
generate_proposals, distribute_fpn_proposals)."""

from paddle_nb.vision import ops

__all__ = ["ops"]
