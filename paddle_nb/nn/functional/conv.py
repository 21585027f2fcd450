"""Convolutions of paddle.nn.functional: conv1d/2d/3d and their transposes, static mode.

Each function appends the op PaddlePaddle 2.6 appends, with its attributes: ``conv2d``
(``depthwise_conv2d`` when every input channel is its own group), ``conv3d``,
``conv2d_transpose`` (``depthwise_conv2d_transpose`` for one filter per channel) and
``conv3d_transpose`` (written with data_format "NCHW"/"NHWC" as 2.6 writes it). A 1-D
convolution is a 2-D one over an unsqueezed height (or width) of 1: unsqueeze2, conv2d,
squeeze2, as 2.6 builds it. ``padding`` is an int, a list (one value per spatial axis, two
per axis, or a pair per axis of the whole tensor), or "SAME" / "VALID".
"""

from __future__ import annotations

from paddle_nb.framework.variable import Variable
from paddle_nb.nn.functional.vision_steps import (add_bias, add_with_axis, assign, conv_helper,
                                                  squeeze, unsqueeze)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]


# ---- arguments, normalized as 2.6 does ----

def to_list(value: int | Sequence[int], n: int, name: str) -> list[int]:
    """An int repeated ``n`` times, or a list/tuple of ``n`` ints."""
    if isinstance(value, int):
        return [value] * n
    values = list(value)
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise ValueError(f"{name} must be an int or {n} ints, got {value!r}")
    return values


def _symmetric(padding: Any, n: int) -> bool:
    return all(padding[2 * i] == padding[2 * i + 1] for i in range(n))


