"""Indexing a Variable as PaddlePaddle 2.6 writes it: ``x[1]``, ``x[:, 1:3]``, ``x[..., ::2]``,
``x[None]``, ``x[idx]``, ``x[mask]``, and assignment ``x[:, 0] = v``.

An index is read in two steps. The basic part (integers, slices, ``...``, ``None``) becomes
one ``slice`` op (or ``strided_slice`` when a step is not 1) over the axes it cuts, dropping
the axes an integer picked (``decrease_axis``), then an ``unsqueeze2`` for the ``None``
entries; the output is named after x (``x_slice_0``). An advanced entry (an int tensor or
list, or a bool mask) then becomes a ``gather_nd``: an int index is given a last dim of 1
(``unsqueeze2``), several int entries are broadcast together and stacked, a mask becomes
its positions (``where_index``); entries that are not first are moved to the front by a
``transpose2`` (and back after, when they stood side by side, as NumPy places them).

Assignment appends ``set_value``: Out is x with the region replaced (by a ValueTensor, cast
to x's dtype, or by constants in the op's ``values``); an advanced index goes through
``index_put`` first. ``setitem(x, index, value)`` returns that Out, as
``paddle.static.setitem`` does; ``x[index] = value`` writes it into x itself (the op's Out
is x), the form PaddlePaddle wrote before 2.6, since Python cannot rebind the name x.

>>> read_index(3, (1, slice(None), slice(None, None, 2)))["axes"]
[0, 2]
"""

from __future__ import annotations

import numpy
from typing import Any

from paddle_nb.framework.variable import (Variable, as_tensor, register_tensor_methods,
                                          tensor_shape)
from paddle_nb.tensor.creation import full, one_value, to_tensor
from paddle_nb.tensor.manipulation import astype, broadcast_tensors, stack, transpose, unsqueeze
from paddle_nb.tensor.naming import append, append_named, generated_name
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paddle_nb.framework.variable import Tensor

__all__ = ["read_index", "getitem", "setitem", "INT_MAX"]

INT_MAX = 2147483647


def _is_advanced(entry: Any) -> bool:
    return isinstance(entry, (Variable, list, numpy.ndarray)) and not isinstance(entry, bool)


def _is_int(entry: Any) -> bool:
    return isinstance(entry, (int, numpy.integer)) and not isinstance(entry, (bool, numpy.bool_))


def _consumed(entry: Any) -> int:
    if entry is None or entry is Ellipsis:
        return 0
    if isinstance(entry, Variable) and entry.dtype == numpy.dtype(bool):
        return len(tensor_shape(entry))
    if isinstance(entry, numpy.ndarray) and entry.dtype == bool:
        return entry.ndim
    return 1


def _bounds(entry: Any) -> Any:
    """(start, end, step) of a slice entry, PaddlePaddle's way: an omitted bound is 0 or
    INT_MAX going forward, INT_MAX or -1 (through index 0) going backward."""
    step = 1 if entry.step is None else entry.step
    if _is_int(step) and step == 0:
        raise ValueError("a slice step of 0 is not allowed")
    forward = not (_is_int(step) and step < 0)
    start = entry.start if entry.start is not None else (0 if forward else INT_MAX)
    end = entry.stop if entry.stop is not None else (INT_MAX if forward else -1)
    return start, end, step


def read_index(rank: int, index: Any) -> dict[str, list[Any]]:
    """What an index asks of a tensor of ``rank`` dims: the cut axes with their starts, ends
    and steps, the axes integers drop, the output positions of ``None`` entries and the
    advanced entries (with their output positions)."""
    entries = list(index) if isinstance(index, tuple) else [index]
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can have only one ellipsis ('...')")
    used = sum(_consumed(e) for e in entries)
    if used > rank:
        raise IndexError(f"too many indices ({used}) for a tensor of rank {rank}")
    plan: dict[str, list[Any]] = {"axes": [], "starts": [], "ends": [], "steps": [],
                                  "decrease": [], "nones": [],
            "advanced": []}
    dim = out = 0
    for entry in entries:
        if entry is None:
            plan["nones"].append(out)
            out += 1
        elif entry is Ellipsis:
            dim += rank - used
            out += rank - used
        elif _is_int(entry):
            _cut(plan, dim, int(entry), INT_MAX if entry == -1 else int(entry) + 1, 1)
            plan["decrease"].append(dim)
            dim += 1
        elif isinstance(entry, slice):
            if entry != slice(None):
                _cut(plan, dim, *_bounds(entry))
            dim, out = dim + 1, out + 1
        elif _is_advanced(entry):
            plan["advanced"].append((out, entry))
            dim, out = dim + _consumed(entry), out + 1
        else:
            raise IndexError(f"paddle_nb cannot index with {entry!r} ({type(entry).__name__}); "
                             "use ints, slices, ..., None, an int or bool tensor or a list")
    return plan


