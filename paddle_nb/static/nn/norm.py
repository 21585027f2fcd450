"""``paddle.static.nn``'s normalizations and small parametric layers: layer_norm, group_norm,
instance_norm, data_norm, prelu, bilinear_tensor_product, sparse_embedding.

Names and defaults are PaddlePaddle 2.6's: a scale starts at ones (``<layer>.w_0``), a shift
at zeros (``.b_0``); group_norm and instance_norm make a scale and shift only when given a
``param_attr`` / ``bias_attr`` (2.6 leaves them out for None), and group_norm's outputs are
``_generated_var_N`` (Mean, Variance, then Y), as 2.6 names them.
"""

from __future__ import annotations

import math

from paddle_nb.framework.variable import as_tensor
from paddle_nb.errors import OpBuildError
from paddle_nb.framework import unique_name
from paddle_nb.framework.initializer import Constant
from paddle_nb.layers.helper import ParamAttr, layer_helper
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["layer_norm", "group_norm", "instance_norm", "prelu", "bilinear_tensor_product",
           "sparse_embedding", "data_norm"]


def _affine(helper: Any, inputs: Any, param_attr: bool | str | None, bias_attr: bool | str | None,
            shape: Any, dtype: DTypeLike, default_on: bool) -> Any:
    """Add ``Scale`` (ones) and ``Bias`` (zeros) parameters of ``shape`` to ``inputs``; an attr
    of None makes one only when ``default_on``."""
    for slot, attr, is_bias in (("Scale", param_attr, False), ("Bias", bias_attr, True)):
        if attr is False or (attr is None and not default_on):
            continue
        made = ParamAttr.of(attr) or ParamAttr()     # (attr is not False here)
        init = made.initializer or Constant(0.0 if is_bias else 1.0)
        inputs[slot] = helper.param(ParamAttr(made.name, init, made.learning_rate,
                                              made.regularizer, made.trainable),
                                    shape, dtype, is_bias=is_bias)
    return inputs