def conv_padding(padding: Any, channel_last: bool, n: int) -> tuple[list[int], str]:
    """(paddings, padding_algorithm) as 2.6 writes them: [p] * n, 2n values unless
    symmetric, or [0] * n with "SAME" / "VALID"."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        return [0] * n, algorithm
    if isinstance(padding, (list, tuple)):
        padding = list(padding)
        if len(padding) == n + 2 and isinstance(padding[0], (list, tuple)):
            keep = padding[1:-1] if channel_last else padding[2:]
            dropped = [padding[0], padding[-1]] if channel_last else padding[:2]
            if any(list(p) != [0, 0] for p in dropped):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel "
                                 "dimensions is not supported.")
            padding = [v for pair in keep for v in pair]
        if len(padding) == 2 * n:
            padding = padding[0::2] if _symmetric(padding, n) else padding
        elif len(padding) != n:
            raise ValueError(f"Invalid padding: {padding}")
    else:
        padding = [padding] * n
    if any(p < 0 for p in padding):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, but "
                         f"received: {padding}")
    return padding, "EXPLICIT"


def _check_format(data_format: str, allowed: Any) -> bool:
    if data_format not in allowed:
        raise ValueError(f"data_format must be one of {list(allowed)}, got '{data_format}'")
    return data_format in ("NLC", "NHWC", "NDHWC")


def _channels(x: Tensor, weight: Tensor, channel_last: bool, groups: int, rank: int, what: str
             ) -> int:
    if len(x.shape) != rank:
        raise ValueError(f"{what}: x must be a {rank}-D tensor, got shape {tuple(x.shape)}")
    channels = x.shape[-1 if channel_last else 1]
    if channels < 0:
        raise ValueError(f"{what}: the channel dimension of x (shape {tuple(x.shape)}) must be "
                         "known")
    if groups <= 0 or channels % groups:
        raise ValueError(f"{what}: groups={groups} must divide x's {channels} channels")
    return channels


def _output_extras(output_size: Any, output_padding: int | Sequence[int], n: int) -> Any:
    if output_size is None:
        size = []
    elif isinstance(output_size, Variable) or (isinstance(output_size, (list, tuple)) and any(
            isinstance(v, Variable) for v in output_size)):
        raise NotImplementedError("output_size given as a Tensor is not available in paddle_nb; "
                                  "give ints (or use output_padding)")
    else:
        if output_padding != 0:
            raise ValueError("output_padding option is mutually exclusive with output_size")
        size = to_list(output_size, n, "output_size")
    return size, ([] if output_padding == 0 else to_list(output_padding, n, "output_padding"))


# ---- convolutions ----

def _conv_nd(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
             algorithm: str, dilation: Any, groups: int, data_format: str, channel_dim: int,
             op_type: str) -> Tensor:
    helper = conv_helper(op_type)
    pre_bias = helper.out(op_type, {"Input": x, "Filter": weight},
                          {"strides": stride, "paddings": padding, "dilations": dilation,
                           "groups": groups, "padding_algorithm": algorithm,
                           "data_format": data_format}, slot="Output")
    return add_bias(helper, pre_bias, bias, channel_dim)


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | Sequence[int] = 1,
           padding: int | str | Sequence[Any] = 0, dilation: int | Sequence[int] = 1,
           groups: int = 1, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """2-D convolution of x [N, C, H, W] (or NHWC) with weight [M, C/groups, kh, kw]."""
    last = _check_format(data_format, ("NCHW", "NHWC"))
    channels = _channels(x, weight, last, groups, 4, "conv2d")
    filters = weight.shape[0]
    if filters % groups:
        raise ValueError(f"conv2d: groups={groups} must divide the {filters} filters")
    pads, algorithm = conv_padding(padding, last, 2)
    op_type = "conv2d"
    if channels == groups and channels != 1 and filters % channels == 0:
        op_type = "depthwise_conv2d"
    return _conv_nd(x, weight, bias, to_list(stride, 2, "stride"), pads, algorithm,
                    to_list(dilation, 2, "dilation"), groups, data_format, -1 if last else 1,
                    op_type)


def conv3d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | Sequence[int] = 1,
           padding: int | str | Sequence[Any] = 0, dilation: int | Sequence[int] = 1,
           groups: int = 1, data_format: str = "NCDHW", name: str | None = None) -> Tensor:
    """3-D convolution of x [N, C, D, H, W] (or NDHWC) with weight [M, C/groups, kd, kh, kw]."""
    last = _check_format(data_format, ("NCDHW", "NDHWC"))
    _channels(x, weight, last, groups, 5, "conv3d")
    if weight.shape[0] % groups:
        raise ValueError(f"conv3d: groups={groups} must divide the {weight.shape[0]} filters")
    pads, algorithm = conv_padding(padding, last, 3)
    return _conv_nd(x, weight, bias, to_list(stride, 3, "stride"), pads, algorithm,
                    to_list(dilation, 3, "dilation"), groups, data_format, -1 if last else 1,
                    "conv3d")


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | Sequence[int] = 1,
           padding: int | str | Sequence[Any] = 0, dilation: int | Sequence[int] = 1,
           groups: int = 1, data_format: str = "NCL", name: str | None = None) -> Tensor:
    """1-D convolution of x [N, C, L] (or NLC) with weight [M, C/groups, k]: unsqueeze2 to
    a height of 1, conv2d, squeeze2, as 2.6 builds it."""
    last = _check_format(data_format, ("NCL", "NLC"))
    _channels(x, weight, last, groups, 3, "conv1d")
    if weight.shape[0] % groups:
        raise ValueError(f"conv1d: groups={groups} must divide the {weight.shape[0]} filters")
    pads, algorithm = conv_padding(padding, last, 1)
    pads = ([0, 0] if len(pads) == 2 else [0]) + pads
    axis = -3 if last else -2
    weight = unsqueeze(assign(weight), [-2])
    x = unsqueeze(x, [axis])
    helper = conv_helper("conv2d")
    out = helper.out("conv2d", {"Input": x, "Filter": weight},
                     {"strides": [1] + to_list(stride, 1, "stride"), "paddings": pads,
                      "dilations": [1] + to_list(dilation, 1, "dilation"), "groups": groups,
                      "padding_algorithm": algorithm,
                      "data_format": "NHWC" if last else "NCHW"}, slot="Output")
    if bias is not None:
        out = add_with_axis(out, bias, -1 if last else 1)
    return squeeze(out, [axis])


# ---- transposed convolutions ----

def _transpose_attrs(stride: Any, padding: Any, algorithm: str, dilation: Any, groups: int,
                     output_size: Any, output_padding: Any, data_format: str) -> Any:
    return {"strides": stride, "paddings": padding, "padding_algorithm": algorithm,
            "dilations": dilation, "groups": groups, "output_size": output_size,
            "output_padding": output_padding, "data_format": data_format}


def conv2d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: int | Sequence[int] = 1, padding: int | str | Sequence[Any] = 0,
                     output_padding: int | Sequence[int] = 0,
                     dilation: int | Sequence[int] = 1, groups: int = 1,
                     output_size: Sequence[int] | None = None, data_format: str = "NCHW",
                     name: str | None = None) -> Tensor:
    """Transposed 2-D convolution (conv2d's adjoint) of x with weight [C, M/groups, kh, kw]."""
    last = _check_format(data_format, ("NCHW", "NHWC"))
    channels = _channels(x, weight, last, groups, 4, "conv2d_transpose")
    pads, algorithm = conv_padding(padding, last, 2)
    size, extra = _output_extras(output_size, output_padding, 2)
    op_type = "conv2d_transpose"
    if channels == groups and channels != 1 and weight.shape[1] == 1:
        op_type = "depthwise_conv2d_transpose"
    helper = conv_helper(op_type)
    pre_bias = helper.out(op_type, {"Input": x, "Filter": weight}, _transpose_attrs(
        to_list(stride, 2, "stride"), pads, algorithm, to_list(dilation, 2, "dilation"),
        groups, size, extra, data_format), slot="Output")
    return add_bias(helper, pre_bias, bias, -1 if last else 1)


def conv3d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: int | Sequence[int] = 1, padding: int | str | Sequence[Any] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1, output_size: Any = None,
                     data_format: str = "NCDHW", name: str | None = None) -> Tensor:
    """Transposed 3-D convolution of x with weight [C, M/groups, kd, kh, kw]."""
    last = _check_format(data_format, ("NCDHW", "NDHWC"))
    _channels(x, weight, last, groups, 5, "conv3d_transpose")
    pads, algorithm = conv_padding(padding, last, 3)
    size, extra = _output_extras(output_size, output_padding, 3)
    helper = conv_helper("conv3d_transpose")
    pre_bias = helper.out("conv3d_transpose", {"Input": x, "Filter": weight}, _transpose_attrs(
        to_list(stride, 3, "stride"), pads, algorithm, to_list(dilation, 3, "dilation"),
        groups, size, extra, "NHWC" if last else "NCHW"), slot="Output")
    if bias is None:
        return pre_bias
    return add_with_axis(pre_bias, bias, -1 if last else 1)


