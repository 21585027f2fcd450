"""Normalization layers of ``paddle.nn``: batch, layer, group, instance and local response norm.

Each holds its scale (``weight``, initialized to 1) and shift (``bias``, 0) as
parameters named after the layer (``batch_norm2d_0.w_0``, ``.b_0``); a batch norm also
holds its running mean and variance as parameters that are not trained
(``.w_1``, ``.w_2``, initialized to 0 and 1), which the op updates in place while the
layer is training. ``layer.eval()`` before the forward builds the test-time form
(``is_test``, normalizing by the running statistics). ``weight_attr`` / ``bias_attr``
``False`` leave the parameter out.

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     bn = BatchNorm2D(3)
...     y = bn(pd.layers.data("x", [2, 3, 4, 4], append_batch_size=False))
>>> [p.name for p in bn.parameters()]
['batch_norm2d_0.w_0', 'batch_norm2d_0.b_0', 'batch_norm2d_0.w_1', 'batch_norm2d_0.w_2']
>>> y.name, [op.type for op in y.block.ops]
('batch_norm_0.tmp_2', ['batch_norm'])
"""

from __future__ import annotations

import math

from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import ParamAttr, layer_helper
from paddle_nb.nn.functional import norm as F
from paddle_nb.nn.functional.loss_steps import unavailable
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm",
           "LayerNorm", "GroupNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D",
           "LocalResponseNorm", "SpectralNorm"]


def _affine(layer: Any, shape: Any, weight_attr: bool | None, bias_attr: bool | None) -> Any:
    """The scale (ones) and shift (zeros) parameters, each None where its attr is False."""
    weight = None if weight_attr is False else layer.create_parameter(
        shape, attr=weight_attr, default_initializer=Constant(1.0))
    bias = None if bias_attr is False else layer.create_parameter(
        shape, attr=bias_attr, is_bias=True, default_initializer=Constant(0.0))
    return weight, bias


def _statistic(layer: Any, channels: int, name: str | None, value: float) -> Tensor:
    """A running statistic: a parameter that is not trained, set to ``value`` at startup."""
    return layer.create_parameter([channels], attr=ParamAttr(name=name, trainable=False,
                                                             initializer=Constant(value)))


class _BatchNormBase(Layer):
    """What BatchNorm1D/2D/3D share: parameters, running statistics, the forward."""

    RANKS: tuple[int, ...] = ()
    FORMATS: tuple[str, ...] = ()

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: bool | None = None, bias_attr: Any = None, data_format: str = "NCHW",
                 use_global_stats: bool | None = None, name: str | None = None) -> None:
        super().__init__()
        if data_format not in self.FORMATS:
            raise ValueError(f"{type(self).__name__}: data_format must be one of "
                             f"{', '.join(self.FORMATS)}, got {data_format!r}")
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self.weight, self.bias = _affine(self, [num_features], weight_attr, bias_attr)
        self._mean = _statistic(self, num_features, None, 0.0)
        self._variance = _statistic(self, num_features, None, 1.0)

    def forward(self, input: Tensor) -> Tensor:
        if self.RANKS and len(input.shape) not in self.RANKS:
            raise ValueError(f"{type(self).__name__} takes {' or '.join(map(str, self.RANKS))}-D "
                             f"input, got shape {list(input.shape)}")
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                            training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self) -> Any:
        return (f"num_features={self._num_features}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}, data_format={self._data_format}")


