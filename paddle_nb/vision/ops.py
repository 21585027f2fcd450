"""``paddle.vision.ops``: detection post-processing, with PaddlePaddle 2.6's signatures.

Each function here appends one op (paddle_nb/ops/detection_*.py) named as PaddlePaddle names it
(``yolo_box_0.tmp_0``, ``matrix_nms_0.tmp_0``...). ``multiclass_nms`` is PaddleDetection's
(``ppdet.modeling.ops.multiclass_nms``): the ``multiclass_nms3`` op that its exported
PicoDet and PP-YOLOE models end with. RoI pooling, nms and deformable convolution are in
``pooling.py`` (re-exported here).
"""

from __future__ import annotations

from paddle_nb.framework.variable import Variable
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.layer_base import Layer
from paddle_nb.vision.pooling import (
    DeformConv2D, PSRoIPool, RoIPool, deform_conv2d, nms, psroi_pool, roi_pool, yolo_loss,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["yolo_box", "box_coder", "prior_box", "roi_align", "matrix_nms", "multiclass_nms",
           "generate_proposals", "distribute_fpn_proposals", "RoIAlign", "roi_pool",
           "psroi_pool", "nms", "deform_conv2d", "RoIPool", "PSRoIPool", "DeformConv2D",
           "yolo_loss"]


def _outputs(helper: Any, op_type: str, inputs: Any, slots: Any, attrs: Any) -> Any:
    """Append ``op_type`` writing a new temporary for each output slot, in ``slots``' order."""
    names = {slot: helper.tmp_name() for slot in slots}
    helper.append(op_type, inputs, names, attrs)
    return [helper.block.var(names[slot]) for slot in slots]


def yolo_box(x: Tensor, img_size: Tensor, anchors: Sequence[int], class_num: int,
             conf_thresh: float, downsample_ratio: int, clip_bbox: bool = True,
             name: str | None = None, scale_x_y: float = 1.0, iou_aware: bool = False,
             iou_aware_factor: float = 0.5) -> tuple[Tensor, ...]:
    """(boxes [N, anchors*H*W, 4], scores [N, anchors*H*W, class_num]) of a YOLOv3 head."""
    helper = layer_helper("yolo_box", name)
    return tuple(_outputs(helper, "yolo_box", {"X": x, "ImgSize": img_size}, ["Boxes", "Scores"], {
        "anchors": list(anchors), "class_num": class_num, "conf_thresh": conf_thresh,
        "downsample_ratio": downsample_ratio, "clip_bbox": clip_bbox, "scale_x_y": scale_x_y,
        "iou_aware": iou_aware, "iou_aware_factor": iou_aware_factor}))


def box_coder(prior_box: Tensor, prior_box_var: Tensor | Sequence[float], target_box: Tensor,
              code_type: str = "encode_center_size", box_normalized: bool = True, axis: int = 0,
              name: str | None = None) -> Tensor:
    """Encode ``target_box`` against ``prior_box`` or decode it; ``prior_box_var`` is a
    Variable [M, 4] (one variance per prior), a list of 4 floats, or None."""
    helper = layer_helper("box_coder", name)
    inputs = {"PriorBox": prior_box, "TargetBox": target_box}
    attrs = {"code_type": code_type, "box_normalized": box_normalized, "axis": axis}
    if isinstance(prior_box_var, Variable):
        inputs["PriorBoxVar"] = prior_box_var
    elif isinstance(prior_box_var, (list, tuple)):
        attrs["variance"] = [float(v) for v in prior_box_var]
    elif prior_box_var is not None:
        raise TypeError(f"box_coder: prior_box_var must be a Variable, a list of 4 floats or "
                        f"None, got {prior_box_var!r}")
    return helper.out("box_coder", inputs, attrs, slot="OutputBox")


def prior_box(input: Tensor, image: Tensor, min_sizes: Sequence[float],
              max_sizes: Sequence[float] | None = None, aspect_ratios: Sequence[float] = (1.0,),
              variance: Sequence[float] = (0.1, 0.1, 0.2, 0.2), flip: bool = False,
              clip: bool = False, steps: Sequence[float] = (0.0, 0.0), offset: float = 0.5,
              min_max_aspect_ratios_order: bool = False, name: str | None = None
             ) -> tuple[Tensor, ...]:
    """(boxes, variances), each [H, W, priors, 4]: SSD's prior boxes over ``input``'s map."""
    helper = layer_helper("prior_box", name)
    attrs = {"min_sizes": [float(s) for s in min_sizes],
             "aspect_ratios": [float(a) for a in aspect_ratios],
             "variances": [float(v) for v in variance], "flip": flip, "clip": clip,
             "step_w": float(steps[0]), "step_h": float(steps[1]), "offset": offset,
             "min_max_aspect_ratios_order": min_max_aspect_ratios_order}
    if max_sizes:
        attrs["max_sizes"] = [float(s) for s in max_sizes]
    return tuple(_outputs(helper, "prior_box", {"Input": input, "Image": image},
                          ["Boxes", "Variances"], attrs))


def roi_align(x: Tensor, boxes: Tensor, boxes_num: Tensor, output_size: int | Sequence[int],
              spatial_scale: float = 1.0, sampling_ratio: int = -1, aligned: bool = True,
              name: str | None = None) -> Tensor:
    """[R, C, out_h, out_w]: RoIAlign of each box; ``boxes_num`` [N] counts each image's."""
    helper = layer_helper("roi_align", name)
    out_h, out_w = (output_size, output_size) if isinstance(output_size, int) else output_size
    inputs = {"X": x, "ROIs": boxes}
    if boxes_num is not None:
        inputs["RoisNum"] = boxes_num
    return helper.out("roi_align", inputs, {
        "pooled_height": out_h, "pooled_width": out_w, "spatial_scale": spatial_scale,
        "sampling_ratio": sampling_ratio, "aligned": aligned})


class RoIAlign(Layer):
    """``roi_align`` as a layer: ``RoIAlign(output_size)(x, boxes, boxes_num)``."""

    def __init__(self, output_size: int, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x: Tensor, boxes: Tensor, boxes_num: Tensor, aligned: bool = True) -> Tensor:
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


def matrix_nms(bboxes: Tensor, scores: Tensor, score_threshold: float, post_threshold: float,
               nms_top_k: int, keep_top_k: int, use_gaussian: bool = False,
               gaussian_sigma: float = 2.0, background_label: int = 0, normalized: bool = True,
               return_index: bool = False, return_rois_num: bool = True, name: str | None = None
              ) -> tuple[Tensor | None, ...]:
    """(out [K, 6], rois_num [N] or None, index [K, 1] or None): matrix NMS."""
    helper = layer_helper("matrix_nms", name)
    slots = ["Out", "Index"] + (["RoisNum"] if return_rois_num else [])
    got = _outputs(helper, "matrix_nms", {"BBoxes": bboxes, "Scores": scores}, slots, {
        "background_label": background_label, "score_threshold": score_threshold,
        "post_threshold": post_threshold, "nms_top_k": nms_top_k, "keep_top_k": keep_top_k,
        "normalized": normalized, "use_gaussian": use_gaussian,
        "gaussian_sigma": gaussian_sigma})
    return _nms_results(got, return_index, return_rois_num)


def multiclass_nms(bboxes: Tensor, scores: Tensor, score_threshold: float, nms_top_k: int,
                   keep_top_k: int, nms_threshold: float = 0.3, normalized: bool = True,
                   nms_eta: float = 1.0, background_label: int = -1, return_index: bool = False,
                   return_rois_num: bool = True, rois_num: Any = None, name: str | None = None
                  ) -> tuple[Tensor | None, ...]:
    """(out [K, 6], nms_rois_num [N] or None, index [K, 1] or None): per-class NMS, the
    ``multiclass_nms3`` op (PaddleDetection's ``ppdet.modeling.ops.multiclass_nms``)."""
    helper = layer_helper("multiclass_nms3", name)
    inputs = {"BBoxes": bboxes, "Scores": scores}
    if rois_num is not None:
        inputs["RoisNum"] = rois_num
    slots = ["Out", "Index"] + (["NmsRoisNum"] if return_rois_num else [])
    got = _outputs(helper, "multiclass_nms3", inputs, slots, {
        "background_label": background_label, "score_threshold": score_threshold,
        "nms_top_k": nms_top_k, "nms_threshold": nms_threshold, "nms_eta": nms_eta,
        "keep_top_k": keep_top_k, "normalized": normalized})
    return _nms_results(got, return_index, return_rois_num)


def _nms_results(got: Any, return_index: bool, return_rois_num: bool) -> Any:
    out, index = got[0], got[1]
    rois_num = got[2] if return_rois_num else None
    return out, rois_num, (index if return_index else None)


def generate_proposals(scores: Tensor, bbox_deltas: Tensor, img_size: Tensor, anchors: Tensor,
                       variances: Tensor, pre_nms_top_n: int = 6000, post_nms_top_n: int = 1000,
                       nms_thresh: float = 0.5, min_size: float = 0.1, eta: float = 1.0,
                       pixel_offset: bool = False, return_rois_num: bool = False,
                       name: str | None = None) -> tuple[Tensor, Tensor, Tensor | None]:
    """(rpn_rois [K, 4], rpn_roi_probs [K, 1], rpn_rois_num [N] or None): RPN proposals
    (the ``generate_proposals_v2`` op)."""
    helper = layer_helper("generate_proposals_v2", name)
    slots = ["RpnRois", "RpnRoiProbs"] + (["RpnRoisNum"] if return_rois_num else [])
    got = _outputs(helper, "generate_proposals_v2", {
        "Scores": scores, "BboxDeltas": bbox_deltas, "ImShape": img_size, "Anchors": anchors,
        "Variances": variances}, slots, {
        "pre_nms_topN": pre_nms_top_n, "post_nms_topN": post_nms_top_n,
        "nms_thresh": nms_thresh, "min_size": min_size, "eta": eta,
        "pixel_offset": pixel_offset})
    for var in got:
        var.stop_gradient = True
    return got[0], got[1], (got[2] if return_rois_num else None)


def distribute_fpn_proposals(fpn_rois: Tensor, min_level: int, max_level: int, refer_level: int,
                             refer_scale: int, pixel_offset: bool = False,
                             rois_num: Tensor | None = None, name: str | None = None
                            ) -> tuple[list[Any], Variable, list[Variable] | None]:
    """(multi_rois: one [R_l, 4] per level, restore_ind [R, 1], rois_num_per_level: one [N]
    per level, or None without ``rois_num``): each ROI sent to its FPN level."""
    helper = layer_helper("distribute_fpn_proposals", name)
    levels = max_level - min_level + 1
    multi = [helper.tmp_name() for _ in range(levels)]
    restore = helper.tmp_name()
    outputs = {"MultiFpnRois": multi, "RestoreIndex": restore}
    inputs = {"FpnRois": fpn_rois}
    if rois_num is not None:
        inputs["RoisNum"] = rois_num
        outputs["MultiLevelRoIsNum"] = [helper.tmp_name() for _ in range(levels)]
    helper.append("distribute_fpn_proposals", inputs, outputs, {
        "min_level": min_level, "max_level": max_level, "refer_level": refer_level,
        "refer_scale": refer_scale, "pixel_offset": pixel_offset})
    block = helper.block
    counts = [block.var(n) for n in outputs.get("MultiLevelRoIsNum", [])] or None
    return [block.var(n) for n in multi], block.var(restore), counts