def conv1d_transpose(x: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: int | Sequence[int] = 1, padding: int | str | Sequence[Any] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1, output_size: Any = None,
                     data_format: str = "NCL", name: str | None = None) -> Tensor:
    """Transposed 1-D convolution: unsqueeze2 to a width of 1, conv2d_transpose, squeeze2."""
    last = _check_format(data_format, ("NCL", "NLC"))
    channels = _channels(x, weight, last, groups, 3, "conv1d_transpose")
    pads, algorithm = conv_padding(padding, last, 1)
    pads = pads + ([0, 0] if len(pads) == 2 else [0])
    size, extra = _output_extras(output_size, output_padding, 1)
    size, extra = (size + [1] if size else []), (extra + [0] if extra else [])
    op_type = "conv2d_transpose"
    if channels == groups and channels != 1 and weight.shape[1] == 1:
        op_type = "depthwise_conv2d_transpose"
    axis = -2 if last else -1
    x = unsqueeze(x, [axis])
    weight = unsqueeze(weight, [-1])
    helper = conv_helper(op_type)
    out = helper.out(op_type, {"Input": x, "Filter": weight}, _transpose_attrs(
        to_list(stride, 1, "stride") + [1], pads, algorithm,
        to_list(dilation, 1, "dilation") + [1], groups, size, extra,
        "NHWC" if last else "NCHW"), slot="Output")
    if bias is not None:
        out = add_with_axis(out, bias, -1 if last else 1)
    return squeeze(out, [axis])
