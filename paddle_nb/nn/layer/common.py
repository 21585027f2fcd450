"""Common layers of paddle.nn: Linear, Bilinear, Embedding, Dropout and its kinds, Flatten,
Identity, CosineSimilarity, PairwiseDistance.

Each layer makes its parameters in ``__init__`` (named after the layer: ``linear_0.w_0``,
``linear_0.b_0``; Xavier-uniform weights and zero biases unless a ParamAttr says otherwise)
and calls its paddle_nb.nn.functional function in ``forward``, as PaddlePaddle 2.6 does.

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     fc = Linear(4, 3)
>>> fc.weight.name, fc.weight.shape, fc.bias.name, fc.bias.shape
('linear_0.w_0', (4, 3), 'linear_0.b_0', (3,))
"""

from __future__ import annotations

from paddle_nb.nn.functional import common as F
from paddle_nb.nn.functional import compose
from paddle_nb.nn.functional.input import embedding, padding_index
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor
    from paddle_nb.layers.helper import ParamAttr

__all__ = ["Linear", "Bilinear", "Embedding", "Identity", "Flatten", "Unflatten", "Dropout",
           "Dropout2D", "Dropout3D", "AlphaDropout", "CosineSimilarity", "PairwiseDistance"]


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` [in_features, out_features]."""

    def __init__(self, in_features: int, out_features: int, weight_attr: ParamAttr | None = None,
                 bias_attr: ParamAttr | bool | None = None, name: str | None = None) -> None:
        super().__init__()
        self._dtype = "float32"
        self._in_features, self._out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self) -> Any:
        return f"in_features={self._in_features}, out_features={self._out_features}, dtype=float32"


class Bilinear(Layer):
    """``out[:, k] = x1 @ weight[k] @ x2^T + bias[k]``: weight [out, in1, in2], bias [1, out]."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 weight_attr: Any = None, bias_attr: Any = None, name: str | None = None) -> None:
        super().__init__()
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            attr=weight_attr)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)
        self._name = name

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.bilinear(x1, x2, self.weight, self.bias, self._name)


class Embedding(Layer):
    """A [num_embeddings, embedding_dim] table read by integer ids (``lookup_table_v2``)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 sparse: bool = False, weight_attr: Any = None, name: str | None = None) -> None:
        super().__init__()
        if num_embeddings <= 0 or embedding_dim <= 0:
            raise compose.argument_error(
                f"Embedding: num_embeddings and embedding_dim must be positive, got "
                f"{num_embeddings} and {embedding_dim}")
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        padding_index(padding_idx, num_embeddings)      # checked here, stored as given:
        self._padding_idx = padding_idx                 # embedding() turns None into -1
        self._sparse = sparse
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr)
        self._name = name

    def forward(self, x: Tensor) -> Tensor:
        return embedding(x, self.weight, self._padding_idx, self._sparse, self._name)

    def extra_repr(self) -> str:
        padding = "" if self._padding_idx is None else f", padding_idx={self._padding_idx}"
        name = "" if self._name is None else f", name={self._name}"
        return (f"{self._num_embeddings}, {self._embedding_dim}{padding}, "
                f"sparse={self._sparse}{name}")


class Identity(Layer):
    """Returns its input; appends nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Flatten(Layer):
    """Dimensions ``start_axis`` to ``stop_axis`` made one (``flatten_contiguous_range``)."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1) -> None:
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input: Tensor) -> Tensor:
        rank = len(input.shape)
        start, stop = self.start_axis % max(rank, 1), self.stop_axis % max(rank, 1)
        if start > stop:
            raise compose.argument_error(
                f"Flatten: start_axis ({self.start_axis}) must not come after "
                f"stop_axis ({self.stop_axis}) for '{input.name}' of rank {rank}")
        return compose.xshape_op("flatten_contiguous_range", input,
                                 {"start_axis": start, "stop_axis": stop}, "flatten")


class Unflatten(Layer):
    """Dimension ``axis`` split into the dimensions ``shape`` (``paddle.unflatten``)."""

    def __init__(self, axis: int, shape: Sequence[int], name: str | None = None) -> None:
        super().__init__()
        self.axis, self.shape, self.name = axis, list(shape), name

    def forward(self, input: Tensor) -> Tensor:
        from paddle_nb.tensor.manipulation_more import unflatten   # (tensor imports nn first)
        return unflatten(input, self.axis, self.shape, self.name)

    def extra_repr(self) -> Any:
        return f"axis={self.axis}, shape={self.shape}"


class Dropout(Layer):
    """``F.dropout`` with the layer's mode: after ``eval()``, the inference form."""

    def __init__(self, p: float = 0.5, axis: int | None = None, mode: str = "upscale_in_train",
                 name: str | None = None) -> None:
        super().__init__()
        self.p, self.axis, self.mode, self._name = p, axis, mode, name

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.axis, self.training, self.mode, self._name)

    def extra_repr(self) -> Any:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


class Dropout2D(Layer):
    """Drops whole channels of an image batch (``F.dropout2d``)."""

    def __init__(self, p: float = 0.5, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.data_format)


class Dropout3D(Layer):
    """Drops whole channels of a volume batch (``F.dropout3d``)."""

    def __init__(self, p: float = 0.5, data_format: str = "NCDHW", name: str | None = None) -> None:
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.data_format)


class AlphaDropout(Layer):
    """Dropout for SELU networks (``F.alpha_dropout``)."""

    def __init__(self, p: float = 0.5, name: str | None = None) -> None:
        super().__init__()
        self.p = p

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class CosineSimilarity(Layer):
    """``F.cosine_similarity`` along ``axis``."""

    def __init__(self, axis: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self._axis, self._eps)


class PairwiseDistance(Layer):
    """``F.pairwise_distance``: the p-norm of ``x - y + epsilon`` along the last axis."""

    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                 name: str | None = None) -> None:
        super().__init__()
        self.p, self.epsilon, self.keepdim, self._name = p, epsilon, keepdim, name

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self._name)
