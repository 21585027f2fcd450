"""paddle.nn.functional's common functions: linear, bilinear, dropout and its kinds,
cosine_similarity, normalize, pairwise_distance, and two of PaddlePaddle's ``F.extension``
functions: sequence_mask and diag_embed.

Each appends the ops PaddlePaddle 2.6 appends in static mode: ``linear`` is ``matmul_v2``
then ``elementwise_add`` (``linear_N.tmp_0``, ``linear_N.tmp_1``); ``dropout`` is one
``dropout`` op, except that dropping whole slices (``axis``, ``dropout2d``) draws a mask of
the kept dimensions with ``uniform_random`` and multiplies; ``cosine_similarity`` is sums of
products; ``normalize`` divides by a ``p_norm``.
"""

from __future__ import annotations

import numpy

from paddle_nb.framework.variable import Variable
from paddle_nb.layers.helper import layer_helper
from paddle_nb.layers.nn import append_dropout
from paddle_nb.nn.functional import compose
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["linear", "bilinear", "dropout", "dropout2d", "dropout3d", "alpha_dropout",
           "cosine_similarity", "normalize", "pairwise_distance", "sequence_mask", "diag_embed"]

FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None
          ) -> Tensor:
    """``x @ weight + bias``: ``weight`` is [in_features, out_features], ``bias`` [out_features].

    Appends ``matmul_v2`` (writing ``linear_N.tmp_0``) and, with a bias, ``elementwise_add``
    (``linear_N.tmp_1``), as PaddlePaddle 2.6 does.
    """
    helper = layer_helper("linear", name)
    out = helper.out("matmul_v2", {"X": x, "Y": weight}, {"trans_x": False, "trans_y": False})
    if bias is None:
        return out
    return helper.out("elementwise_add", {"X": out, "Y": bias}, {"axis": -1})


def bilinear(x1: Tensor, x2: Tensor, weight: Tensor, bias: Tensor | None = None,
             name: str | None = None) -> Tensor:
    """``out[:, k] = x1 @ weight[k] @ x2^T + bias[k]``: one ``bilinear_tensor_product``.
    ``weight`` is [out_features, in1_features, in2_features], ``bias`` [1, out_features]."""
    inputs = {"X": x1, "Y": x2, "Weight": weight}
    if bias is not None:
        inputs["Bias"] = bias
    return layer_helper("bilinear", name).out("bilinear_tensor_product", inputs, {})


# -- dropout ------------------------------------------------------------------------------

_MODES = {"upscale_in_train": "upscale_in_train", "downscale_in_infer": "downgrade_in_infer"}


def _check_dropout(p: float, mode: str) -> None:
    if not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise compose.argument_error(f"dropout: p must be a number in [0, 1], got {p!r}")
    if mode not in _MODES:
        raise compose.argument_error(
            f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', "
            f"got {mode!r}")


def dropout(x: Tensor, p: float = 0.5, axis: int | Sequence[int] | None = None,
            training: bool = True, mode: str = "upscale_in_train", name: str | None = None
           ) -> Tensor:
    """Zero each element of ``x`` with probability ``p``.

    ``mode='upscale_in_train'`` scales the kept elements by ``1 / (1 - p)`` while training and
    passes ``x`` through at inference; ``'downscale_in_infer'`` keeps them as they are while
    training and scales by ``1 - p`` at inference. ``training=False`` (a layer after
    ``eval()``) builds the inference form (``is_test``). ``axis`` (an int or a list) drops
    whole slices: one draw per index of those dimensions, shared along the others.
    ``p == 0`` appends nothing and returns ``x``, as PaddlePaddle does.
    """
    _check_dropout(p, mode)
    if p == 0:
        return x
    if axis is None:
        return append_dropout(layer_helper("dropout", name), x,
                              {"dropout_prob": float(p), "is_test": not training,
                               "dropout_implementation": _MODES[mode]})
    axes = [axis] if isinstance(axis, int) else list(axis)
    rank = len(x.shape)
    if not axes or any(not -rank <= a < rank for a in axes) or len(axes) > rank:
        raise compose.argument_error(
            f"dropout: axis must name dimensions of x (rank {rank}), got {axis!r}")
    axes = sorted(a % rank for a in axes)
    if not training:
        return x if mode == "upscale_in_train" else compose.scale(x, 1.0 - p)
    return _slice_dropout(x, p, axes, mode)


def _slice_dropout(x: Tensor, p: float, axes: Any, mode: str) -> Tensor:
    """Dropout of whole slices: a uniform draw shaped like x on ``axes`` and 1 elsewhere, its
    shape read when it runs (``shape``, ``slice``), kept where it reaches ``p``."""
    upscale = 1.0 / (1.0 - p) if p < 1 else 0.0          # (p = 1 keeps nothing anyway)
    kept = x if mode == "downscale_in_infer" else compose.scale(x, upscale)
    sizes = dict(zip(axes, compose.dims_of(x, axes)))
    dims = [sizes[d] if d in sizes else compose.cpu_int(1) for d in range(len(x.shape))]
    draw = layer_helper("uniform").out(
        "uniform_random", {"ShapeTensorList": dims},
        {"shape": [-1 if d in sizes else 1 for d in range(len(x.shape))], "min": 0.0,
         "max": 1.0, "seed": 0, "dtype": x.dtype})
    threshold = compose.full([1], p, x.dtype)
    keep = layer_helper("greater_equal").out("greater_equal", {"X": draw, "Y": threshold},
                                             {"axis": -1})
    kept = compose.cast(kept, x.dtype)
    return compose.elementwise("elementwise_mul", kept, compose.cast(keep, x.dtype))


