"""Gathering and scattering at paddle's top level: gather, gather_nd, index_select,
index_sample, index_add, scatter, scatter_nd_add, take_along_axis, put_along_axis,
masked_fill, shard_index.

Part of PaddlePaddle's ``paddle.tensor.manipulation``; kept in its own module here so that
each file holds one idea: reading or writing a tensor at positions another tensor gives.
"""

from __future__ import annotations

import numpy

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor.creation import full, to_tensor
from paddle_nb.tensor.logic import logical_not
from paddle_nb.tensor.naming import append, append_named, generated_name, is_var
from paddle_nb.tensor.search import where
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__: list[str] = [
           "gather", "gather_nd", "index_select", "index_add", "scatter", "scatter_nd_add",
           "take_along_axis", "put_along_axis", "masked_fill", "shard_index", "index_put",
           "scatter_nd", "index_fill", "take", "scatter_"]


def gather(x: Tensor, index: Tensor, axis: int | None = None, name: str | None = None) -> Tensor:
    """The slices of ``x`` at ``index`` along ``axis`` (0 by default; a tensor axis too)."""
    ins = {"X": x, "Index": index}
    attrs = {"axis": 0 if axis is None or is_var(axis) else int(axis)}
    if is_var(axis):
        ins["Axis"] = axis
    return append("gather", "gather", ins, attrs, name=name)


def gather_nd(x: Tensor, index: Tensor, name: str | None = None) -> Tensor:
    """``out[i] = x[index[i]]``: the last dim of ``index`` holds a position in ``x``."""
    return append("gather_nd", "gather_nd", {"X": x, "Index": index}, name=name)


def index_select(x: Tensor, index: Tensor, axis: int = 0, name: str | None = None) -> Tensor:
    """The slices of ``x`` at the 1-D ``index`` along ``axis``."""
    return append("index_select", "index_select", {"X": x, "Index": index}, {"dim": int(axis)},
                  name=name)


def index_add(x: Tensor, index: Tensor, axis: int, value: Tensor, name: str | None = None
             ) -> Tensor:
    """``x`` with the slices of ``value`` added at positions ``index`` along ``axis``."""
    return append("index_add", "index_add", {"X": x, "Index": index, "AddValue": value},
                  {"axis": int(axis)}, name=name)


def scatter(x: Tensor, index: Tensor, updates: Tensor, overwrite: bool = True,
            name: str | None = None) -> Tensor:
    """``x`` with its rows ``index`` replaced by (or summed from) ``updates``."""
    return append("scatter", "scatter", {"X": x, "Ids": index, "Updates": updates},
                  {"overwrite": bool(overwrite)}, name=name)


def scatter_(x: Tensor, index: Tensor, updates: Tensor, overwrite: bool = True,
             name: str | None = None) -> Tensor:
    """``paddle.scatter`` (in a static program the result is a new variable)."""
    return scatter(x, index, updates, overwrite, name)


def scatter_nd_add(x: Tensor, index: Tensor, updates: Tensor, name: str | None = None) -> Tensor:
    """``x`` with each ``updates[i]`` added at the position ``index[i]``."""
    return append("scatter_nd_add", "scatter_nd_add",
                  {"X": x, "Index": index, "Updates": updates}, name=name)


def scatter_nd(index: Tensor, updates: Tensor, shape: Sequence[int], name: str | None = None
              ) -> Tensor:
    """Zeros of ``shape`` with each ``updates[i]`` added at the position ``index[i]``."""
    return scatter_nd_add(full(shape, 0.0, updates.dtype), index, updates, name)


def index_put(x: Tensor, indices: Sequence[Tensor], value: Tensor, accumulate: bool = False,
              name: str | None = None) -> Tensor:
    """``x`` with ``value`` put (or added) at the positions the tensors ``indices`` give."""
    return append("index_put", "index_put", {"x": x, "indices": list(indices), "value": value},
                  {"accumulate": bool(accumulate)}, slot="out", name=name)


def index_fill(x: Tensor, index: Tensor, axis: int, value: Tensor | float,
               name: str | None = None
              ) -> Tensor:
    """``x`` with the slices at ``index`` along ``axis`` set to ``value`` (PaddlePaddle 2.6's
    way: the axis moved to the front, an ``index_put``, moved back)."""
    from paddle_nb.tensor.manipulation import transpose
    if not is_var(value):
        value = to_tensor(numpy.asarray(value, dtype=x.dtype))
    axis %= len(x.shape)
    perm = [axis] + [d for d in range(len(x.shape)) if d != axis]
    moved = transpose(x, perm)
    put = append("index_put", "index_put", {"x": moved, "indices": [index], "value": value},
                 {"accumulate": False}, slot="out")
    return transpose(put, [perm.index(d) for d in range(len(perm))])


