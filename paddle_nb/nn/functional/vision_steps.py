"""The small shape steps the vision functions write around their ops, named as 2.6 names them.

PaddlePaddle 2.6 builds ``conv1d`` as unsqueeze2 + conv2d + squeeze2, adds a
convolution's bias with ``elementwise_add`` (after a ``reshape2`` of the bias for
a channel-first 4-D or 5-D output), pads a 3-D or 4-D tensor by unsqueezing it
to 5-D for ``pad3d``. Each step here appends that one op through a 2.x helper,
so its outputs get 2.6's names: ``unsqueeze2_0.tmp_0`` (and its XShape
``.tmp_1``), ``squeeze_0.tmp_0`` (squeeze's helper is named "squeeze", its op
"squeeze2"), ``reshape2_0.tmp_0``, ``assign_0.tmp_0``, and ``elementwise_add_0``
for a bias added by ``_add_with_axis`` (2.6 names that output after its helper).
"""

from __future__ import annotations

from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor
    from paddle_nb.layers.helper import LayerHelper

__all__ = ["unsqueeze", "squeeze", "reshape", "assign", "add_with_axis", "add_bias",
           "conv_helper"]


def _with_xshape(helper_name: str, op_type: str, x: Tensor, attrs: Any) -> Tensor:
    helper = layer_helper(helper_name)
    out, xshape = helper.tmp_name(), helper.tmp_name()
    helper.append(op_type, {"X": x}, {"Out": out, "XShape": xshape}, attrs)
    return as_tensor(helper.block.var(out))


def unsqueeze(x: Tensor, axes: Sequence[int]) -> Tensor:
    return _with_xshape("unsqueeze2", "unsqueeze2", x, {"axes": list(axes)})


def squeeze(x: Tensor, axes: Sequence[int]) -> Tensor:
    return _with_xshape("squeeze", "squeeze2", x, {"axes": list(axes)})


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    return _with_xshape("reshape2", "reshape2", x, {"shape": list(shape)})


def assign(x: Tensor) -> Tensor:
    return layer_helper("assign").out("assign", {"X": x})


def add_with_axis(x: Tensor, y: Tensor, axis: int) -> Tensor:
    """x + y, y broadcast from ``axis`` (what 2.6's ``_add_with_axis`` writes)."""
    helper = layer_helper("elementwise_add")
    helper.append("elementwise_add", {"X": x, "Y": y}, {"Out": helper.name}, {"axis": axis})
    return as_tensor(helper.block.var(helper.name))


def conv_helper(op_type: str) -> LayerHelper:
    """The helper a convolution function appends its op with (``conv2d_0.tmp_0``)."""
    return layer_helper(op_type)


def add_bias(helper: LayerHelper, pre_bias: Tensor, bias: Tensor | None, channel_dim: int
            ) -> Tensor:
    """2.6's ``_conv_nd`` bias: reshape the bias to broadcast over a channel-first output,
    then ``elementwise_add`` (axis -1) into the helper's next temporary."""
    if bias is None:
        return pre_bias
    # the sum is declared before the bias's reshape, as 2.6 declares it
    out = helper.block.create_var(name=helper.tmp_name(), dtype=pre_bias.dtype)
    rank = len(pre_bias.shape)
    if channel_dim != -1 and rank != len(bias.shape):
        bias = reshape(bias, [1] * channel_dim + list(bias.shape) +
                       [1] * (rank - len(bias.shape) - channel_dim))
    helper.append("elementwise_add", {"X": pre_bias, "Y": bias}, {"Out": out.name}, {"axis": -1})
    return as_tensor(out)