def _cut(plan: Any, dim: int, start: Tensor | int, end: Tensor | int, step: int) -> None:
    plan["axes"].append(dim)
    plan["starts"].append(start)
    plan["ends"].append(end)
    plan["steps"].append(step)


# ---- reading ----------------------------------------------------------------------------------

def _bound_list(values: Any) -> Any:
    """A tensor list for bounds of which some are tensors (the constants as int64 tensors)."""
    return [v if isinstance(v, Variable) else full([1], int(v), "int64") for v in values]


def _slice_basic(x: Tensor, plan: Any) -> Tensor:
    if not plan["axes"]:
        return x
    strided = any(s != 1 for s in plan["steps"])
    op_type = "strided_slice" if strided else "slice"
    attrs = {"axes": plan["axes"], "infer_flags": [1] * len(plan["axes"]),
             "decrease_axis": plan["decrease"]}
    ins = {"Input": x}
    for key, slot in (("starts", "Starts"), ("ends", "Ends")) + (
            (("steps", "Strides"),) if strided else ()):
        values = plan[key]
        if any(isinstance(v, Variable) for v in values):
            ins[slot + "TensorList"] = _bound_list(values)
            attrs["infer_flags"] = [-1] * len(values)
            values = [-1 if isinstance(v, Variable) else v for v in values]
        attrs["strides" if key == "steps" else key] = values
    return append_named(generated_name(f"{x.name}_{op_type}"), op_type, ins, attrs)


def _as_tensor(entry: Any) -> Tensor:
    if isinstance(entry, Variable):
        return as_tensor(entry)
    array = numpy.asarray(entry)
    return to_tensor(array if array.dtype == bool else array.astype("int64"))


def _index_tensor(tensors: Any) -> Tensor:
    """gather_nd's index for the advanced entries (as tensors): a mask's positions, one int
    index given a last dim of 1, or several int indices broadcast together and stacked."""
    if len(tensors) == 1:
        if tensors[0].dtype == numpy.dtype(bool):
            return append("where_index", "where_index", {"Condition": tensors[0]})
        return unsqueeze(tensors[0], -1)
    if any(t.dtype == numpy.dtype(bool) for t in tensors):
        raise IndexError("paddle_nb indexes with a mask only as the one tensor entry of an "
                         "index; use paddle.nonzero and index with its positions")
    return stack(broadcast_tensors(tensors), axis=-1)


def _gather(x: Tensor, advanced: Any) -> Tensor:
    """``x`` read at the advanced entries, as 2.6 does: their axes moved to the front (a
    transpose2), one gather_nd, and, when the entries were side by side but not first, the
    result's axes moved back to where they stood."""
    positions, entries = [p for p, _ in advanced], [e for _, e in advanced]
    rank = len(x.shape)
    mask_dims = sum(len(numpy.shape(e)) if not isinstance(e, Variable) else len(tensor_shape(e))
                    for e in entries if _consumed(e) > 1)
    if mask_dims and positions != [0]:
        raise IndexError("paddle_nb indexes with a mask of rank 2 or more only as the first "
                         "entry of an index")
    tensors = [_as_tensor(e) for e in entries]       # lists written first, as 2.6 does
    perm = positions + [d for d in range(rank) if d not in positions]
    moved = x if perm == list(range(rank)) else transpose(x, perm)
    out = append("gather_nd", "gather_nd", {"X": moved, "Index": _index_tensor(tensors)})
    first = positions[0]
    side_by_side = positions == list(range(first, first + len(positions)))
    if first == 0 or not side_by_side:
        return out
    produced = len(out.shape) - (rank - len(positions))
    back = list(range(produced, produced + first)) + list(range(produced)) + \
        list(range(produced + first, len(out.shape)))
    return transpose(out, back)


