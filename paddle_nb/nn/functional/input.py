"""paddle.nn.functional's input functions: one_hot, embedding.

``one_hot`` is ``one_hot_v2`` (``one_hot_v2_N.tmp_0``); ``embedding`` is ``lookup_table_v2``
(rows of ``weight`` picked by integer ids; the row ``padding_idx`` reads as zeros and gets no
gradient).
"""

from __future__ import annotations

from paddle_nb.framework.variable import Variable
from paddle_nb.layers.helper import layer_helper
from paddle_nb.layers.nn import append_lookup
from paddle_nb.nn.functional import compose
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paddle_nb.framework.variable import Tensor

__all__ = ["one_hot", "embedding"]


def one_hot(x: Tensor, num_classes: int, name: str | None = None) -> Tensor:
    """``x`` (integer ids) as one-hot float32 vectors of length ``num_classes`` (an int or a
    1-element int Variable) on a new last axis."""
    inputs, attrs = {"X": x}, {"allow_out_of_range": False, "dtype": "float32"}
    if isinstance(num_classes, Variable):
        inputs["depth_tensor"] = num_classes
    else:
        attrs["depth"] = int(num_classes)
    return layer_helper("one_hot_v2", name).out("one_hot_v2", inputs, attrs)


def padding_index(padding_idx: int | None, rows: int) -> int:
    """PaddlePaddle's stored ``padding_idx``: -1 for none, a negative index counted from the end."""
    if padding_idx is None:
        return -1
    if not -rows <= padding_idx < rows:
        raise compose.argument_error(
            f"embedding: padding_idx must be in [-{rows}, {rows}), got {padding_idx}")
    return padding_idx if padding_idx >= 0 else rows + padding_idx


def embedding(x: Tensor, weight: Tensor, padding_idx: int | None = None, sparse: bool = False,
              name: str | None = None) -> Tensor:
    """The rows of ``weight`` ([num_embeddings, dim]) picked by the integer ids ``x``: shape
    ``x.shape + [dim]``. ``sparse`` is accepted; paddle_nb's gradient is always dense."""
    return append_lookup(layer_helper("embedding", name), x, weight,
                         padding_index(padding_idx, weight.shape[0]))
