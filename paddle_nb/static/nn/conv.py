"""``paddle.static.nn``'s other convolutions: conv2d_transpose, conv3d, conv3d_transpose,
deform_conv2d.

Each makes its filter (and bias) from one helper named after the layer, as PaddlePaddle 2.6's
static layers do: ``conv3d_0.w_0``, ``conv3d_0.b_0``, the op's output ``conv3d_0.tmp_0`` and
the bias sum ``conv3d_0.tmp_1`` (``elementwise_add`` on the channel axis). conv3d's filter
starts from N(0, 2 / (C * kd * kh * kw)); the transposed ones from Xavier. The padding forms
are the functional API's (``paddle.nn.functional.conv``'s ``conv_padding``).
"""

from __future__ import annotations

import math

from paddle_nb.errors import OpBuildError
from paddle_nb.framework.initializer import Normal
from paddle_nb.layers.helper import ParamAttr, layer_helper
from paddle_nb.nn.functional.conv import conv_padding, to_list
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["conv2d_transpose", "conv3d", "conv3d_transpose", "deform_conv2d"]


def _layout(data_format: str, allowed: Any, function: str) -> bool:
    if data_format not in allowed:
        raise OpBuildError(f"{function}: data_format must be one of {list(allowed)}, "
                           f"got {data_format!r}")
    return data_format in ("NHWC", "NDHWC")


def _biased(helper: Any, out: Tensor, bias_attr: Any, filters: int, channel_axis: int,
            act: str | None) -> Tensor:
    """``out`` plus the layer's bias [filters] on ``channel_axis``, then ``act``."""
    battr = ParamAttr.of(bias_attr)
    if battr is not None:
        b = helper.param(battr, [filters], out.dtype, is_bias=True)
        out = helper.out("elementwise_add", {"X": out, "Y": b}, {"axis": channel_axis})
    return helper.act(out, act)


