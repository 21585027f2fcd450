"""``paddle.vision``: here only ``paddle.vision.ops``: the detection post-processing functions
(yolo_box, box_coder, prior_box, roi_align, matrix_nms, multiclass_nms, generate_proposals,
distribute_fpn_proposals), RoI pooling (roi_pool, psroi_pool and the RoIPool, PSRoIPool,
RoIAlign layers), nms, deformable convolution (deform_conv2d, DeformConv2D) and yolo_loss."""

from paddle_nb.vision import ops

__all__ = ["ops"]
