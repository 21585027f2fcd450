"""Convolution layers of paddle.nn: Conv1D/2D/3D and Conv1D/2D/3DTranspose.

A convolution layer owns its filter (``conv2d_0.w_0``: [out, in / groups, *kernel], a
transpose's [in, out / groups, *kernel]) and bias (``conv2d_0.b_0``, zeros) and calls the
functions of ``paddle_nb.nn.functional.conv`` in ``forward``. As in PaddlePaddle 2.6 a
convolution's filter starts from Normal(0, sqrt(2 / (in_channels * prod(kernel)))) (He's
initialization for the fan-in, *not* divided by groups) and a transpose's from Xavier's
uniform; ``padding_mode`` other than "zeros" pads with ``F.pad`` first.

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     conv = Conv2D(3, 8, 3)
>>> conv.weight.name, tuple(conv.weight.shape), conv.bias.name
('conv2d_0.w_0', (8, 3, 3, 3), 'conv2d_0.b_0')
"""

from __future__ import annotations

import math

from paddle_nb.framework.initializer import Normal
from paddle_nb.nn import functional as F
from paddle_nb.nn.functional.conv import conv_padding, to_list
from paddle_nb.nn.functional.vision_steps import add_bias, conv_helper
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


class _ConvNd(Layer):
    """What every convolution layer holds: its geometry, filter and bias."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 transposed: bool, dims: int, stride: int | Sequence[int] = 1,
                 padding: int | str | Sequence[int] = 0, padding_mode: str = "zeros",
                 output_padding: int = 0, dilation: int | Sequence[int] = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: bool | None = None, data_format: str = "NCHW"
                ) -> None:
        super().__init__()
        if weight_attr is False:
            raise ValueError(f"{type(self).__name__}: weight_attr should not be False")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type "
                            "of padding must be int")
        if not transposed and in_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) must be divisible by groups "
                             f"({groups})")
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._data_format, self._padding, self._padding_mode = data_format, padding, padding_mode
        last = data_format in CHANNEL_LAST
        self._channel_dim = len(data_format) - 1 if last else 1
        self._stride = to_list(stride, dims, "stride")
        self._dilation = to_list(dilation, dims, "dilation")
        self._kernel_size = to_list(kernel_size, dims, "kernel_size")
        self.output_padding = output_padding
        self._updated_padding, self._padding_algorithm = conv_padding(
            0 if padding_mode != "zeros" else padding, last, dims)
        # F.pad's order: the last spatial axis first, both sides of each
        self._reversed_padding_repeated_twice: Any = [padding] * (2 * dims)
        if transposed:
            shape, init = [in_channels, out_channels // groups] + self._kernel_size, None
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            init = Normal(0.0, math.sqrt(2.0 / (math.prod(self._kernel_size) * in_channels)))
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=init)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def _pad_first(self, x: Tensor) -> Tensor:
        if self._padding_mode == "zeros":
            return x
        return F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                     data_format=self._data_format)

    def extra_repr(self) -> Any:
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * len(self._stride):
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    """1-D convolution over x [N, C, L] (or NLC): ``F.conv1d`` with this layer's filter."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, dilation: int = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL") -> None:
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride, padding,
                         padding_mode, 0, dilation, groups, weight_attr, bias_attr, data_format)

    def forward(self, x: Tensor) -> Tensor:
        return F.conv1d(self._pad_first(x), self.weight, bias=self.bias,
                        padding=0 if self._padding_mode != "zeros" else self._padding,
                        stride=self._stride, dilation=self._dilation, groups=self._groups,
                        data_format=self._data_format)


class _ConvOp(_ConvNd):
    """Conv2D and Conv3D: they append their op directly, as 2.6's layers do (the op type
    chosen once: depthwise_conv2d when every input channel is its own group)."""

    def _op_type(self, dims: int) -> str:
        if dims == 2 and self._in_channels == self._groups != 1 and \
                self._out_channels % self._in_channels == 0:
            return "depthwise_conv2d"
        return f"conv{dims}d"

    def _conv(self, x: Tensor, dims: int) -> Tensor:
        op_type = self._op_type(dims)
        helper = conv_helper(op_type)
        pre_bias = helper.out(op_type, {"Input": self._pad_first(x), "Filter": self.weight}, {
            "strides": self._stride, "paddings": self._updated_padding,
            "dilations": self._dilation, "groups": self._groups,
            "padding_algorithm": self._padding_algorithm, "data_format": self._data_format},
            slot="Output")
        return add_bias(helper, pre_bias, self.bias, self._channel_dim)


class Conv2D(_ConvOp):
    """2-D convolution over x [N, C, H, W] (or NHWC)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int = 1, padding: int | str = 0, dilation: int | Sequence[int] = 1,
                 groups: int = 1, padding_mode: str = "zeros", weight_attr: Any = None,
                 bias_attr: bool | None = None, data_format: str = "NCHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride, padding,
                         padding_mode, 0, dilation, groups, weight_attr, bias_attr, data_format)

    def forward(self, x: Tensor) -> Tensor:
        return self._conv(x, 2)


class Conv3D(_ConvOp):
    """3-D convolution over x [N, C, D, H, W] (or NDHWC)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int,
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 dilation: int = 1, groups: int = 1, padding_mode: str = "zeros",
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW"
                ) -> None:
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride, padding,
                         padding_mode, 0, dilation, groups, weight_attr, bias_attr, data_format)

    def forward(self, x: Tensor) -> Tensor:
        return self._conv(x, 3)


class Conv1DTranspose(_ConvNd):
    """Transposed 1-D convolution (conv1d's adjoint) over x [N, C, L] (or NLC)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, groups: int = 1, dilation: int = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL") -> None:
        super().__init__(in_channels, out_channels, kernel_size, True, 1, stride, padding,
                         "zeros", output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)

    def forward(self, x: Tensor, output_size: Any = None) -> Tensor:
        return F.conv1d_transpose(x, self.weight, bias=self.bias, output_size=output_size,
                                  output_padding=self.output_padding, padding=self._padding,
                                  stride=self._stride, dilation=self._dilation,
                                  groups=self._groups, data_format=self._data_format)


class Conv2DTranspose(_ConvNd):
    """Transposed 2-D convolution over x [N, C, H, W] (or NHWC)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, dilation: int = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, True, 2, stride, padding,
                         "zeros", output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)

    def forward(self, x: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.conv2d_transpose(
            x, self.weight, bias=self.bias, padding=self._padding,
            output_padding=self.output_padding if output_size is None else 0,
            stride=self._stride, dilation=self._dilation, groups=self._groups,
            output_size=output_size, data_format=self._data_format)


class Conv3DTranspose(_ConvNd):
    """Transposed 3-D convolution over x [N, C, D, H, W] (or NDHWC)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, dilation: int = 1, groups: int = 1,
                 weight_attr: Any = None, bias_attr: bool | None = None, data_format: str = "NCDHW"
                ) -> None:
        super().__init__(in_channels, out_channels, kernel_size, True, 3, stride, padding,
                         "zeros", output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)

    def forward(self, x: Tensor, output_size: Any = None) -> Tensor:
        return F.conv3d_transpose(
            x, self.weight, bias=self.bias, padding=self._padding,
            output_padding=self.output_padding if output_size is None else 0,
            stride=self._stride, dilation=self._dilation, groups=self._groups,
            output_size=output_size, data_format=self._data_format)
