"""``paddle.static.nn``'s layers with parameters: fc, conv2d, batch_norm, embedding.

The ops are the Fluid-1.8 layers' (``paddle_nb.layers.nn``, built by the same ``*_with``
functions); what differs is PaddlePaddle 2.x's signatures and names: a 2.x call names its
layer from the process-wide generator (``fc_0``, ``conv2d_0``), so its parameters are
``fc_0.w_0`` / ``fc_0.b_0`` as in PaddlePaddle 2.6, and its defaults are 2.6's (conv2d's
filter starts from N(0, 2 / fan_in), batch_norm's running statistics are ``.w_1``/``.w_2``).
"""

from __future__ import annotations

import math

from paddle_nb.errors import OpBuildError
from paddle_nb.framework.initializer import Normal
from paddle_nb.layers.helper import layer_helper
from paddle_nb.layers.nn import batch_norm_with, conv2d_with, embedding_with, fc_with
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor
    from paddle_nb.layers.helper import ParamAttr

__all__ = ["fc", "conv2d", "batch_norm", "embedding", "sequence_not_available", "not_available"]


def fc(x: Tensor, size: int, num_flatten_dims: int = 1, weight_attr: ParamAttr | None = None,
       bias_attr: Any = None, activation: str | None = None, name: str | None = None) -> Tensor:
    """``activation(x @ W + b)`` (``mul``, ``elementwise_add``, the activation): x's
    dimensions from ``num_flatten_dims`` on are flattened into the rows of W [in, size].
    ``x`` may be a list (one weight each, products summed with ``sum``)."""
    return fc_with(layer_helper("fc", name), x, size, num_flatten_dims, activation,
                   weight_attr, bias_attr)


def conv2d(input: Tensor, num_filters: int, filter_size: int, stride: int = 1, padding: int = 0,
           dilation: int = 1, groups: Any = None, param_attr: Any = None, bias_attr: Any = None,
           use_cudnn: bool = True, act: str | None = None, name: str | None = None,
           data_format: str = "NCHW") -> Tensor:
    """A 2-D convolution with bias and activation (``conv2d``, ``elementwise_add``, act); the
    filter [num_filters, C / groups, kh, kw] starts from N(0, 2 / (kh * kw * C))."""
    if data_format not in ("NCHW", "NHWC"):
        raise OpBuildError(f"conv2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    channels = input.shape[1 if data_format == "NCHW" else 3]
    kh, kw = (filter_size, filter_size) if isinstance(filter_size, int) else filter_size
    init = Normal(0.0, math.sqrt(2.0 / (kh * kw * channels)))
    return conv2d_with(layer_helper("conv2d", name), input, num_filters, filter_size, stride,
                       padding, dilation, groups, param_attr, bias_attr, act, data_format,
                       default_initializer=init, extra_attrs={"padding_algorithm": "EXPLICIT"})


def batch_norm(input: Tensor, act: str | None = None, is_test: bool = False, momentum: float = 0.9,
               epsilon: float = 1e-05, param_attr: Any = None, bias_attr: Any = None,
               data_layout: str = "NCHW", in_place: bool = False, name: str | None = None,
               moving_mean_name: Any = None, moving_variance_name: Any = None,
               do_model_average_for_mean_and_var: bool = True, use_global_stats: bool = False
              ) -> Tensor:
    """Batch normalization: scale ``.w_0`` (ones), bias ``.b_0`` (zeros), running mean
    ``.w_1`` and variance ``.w_2`` (not trainable) unless named."""
    return batch_norm_with(layer_helper("batch_norm", name), input, act, is_test, momentum,
                           epsilon, param_attr, bias_attr, data_layout, moving_mean_name,
                           moving_variance_name, use_global_stats, reserve_space=True)


def embedding(input: Tensor, size: Sequence[int], is_sparse: bool = False,
              is_distributed: bool = False, padding_idx: Any = None, param_attr: Any = None,
              dtype: DTypeLike = "float32") -> Tensor:
    """Rows of a [vocab, dim] table (``embedding_N.w_0``) picked by ``input``'s ids
    (``lookup_table_v2``); ``padding_idx``'s row reads as zeros."""
    return embedding_with(layer_helper("embedding"), input, size, is_sparse, padding_idx,
                          param_attr, dtype)


def sequence_not_available(name: str) -> Any:
    """The error of a ``paddle.static.nn.sequence_*`` function (LoD sequences are out of
    paddle_nb's 2.x API)."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OpBuildError(f"paddle.static.nn.{name} is not available in paddle_nb: the "
                           "2.x sequence (LoD) layers are out of its scope; pad the batch "
                           "and use paddle.nn layers, or the Fluid-1.8 pd.layers")
    refuse.__name__ = name
    refuse.__doc__ = f"Not available in paddle_nb: raises OpBuildError (``{name}``)."
    return refuse


def not_available(name: str, why: Any) -> Any:
    """The error of a ``paddle.static.nn`` function paddle_nb does not have (``why``: the
    reason and what to use instead)."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OpBuildError(f"paddle.static.nn.{name} is not available in paddle_nb: {why}")
    refuse.__name__ = name
    refuse.__doc__ = f"Not available in paddle_nb: raises OpBuildError (``{name}``)."
    return refuse
