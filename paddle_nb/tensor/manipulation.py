"""Reshaping, joining and cutting tensors at paddle's top level: reshape, transpose,
concat, stack, split, chunk, unbind, unstack, squeeze, unsqueeze, flatten, flip, rot90,
roll, tile, expand, expand_as, broadcast_to, broadcast_tensors, slice, strided_slice, cast,
crop, repeat_interleave, unique, unique_consecutive, moveaxis.

Each appends the op PaddlePaddle 2.6 appends, with its attributes, under its names
(``paddle.reshape`` -> ``reshape2_0.tmp_0``, ``paddle.transpose`` -> ``transpose_0.tmp_0``).
The gathering and scattering functions live in paddle_nb/tensor/selection.py.
"""

from __future__ import annotations

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.tensor import manipulation_more, selection
from paddle_nb.tensor.creation import full, to_tensor
from paddle_nb.tensor.naming import (
    append, append_many, append_named, check_var, generated_name, is_var,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor
    from paddle_nb.layers.helper import LayerHelper

__all__ = ["reshape", "transpose", "concat", "stack", "split", "chunk", "unbind", "unstack",
           "squeeze", "unsqueeze", "flatten", "flip", "rot90", "roll", "tile", "expand",
           "expand_as", "broadcast_to", "broadcast_tensors", "slice", "strided_slice", "cast",
           "crop", "repeat_interleave", "unique", "unique_consecutive", "moveaxis", "diagonal",
           *selection.__all__,       # gather, scatter, ...: paddle.tensor.manipulation's too
           *manipulation_more.__all__]

gather, gather_nd, index_select, index_add = (selection.gather, selection.gather_nd,
                                              selection.index_select, selection.index_add)
scatter, scatter_nd_add, masked_fill = selection.scatter, selection.scatter_nd_add, \
    selection.masked_fill
take_along_axis, put_along_axis, shard_index = (selection.take_along_axis,
                                                selection.put_along_axis, selection.shard_index)
index_put, scatter_nd = selection.index_put, selection.scatter_nd
index_fill, take, scatter_ = selection.index_fill, selection.take, selection.scatter_
reverse, vsplit, unflatten = (manipulation_more.reverse, manipulation_more.vsplit,
                              manipulation_more.unflatten)
atleast_1d, atleast_2d, atleast_3d = (manipulation_more.atleast_1d, manipulation_more.atleast_2d,
                                      manipulation_more.atleast_3d)
broadcast_shape, reshape_, squeeze_, unsqueeze_ = (
    manipulation_more.broadcast_shape, manipulation_more.reshape_, manipulation_more.squeeze_,
    manipulation_more.unsqueeze_)
view, view_as, as_strided = manipulation_more.view, manipulation_more.view_as, \
    manipulation_more.as_strided
unfold = manipulation_more.unfold


def _axis_list(axis: Any) -> Any:
    if axis is None:
        return []
    return [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]


def _ints_or_tensors(values: Any, attr: str, list_slot: str, tensor_slot: str | None = None) -> Any:
    """(attribute, inputs): ints go into the attribute; a 1-D tensor into ``tensor_slot``;
    a list holding tensors into ``list_slot`` with -1 in the attribute for each."""
    if is_var(values):
        return [], {tensor_slot: values}
    values = list(values)
    if any(is_var(v) for v in values):
        return [-1 if is_var(v) else int(v) for v in values], {
            list_slot: [v if is_var(v) else full([1], int(v), "int32") for v in values]}
    return [int(v) for v in values], {}


def reshape(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` with a new shape (0 copies x's dimension, one -1 is inferred)."""
    attr, ins = _ints_or_tensors(shape, "shape", "ShapeTensor", "Shape")
    return append("reshape2", "reshape2", {"X": x, **ins}, {"shape": attr}, extra=("XShape",),
                  name=name)


def transpose(x: Tensor, perm: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` with its dimensions permuted: out.shape[i] = x.shape[perm[i]]."""
    return append("transpose", "transpose2", {"X": x}, {"axis": [int(p) for p in perm]},
                  extra=("XShape",), name=name)


def diagonal(x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
            ) -> Tensor:
    """The diagonal of ``x`` in the plane (axis1, axis2), as the last axis (PaddlePaddle has
    it in paddle.tensor.math)."""
    return append("diagonal", "diagonal", {"Input": x},
                  {"offset": int(offset), "axis1": int(axis1), "axis2": int(axis2)}, name=name)


def moveaxis(x: Tensor, source: int | Sequence[int], destination: int | Sequence[int],
             name: str | None = None) -> Tensor:
    """``x`` with the axes ``source`` moved to the places ``destination`` (a transpose2)."""
    src, dst = _axis_list(source), _axis_list(destination)
    rank = len(x.shape)
    if len(src) != len(dst):
        raise ValueError(f"paddle.moveaxis: source {src} and destination {dst} must have one "
                         "length")
    src, dst = [a % rank for a in src], [a % rank for a in dst]
    rest = [a for a in range(rank) if a not in src]
    placed: list[int | None] = [None] * rank
    for s, d in zip(src, dst):
        placed[d] = s
    perm = [p if p is not None else rest.pop(0) for p in placed]
    return append("moveaxis", "transpose2", {"X": x}, {"axis": perm}, extra=("XShape",),
                  name=name)


def concat(x: Sequence[Tensor], axis: int = 0, name: str | None = None,
           helper: LayerHelper | None = None) -> Tensor:
    """The tensors of ``x`` joined along ``axis``. (``helper``: the Fluid-1.8 layer's own,
    which builds through this function.)"""
    return append("concat", "concat", {"X": list(x)}, {"axis": int(axis)}, name=name,
                  helper=helper)


def stack(x: Sequence[Tensor], axis: int = 0, name: str | None = None,
          helper: LayerHelper | None = None) -> Tensor:
    """The same-shape tensors of ``x`` stacked along a new axis ``axis``."""
    return append("stack", "stack", {"X": list(x)}, {"axis": int(axis)}, slot="Y", name=name,
                  helper=helper)


def split(x: Tensor, num_or_sections: int | Sequence[int], axis: int = 0, name: str | None = None,
          helper: LayerHelper | None = None) -> list[Tensor]:
    """``x`` cut along ``axis`` into ``num`` equal parts or parts of the given sizes."""
    if isinstance(num_or_sections, int):
        n, attrs = num_or_sections, {"num": num_or_sections, "sections": [], "axis": int(axis)}
    else:
        sections = [int(s) for s in num_or_sections]
        n, attrs = len(sections), {"num": 0, "sections": sections, "axis": int(axis)}
    return append_many("split", "split", {"X": x}, attrs, [("Out", n)], name=name,
                       helper=helper)[0]


def chunk(x: Tensor, chunks: int, axis: int = 0, name: str | None = None) -> list[Tensor]:
    """``x`` cut along ``axis`` into ``chunks`` equal parts."""
    return split(x, int(chunks), axis, name)


def unbind(input: Tensor, axis: int = 0) -> list[Tensor]:
    """The slices of ``input`` along ``axis``, that axis removed."""
    n = input.shape[axis]
    return append_many("unbind", "unbind", {"X": input}, {"axis": int(axis)}, [("Out", n)])[0]


def unstack(x: Tensor, axis: int = 0, num: Any = None) -> list[Tensor]:
    """The slices of ``x`` along ``axis``, that axis removed (``num`` of them)."""
    n = x.shape[axis] if num is None else int(num)
    return append_many("unstack", "unstack", {"X": x}, {"axis": int(axis), "num": n},
                       [("Y", n)])[0]


def squeeze(x: Tensor, axis: int | None = None, name: str | None = None) -> Tensor:
    """``x`` without its size-1 dims (all of them, or those in ``axis``)."""
    return append("squeeze", "squeeze2", {"X": x}, {"axes": _axis_list(axis)},
                  extra=("XShape",), name=name)


def unsqueeze(x: Tensor, axis: int | Sequence[int], name: str | None = None) -> Tensor:
    """``x`` with a size-1 dim inserted at each of ``axis``."""
    attr, ins = _ints_or_tensors(_axis_list(axis) if not is_var(axis) else axis, "axes",
                                 "AxesTensorList", "AxesTensor")
    return append("unsqueeze2", "unsqueeze2", {"X": x, **ins}, {"axes": attr},
                  extra=("XShape",), name=name)


def flatten(x: Tensor, start_axis: int = 0, stop_axis: int = -1, name: str | None = None) -> Tensor:
    """``x`` with dims ``start_axis..stop_axis`` (inclusive) merged into one."""
    rank = len(x.shape)
    start, stop = (start_axis % rank, stop_axis % rank) if rank else (0, 0)
    if start > stop:
        raise ValueError(f"paddle.flatten: start_axis ({start_axis}) must not come after "
                         f"stop_axis ({stop_axis}) for x of shape {list(x.shape)}")
    return append("flatten", "flatten_contiguous_range", {"X": x},
                  {"start_axis": start, "stop_axis": stop}, extra=("XShape",), name=name)


def flip(x: Tensor, axis: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` reversed along each of ``axis``."""
    return append("flip", "flip", {"X": x}, {"axis": _axis_list(axis)}, name=name)


def rot90(x: Tensor, k: int = 1, axes: Sequence[int] = (0, 1), name: str | None = None) -> Tensor:
    """``x`` rotated by 90 degrees ``k`` times in the plane ``axes`` (flip and transpose)."""
    a, b = [int(v) % len(x.shape) for v in axes]
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, [a]), [b])
    perm = list(range(len(x.shape)))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return transpose(flip(x, [b]), perm)
    return flip(transpose(x, perm), [b])