def dropout2d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCHW",
              name: str | None = None) -> Tensor:
    """Drop whole channels of a 4-D ``x`` (one draw per sample and channel)."""
    return _channel_dropout(x, p, training, data_format, "NCHW", "NHWC", 4, "dropout2d")


def dropout3d(x: Tensor, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: str | None = None) -> Tensor:
    """Drop whole channels of a 5-D ``x`` (one draw per sample and channel)."""
    return _channel_dropout(x, p, training, data_format, "NCDHW", "NDHWC", 5, "dropout3d")


def _channel_dropout(x: Tensor, p: float, training: bool, data_format: str, first: str, last: str,
                     rank: int, what: str) -> Tensor:
    if data_format not in (first, last):
        raise compose.argument_error(
            f"{what}: data_format must be '{first}' or '{last}', got {data_format!r}")
    if len(x.shape) != rank:
        raise compose.argument_error(
            f"{what}: x must be {rank}-D, got shape {tuple(x.shape)} ('{x.name}')")
    channel = 1 if data_format == first else rank - 1
    return dropout(x, p, axis=[0, channel], training=training, mode="upscale_in_train")


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def alpha_dropout(x: Tensor, p: float = 0.5, training: bool = True, name: str | None = None
                 ) -> Tensor:
    """Dropout that keeps SELU's self-normalizing mean and variance: dropped elements become
    ``-alpha * scale`` and the result is moved by an affine ``a * y + b``."""
    _check_dropout(p, "upscale_in_train")
    if not training or p == 0:
        return x
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = list(x.shape)
    draw = layer_helper("uniform").out("uniform_random", {},
                                       {"shape": shape, "min": 0.0, "max": 1.0, "seed": 0,
                                        "dtype": x.dtype})
    keep = layer_helper("greater_equal").out(
        "greater_equal", {"X": draw, "Y": compose.full(shape, p, x.dtype)}, {"axis": -1})
    keep = compose.cast(keep, x.dtype)
    drop = compose.elementwise("elementwise_sub", compose.full(shape, 1.0, x.dtype), keep)
    offset = compose.full(shape, b, x.dtype)
    y = compose.elementwise("elementwise_add", compose.elementwise("elementwise_mul", x, keep),
                            compose.scale(drop, alpha_p))
    return compose.elementwise("elementwise_add", compose.scale(y, a), offset)


# -- similarity and distance ---------------------------------------------------------------

def cosine_similarity(x1: Tensor, x2: Tensor, axis: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2))`` along ``axis``."""
    def dot(a: Tensor, b: Tensor) -> Tensor:
        return compose.reduce_sum(compose.elementwise("elementwise_mul", a, b), [axis])
    w12, w1, w2 = dot(x1, x2), dot(x1, x1), dot(x2, x2)
    product = compose.operator("elementwise_mul", w1, w2)
    clipped = compose.unary("clip", product, {"min": float(eps) ** 2, "max": FLOAT32_MAX})
    return compose.operator("elementwise_div", w12, compose.unary("sqrt", clipped))


def normalize(x: Tensor, p: int = 2, axis: int = 1, epsilon: float = 1e-12, name: str | None = None
             ) -> Tensor:
    """``x / max(norm_p(x, axis), epsilon)``: ``p_norm`` (keepdim), ``elementwise_max``,
    ``elementwise_div``."""
    norm = compose.unary("p_norm", x, {"porder": float(p), "axis": int(axis),
                                       "epsilon": float(epsilon), "keepdim": True,
                                       "asvector": False})
    floor = compose.full([1], epsilon, x.dtype)
    return compose.elementwise("elementwise_div", x,
                               compose.elementwise("elementwise_max", norm, floor))


def pairwise_distance(x: Tensor, y: Tensor, p: float = 2.0, epsilon: float = 1e-6,
                      keepdim: bool = False, name: str | None = None) -> Tensor:
    """``norm_p(x - y + epsilon)`` along the last axis."""
    diff = compose.elementwise("elementwise_sub", x, y)
    diff = compose.elementwise("elementwise_add", diff, compose.full([1], epsilon, x.dtype))
    return layer_helper("PairwiseDistance", name).out(
        "p_norm", {"X": diff}, {"porder": float(p), "axis": -1, "epsilon": 0.0,
                                "keepdim": bool(keepdim), "asvector": False})


# -- masks and diagonals (PaddlePaddle's F.extension) -------------------------------------

def sequence_mask(x: Tensor, maxlen: int | None = None, dtype: DTypeLike = "int64",
                  name: str | None = None) -> Tensor:
    """Lengths ``x`` as rows ``[1, ..., 1, 0, ..., 0]`` of width ``maxlen`` (an int, an int
    Variable, or None: the longest length, known when it runs): ``sequence_mask``."""
    inputs, attrs = {"X": x}, {"out_dtype": dtype, "maxlen": -1}
    if isinstance(maxlen, Variable):
        inputs["MaxLenTensor"] = maxlen
    elif maxlen is not None:
        attrs["maxlen"] = int(maxlen)
    return layer_helper("sequence_mask", name).out("sequence_mask", inputs, attrs, slot="Y")


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``input``'s last axis laid on the diagonal ``offset`` of new planes (dim1, dim2)."""
    return layer_helper("diag_embed").out("diag_embed", {"Input": input},
                                          {"offset": int(offset), "dim1": int(dim1),
                                           "dim2": int(dim2)})