def take(x: Tensor, index: Tensor, mode: str = "raise", name: str | None = None) -> Tensor:
    """The elements of ``x``, flattened, at ``index`` (negative counts from the end; mode
    'wrap' and 'clip' fold an index into range), shaped like ``index``."""
    from paddle_nb.tensor.manipulation import flatten, reshape
    numel = int(numpy.prod(x.shape))
    flat_x, flat_i = flatten(x), flatten(index)
    if mode == "raise":
        zero = append_named(generated_name("tmp"), "fill_constant", {},
                            {"shape": [], "dtype": index.dtype, "value": 0.0})
        negative = append_named(generated_name("tmp"), "less_than", {"X": flat_i, "Y": zero})
        shifted = append_named(generated_name("tmp"), "scale", {"X": flat_i},
                               {"scale": 1.0, "bias": float(numel)})
        flat_i = append("where", "where", {"Condition": negative, "X": shifted, "Y": flat_i})
    elif mode in ("wrap", "clip"):
        raise NotImplementedError(f"paddle.take: paddle_nb supports mode 'raise' only, got "
                                  f"{mode!r}; fold the index yourself (paddle.remainder, "
                                  "paddle.clip) and call take with mode='raise'")
    picked = append("index_select", "index_select", {"X": flat_x, "Index": flat_i}, {"dim": 0})
    return reshape(picked, list(index.shape))


def _along_shape(arr: Tensor, indices: Tensor, axis: int) -> Any:
    """PaddlePaddle's broadcast shape for take/put_along_axis: arr's, but indices' dim at
    ``axis``; indices' own shape where it is larger than arr somewhere."""
    shape = list(arr.shape)
    shape[axis] = indices.shape[axis]
    if any(i > a for i, a in zip(indices.shape, arr.shape)):
        return list(indices.shape)
    return shape


def _expand(x: Tensor, shape: Any) -> Tensor:
    from paddle_nb.tensor.manipulation import broadcast_to
    return broadcast_to(x, shape)


def take_along_axis(arr: Tensor, indices: Tensor, axis: int, broadcast: bool = True) -> Tensor:
    """``out[..., i, ...] = arr[..., indices[..., i, ...], ...]`` along ``axis``."""
    axis = int(axis) % len(arr.shape)
    if broadcast:
        shape = _along_shape(arr, indices, axis)
        indices = _expand(indices, shape)
        shape[axis] = arr.shape[axis]
        arr = _expand(arr, shape)
    return append("take_along_axis", "take_along_axis", {"Input": arr, "Index": indices},
                  {"Axis": axis}, slot="Result")


def put_along_axis(arr: Tensor, indices: Tensor, values: Tensor, axis: int, reduce: str = "assign",
                   include_self: bool = True, broadcast: bool = True) -> Tensor:
    """``arr`` with ``values`` put (or added, multiplied) at ``indices`` along ``axis``."""
    axis = int(axis) % len(arr.shape)
    if not is_var(values):
        values = to_tensor(numpy.asarray(values), arr.dtype)
    if broadcast:
        indices = _expand(indices, _along_shape(arr, indices, axis))
        values = _expand(values, list(indices.shape))
    return append("put_along_axis", "put_along_axis",
                  {"Input": arr, "Index": indices, "Value": values},
                  {"Axis": axis, "Reduce": reduce, "Include_self": bool(include_self)},
                  slot="Result")


def masked_fill(x: Tensor, mask: Tensor, value: Tensor | float, name: str | None = None
                ) -> Tensor:
    """``x`` with ``value`` where ``mask`` holds: as PaddlePaddle 2.6 builds it, a 0-D
    ``full`` of the value, a ``logical_not`` of the mask and ``where(not mask, x, value)``
    (whose broadcasting adds zeros to the three operands)."""
    if not is_var(value):
        value = full([], value, x.dtype)
    return where(logical_not(mask), x, value)


def shard_index(input: Tensor, index_num: int, nshards: int, shard_id: int, ignore_value: int = -1
               ) -> Tensor:
    """Each index of ``input`` moved into shard ``shard_id``'s range, ``ignore_value`` where
    it belongs to another shard."""
    return append("shard_index", "shard_index", {"X": input},
                  {"index_num": int(index_num), "nshards": int(nshards),
                   "shard_id": int(shard_id), "ignore_value": int(ignore_value)})


register_tensor_methods({name: globals()[name] for name in (
    "gather", "gather_nd", "index_select", "index_add", "scatter", "scatter_nd_add",
    "take_along_axis", "put_along_axis", "masked_fill")})