def roll(x: Tensor, shifts: int | Sequence[int], axis: int | Sequence[int] | None = None,
         name: str | None = None) -> Tensor:
    """``x`` rotated by ``shifts`` along ``axis`` (none: as one flat row, then reshaped)."""
    ins = {}
    if is_var(shifts):
        ins, shifts = {"ShiftsTensor": shifts}, []
    return append("roll", "roll", {"X": x, **ins},
                  {"shifts": _axis_list(shifts), "axis": _axis_list(axis)}, name=name)


def tile(x: Tensor, repeat_times: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` repeated ``repeat_times[i]`` times along each dim i."""
    attr, ins = _ints_or_tensors(repeat_times, "repeat_times", "repeat_times_tensor",
                                 "RepeatTimes")
    return append("tile", "tile", {"X": x, **ins}, {"repeat_times": attr}, name=name)


def expand(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` broadcast to ``shape`` (-1 keeps a dim)."""
    attr, ins = _ints_or_tensors(shape, "shape", "expand_shapes_tensor", "Shape")
    return append("expand", "expand_v2", {"X": x, **ins}, {"shape": attr}, name=name)


def broadcast_to(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """``x`` broadcast to ``shape`` (an ``expand_v2``)."""
    return expand(x, shape, name)


def expand_as(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """``x`` broadcast to ``y``'s shape."""
    return append("expand_as", "expand_as_v2", {"X": x, "Y": y},
                  {"target_shape": list(y.shape)}, name=name)


def broadcast_tensors(input: Sequence[Tensor], name: str | None = None) -> list[Tensor]:
    """The tensors of ``input`` each broadcast to their common shape."""
    input = list(input)
    return append_many("broadcast_tensors", "broadcast_tensors", {"X": input}, {},
                       [("Out", len(input))], name=name)[0]


def slice(input: Tensor, axes: Sequence[int], starts: Sequence[int], ends: Sequence[int]) -> Tensor:
    """``input[starts:ends]`` along each of ``axes`` (bounds may be tensors)."""
    attrs = {"axes": [int(a) for a in axes], "infer_flags": [1] * len(axes), "decrease_axis": []}
    ins = {}
    for key, values in (("starts", starts), ("ends", ends)):
        slot = "StartsTensor" if key == "starts" else "EndsTensor"
        attr, more = _ints_or_tensors(values, key, slot + "List", slot)
        attrs[key] = attr
        ins.update(more)
        if more and not is_var(values):
            attrs["infer_flags"] = [-1 if is_var(v) else 1 for v in values]
    return append("slice", "slice", {"Input": input, **ins}, attrs)


def strided_slice(x: Tensor, axes: Sequence[int], starts: Sequence[int], ends: Sequence[int],
                  strides: Sequence[int], name: str | None = None) -> Tensor:
    """``x[starts:ends:strides]`` along each of ``axes``."""
    attrs = {"axes": [int(a) for a in axes], "starts": [int(v) for v in starts],
             "ends": [int(v) for v in ends], "strides": [int(v) for v in strides],
             "infer_flags": [1] * len(axes), "decrease_axis": []}
    return append("strided_slice", "strided_slice", {"Input": x}, attrs, name=name)


def cast(x: Tensor, dtype: DTypeLike, helper: LayerHelper | None = None) -> Tensor:
    """``x`` converted to ``dtype``."""
    check_var(x, "x", "cast")
    return append("cast", "cast", {"X": x},
                  {"in_dtype": x.dtype, "out_dtype": convert_dtype(dtype)}, helper=helper)


def crop(x: Tensor, shape: Sequence[int] | None = None, offsets: Sequence[int] | None = None,
         name: str | None = None) -> Tensor:
    """The box of ``x`` of ``shape`` (-1: the rest of a dim) at ``offsets`` (zeros)."""
    rank = len(x.shape)
    shape = list(x.shape) if shape is None else shape
    offsets = [0] * rank if offsets is None else offsets
    shape_attr, ins = _ints_or_tensors(shape, "shape", "ShapeTensor", "Shape")
    off_attr, more = _ints_or_tensors(offsets, "offsets", "OffsetsTensor", "Offsets")
    return append("crop_tensor", "crop_tensor", {"X": x, **ins, **more},
                  {"shape": shape_attr, "offsets": off_attr}, name=name)


def repeat_interleave(x: Tensor, repeats: Tensor | int | list[int] | tuple[int, ...],
                      axis: int | None = None,
                      name: str | None = None) -> Tensor:
    """Each slice of ``x`` along ``axis`` repeated ``repeats`` (or ``repeats[i]``) times;
    without an axis, ``x`` is flattened first."""
    if axis is None:
        x, axis = flatten(x), 0
    ins, count = {"X": x}, 0
    if is_var(repeats):
        ins["RepeatsTensor"] = repeats
    elif isinstance(repeats, (list, tuple, numpy.ndarray)):
        ins["RepeatsTensor"] = to_tensor(numpy.asarray(repeats, "int64"))
    else:
        count = int(repeats)
    return append("repeat_interleave", "repeat_interleave", ins,
                  {"Repeats": count, "dim": int(axis)}, name=name)


def unique(x: Tensor, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, dtype: DTypeLike = "int64",
           name: str | None = None) -> Tensor | tuple[Tensor, ...]:
    """The sorted distinct values of ``x`` and, as asked, where each first occurs, which one
    each element is, and how often each occurs."""
    attrs = {"return_index": return_index, "return_inverse": return_inverse,
             "return_counts": return_counts, "axis": _axis_list(axis),
             "dtype": convert_dtype(dtype), "is_sorted": True}
    out, indices, inverse, counts = append_many(
        "unique", "unique", {"X": x}, attrs, ["Out", "Indices", "Index", "Counts"], name=name)
    picked = [out] + [v for v, want in ((indices, return_index), (inverse, return_inverse),
                                        (counts, return_counts)) if want]
    return picked[0] if len(picked) == 1 else tuple(picked)


def unique_consecutive(x: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       axis: int | None = None, dtype: DTypeLike = "int64", name: str | None = None
                      ) -> Tensor | tuple[Tensor, ...]:
    """``x`` with each run of equal consecutive values kept once (and, as asked, the run of
    each element and each run's length)."""
    attrs = {"return_inverse": return_inverse, "return_counts": return_counts,
             "axis": _axis_list(axis), "dtype": convert_dtype(dtype)}
    out, inverse, counts = append_many("unique_consecutive", "unique_consecutive", {"X": x},
                                       attrs, ["Out", "Index", "Counts"], name=name)
    picked = [out] + [v for v, want in ((inverse, return_inverse), (counts, return_counts))
                      if want]
    return picked[0] if len(picked) == 1 else tuple(picked)


def astype(x: Tensor, dtype: DTypeLike) -> Tensor:
    """``x.astype(dtype)``: a cast whose result is named ``tmp_N``, as PaddlePaddle 2.6's
    tensor method names it."""
    return append_named(generated_name("tmp"), "cast", {"X": x},
                        {"in_dtype": x.dtype, "out_dtype": convert_dtype(dtype)})


register_tensor_methods({name: globals()[name] for name in (
    "reshape", "transpose", "split", "chunk", "unbind", "unstack", "squeeze", "unsqueeze",
    "flatten", "flip", "rot90", "roll", "tile", "expand", "expand_as", "broadcast_to", "cast",
    "crop", "repeat_interleave", "unique", "unique_consecutive", "moveaxis", "strided_slice",
    "astype")})
