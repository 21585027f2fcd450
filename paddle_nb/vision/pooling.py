"""``paddle.vision.ops``' RoI pooling, nms and deformable convolution, with PaddlePaddle 2.6's
signatures, ops and names.

``roi_pool`` / ``psroi_pool`` cut each box into a fixed grid of bins (the ops of
paddle_nb/ops/detection_pool.py); ``RoIPool`` and ``PSRoIPool`` are the same as layers
(``RoIAlign`` is in ``ops.py`` beside ``roi_align``). ``nms`` is greedy suppression (the
``nms`` op), after sorting by score and per category when given them, built from the tensor
functions as 2.6 builds it. ``yolo_loss`` is YOLOv3's training loss (``yolov3_loss``).
``deform_conv2d`` moves each kernel tap by an offset (``deformable_conv`` with a mask,
``deformable_conv_v1`` without); ``DeformConv2D`` holds its filter and bias.
"""

from __future__ import annotations

import math

from paddle_nb.errors import OpBuildError
from paddle_nb.framework.initializer import Normal
from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.functional.conv import to_list
from paddle_nb.nn.layer_base import Layer
from paddle_nb.tensor.creation import ones_like, to_tensor, zeros_like
from paddle_nb.tensor.logic import equal
from paddle_nb.tensor.manipulation import reshape
from paddle_nb.tensor.search import argsort
from paddle_nb.tensor.selection import scatter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["roi_pool", "psroi_pool", "nms", "deform_conv2d", "RoIPool", "PSRoIPool",
           "DeformConv2D", "yolo_loss"]


def _size(output_size: int) -> Any:
    return (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)


def roi_pool(x: Tensor, boxes: Tensor, boxes_num: Tensor, output_size: int,
             spatial_scale: float = 1.0, name: str | None = None) -> Tensor:
    """[R, C, out_h, out_w]: the maximum of each bin of each box (Fast R-CNN's RoIPool);
    ``boxes_num`` [N] counts each image's boxes."""
    out_h, out_w = _size(output_size)
    helper = layer_helper("roi_pool", name)
    out, argmax = helper.tmp_name(), helper.tmp_name()
    inputs = {"X": x, "ROIs": boxes}
    if boxes_num is not None:
        inputs["RoisNum"] = boxes_num
    helper.append("roi_pool", inputs, {"Out": out, "Argmax": argmax}, {
        "pooled_height": out_h, "pooled_width": out_w, "spatial_scale": spatial_scale})
    return as_tensor(helper.block.var(out))


def psroi_pool(x: Tensor, boxes: Tensor, boxes_num: Tensor, output_size: int,
               spatial_scale: float = 1.0, name: str | None = None) -> Tensor:
    """[R, C / (out_h * out_w), out_h, out_w]: position-sensitive RoI pooling (R-FCN).

    2.6.2's static form drops ``boxes_num`` and reads the boxes' LoD; paddle_nb has no LoD
    feeds, so it passes ``boxes_num`` as the op's RoisNum (a one-image batch needs none)."""
    out_h, out_w = _size(output_size)
    if x.shape[1] % (out_h * out_w):
        raise OpBuildError(f"psroi_pool: the input's {x.shape[1]} channels must be a multiple "
                           f"of output_size {out_h} x {out_w}")
    helper = layer_helper("psroi_pool", name)
    inputs = {"X": x, "ROIs": boxes}
    if boxes_num is not None and x.shape[0] != 1:
        inputs["RoisNum"] = boxes_num
    return helper.out("psroi_pool", inputs, {
        "output_channels": x.shape[1] // (out_h * out_w), "spatial_scale": spatial_scale,
        "pooled_height": out_h, "pooled_width": out_w})


def _nms(boxes: Tensor, iou_threshold: float) -> Tensor:
    return layer_helper("nms").out("nms", {"Boxes": boxes}, {"iou_threshold": iou_threshold},
                                   slot="KeepBoxesIdxs")


def _where_index(condition: Tensor) -> Tensor:
    """[K, 1] int64: where ``condition`` holds (the ``where_index`` op, as 2.6's
    ``paddle.where(cond)[0]`` writes it for one dimension)."""
    return layer_helper("where_index").out("where_index", {"Condition": condition})