def layer_norm(input: Tensor, scale: bool = True, shift: bool = True, begin_norm_axis: int = 1,
               epsilon: float = 1e-05, param_attr: Any = None, bias_attr: Any = None,
               act: str | None = None, name: str | None = None) -> Tensor:
    """Normalize each sample over its dimensions from ``begin_norm_axis`` on; the scale and
    shift have one value per normalized element (``layer_norm_0.w_0`` / ``.b_0``)."""
    rank = len(input.shape)
    if not 0 < begin_norm_axis < rank:
        raise OpBuildError(f"layer_norm: begin_norm_axis must be in [1, {rank}) for an input "
                           f"of shape {list(input.shape)}, got {begin_norm_axis}")
    helper = layer_helper("layer_norm", name)
    shape = [math.prod(input.shape[begin_norm_axis:])]
    inputs = _affine(helper, {"X": input}, param_attr if scale else False,
                     bias_attr if shift else False, shape, input.dtype, default_on=True)
    mean, var, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    helper.append("layer_norm", inputs, {"Y": y, "Mean": mean, "Variance": var},
                  {"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis})
    return helper.act(helper.block.var(y), act)


def group_norm(input: Tensor, groups: int, epsilon: float = 1e-05, param_attr: str | None = None,
               bias_attr: str | None = None, act: str | None = None, data_layout: str = "NCHW",
               name: str | None = None) -> Tensor:
    """Normalize each sample over groups of channels (``group_norm``)."""
    if data_layout not in ("NCHW", "NHWC"):
        raise OpBuildError(f"group_norm: data_layout must be 'NCHW' or 'NHWC', got "
                           f"{data_layout!r}")
    channels = input.shape[1 if data_layout == "NCHW" else -1]
    if groups < 1 or channels % groups:
        raise OpBuildError(f"group_norm: groups={groups} must divide the input's {channels} "
                           f"channels (input shape {list(input.shape)})")
    helper = layer_helper("group_norm", name)
    inputs = _affine(helper, {"X": input}, param_attr, bias_attr, [channels], input.dtype,
                     default_on=False)
    mean, var, y = (unique_name.generate("_generated_var") for _ in range(3))
    helper.append("group_norm", inputs, {"Y": y, "Mean": mean, "Variance": var},
                  {"epsilon": float(epsilon), "groups": groups, "data_layout": data_layout})
    return helper.act(helper.block.var(y), act)


def instance_norm(input: Tensor, epsilon: float = 1e-05, param_attr: str | None = None,
                  bias_attr: str | None = None, name: str | None = None) -> Tensor:
    """Normalize each channel of each sample over its spatial dimensions."""
    if len(input.shape) < 2:
        raise OpBuildError(f"instance_norm: input must have at least 2 dimensions, got shape "
                           f"{list(input.shape)}")
    helper = layer_helper("instance_norm", name)
    inputs = _affine(helper, {"X": input}, param_attr, bias_attr, [input.shape[1]],
                     input.dtype, default_on=False)
    saved_mean, saved_var, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    helper.append("instance_norm", inputs,
                  {"Y": y, "SavedMean": saved_mean, "SavedVariance": saved_var},
                  {"epsilon": float(epsilon)})
    return as_tensor(helper.block.var(y))


def prelu(x: Tensor, mode: str, param_attr: Any = None, data_format: str = "NCHW",
          name: str | None = None) -> Tensor:
    """``x`` where positive, else ``alpha * x``; alpha (0.25 at first) is one value
    (``mode='all'``), one per channel (``'channel'``) or one per element (``'element'``)."""
    if mode == "all":
        shape = [1]
    elif mode == "channel":
        if len(x.shape) < 2:
            raise OpBuildError(f"prelu: mode 'channel' needs an input of 2 or more dimensions, "
                               f"got shape {list(x.shape)}")
        shape = [1, x.shape[1], 1, 1] if data_format == "NCHW" else [1, 1, 1, x.shape[-1]]
    elif mode == "element":
        shape = [1, *x.shape[1:]]
    else:
        raise OpBuildError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}")
    helper = layer_helper("prelu", name)
    alpha = helper.param(ParamAttr.of(param_attr), shape, x.dtype,
                         default_initializer=Constant(0.25))
    return helper.out("prelu", {"X": x, "Alpha": alpha},
                      {"mode": mode, "data_format": data_format})


def bilinear_tensor_product(x: Tensor, y: Tensor, size: int, act: str | None = None,
                            name: str | None = None, param_attr: Any = None, bias_attr: Any = None
                           ) -> Tensor:
    """``out[b, k] = x[b] @ W[k] @ y[b] + bias[k]``: W is [size, x_dim, y_dim] (Xavier),
    the bias [1, size] (zeros)."""
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise OpBuildError(f"bilinear_tensor_product: x and y must be 2-D, got shapes "
                           f"{list(x.shape)} and {list(y.shape)}")
    helper = layer_helper("bilinear_tensor_product", name)
    w = helper.param(ParamAttr.of(param_attr), [size, x.shape[1], y.shape[1]], x.dtype)
    inputs = {"X": x, "Y": y, "Weight": w}
    battr = ParamAttr.of(bias_attr)
    if battr is not None:
        inputs["Bias"] = helper.param(battr, [1, size], x.dtype, is_bias=True)
    return helper.act(helper.out("bilinear_tensor_product", inputs), act)


def sparse_embedding(input: Tensor, size: Sequence[int], padding_idx: int | None = None,
                     is_test: bool = False, entry: Any = None,
                     table_class: str = "MemorySparseTable", param_attr: Any = None,
                     dtype: DTypeLike = "float32", slot: str | None = None) -> Tensor:
    """Rows of a [vocab, dim] table (``sparse_embedding_0.w_0``, Xavier) picked by ``input``'s
    ids [..., 1] (the ``lookup_table`` op, its parameter-server attributes as 2.6 writes
    them; paddle_nb has no parameter server and reads none of them)."""
    helper = layer_helper("sparse_embedding")
    w = helper.param(ParamAttr.of(param_attr), list(size), dtype)
    pad = -1 if padding_idx is None else (padding_idx if padding_idx >= 0
                                          else size[0] + padding_idx)
    entry_name = "none" if entry is None else type(entry).__name__
    return helper.out("lookup_table", {"Ids": input, "W": w}, {
        "padding_idx": pad, "is_sparse": True, "is_distributed": True,
        "remote_prefetch": True, "is_test": is_test, "entry": entry_name,
        "table_class": table_class, "slot": 0 if slot is None else slot})


def data_norm(input: Tensor, act: str | None = None, epsilon: float = 1e-05,
              param_attr: Mapping[str, Any] | None = None, data_layout: str = "NCHW",
              in_place: bool = False, name: str | None = None, moving_mean_name: Any = None,
              moving_variance_name: Any = None, do_model_average_for_mean_and_var: bool = True,
              slot_dim: int = -1, sync_stats: bool = False, summary_decay_rate: float = 0.9999999,
              enable_scale_and_shift: bool = False) -> Tensor:
    """Normalize input [N, C] by running totals: ``<name>.batch_size`` (1e4 at first),
    ``.batch_sum`` (0) and ``.batch_square_sum`` (1e4) (``name`` defaults to ``dn``;
    ``param_attr`` may be a dict of those three starting values)."""
    if len(input.shape) != 2:
        raise OpBuildError(f"data_norm: input must be [N, C], got shape {list(input.shape)}")
    if slot_dim != -1 or enable_scale_and_shift:
        raise OpBuildError("data_norm: slot_dim and enable_scale_and_shift are not available "
                           "in paddle_nb")
    helper = layer_helper("data_norm", name)
    starts = {"batch_size": 1e4, "batch_sum": 0.0, "batch_square": 1e4}
    if isinstance(param_attr, dict):
        starts.update({k: param_attr[k] for k in starts if k in param_attr})
    prefix = name or "dn"
    totals = [helper.param(ParamAttr(f"{prefix}.{suffix}", Constant(float(starts[key]))),
                           [input.shape[1]], input.dtype)
              for key, suffix in (("batch_size", "batch_size"), ("batch_sum", "batch_sum"),
                                  ("batch_square", "batch_square_sum"))]
    means, scales, y = (unique_name.generate("_generated_var") for _ in range(3))
    helper.append("data_norm", {"X": input, "BatchSize": totals[0], "BatchSum": totals[1],
                                "BatchSquareSum": totals[2]},
                  {"Y": y, "Means": means, "Scales": scales},
                  {"epsilon": float(epsilon), "slot_dim": slot_dim, "sync_stats": sync_stats,
                   "summary_decay_rate": float(summary_decay_rate),
                   "data_layout": data_layout, "enable_scale_and_shift": False})
    return helper.act(helper.block.var(y), act)
