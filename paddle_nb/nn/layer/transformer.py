"""paddle.nn's attention: MultiHeadAttention, TransformerEncoder/Decoder(Layer), Transformer.

Multi-head attention projects queries, keys and values with three Linear layers, splits the
model dimension into ``num_heads`` heads (``reshape2`` to [batch, length, heads, head_dim],
``transpose2`` to [batch, heads, length, head_dim]), weighs the values by
``softmax(q k^T / sqrt(head_dim) + mask)``, joins the heads again and projects with a fourth
Linear. A boolean (or integer) mask becomes ``(mask - 1) * 1e9``: 0 where attention is
allowed, -1e9 where it is not. The encoder and decoder layers add feed-forward blocks,
residual connections and layer normalization (before or after each block:
``normalize_before``); for decoding step by step, ``gen_cache`` makes the caches that keep the
keys and values already computed. Every op, name and parameter follows PaddlePaddle 2.6's
static mode.

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> main = pd.Program()
>>> with unique_name.guard(), pd.program_guard(main, pd.Program()):
...     q = pd.layers.data("q", [2, 3, 8], append_batch_size=False)
...     out = MultiHeadAttention(8, num_heads=2)(q)
>>> out.shape, [op.type for op in main.global_block().ops][-6:]
((2, 3, 8), ['softmax', 'matmul_v2', 'transpose2', 'reshape2', 'matmul_v2', 'elementwise_add'])
"""

from __future__ import annotations

import collections
import copy
from typing import Any

from paddle_nb.framework import unique_name
from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.variable import as_tensor
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.functional import compose
from paddle_nb.nn.functional.common import dropout as dropout_fn
from paddle_nb.nn.layer.common import Dropout, Linear
from paddle_nb.nn.layer.container import LayerList
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


@overload
def convert_attention_mask(mask: None, dtype: DTypeLike) -> None: ...
@overload
def convert_attention_mask(mask: Tensor, dtype: DTypeLike) -> Tensor: ...
def convert_attention_mask(mask: Tensor | None, dtype: DTypeLike) -> Tensor | None:
    """A bool or integer mask (True/1: attend) as an additive float mask: ``(mask - 1) * 1e9``;
    a float mask as it is."""
    if mask is None or mask.dtype.kind == "f":
        return mask
    mask = compose.cast(mask, dtype)
    return compose.operator_scale(compose.operator_scale(mask, 1.0, -1.0), 1e9)


