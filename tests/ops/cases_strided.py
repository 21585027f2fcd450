"""Contract cases for paddle_nb/ops/strided.py and set_value.py: strided_slice, flip, roll,
set_value.

The references walk positions one at a time (Python lists of indices) instead of NumPy
slicing, and spell PaddlePaddle's bound conventions out: 2147483647 for an omitted bound,
``end = -1`` with a negative step for "through index 0".
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(31)
F = np.float32
BIG = 2147483647


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _positions(n, start, end, step):
    """The visited positions, by walking (PaddlePaddle's reading of the bounds)."""
    if start < 0:
        start += n
    if end < 0 and not (end == -1 and step < 0):
        end += n
    out, i = [], start
    if step > 0:
        i = max(i, 0)
        while i < min(end, n):
            out.append(i)
            i += step
    else:
        i = min(i, n - 1)
        while i > max(end, -1):
            out.append(i)
            i += step
    return out


def _picks(shape, attrs, steps_key):
    picks = [list(range(n)) for n in shape]
    for ax, s, e, st in zip(attrs["axes"], attrs["starts"], attrs["ends"], attrs[steps_key]):
        picks[ax % len(shape)] = _positions(shape[ax % len(shape)], s, e, st)
    return picks


def _strided_ref(ins, attrs):
    x = ins["Input"]
    out = x[np.ix_(*_picks(x.shape, attrs, "strides"))]
    drop = tuple(d % x.ndim for d in attrs.get("decrease_axis", []))
    return {"Out": out.reshape([d for i, d in enumerate(out.shape) if i not in drop])}


def _set_value_ref(ins, attrs):
    x = ins["Input"].copy()
    picks = _picks(x.shape, attrs, "steps")
    region = x[np.ix_(*picks)]
    value = ins.get("ValueTensor")
    if value is None:
        value = np.array(attrs["values"]).reshape(attrs["shape"])
    keep = [d for i, d in enumerate(region.shape)
            if i not in {a % x.ndim for a in attrs.get("decrease_axes", [])}]
    full = np.broadcast_to(value.reshape(value.shape[-len(keep):] if keep else ()), keep)
    for k, pos in enumerate(np.ndindex(*region.shape)):
        x[tuple(picks[a][p] for a, p in enumerate(pos))] = full.reshape(-1)[k]
    return {"Out": x}


def _flip_ref(ins, attrs):
    x = ins["X"].copy()
    for a in attrs["axis"]:
        x = np.stack([np.take(x, i, axis=a) for i in range(x.shape[a] - 1, -1, -1)], axis=a)
    return {"Out": x}


def _roll_ref(ins, attrs):
    x = ins["X"]
    axis, shifts = attrs.get("axis", []), attrs["shifts"]
    if not axis:
        flat = list(x.reshape(-1))
        n = len(flat)
        rolled = [flat[(i - shifts[0]) % n] for i in range(n)]
        return {"Out": np.array(rolled, x.dtype).reshape(x.shape)}
    out = np.empty_like(x)
    for pos in np.ndindex(*x.shape):
        src = list(pos)
        for a, s in zip(axis, shifts):
            src[a] = (pos[a] - s) % x.shape[a]
        out[pos] = x[tuple(src)]
    return {"Out": out}


X = arr(4, 5, 3)
CASES = {
    "strided_slice": [
        Case(inputs={"Input": X}, attrs={"axes": [2], "starts": [0], "ends": [BIG], "strides": [2]},
             ref=_strided_ref, grad=("Input",), name="x[..., ::2]"),
        Case(inputs={"Input": X}, attrs={"axes": [0, 1], "starts": [BIG, 3], "ends": [-1, 0],
                                          "strides": [-1, -2]},
             ref=_strided_ref, grad=("Input",), name="x[::-1, 3:0:-2] as PaddlePaddle writes it"),
        Case(inputs={"Input": X}, attrs={"axes": [0, 1], "starts": [1, BIG], "ends": [2, -1],
                                          "strides": [1, -1], "decrease_axis": [0]},
             ref=_strided_ref, grad=("Input",), name="x[1, ::-1] drops axis 0"),
        Case(inputs={"Input": X}, attrs={"axes": [1], "starts": [-4], "ends": [-1], "strides": [2]},
             ref=_strided_ref, grad=("Input",), name="negative bounds"),
    ],
    "flip": [
        Case(inputs={"X": X}, attrs={"axis": [0, 2]}, ref=_flip_ref, grad=("X",)),
        Case(inputs={"X": X[0]}, attrs={"axis": [-1]}, ref=_flip_ref, grad=("X",), name="negative"),
    ],
    "roll": [
        Case(inputs={"X": X}, attrs={"shifts": [1, -2], "axis": [0, 2]}, ref=_roll_ref,
             grad=("X",)),
        Case(inputs={"X": X[0]}, attrs={"shifts": [3]}, ref=_roll_ref, grad=("X",),
             name="no axis: flat"),
    ],
    "set_value": [
        Case(inputs={"Input": X}, attrs={"axes": [1], "starts": [0], "ends": [1], "steps": [1],
                                          "decrease_axes": [1], "values": [3.0], "shape": [1]},
             ref=_set_value_ref, grad=("Input",), name="x[:, 0] = 3.0"),
        Case(inputs={"Input": X, "ValueTensor": arr(4, 3)},
             attrs={"axes": [1], "starts": [0], "ends": [1], "steps": [1], "decrease_axes": [1]},
             ref=_set_value_ref, grad=("Input", "ValueTensor"), name="x[:, 0] = v"),
        Case(inputs={"Input": X, "ValueTensor": arr(3)},
             attrs={"axes": [0, 1], "starts": [BIG, 1], "ends": [-1, 5], "steps": [-1, 2]},
             ref=_set_value_ref, grad=("Input", "ValueTensor"),
             name="x[::-1, 1::2] = v, broadcast"),
        Case(inputs={"Input": X[0], "ValueTensor": arr(1, 3)},
             attrs={"axes": [0], "starts": [1], "ends": [2], "steps": [1], "decrease_axes": [0],
                    "none_axes": [0]},
             ref=_set_value_ref, grad=("Input", "ValueTensor"), name="x[None, 1] = v"),
        Case(inputs={"Input": np.arange(6, dtype=np.int64).reshape(2, 3)},
             attrs={"axes": [0], "starts": [0], "ends": [1], "steps": [1], "values": [7.0],
                    "shape": [1], "dtype": np.int64}, ref=_set_value_ref, name="int64 Input"),
    ],
}

def _index_put_ref(ins, attrs):
    x, indices, value = ins["x"].copy(), ins["indices"], ins["value"]
    index = indices[0]
    spots = [p for p in np.ndindex(*index.shape) if index[p]] if index.dtype == bool \
        else [tuple(int(i[k]) for i in indices) for k in range(len(index))]
    values = np.broadcast_to(value, (len(spots),) + x.shape[len(spots[0]):])
    for k, p in enumerate(spots):
        if attrs.get("accumulate"):
            x[p] += values[k]
        else:
            x[p] = values[k]
    return {"out": x}


CASES["index_put"] = [
    Case(inputs={"x": X[0], "indices": [X[0] > 0.3], "value": arr(1)}, ref=_index_put_ref,
         grad=("x", "value"), name="x[mask] = v"),
    Case(inputs={"x": X[0], "indices": [np.array([4, 0])], "value": arr(3)}, ref=_index_put_ref,
         grad=("x", "value"), name="x[idx] = row"),
    Case(inputs={"x": X[0], "indices": [np.array([1, 1, 2])], "value": arr(3, 3)},
         attrs={"accumulate": True}, ref=_index_put_ref, grad=("x", "value"),
         name="accumulate, a repeat"),
    Case(inputs={"x": X[0], "indices": [np.array([4, 0, 2]), np.array([1, 2, 0])],
                 "value": arr(3)}, ref=_index_put_ref, grad=("x", "value"),
         name="x[i, j] = v: two int indices"),
]

XM = Meta((4, 5, 3), np.dtype(F))
BAD = {
    "strided_slice": [
        Bad(inputs={"Input": XM}, attrs={"axes": [3], "starts": [0], "ends": [1], "strides": [1]},
            error=ShapeError, match=r"axes \[3\] are out of range for Input of shape \(4, 5, 3\)"),
        Bad(inputs={"Input": XM}, attrs={"axes": [0], "starts": [0], "ends": [2], "strides": [1],
                                          "decrease_axis": [0]},
            error=ShapeError, match=r"decrease_axis \[0\] must name axes of size 1"),
    ],
    "flip": [Bad(inputs={"X": XM}, attrs={"axis": [3]}, error=ShapeError,
                 match=r"axis \[3\] is out of range for X of rank 3")],
    "roll": [Bad(inputs={"X": XM}, attrs={"shifts": [1, 2], "axis": [0]}, error=ShapeError,
                 match=r"shifts and axis must have one length, got \[1, 2\] and \[0\]")],
    "index_put": [Bad(inputs={"x": XM, "indices": [Meta((4,), np.dtype(F))], "value": XM},
                      error=ShapeError, match=r"indices must be int or bool tensors, got float32")],
    "set_value": [
        Bad(inputs={"Input": XM, "ValueTensor": Meta((4,), np.dtype(F))},
            attrs={"axes": [1], "starts": [0], "ends": [2], "steps": [1]}, error=ShapeError,
            match=r"the value of shape \(4,\) cannot be broadcast to the assigned region of "
                  r"shape \(4, 2, 3\)"),
    ],
}
