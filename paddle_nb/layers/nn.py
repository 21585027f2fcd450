"""Layers with parameters: fc, embedding, conv2d, batch_norm; and pool2d, dropout.

Each layer makes its parameters in the global block (their initializers go
to the startup program or the preamble) and appends its ops to the current
block, the same ops PaddlePaddle 1.8's ``fluid.layers`` appends.
"""

from __future__ import annotations

from typing import Any

import numpy

from paddle_nb.errors import ShapeError
from paddle_nb.framework.callsite import callstack_strings, format_site
from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.variable import Variable, as_tensor
from paddle_nb.layers.helper import LayerHelper, ParamAttr
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.initializer import Normal
    from paddle_nb.framework.variable import Tensor

__all__ = ["fc", "fc_layer", "embedding", "conv2d", "pool2d", "batch_norm", "dropout",
           "fc_with", "embedding_with", "conv2d_with", "batch_norm_with"]


def fc(input: Tensor | Sequence[Tensor], size: int, num_flatten_dims: int = 1,
       act: str | None = None, param_attr: ParamAttr | str | None = None,
       bias_attr: ParamAttr | bool | str | None = None, name: str | None = None) -> Tensor:
    """A fully connected layer: ``act(input @ W + b)``, with ``mul`` and ``elementwise_add``.

    ``input`` may be a list: each gets its own weight and the products are summed.
    """
    return fc_with(LayerHelper("fc", name), input, size, num_flatten_dims, act, param_attr,
                   bias_attr)


def fc_with(helper: LayerHelper, input: Tensor | Sequence[Tensor], size: int,
            num_flatten_dims: int = 1, act: str | None = None,
            param_attr: ParamAttr | str | None = None,
            bias_attr: ParamAttr | bool | str | None = None) -> Tensor:
    """``fc``'s ops, named by ``helper`` (the 2.x ``paddle.static.nn.fc`` passes its own)."""
    if isinstance(size, bool) or not isinstance(size, (int, numpy.integer)) or size < 1:
        raise ShapeError(f"fc: size must be a whole number of at least 1, got {size!r} "
                         f"({type(size).__name__})\n  built at {format_site(callstack_strings())}")
    inputs: list[Tensor] = [as_tensor(input)] if isinstance(input, Variable) else list(input)
    products = []
    for x in inputs:
        in_features = 1
        for d in x.shape[num_flatten_dims:]:
            in_features *= d
        w = helper.param(ParamAttr.of(param_attr), [in_features, size], x.dtype)
        products.append(helper.out("mul", {"X": x, "Y": w}, {"x_num_col_dims": num_flatten_dims,
                                                             "y_num_col_dims": 1}))
    out = products[0] if len(products) == 1 else helper.out("sum", {"X": products})
    battr = ParamAttr.of(bias_attr)
    if battr is not None:
        b = helper.param(battr, [size], out.dtype, is_bias=True)
        out = helper.out("elementwise_add", {"X": out, "Y": b}, {"axis": num_flatten_dims})
    return helper.act(out, act)


def fc_layer(input: Variable, size: int, act: str | None = None, param_attr: Any = None,
             bias_attr: Any = None, name: str | None = None) -> Variable:
    """The fc layer of "Design Doc: Python API" (``block.create_parameter`` twice, then ops)."""
    return fc(as_tensor(input), size, act=act, param_attr=param_attr, bias_attr=bias_attr,
              name=name)


def embedding(input: Tensor, size: Sequence[int], is_sparse: bool = False,
              padding_idx: int | None = None, param_attr: Any = None, dtype: DTypeLike = "float32"
             ) -> Tensor:
    """Rows of a [vocab, dim] table picked by integer ids (``lookup_table_v2``)."""
    return embedding_with(LayerHelper("embedding"), input, size, is_sparse, padding_idx,
                          param_attr, dtype)