def conv3d(input: Tensor, num_filters: int, filter_size: int, stride: int = 1, padding: int = 0,
           dilation: int = 1, groups: int | None = None, param_attr: Any = None,
           bias_attr: Any = None, use_cudnn: bool = True, act: str | None = None,
           name: str | None = None, data_format: str = "NCDHW") -> Tensor:
    """A 3-D convolution with bias and activation (``conv3d``, ``elementwise_add``, act):
    the filter is [num_filters, C / groups, kd, kh, kw]."""
    last = _layout(data_format, ("NCDHW", "NDHWC"), "conv3d")
    channels = input.shape[4 if last else 1]
    groups = groups or 1
    if channels % groups:
        raise OpBuildError(f"conv3d: groups={groups} must divide the input's {channels} "
                           f"channels (input shape {list(input.shape)})")
    kernel = to_list(filter_size, 3, "filter_size")
    helper = layer_helper("conv3d", name)
    init = Normal(0.0, math.sqrt(2.0 / (math.prod(kernel) * channels)))
    w = helper.param(ParamAttr.of(param_attr), [num_filters, channels // groups, *kernel],
                     input.dtype, default_initializer=init)
    paddings, algorithm = conv_padding(padding, last, 3)
    out = helper.out("conv3d", {"Input": input, "Filter": w}, {
        "strides": to_list(stride, 3, "stride"), "paddings": paddings,
        "dilations": to_list(dilation, 3, "dilation"), "groups": groups,
        "padding_algorithm": algorithm, "data_format": data_format}, slot="Output")
    return _biased(helper, out, bias_attr, num_filters, 4 if last else 1, act)


def _transpose_kernel(input: Tensor, output_size: Any, filter_size: int | None, stride: Any,
                      paddings: Any, dilation: Any, last: bool, n: int, function: str) -> Any:
    """The filter's spatial size: ``filter_size``, or (2.6's rule) the one that makes
    ``output_size`` from the input."""
    if filter_size is not None:
        return to_list(filter_size, n, "filter_size")
    if output_size is None:
        raise OpBuildError(f"{function}: give filter_size or output_size")
    out = to_list(output_size, n, "output_size")
    spatial = input.shape[1:1 + n] if last else input.shape[2:2 + n]
    pads = paddings if len(paddings) == 2 * n else [p for p in paddings for _ in (0, 1)]
    return [(out[i] - (spatial[i] - 1) * stride[i] + pads[2 * i] + pads[2 * i + 1] - 1)
            // dilation[i] + 1 for i in range(n)]


def _conv_transpose(op_type: str, n: int, input: Tensor, num_filters: int, output_size: Any,
                    filter_size: Any, padding: Any, stride: Any, dilation: Any, groups: Any,
                    param_attr: Any, bias_attr: Any, act: str | None, name: str | None,
                    data_format: str, written: str) -> Tensor:
    last = data_format in ("NHWC", "NDHWC")
    channels = input.shape[-1 if last else 1]
    groups = groups or 1
    if channels % groups or num_filters % groups:
        raise OpBuildError(f"{op_type}: groups={groups} must divide the input's {channels} "
                           f"channels and the {num_filters} filters")
    stride, dilation = to_list(stride, n, "stride"), to_list(dilation, n, "dilation")
    paddings, algorithm = conv_padding(padding, last, n)
    kernel = _transpose_kernel(input, output_size, filter_size, stride, paddings, dilation,
                               last, n, op_type)
    helper = layer_helper(op_type, name)
    w = helper.param(ParamAttr.of(param_attr), [channels, num_filters // groups, *kernel],
                     input.dtype)
    size = [] if output_size is None else to_list(output_size, n, "output_size")
    out = helper.out(op_type, {"Input": input, "Filter": w}, {
        "strides": stride, "paddings": paddings, "padding_algorithm": algorithm,
        "dilations": dilation, "groups": groups, "output_size": size, "output_padding": [],
        "data_format": written}, slot="Output")
    return _biased(helper, out, bias_attr, num_filters, n + 1 if last else 1, act)


def conv2d_transpose(input: Tensor, num_filters: int, output_size: Sequence[int] | None = None,
                     filter_size: int | None = None, padding: int = 0, stride: int = 1,
                     dilation: int = 1, groups: Any = None, param_attr: Any = None,
                     bias_attr: Any = None, use_cudnn: bool = True, act: str | None = None,
                     name: str | None = None, data_format: str = "NCHW") -> Tensor:
    """A transposed 2-D convolution with bias and activation: the filter is
    [C, num_filters / groups, kh, kw]; ``filter_size`` may be left out when ``output_size``
    fixes it."""
    _layout(data_format, ("NCHW", "NHWC"), "conv2d_transpose")
    return _conv_transpose("conv2d_transpose", 2, input, num_filters, output_size, filter_size,
                           padding, stride, dilation, groups, param_attr, bias_attr, act, name,
                           data_format, data_format)


def conv3d_transpose(input: Tensor, num_filters: int, output_size: Any = None,
                     filter_size: int | None = None, padding: int = 0, stride: int = 1,
                     dilation: int = 1, groups: Any = None, param_attr: Any = None,
                     bias_attr: Any = None, use_cudnn: bool = True, act: str | None = None,
                     name: str | None = None, data_format: str = "NCDHW") -> Tensor:
    """A transposed 3-D convolution with bias and activation: the filter is
    [C, num_filters / groups, kd, kh, kw]. 2.6 writes the op's data_format as
    ``NCHW`` / ``NHWC``."""
    last = _layout(data_format, ("NCDHW", "NDHWC"), "conv3d_transpose")
    return _conv_transpose("conv3d_transpose", 3, input, num_filters, output_size, filter_size,
                           padding, stride, dilation, groups, param_attr, bias_attr, act, name,
                           data_format, "NHWC" if last else "NCHW")


def deform_conv2d(x: Tensor, offset: Tensor, mask: Tensor | None, num_filters: int,
                  filter_size: int, stride: int = 1, padding: int = 0, dilation: int = 1,
                  groups: int = 1, deformable_groups: int = 1, im2col_step: int = 1,
                  weight_attr: Any = None, bias_attr: Any = None, name: str | None = None
                 ) -> Tensor:
    """A deformable convolution with bias: each tap moved by ``offset`` and, given a
    ``mask``, scaled by it (``deformable_conv``; ``deformable_conv_v1`` for mask None). The
    filter ``deformable_conv_N.w_0`` [num_filters, C / groups, kh, kw] starts from
    N(0, 2 / (C * kh * kw))."""
    channels = x.shape[1]
    groups = groups or 1
    if channels % groups:
        raise OpBuildError(f"deform_conv2d: groups={groups} must divide the input's "
                           f"{channels} channels (input shape {list(x.shape)})")
    kernel = to_list(filter_size, 2, "filter_size")
    helper = layer_helper("deformable_conv", name)
    init = Normal(0.0, math.sqrt(2.0 / (math.prod(kernel) * channels)))
    w = helper.param(ParamAttr.of(weight_attr), [num_filters, channels // groups, *kernel],
                     x.dtype, default_initializer=init)
    inputs = {"Input": x, "Offset": offset, "Filter": w}
    if mask is not None:
        inputs["Mask"] = mask
    out = helper.out("deformable_conv" if mask is not None else "deformable_conv_v1", inputs, {
        "strides": to_list(stride, 2, "stride"), "paddings": to_list(padding, 2, "padding"),
        "dilations": to_list(dilation, 2, "dilation"), "groups": groups,
        "deformable_groups": deformable_groups, "im2col_step": im2col_step}, slot="Output")
    return _biased(helper, out, bias_attr, num_filters, 1, None)