def getitem(x: Tensor, index: Any) -> Tensor:
    """``x[index]`` as PaddlePaddle 2.6 builds it (see the module docstring)."""
    plan = read_index(len(x.shape), index)
    out = _slice_basic(x, plan)
    if plan["nones"]:
        out = unsqueeze(out, plan["nones"])
    if plan["advanced"]:
        out = _gather(out, plan["advanced"])
    return out


# ---- assigning --------------------------------------------------------------------------------

def _value_attrs(x: Tensor, value: Tensor | float) -> Any:
    """set_value's inputs and attributes for ``value``: a tensor (cast to x's dtype), or
    constants written into the op."""
    if isinstance(value, Variable):     # cast even to its own dtype, as PaddlePaddle 2.6
        return {"ValueTensor": astype(value, x.dtype)}, {"values": [], "shape": []}
    array = numpy.asarray(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"x[...] = value: value must be a number, an array or a Variable, "
                        f"got {type(value).__name__}")
    return {}, {"values": [float(v) for v in array.reshape(-1).tolist()],
                "shape": list(array.shape) or [1]}


def _advanced_value(x: Tensor, plan: Any, value: Tensor | float) -> Tensor:
    """``x`` with an advanced-index assignment done by index_put (PaddlePaddle 2.6's way),
    as the ValueTensor of a whole-tensor set_value."""
    positions = [p for p, _ in plan["advanced"]]
    if plan["axes"] or plan["nones"] or positions != list(range(len(positions))):
        raise IndexError("paddle_nb assigns through tensor indices only when they are the "
                         "whole index (x[idx] = v, x[i, j] = v, x[mask] = v)")
    entries = [e if isinstance(e, Variable) else to_tensor(numpy.asarray(e))
               for _, e in plan["advanced"]]
    if not isinstance(value, Variable):     # constants: written, then cast (as 2.6 does)
        value = astype(to_tensor(numpy.asarray(value).reshape(-1) if numpy.ndim(value)
                                 else [value], x.dtype), x.dtype)
    put = append("index_put", "index_put", {"x": x, "indices": entries, "value": value},
                 {"accumulate": False}, slot="out")
    return transpose(put, list(range(len(x.shape))))


def _set_value(x: Tensor, index: Any, value: Tensor | float, out_name: str | None) -> Tensor:
    plan = read_index(len(x.shape), index)
    if plan["advanced"]:
        ins: dict[str, Any] = {"ValueTensor": _advanced_value(x, plan, value)}
        attrs: dict[str, Any] = {"values": [], "shape": []}
        plan = read_index(len(x.shape), ())
    else:
        ins, attrs = _value_attrs(x, value)
    attrs.update({"axes": plan["axes"], "decrease_axes": plan["decrease"],
                  "none_axes": plan["nones"], "dtype": x.dtype})
    for key, slot in (("starts", "StartsTensorList"), ("ends", "EndsTensorList"),
                      ("steps", "StepsTensorList")):
        attrs[key] = plan[key]
        if any(isinstance(v, Variable) for v in plan[key]):     # as 2.6: all as tensors
            ins[slot] = [one_value(v, numpy.dtype("int32")) if not isinstance(v, Variable)
                         else v for v in plan[key]]
            attrs[key] = []
    if out_name is None:
        return append("set_value", "set_value", {"Input": x, **ins}, attrs)
    return append_named(out_name, "set_value", {"Input": x, **ins}, attrs)


def setitem(x: Tensor, index: Tensor | slice | Sequence[Tensor | int | list[Any] | slice],
            value: Tensor | float) -> Tensor:
    """A copy of ``x`` with ``x[index]`` set to ``value`` (PaddlePaddle 2.6's
    ``paddle.static.setitem``): a new variable ``set_value_N.tmp_0``."""
    return _set_value(x, index, value, None)


def assign_item(x: Tensor, index: Tensor | int | slice | Sequence[int | slice],
                value: Tensor | float) -> None:
    """``x[index] = value``: set_value writes its result into x itself."""
    _set_value(x, index, value, x.name)


register_tensor_methods({"__getitem__": getitem, "__setitem__": assign_item})