def embedding_with(helper: LayerHelper, input: Tensor, size: Sequence[int], is_sparse: bool = False,
                   padding_idx: int | None = None, param_attr: Any = None,
                   dtype: DTypeLike = "float32") -> Tensor:
    """``embedding``'s op, named by ``helper``."""
    w = helper.param(ParamAttr.of(param_attr), list(size), dtype)
    pad = -1 if padding_idx is None else \
        (padding_idx if padding_idx >= 0 else size[0] + padding_idx)
    return append_lookup(helper, input, w, pad, is_sparse=is_sparse)


def append_lookup(helper: LayerHelper, ids: Tensor, weight: Tensor, padding_idx: int, **attrs: Any
                 ) -> Tensor:
    """Append ``lookup_table_v2`` (rows of ``weight`` picked by ``ids``) through ``helper``:
    the one place both ``layers.embedding`` and the 2.x ``F.embedding`` append it."""
    return helper.out("lookup_table_v2", {"W": weight, "Ids": ids},
                      {"padding_idx": padding_idx, **attrs})


def _pair(v: int) -> Any:
    return [v, v] if isinstance(v, int) else list(v)


def conv2d(input: Tensor, num_filters: int, filter_size: int, stride: int = 1, padding: int = 0,
           dilation: int = 1, groups: int | None = None, param_attr: Any = None,
           bias_attr: bool | None = None, act: str | None = None, name: str | None = None,
           data_format: str = "NCHW") -> Tensor:
    """A 2-D convolution over NCHW input, with bias and activation."""
    return conv2d_with(LayerHelper("conv2d", name), input, num_filters, filter_size, stride,
                       padding, dilation, groups, param_attr, bias_attr, act, data_format)