def nms(boxes: Tensor, iou_threshold: float = 0.3, scores: Tensor | None = None,
        category_idxs: Tensor | None = None, categories: Sequence[int] | None = None,
        top_k: int | None = None) -> Tensor:
    """[K] int64: the indices of the boxes greedy NMS keeps, by descending score when
    ``scores`` are given, each category on its own when ``category_idxs`` and ``categories``
    are, at most ``top_k``."""
    if scores is None:
        return _nms(boxes, iou_threshold)
    if category_idxs is None:
        order = argsort(scores, descending=True)
        return order[_nms(boxes[order], iou_threshold)]
    if categories is None:
        raise OpBuildError("nms: category_idxs needs categories, the list of every category id")
    mask = zeros_like(scores, dtype="int32")
    for category in categories:
        members = reshape(_where_index(equal(category_idxs, to_tensor(category))), [-1])
        member_boxes, member_scores = boxes[members], scores[members]
        order = argsort(member_scores, descending=True)
        kept = order[_nms(member_boxes[order], iou_threshold)]
        # (members[kept] is indexed twice, as 2.6 does: once for the ones, once to scatter)
        updates = ones_like(members[kept], dtype="int32")
        mask = scatter(mask, members[kept], updates, overwrite=True)
    keep = reshape(_where_index(mask), [-1])
    ranked = keep[argsort(scores[keep], descending=True)]
    return ranked if top_k is None else ranked[:top_k]


def deform_conv2d(x: Tensor, offset: Tensor, weight: Tensor, bias: Tensor | None = None,
                  stride: int = 1, padding: int = 0, dilation: int = 1, deformable_groups: int = 1,
                  groups: int = 1, mask: Tensor | None = None, name: str | None = None) -> Tensor:
    """Deformable convolution of x [N, C, H, W] with weight [M, C / groups, kh, kw], each tap
    moved by ``offset`` [N, 2 * dg * kh * kw, Ho, Wo] and, with ``mask``, scaled by it
    (``deformable_conv``; ``deformable_conv_v1`` without a mask); plus ``bias`` [M]."""
    op_type = "deformable_conv" if mask is not None else "deformable_conv_v1"
    helper = layer_helper("deformable_conv", name)
    inputs = {"Input": x, "Offset": offset, "Filter": weight}
    if mask is not None:
        inputs["Mask"] = mask
    out = helper.out(op_type, inputs, {
        "strides": to_list(stride, 2, "stride"), "paddings": to_list(padding, 2, "padding"),
        "dilations": to_list(dilation, 2, "dilation"), "groups": groups,
        "deformable_groups": deformable_groups, "im2col_step": 1}, slot="Output")
    if bias is None:
        return out
    return helper.out("elementwise_add", {"X": out, "Y": bias}, {"axis": 1})


class RoIPool(Layer):
    """``roi_pool`` as a layer: ``RoIPool(output_size)(x, boxes, boxes_num)``."""

    def __init__(self, output_size: int, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x: Tensor, boxes: Tensor, boxes_num: Tensor) -> Tensor:
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(Layer):
    """``psroi_pool`` as a layer: ``PSRoIPool(output_size)(x, boxes, boxes_num)``."""

    def __init__(self, output_size: int, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x: Tensor, boxes: Tensor, boxes_num: Tensor) -> Tensor:
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class DeformConv2D(Layer):
    """A deformable convolution layer: filter ``deform_conv2d_N.w_0`` [out, in / groups, kh,
    kw] from N(0, 2 / (in * kh * kw)), bias ``.b_0`` [out] (zeros);
    ``forward(x, offset, mask=None)``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, dilation: int = 1, deformable_groups: int = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: Any = None) -> None:
        super().__init__()
        kernel = to_list(kernel_size, 2, "kernel_size")
        self._conv: dict[str, Any] = dict(stride=stride, padding=padding, dilation=dilation,
                          deformable_groups=deformable_groups, groups=groups)
        std = math.sqrt(2.0 / (in_channels * kernel[0] * kernel[1]))
        self.weight = self.create_parameter([out_channels, in_channels // groups, *kernel],
                                            attr=weight_attr,
                                            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor, offset: Tensor, mask: Any = None) -> Tensor:
        return deform_conv2d(x, offset, self.weight, self.bias, mask=mask, **self._conv)


def yolo_loss(x: Tensor, gt_box: Tensor, gt_label: Tensor, anchors: Sequence[int],
              anchor_mask: Sequence[int], class_num: int, ignore_thresh: float,
              downsample_ratio: int, gt_score: Any = None, use_label_smooth: bool = True,
              name: str | None = None, scale_x_y: float = 1.0) -> Tensor:
    """[N]: YOLOv3's training loss of one head per image (the ``yolov3_loss`` op)."""
    helper = layer_helper("yolov3_loss", name)
    loss, obj, match = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    inputs = {"X": x, "GTBox": gt_box, "GTLabel": gt_label}
    if gt_score is not None:
        inputs["GTScore"] = gt_score
    helper.append("yolov3_loss", inputs,
                  {"Loss": loss, "ObjectnessMask": obj, "GTMatchMask": match}, {
                      "anchors": list(anchors), "anchor_mask": list(anchor_mask),
                      "class_num": class_num, "ignore_thresh": ignore_thresh,
                      "downsample_ratio": downsample_ratio,
                      "use_label_smooth": use_label_smooth, "scale_x_y": scale_x_y})
    return as_tensor(helper.block.var(loss))
