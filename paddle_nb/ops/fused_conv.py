"""``fused_conv2d_bias_act``: a convolution, its per-channel bias and its activation in one op
(inference only: no grad op).

The inference passes (``paddle_nb/passes/fuse_act.py``) write it in place of the chain
``conv2d -> elementwise_add(bias) -> activation`` they find after folding batch_norm, as
PaddlePaddle Inference's oneDNN passes write ``fused_conv2d`` with ``fuse_activation``. It is a
paddle_nb op type, not PaddlePaddle's: a program holding it runs here only. One op instead of
three saves two interpretations and two temporaries per convolution; the bias and the
activation run in place on the convolution's fresh output.

    Output = act(conv2d(Input, Filter) + Bias[c])

``fuse_activation`` names the activation ("" for none): relu, relu6 (``fuse_alpha`` = its
threshold), sigmoid, silu / swish, hard_swish (PaddlePaddle's defaults: offset 3, threshold 6,
scale 6), hard_sigmoid (``fuse_alpha`` slope, ``fuse_beta`` offset), leaky_relu (``fuse_alpha``),
gelu (``fuse_beta`` 1: its tanh approximation).
"""

import math
from typing import Any

from paddle_nb.ops.activation_param import erf, sigmoid_into
from paddle_nb.ops.conv import conv2d_output
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, get, register

__all__ = ["ACTIVATIONS", "apply_activation"]


def _clip_into(xp, y, low, high):
    """y clipped to [low, high] in place (two ufuncs: cheaper than ``clip``'s wrapper)."""
    xp.maximum(y, low, out=y)
    return xp.minimum(y, high, out=y)


def _hard_sigmoid(xp, y, slope, offset):
    y *= slope
    y += offset
    return _clip_into(xp, y, 0, 1)


def _hard_swish(xp, y, alpha, beta):
    gate = xp.clip(y, -3.0, 3.0)    # clip(y + 3, 0, 6) - 3, the same floats, one pass fewer
    gate += 3.0
    y *= gate
    y /= 6.0
    return y


def _swish(xp, y, alpha, beta):
    y *= sigmoid_into(xp, y.copy(), None)
    return y


def _gelu(xp, y, alpha, beta):
    if beta:        # the tanh approximation
        inner = xp.tanh(math.sqrt(2.0 / math.pi) * (y + 0.044715 * y ** 3))
    else:
        inner = erf(xp, y / math.sqrt(2.0))
    y *= 0.5 * (1 + inner)
    return y


# name -> f(xp, y, alpha, beta): the activation applied to y in place (y is the op's own array)
ACTIVATIONS = {
    "": lambda xp, y, a, b: y,
    "relu": lambda xp, y, a, b: xp.maximum(y, 0, out=y),
    "relu6": lambda xp, y, a, b: _clip_into(xp, y, 0, a),
    "leaky_relu": lambda xp, y, a, b: xp.where(y >= 0, y, y * a),
    "sigmoid": lambda xp, y, a, b: sigmoid_into(xp, y, y),
    "silu": _swish,
    "swish": _swish,
    "hard_swish": _hard_swish,
    "hard_sigmoid": lambda xp, y, a, b: _hard_sigmoid(xp, y, a, b),
    "gelu": _gelu,
}


def apply_activation(xp, y, name, alpha=0.0, beta=0.0):
    """``y`` through activation ``name`` of :data:`ACTIVATIONS` (in place where it can)."""
    return ACTIVATIONS[name](xp, y, alpha, beta)


CONV_ATTR_NAMES = ("strides", "paddings", "padding_algorithm", "data_format", "dilations",
                   "groups")


def _conv_attrs(attrs):
    return {**{k: attrs[k] for k in CONV_ATTR_NAMES}, "is_test": True}


def _infer(x, w, bias=None, *, fuse_activation, fuse_alpha, fuse_beta, **attrs):
    conv_infer: Any = get("conv2d").infer
    out = conv_infer(x, w, **_conv_attrs(attrs))
    channels = out.shape[3 if attrs["data_format"] == "NHWC" else 1]
    if bias is not None and (len(bias.shape) != 1 or bias.shape[0] not in (channels, -1)):
        fail(f"Bias must be 1-D with one value per output channel ({channels}), got shape "
             f"{list(bias.shape)}")
    if fuse_activation not in ACTIVATIONS:
        fail(f"fuse_activation '{fuse_activation}' is not one of {sorted(ACTIVATIONS)}")
    return out


def _kernel(ctx, x, w, bias=None, *, fuse_activation, fuse_alpha, fuse_beta, strides, paddings,
            padding_algorithm, data_format, dilations, groups):
    xp = ctx.xp
    y = conv2d_output(xp, x, w, strides, paddings, padding_algorithm, data_format, dilations,
                      groups)                                    # a fresh array: GEMM's result
    if bias is not None:
        y += bias.reshape((-1,) if data_format == "NHWC" else (-1, 1, 1))
    return apply_activation(xp, y, fuse_activation, fuse_alpha, fuse_beta)


register(OpDef(
    "fused_conv2d_bias_act", inputs=["Input", "Filter", Slot("Bias", dispensable=True)],
    outputs=["Output"],
    attrs={**{k: v for k, v in get("conv2d").attrs.items() if k in CONV_ATTR_NAMES},
           "fuse_activation": Attr("str", ""), "fuse_alpha": Attr("float", 0.0),
           "fuse_beta": Attr("float", 0.0)},
    infer=_infer, kernel=_kernel,
    doc="Output = act(conv2d(Input, Filter) + Bias[c]) (paddle_nb's, inference only: the "
        "passes write it)"))