class TransformerNorm(Layer):
    """Layer normalization over the last dimension, named as PaddlePaddle's ``LayerNorm``
    (``layer_norm_0.w_0`` = ones, ``.b_0`` = zeros): the norm the transformer layers hold."""

    def __init__(self, normalized_shape: int, epsilon: float = 1e-5) -> None:
        super().__init__(name_scope="layer_norm")
        self._epsilon = epsilon
        self.weight = self.create_parameter([normalized_shape],
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([normalized_shape], is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        helper = layer_helper("layer_norm")
        mean, variance, y = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
        helper.append("layer_norm", {"X": x, "Scale": self.weight, "Bias": self.bias},
                      {"Y": y, "Mean": mean, "Variance": variance},
                      {"epsilon": float(self._epsilon), "begin_norm_axis": len(x.shape) - 1})
        return as_tensor(helper.block.var(y))


def _activation(name: str, x: Tensor) -> Tensor:
    if name == "relu":
        return compose.unary("relu", x)
    if name == "gelu":
        return compose.unary("gelu", x, {"approximate": False})
    raise compose.argument_error(f"transformer: activation must be 'relu' or 'gelu', got {name!r}")


class MultiHeadAttention(Layer):
    """``num_heads`` attention heads over ``embed_dim`` (which they must divide); keys of
    width ``kdim`` and values of width ``vdim`` (``embed_dim`` by default). ``forward``
    returns the output, then the attention weights when ``need_weights``, then the cache when
    one is given.

    A ``Cache`` (from ``gen_cache(x)``: empty keys and values) grows by this call's keys and
    values (decoding one step at a time); a ``StaticCache`` (``gen_cache(key, value,
    MultiHeadAttention.StaticCache)``) holds projected keys and values computed once (the
    encoder's memory)."""

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0,
                 kdim: int | None = None, vdim: int | None = None, need_weights: bool = False,
                 weight_attr: Any = None, bias_attr: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise compose.argument_error(
                f"MultiHeadAttention: embed_dim ({embed_dim}) must be a positive multiple of "
                f"num_heads ({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x: Tensor) -> Tensor:
        x = compose.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return compose.transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key: Tensor, value: Tensor) -> tuple[Tensor, ...]:
        """Keys and values projected and split into heads: [batch, heads, length, head_dim]."""
        k, v = self.k_proj(key), self.v_proj(value)
        return self._heads(k), self._heads(v)

    def gen_cache(self, key: Tensor, value: Any = None, type: Any = Cache) -> Any:
        """A ``StaticCache`` of ``compute_kv(key, value)``; a ``Cache`` of ``key`` and
        ``value`` when given, else an empty one ([batch, heads, 0, head_dim] zeros)."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is not None:
            return self.Cache(key, value)
        batch, = compose.dims_of(key, [0])
        shape: list[Tensor | int] = [batch, self.num_heads, 0, self.head_dim]
        return self.Cache(compose.full_dims(shape, 0, key.dtype),
                          compose.full_dims(shape, 0, key.dtype))

    def _qkv(self, query: Tensor, key: Tensor, value: Tensor, cache: Any) -> Any:
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            return q, cache.k, cache.v, cache
        k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k, v = _concat([cache.k, k], 2), _concat([cache.v, v], 2)
            cache = self.Cache(k, v)
        return q, k, v, cache

    def forward(self, query: Tensor, key: Tensor | None = None, value: Tensor | None = None,
                attn_mask: Tensor | None = None, cache: Any = None) -> Tensor | tuple[Tensor, ...]:
        key = query if key is None else key
        value = query if value is None else value
        q, k, v, cache = self._qkv(query, key, value, cache)
        q = compose.operator_scale(q, self.head_dim ** -0.5)
        product = compose.matmul(q, k, transpose_y=True)
        if attn_mask is not None:
            attn_mask = convert_attention_mask(attn_mask, product.dtype)
            product = compose.operator("elementwise_add", product, attn_mask)
        weights = compose.unary("softmax", product, {"axis": -1})
        if self.dropout:
            weights = dropout_fn(weights, self.dropout, training=self.training,
                                 mode="upscale_in_train")
        out = compose.transpose(compose.matmul(weights, v), [0, 2, 1, 3])
        outs = [self.out_proj(compose.reshape(out, [0, 0, self.embed_dim]))]
        outs += [weights] if self.need_weights else []
        outs += [cache] if cache is not None else []
        return outs[0] if len(outs) == 1 else tuple(outs)


def _concat(parts: Any, axis: int) -> Tensor:
    """``paddle.concat``: one ``concat`` (``concat_N.tmp_0``)."""
    return layer_helper("concat").out("concat", {"X": parts}, {"axis": int(axis)})


def _config(values: Any) -> Any:
    return {k: v for k, v in values.items() if k not in ("self", "__class__")}


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual connection, dropout and
    layer normalization (before the block when ``normalize_before``, else after)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: Any = None, act_dropout: Any = None,
                 normalize_before: bool = False, weight_attr: Any = None, bias_attr: Any = None,
                 layer_norm_eps: float = 1e-5) -> None:
        self._config = _config(locals())
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before, self.activation = normalize_before, activation
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                            weight_attr=weight_attr, bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr)
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr)
        self.norm1 = TransformerNorm(d_model, layer_norm_eps)
        self.norm2 = TransformerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")

    def _feed_forward(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(_activation(self.activation, self.linear1(x))))

    def forward(self, src: Tensor, src_mask: Tensor | None = None, cache: Any = None
               ) -> Tensor | tuple[Any, ...]:
        src_mask = convert_attention_mask(src_mask, src.dtype)
        caught: list[Any] = []
        src = _sublayer(src, self.norm1, self.dropout1, self.normalize_before,
                        lambda x: _attend(self.self_attn, x, x, src_mask, cache, caught))
        src = _sublayer(src, self.norm2, self.dropout2, self.normalize_before,
                        self._feed_forward)
        return src if cache is None else (src, caught[0])

    def gen_cache(self, src: Tensor) -> Any:
        """The self-attention's empty ``Cache`` for incremental use."""
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


def _attend(attention: Any, x: Tensor, memory: Tensor, mask: Tensor | None, cache: Any, caught: Any
           ) -> Tensor:
    """``attention(x, memory, memory, mask)``; with a cache, the updated cache goes to
    ``caught``."""
    if cache is None:
        return attention(x, memory, memory, mask)
    out, new_cache = attention(x, memory, memory, mask, cache)
    caught.append(new_cache)
    return out


def _sublayer(x: Tensor, norm: Any, dropout: Any, normalize_before: bool, block: Callable[..., Any]
             ) -> Tensor:
    """``x + dropout(block(norm(x)))``, or ``norm(x + dropout(block(x)))``."""
    residual = x
    if normalize_before:
        x = norm(x)
    x = compose.operator("elementwise_add", residual, dropout(block(x)))
    return x if normalize_before else norm(x)


def _clones(layer: Any, num_layers: int) -> Any:
    """``layer`` then ``num_layers - 1`` new layers made with its arguments (new parameters)."""
    return LayerList([layer if k == 0 else type(layer)(**copy.copy(layer._config))
                      for k in range(num_layers)])


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the given one, then new ones made like it), and an
    optional final ``norm``."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: TransformerNorm | None = None) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                cache: Sequence[Any] | None = None) -> Tensor | tuple[Tensor | list[Any], ...]:
        src_mask = convert_attention_mask(src_mask, src.dtype)
        new_caches = []
        for k, layer in enumerate(self.layers):
            if cache is None:
                src = layer(src, src_mask)
            else:
                src, new_cache = layer(src, src_mask, cache[k])
                new_caches.append(new_cache)
        src = src if self.norm is None else self.norm(src)
        return src if cache is None else (src, new_caches)

    def gen_cache(self, src: Tensor) -> list[Any]:
        """One empty ``Cache`` per layer."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, attention over the encoder's ``memory``, then a feed-forward block, each
    with a residual connection, dropout and layer normalization."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: Any = None, act_dropout: Any = None,
                 normalize_before: bool = False, weight_attr: Any = None, bias_attr: Any = None,
                 layer_norm_eps: float = 1e-5) -> None:
        self._config = _config(locals())
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before, self.activation = normalize_before, activation
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                            weight_attr=weight_attr, bias_attr=bias_attr)
        self.cross_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                             weight_attr=weight_attr, bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr)
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr)
        self.norm1 = TransformerNorm(d_model, layer_norm_eps)
        self.norm2 = TransformerNorm(d_model, layer_norm_eps)
        self.norm3 = TransformerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, cache: Sequence[Any] | None = None
               ) -> Tensor | tuple[Tensor | tuple[Any, ...], ...]:
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        nb = self.normalize_before
        caught: list[Any] = []
        incremental, static = (None, None) if cache is None else cache
        tgt = _sublayer(tgt, self.norm1, self.dropout1, nb, lambda x: _attend(
            self.self_attn, x, x, tgt_mask, incremental, caught))
        tgt = _sublayer(tgt, self.norm2, self.dropout2, nb, lambda x: _attend(
            self.cross_attn, x, memory, memory_mask, static, caught))
        tgt = _sublayer(tgt, self.norm3, self.dropout3, nb, lambda x: self.linear2(
            self.dropout(_activation(self.activation, self.linear1(x)))))
        return tgt if cache is None else (tgt, tuple(caught))

    def gen_cache(self, memory: Tensor) -> tuple[Any, ...]:
        """(an empty ``Cache`` for the self-attention, a ``StaticCache`` of ``memory``'s keys
        and values for the attention over it)."""
        return (self.self_attn.gen_cache(memory, type=self.self_attn.Cache),
                self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache))


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers (the given one, then new ones made like it), and an
    optional final ``norm``."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: TransformerNorm | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Any = None, cache: Sequence[tuple[Any, ...]] | None = None
               ) -> Tensor | tuple[Tensor | list[Any], ...]:
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        new_caches = []
        for k, layer in enumerate(self.layers):
            if cache is None:
                tgt = layer(tgt, memory, tgt_mask, memory_mask)
            else:
                tgt, new_cache = layer(tgt, memory, tgt_mask, memory_mask, cache[k])
                new_caches.append(new_cache)
        tgt = tgt if self.norm is None else self.norm(tgt)
        return tgt if cache is None else (tgt, new_caches)

    def gen_cache(self, memory: Tensor, do_zip: bool = False) -> list[tuple[Any, ...]]:
        """Each layer's (incremental, static) caches; ``do_zip``: all incremental caches, then
        all static ones."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


class Transformer(Layer):
    """An encoder and a decoder (each ending in a layer norm, as PaddlePaddle 2.6 builds it):
    ``forward(src, tgt, src_mask, tgt_mask, memory_mask)``."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: Any = None, act_dropout: Any = None,
                 normalize_before: bool = False, weight_attr: Any = None, bias_attr: Any = None,
                 custom_encoder: Any = None, custom_decoder: Any = None) -> None:
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                act_dropout, normalize_before, weight_attr, bias_attr)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*args)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              TransformerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(*args)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers,
                                              TransformerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Any = None,
                tgt_mask: Tensor | None = None, memory_mask: Any = None) -> Tensor:
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    def generate_square_subsequent_mask(self, length: int) -> Tensor:
        """[length, length] float: 0 on and below the diagonal, -inf above (a position sees
        itself and the ones before it)."""
        full = compose.full([length, length], float("-inf"))
        block = full.block
        name = unique_name.generate("triu")
        block.append_op("tril_triu", inputs={"X": full}, outputs={"Out": name},
                        attrs={"lower": False, "diagonal": 1})
        return as_tensor(block.var(name))