class BatchNorm1D(_BatchNormBase):
    """Batch norm of [N, C] or [N, C, L] (``data_format`` "NC", "NCL" or "NLC")."""

    RANKS = (2, 3)
    FORMATS = ("NC", "NCL", "NLC")

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: bool | None = None, bias_attr: Any = None, data_format: str = "NCL",
                 use_global_stats: bool | None = None, name: str | None = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch norm of [N, C, H, W] ("NCHW") or [N, H, W, C] ("NHWC")."""

    RANKS = (4,)
    FORMATS = ("NCHW", "NHWC")


class BatchNorm3D(_BatchNormBase):
    """Batch norm of [N, C, D, H, W] ("NCDHW") or channel-last ("NDHWC")."""

    RANKS = (5,)
    FORMATS = ("NCDHW", "NDHWC")

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCDHW",
                 use_global_stats: Any = None, name: str | None = None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class SyncBatchNorm(_BatchNormBase):
    """Batch norm whose statistics PaddlePaddle syncs across GPUs (``sync_batch_norm``).
    paddle_nb runs on one device, where it is BatchNorm: it writes ``batch_norm``."""

    FORMATS = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")

    @classmethod
    def convert_sync_batchnorm(cls, layer: Any) -> Any:
        """``layer`` with its batch norms synced across devices: on one device they already
        compute what SyncBatchNorm would, so ``layer`` comes back as it is."""
        return layer


class BatchNorm(Layer):
    """The Fluid-style batch norm (``paddle.nn.BatchNorm``): ``num_channels``, ``act``,
    ``is_test``, ``param_attr``; its temporaries are named after the layer
    (``batch_norm_0.tmp_3``)."""

    def __init__(self, num_channels: int, act: str | None = None, is_test: bool = False,
                 momentum: float = 0.9, epsilon: float = 1e-05, param_attr: Any = None,
                 bias_attr: Any = None, dtype: DTypeLike = "float32", data_layout: str = "NCHW",
                 in_place: bool = False, moving_mean_name: Any = None,
                 moving_variance_name: Any = None, do_model_average_for_mean_and_var: bool = True,
                 use_global_stats: bool = False, trainable_statistics: bool = False) -> None:
        super().__init__(dtype=dtype)
        self._act, self._is_test, self._momentum, self._epsilon = act, is_test, momentum, epsilon
        self._data_layout, self._use_global_stats = data_layout, use_global_stats
        self._trainable_statistics = trainable_statistics
        self.weight, self.bias = _affine(self, [num_channels], param_attr, bias_attr)
        self._mean = _statistic(self, num_channels, moving_mean_name, 0.0)
        self._variance = _statistic(self, num_channels, moving_variance_name, 1.0)

    def forward(self, input: Tensor) -> Tensor:
        helper = layer_helper(self.full_name(), name=self.full_name())
        saved_mean, saved_var = helper.tmp_name(), helper.tmp_name()
        reserve, y = helper.tmp_name(), helper.tmp_name()
        inputs = {"X": input, "Mean": self._mean, "Variance": self._variance}
        for slot, param in (("Scale", self.weight), ("Bias", self.bias)):
            if param is not None:
                inputs[slot] = param
        helper.append("batch_norm", inputs,
                      {"Y": y, "MeanOut": self._mean, "VarianceOut": self._variance,
                       "SavedMean": saved_mean, "SavedVariance": saved_var,
                       "ReserveSpace": reserve},
                      {"momentum": float(self._momentum), "epsilon": float(self._epsilon),
                       "is_test": bool(self._is_test or not self.training),
                       "data_layout": self._data_layout,
                       "use_global_stats": bool(self._use_global_stats),
                       "trainable_statistics": bool(self._trainable_statistics)})
        return helper.act(helper.block.var(y), self._act)


class LayerNorm(Layer):
    """Normalize each sample over its trailing ``normalized_shape`` dims; the scale and
    shift have one value per normalized element (shape [prod(normalized_shape)]).

    >>> import paddle_nb as pd
    >>> from paddle_nb.framework import unique_name
    >>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
    ...     ln = LayerNorm([4, 5])
    ...     y = ln(pd.layers.data("x", [2, 3, 4, 5], append_batch_size=False))
    >>> [(p.name, p.shape) for p in ln.parameters()], y.name
    ([('layer_norm_0.w_0', (20,)), ('layer_norm_0.b_0', (20,))], 'layer_norm_1.tmp_2')
    """

    def __init__(self, normalized_shape: int | Sequence[int], epsilon: float = 1e-05,
                 weight_attr: bool | None = None, bias_attr: bool | None = None,
                 name: str | None = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape, self._epsilon = list(normalized_shape), epsilon
        size = [math.prod(self._normalized_shape)]
        self.weight, self.bias = _affine(self, size, weight_attr, bias_attr)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self) -> Any:
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalize each group of ``num_channels / num_groups`` channels of each sample."""

    def __init__(self, num_groups: int, num_channels: int, epsilon: float = 1e-05,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self._num_groups, self._num_channels, self._epsilon = num_groups, num_channels, epsilon
        self._data_layout = F.data_layout(data_format, "GroupNorm")
        self.weight, self.bias = _affine(self, [num_channels], weight_attr, bias_attr)

    def forward(self, input: Tensor) -> Tensor:
        # 2.6 names the op's outputs after the layer (group_norm_0.tmp_2), not after a helper
        helper = layer_helper(self.full_name(), name=self.full_name())
        mean, var, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
        inputs = {"X": input}
        for slot, param in (("Scale", self.weight), ("Bias", self.bias)):
            if param is not None:
                inputs[slot] = param
        helper.append("group_norm", inputs, {"Y": y, "Mean": mean, "Variance": var},
                      {"epsilon": float(self._epsilon), "groups": int(self._num_groups),
                       "data_layout": self._data_layout})
        return as_tensor(helper.block.var(y))

    def extra_repr(self) -> Any:
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, " \
               f"epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    RANKS: tuple[int, ...] = ()

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: bool | None = None, bias_attr: bool | None = None,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        if (weight_attr is False) != (bias_attr is False):
            raise ValueError(f"{type(self).__name__}: weight_attr and bias_attr must be False "
                             "together (both parameters or neither), as in PaddlePaddle")
        self._epsilon, self._data_format = epsilon, data_format
        self._num_features = num_features
        self.scale, self.bias = _affine(self, [num_features], weight_attr, bias_attr)

    def forward(self, input: Tensor) -> Tensor:
        if len(input.shape) not in self.RANKS:
            raise ValueError(f"{type(self).__name__} takes {' or '.join(map(str, self.RANKS))}-D "
                             f"input, got shape {list(input.shape)}")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self) -> Any:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance norm of [N, C, L]."""

    RANKS = (2, 3)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: Any = None, bias_attr: Any = None, data_format: str = "NCL",
                 name: str | None = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class InstanceNorm2D(_InstanceNormBase):
    """Instance norm of [N, C, H, W]."""

    RANKS = (4,)


class InstanceNorm3D(_InstanceNormBase):
    """Instance norm of [N, C, D, H, W]."""

    RANKS = (5,)

    def __init__(self, num_features: int, epsilon: float = 1e-05, momentum: float = 0.9,
                 weight_attr: bool | None = None, bias_attr: bool | None = None,
                 data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class LocalResponseNorm(Layer):
    """``F.local_response_norm`` as a layer (no parameters)."""

    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                 data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format = data_format

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                     self.data_format)

    def extra_repr(self) -> Any:
        return f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class SpectralNorm(Layer):
    """Spectral normalization of a weight: not available in paddle_nb (``spectral_norm``
    has no kernel here)."""

    def __init__(self, weight_shape: Any, dim: int = 0, power_iters: int = 1,
                 epsilon: float = 1e-12, dtype: DTypeLike = "float32") -> None:
        raise unavailable("SpectralNorm", "the spectral_norm op has no kernel",
                          "divide the weight by its largest singular value with paddle ops")
