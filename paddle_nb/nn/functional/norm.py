"""Normalizations of ``paddle.nn.functional``: batch_norm, layer_norm, instance_norm,
local_response_norm, in static mode, each one op as PaddlePaddle 2.6 writes it.

``batch_norm`` updates the running statistics in place (MeanOut and VarianceOut are
the running Mean and Variance variables) while ``training``; otherwise, and with
``use_global_stats``, it normalizes by them. Weight and bias are optional: an op
without Scale/Bias scales by 1 and shifts by 0.
(``F.normalize`` is not here: it is an L_p normalization, in ``functional.common``.)
"""

from __future__ import annotations

from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["batch_norm", "layer_norm", "instance_norm", "local_response_norm"]

CHANNEL_LAST = ("NHWC", "NLC", "NDHWC")
CHANNEL_FIRST = ("NCHW", "NC", "NCL", "NCDHW")


def data_layout(data_format: str, function: str) -> str:
    """The op's data_layout ("NCHW" or "NHWC") for a 2.x data_format."""
    if data_format in CHANNEL_FIRST:
        return "NCHW"
    if data_format in CHANNEL_LAST:
        return "NHWC"
    raise ValueError(f"{function}: data_format must be one of "
                     f"{', '.join(CHANNEL_FIRST + CHANNEL_LAST)}, got {data_format!r}")


def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.9,
               epsilon: float = 1e-05, data_format: str = "NCHW",
               use_global_stats: bool | None = None, name: str | None = None) -> Tensor:
    """Normalize each channel of ``x`` by the batch's statistics (``training``, which also
    updates ``running_mean``/``running_var`` with ``momentum``) or by the running ones."""
    layout = data_layout(data_format, "batch_norm")
    if use_global_stats is None:
        use_global_stats = not training
    helper = layer_helper("batch_norm")
    saved_mean, saved_var, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    inputs = {"X": x, "Mean": running_mean, "Variance": running_var}
    if weight is not None:
        inputs["Scale"] = weight
    if bias is not None:
        inputs["Bias"] = bias
    outputs = {"Y": y, "MeanOut": running_mean, "VarianceOut": running_var,
               "SavedMean": saved_mean, "SavedVariance": saved_var}
    if training:
        outputs["ReserveSpace"] = helper.tmp_name()
    attrs = {"momentum": float(momentum), "epsilon": float(epsilon), "is_test": not training,
             "data_layout": layout, "use_global_stats": bool(use_global_stats),
             "trainable_statistics": False}
    helper.append("batch_norm", inputs, outputs, attrs)
    for name_ in (saved_mean, saved_var):
        helper.block.var(name_).stop_gradient = True
    return as_tensor(helper.block.var(y))


def layer_norm(x: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, epsilon: float = 1e-05, name: str | None = None
              ) -> Tensor:
    """Normalize over the trailing dimensions ``normalized_shape`` of each sample."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    rank = len(x.shape)
    trailing = list(x.shape[rank - len(normalized_shape):])
    if list(normalized_shape) != trailing:
        raise ValueError(f"layer_norm: normalized_shape {list(normalized_shape)} must be the "
                         f"trailing dimensions of x, whose shape is {list(x.shape)}")
    helper = layer_helper("layer_norm")
    mean, var, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    inputs = {"X": x}
    if weight is not None:
        inputs["Scale"] = weight
    if bias is not None:
        inputs["Bias"] = bias
    helper.append("layer_norm", inputs, {"Y": y, "Mean": mean, "Variance": var},
                  {"epsilon": float(epsilon), "begin_norm_axis": rank - len(normalized_shape)})
    return as_tensor(helper.block.var(y))


def instance_norm(x: Tensor, running_mean: Any = None, running_var: Any = None,
                  weight: Tensor | None = None, bias: Tensor | None = None,
                  use_input_stats: bool = True, momentum: float = 0.9, eps: float = 1e-05,
                  data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Normalize each channel of each sample over its spatial dimensions (NC... layouts)."""
    if data_layout(data_format, "instance_norm") != "NCHW":
        raise ValueError(f"instance_norm: paddle_nb takes channel-first data (NCL, NCHW, NCDHW), "
                         f"got data_format {data_format!r}")
    helper = layer_helper("instance_norm")
    saved_mean, saved_var, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    inputs = {"X": x}
    if weight is not None:
        inputs["Scale"] = weight
    if bias is not None:
        inputs["Bias"] = bias
    helper.append("instance_norm", inputs,
                  {"Y": y, "SavedMean": saved_mean, "SavedVariance": saved_var},
                  {"epsilon": float(eps)})
    return as_tensor(helper.block.var(y))


def local_response_norm(x: Tensor, size: int, alpha: float = 0.0001, beta: float = 0.75,
                        k: float = 1.0, data_format: str = "NCHW", name: str | None = None
                       ) -> Tensor:
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels)^beta.

    PaddlePaddle 2.6 composes this from pad3d and pool3d; paddle_nb writes the one ``lrn``
    op it is equal to (its alpha is a sum's scale: alpha / size), for 3-D to 5-D input
    reshaped to 4-D. An even ``size`` centres the window differently in the two: not taken.
    """
    layout = data_layout(data_format, "local_response_norm")
    rank = len(x.shape)
    if not 3 <= rank <= 5:
        raise ValueError(f"local_response_norm: x must be 3-D to 5-D, got shape {list(x.shape)}")
    if size % 2 == 0:
        raise NotImplementedError("local_response_norm: paddle_nb takes an odd size only (the "
                                  f"lrn op centres an even window differently), got {size}")
    helper = layer_helper("local_response_norm")
    as_4d = _four_d(x.shape, layout)
    x4 = x if as_4d == list(x.shape) else _reshape(helper, x, as_4d)
    out, mid = helper.tmp_name(), helper.tmp_name()
    helper.append("lrn", {"X": x4}, {"Out": out, "MidOut": mid},
                  {"n": int(size), "k": float(k), "alpha": float(alpha) / size,
                   "beta": float(beta), "data_format": layout})
    lrn = as_tensor(helper.block.var(out))
    return lrn if as_4d == list(x.shape) else _reshape(helper, lrn, list(x.shape))


def _four_d(shape: Any, layout: str) -> Any:
    """The 4-D shape an N-C-spatial tensor takes for lrn (trailing dims merged or a 1 added)."""
    shape = [int(d) for d in shape]
    if len(shape) == 4:
        return shape
    if layout == "NCHW":
        return shape + [1] if len(shape) == 3 else shape[:3] + [shape[3] * shape[4]]
    return shape[:2] + [1, shape[2]] if len(shape) == 3 else \
        [shape[0], shape[1] * shape[2], shape[3], shape[4]]


def _reshape(helper: Any, x: Tensor, shape: Any) -> Any:
    out, xshape = helper.tmp_name(), helper.tmp_name()
    helper.append("reshape2", {"X": x}, {"Out": out, "XShape": xshape}, {"shape": shape})
    return helper.block.var(out)