def conv2d_with(helper: LayerHelper, input: Tensor, num_filters: int, filter_size: int,
                stride: int = 1, padding: int = 0, dilation: int = 1, groups: int | None = None,
                param_attr: Any = None, bias_attr: bool | None = None, act: str | None = None,
                data_format: str = "NCHW", default_initializer: Normal | None = None,
                extra_attrs: Mapping[str, Any] | None = None) -> Tensor:
    """``conv2d``'s ops, named by ``helper``; ``default_initializer`` for the filter when
    ``param_attr`` has none, ``extra_attrs`` added to the conv2d op's."""
    groups = groups or 1
    channels = input.shape[1]
    kh, kw = _pair(filter_size)
    w = helper.param(ParamAttr.of(param_attr), [num_filters, channels // groups, kh, kw],
                     input.dtype, default_initializer=default_initializer)
    out = helper.out("conv2d", {"Input": input, "Filter": w},
                     {"strides": _pair(stride), "paddings": _pair(padding),
                      "dilations": _pair(dilation), "groups": groups,
                      "data_format": data_format, **(extra_attrs or {})}, slot="Output")
    battr = ParamAttr.of(bias_attr)
    if battr is not None:
        b = helper.param(battr, [num_filters], input.dtype, is_bias=True)
        out = helper.out("elementwise_add", {"X": out, "Y": b}, {"axis": 1})
    return helper.act(out, act)


def pool2d(input: Tensor, pool_size: int = -1, pool_type: str = "max", pool_stride: int = 1,
           pool_padding: int = 0, global_pooling: bool = False, ceil_mode: bool = False,
           name: str | None = None, exclusive: bool = True, data_format: str = "NCHW") -> Tensor:
    """Max or average pooling over NCHW input."""
    helper = LayerHelper("pool2d", name)
    # global pooling ignores the window (the op uses H, W); 1.8's default pool_size is -1
    ksize = [1, 1] if global_pooling else _pair(pool_size)
    return helper.out("pool2d", {"X": input},
                      {"pooling_type": pool_type, "ksize": ksize,
                       "strides": _pair(pool_stride), "paddings": _pair(pool_padding),
                       "global_pooling": global_pooling, "ceil_mode": ceil_mode,
                       "exclusive": exclusive, "data_format": data_format})


def batch_norm(input: Tensor, act: str | None = None, is_test: bool = False, momentum: float = 0.9,
               epsilon: float = 1e-05, param_attr: Any = None, bias_attr: Any = None,
               data_layout: str = "NCHW", name: str | None = None, moving_mean_name: Any = None,
               moving_variance_name: Any = None, use_global_stats: bool = False) -> Tensor:
    """Batch normalization with running statistics kept as persistable variables."""
    helper = LayerHelper("batch_norm", name)
    return batch_norm_with(helper, input, act, is_test, momentum, epsilon, param_attr,
                           bias_attr, data_layout, moving_mean_name or f"{helper.name}.mean",
                           moving_variance_name or f"{helper.name}.variance", use_global_stats)


def batch_norm_with(helper: LayerHelper, input: Tensor, act: str | None = None,
                    is_test: bool = False, momentum: float = 0.9, epsilon: float = 1e-05,
                    param_attr: Any = None, bias_attr: Any = None, data_layout: str = "NCHW",
                    moving_mean_name: str | None = None, moving_variance_name: str | None = None,
                    use_global_stats: bool = False, reserve_space: bool = False) -> Tensor:
    """``batch_norm``'s op, named by ``helper``: unnamed running statistics are the layer's
    next parameters (``batch_norm_0.w_1``, ``.w_2``, as PaddlePaddle 2.x names them);
    ``reserve_space``: 2.x's outputs (``ReserveSpace`` when training; Y named last)."""
    c = input.shape[1 if data_layout == "NCHW" else -1]
    scale = helper.param(ParamAttr.of(param_attr) if param_attr else
                         ParamAttr(initializer=Constant(1.0)),
                         [c], input.dtype)
    bias = helper.param(ParamAttr.of(bias_attr), [c], input.dtype, is_bias=True)
    mean = helper.param(ParamAttr(name=moving_mean_name, initializer=Constant(0.0),
                                  trainable=False), [c], input.dtype)
    var = helper.param(ParamAttr(name=moving_variance_name, initializer=Constant(1.0),
                                 trainable=False), [c], input.dtype)
    if reserve_space:          # 2.x's order: saved statistics, ReserveSpace (training), Y
        outputs: dict[str, Any] = {"SavedMean": helper.tmp_name(),
                                   "SavedVariance": helper.tmp_name()}
        if not is_test:
            outputs["ReserveSpace"] = helper.tmp_name()
        y = outputs["Y"] = helper.tmp_name()
    else:
        y = helper.tmp_name()
        outputs = {"Y": y, "SavedMean": helper.tmp_name(), "SavedVariance": helper.tmp_name()}
    outputs.update(MeanOut=mean, VarianceOut=var)
    helper.append("batch_norm",
                  {"X": input, "Scale": scale, "Bias": bias, "Mean": mean, "Variance": var},
                  outputs, {"momentum": momentum, "epsilon": epsilon, "is_test": is_test,
                            "data_layout": data_layout, "use_global_stats": use_global_stats})
    return helper.act(helper.block.var(y), act)


def dropout(x: Tensor, dropout_prob: float, is_test: bool = False, seed: int | None = None,
            name: str | None = None, dropout_implementation: str = "downgrade_in_infer") -> Tensor:
    """Zero each element with probability ``dropout_prob`` while training. Without a
    ``seed``, the program's ``random_seed`` (when not 0) fixes the masks, as in PaddlePaddle."""
    helper = LayerHelper("dropout", name)
    if not seed and helper.program.random_seed:
        seed = helper.program.random_seed
    return append_dropout(helper, x, {"dropout_prob": dropout_prob, "is_test": is_test,
                                      "fix_seed": seed is not None, "seed": seed or 0,
                                      "dropout_implementation": dropout_implementation})


def append_dropout(helper: LayerHelper, x: Tensor, attrs: Mapping[str, Any]) -> Tensor:
    """Append ``dropout`` through ``helper``, writing ``Out`` (``<name>.tmp_0``) then ``Mask``
    (``.tmp_1``) as PaddlePaddle names them: the one place both ``layers.dropout`` and the 2.x
    ``F.dropout`` append it."""
    out, mask = helper.tmp_name(), helper.tmp_name()
    helper.append("dropout", {"X": x}, {"Out": out, "Mask": mask}, attrs)
    return as_tensor(helper.block.var(out))
