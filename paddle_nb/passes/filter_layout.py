"""Convolution filters stored channels last, once at load time, where the kernel runs faster so.

conv2d's kernel turns image windows into GEMM columns (im2col). From an NCHW image a window's
values come in runs of OW pixels: a 4x4 image copies runs of 4 values, thousands of them, and
on ResNet-18's or PP-HGNet's small images that copy costs as much as the GEMM. From the image
laid channels last (N, H, W, C) a window row of kw taps is one run of kw*C values, and the GEMM
then wants the filter as (M, kh*kw*C): the filter laid (M, kh, kw, C). Transposing the filter on
every run would cost a pass over it (a 2.4 MB copy for a 3x3 256->256 filter), so this pass
stores it once: a new persistable ``<filter>.hwc`` with the same shape and values, (M, C, kh,
kw), whose memory is laid (M, kh, kw, C) (its strides say so, and the kernel reads them:
``conv.channels_last``). OneDNN's predictor chooses its filter layouts at load time likewise.

It serves where measured faster (``conv.prefers_channels_last``: images of at most 64 output
pixels, or many pixels and few output channels, and at least 16 input channels) and where the
program declares the image size (an image of unknown size keeps its filter). A layout changes no
value, so a wrong declared size costs speed, never a result. Dense convolutions only (groups 1):
depthwise filters have one input channel, both layouts are one. The old filter stays in the scope
(the original program still runs there). Filters on a GPU stay as they are: the layout serves
NumPy's im2col, and CuPy would store the copy contiguous anyway.
"""

import numpy as np

from paddle_nb.ops.conv import prefers_channels_last
from paddle_nb.ops.machinery.window import out_hw, resolve_padding
from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses, rename_input
from paddle_nb.passes.values import host_value, new_param, place_of

__all__ = ["filter_layout", "FILTER_LAYOUT"]

CONVS = ("conv2d", "fused_conv2d_bias_act")


def _output_pixels(op, x_shape, w_shape):
    """OH * OW of ``op`` over images of the declared ``x_shape``, or None when unknown."""
    if len(x_shape) != 4 or min(x_shape[2:]) <= 0:
        return None
    pads, dil = resolve_padding(x_shape[2:], w_shape[2:], op.attr("strides"),
                                op.attr("paddings"), op.attr("dilations"),
                                op.attr("padding_algorithm"))
    o_hw = out_hw(x_shape[2:], w_shape[2:], op.attr("strides"), pads, dil)
    return o_hw[0] * o_hw[1]


def _relay(glob, scope, uses, op, result, done):
    weight = op.input("Filter")[0]
    var = glob.find_var(weight)
    fixed = var is not None and var.persistable and not uses.writers.get(weight)
    if not fixed or place_of(scope, [weight]).is_gpu():
        return
    w = host_value(scope, weight)
    if (not isinstance(w, np.ndarray) or w.ndim != 4 or op.attr("groups") != 1
            or op.attr("data_format") not in ("NCHW", "AnyLayout") or w.shape[1] == 1
            or w.shape[2] * w.shape[3] == 1):
        return
    x_var = glob.find_var(op.input("Input")[0])
    pixels = None if x_var is None else _output_pixels(op, tuple(x_var.shape), w.shape)
    if pixels is None or not prefers_channels_last(w.shape[1], w.shape[0], pixels):
        return
    if weight not in done:
        laid = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        name = new_param(glob, scope, weight, "hwc", laid)   # (set() copies, keeping the layout)
        done[weight] = name
        result.changes.append(("relaid", op.type, f"{weight} {list(w.shape)} -> {name}, "
                               "laid (M, kh, kw, C)"))
    rename_input(op, weight, done[weight])


def filter_layout(program, scope, result):
    """Store the filters of the convolutions that run faster so channels last."""
    if scope is None:
        return
    glob = program.global_block()
    uses = Uses(program, result.keep)
    done: dict[str, str] = {}      # old filter -> its channels-last copy
    for op in glob.ops:
        if op.type in CONVS:
            _relay(glob, scope, uses, op, result, done)
    program.bump_version()


FILTER_LAYOUT = Pass("filter_layout", filter_layout)
