"""Contract cases for paddle_nb/ops/scatter.py: scatter, scatter_nd_add, index_add,
take_along_axis, put_along_axis, index_sample.

The references loop over the index tensors and write or add one slice at a time.
Gradients of overwriting scatters use distinct indices (a repeat makes the overwrite's
gradient depend on which update won, which central differences do see differently).
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(41)
F = np.float32
I64 = np.int64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _scatter_ref(ins, attrs):
    x, ids, up = ins["X"].copy(), ins["Ids"].reshape(-1), ins["Updates"]
    if attrs.get("overwrite", True):
        for k, i in enumerate(ids):
            x[i] = up[k]
    else:
        for i in ids:
            x[i] = 0
        for k, i in enumerate(ids):
            x[i] += up[k]
    return {"Out": x}


def _nd_add_ref(ins, attrs):
    x, index, up = ins["X"].copy(), ins["Index"], ins["Updates"]
    for lead in np.ndindex(*index.shape[:-1]):
        x[tuple(index[lead])] += up[lead]
    return {"Out": x}


def _index_add_ref(ins, attrs):
    x, index, v = ins["X"].copy(), ins["Index"], ins["AddValue"]
    axis = attrs.get("axis", 0) % x.ndim
    for k, i in enumerate(index):
        dst = [slice(None)] * x.ndim
        src = [slice(None)] * x.ndim
        dst[axis], src[axis] = i, k
        x[tuple(dst)] += v[tuple(src)]
    return {"Out": x}


def _along(index, axis):
    for pos in np.ndindex(*index.shape):
        tgt = list(pos)
        tgt[axis] = index[pos]
        yield pos, tuple(tgt)


def _take_along_ref(ins, attrs):
    x, index = ins["Input"], ins["Index"]
    out = np.empty(index.shape, x.dtype)
    for pos, tgt in _along(index, attrs.get("Axis", 0) % x.ndim):
        out[pos] = x[tgt]
    return {"Result": out}


def _put_along_ref(ins, attrs):
    x, index = ins["Input"].copy(), ins["Index"]
    value = np.broadcast_to(ins["Value"], index.shape)
    reduce = attrs.get("Reduce", "assign")
    for pos, tgt in _along(index, attrs.get("Axis", 0) % x.ndim):
        if reduce == "add":
            x[tgt] += value[pos]
        elif reduce in ("mul", "multiply"):
            x[tgt] *= value[pos]
        else:
            x[tgt] = value[pos]
    return {"Result": x}


def _index_sample_ref(ins, attrs):
    x, index = ins["X"], ins["Index"]
    return {"Out": np.array([[x[i, j] for j in row] for i, row in enumerate(index)], x.dtype)}


X = arr(4, 3)
CASES = {
    "scatter": [
        Case(inputs={"X": X, "Ids": np.array([2, 0], I64), "Updates": arr(2, 3)},
             ref=_scatter_ref, grad=("X", "Updates"), name="overwrite"),
        Case(inputs={"X": X, "Ids": np.array([1, 3, 1], np.int32), "Updates": arr(3, 3)},
             attrs={"overwrite": False}, ref=_scatter_ref, grad=("X", "Updates"),
             name="add, a repeated id"),
    ],
    "scatter_nd_add": [
        Case(inputs={"X": X, "Index": np.array([[1, 2], [0, 0], [1, 2]], I64), "Updates": arr(3)},
             ref=_nd_add_ref, grad=("X", "Updates"), name="elements, a repeat"),
        Case(inputs={"X": X, "Index": np.array([[3], [0]], I64), "Updates": arr(2, 3)},
             ref=_nd_add_ref, grad=("X", "Updates"), name="rows"),
    ],
    "index_add": [
        Case(inputs={"X": X, "Index": np.array([2, 0, 2], I64), "AddValue": arr(4, 3)},
             attrs={"axis": 1}, ref=_index_add_ref, grad=("X", "AddValue")),
        Case(inputs={"X": X, "Index": np.array([3], np.int32), "AddValue": arr(1, 3)},
             ref=_index_add_ref, grad=("X", "AddValue"), name="axis 0"),
    ],
    "take_along_axis": [
        Case(inputs={"Input": X, "Index": np.array([[0, 2], [1, 1], [2, 0], [0, 0]], I64)},
             attrs={"Axis": 1}, ref=_take_along_ref, grad=("Input",)),
        Case(inputs={"Input": X, "Index": np.array([[3, 0, 1]], I64)}, attrs={"Axis": 0},
             ref=_take_along_ref, grad=("Input",), name="axis 0"),
    ],
    "put_along_axis": [
        Case(inputs={"Input": X, "Index": np.array([[0], [2], [1], [0]], I64), "Value": arr(4, 1)},
             attrs={"Axis": 1}, ref=_put_along_ref, grad=("Input", "Value"), name="assign"),
        Case(inputs={"Input": X, "Index": np.array([[0, 0], [2, 1], [1, 1], [0, 2]], I64),
                     "Value": arr(4, 2)},
             attrs={"Axis": 1, "Reduce": "add"}, ref=_put_along_ref, grad=("Input", "Value"),
             name="add, repeats"),
        Case(inputs={"Input": X, "Index": np.array([[1, 2, 0]], I64), "Value": arr(1, 3)},
             attrs={"Axis": 0, "Reduce": "multiply"}, ref=_put_along_ref, name="multiply"),
    ],
    "index_sample": [
        Case(inputs={"X": X, "Index": np.array([[0, 2], [1, 1], [2, 0], [0, 0]], I64)},
             ref=_index_sample_ref, grad=("X",)),
    ],
}

XM = Meta((4, 3), np.dtype(F))
BAD = {
    "scatter": [Bad(inputs={"X": XM, "Ids": Meta((2,), np.dtype(I64)),
                            "Updates": Meta((2, 4), np.dtype(F))}, error=ShapeError,
                    match=r"Updates must be shaped \(len\(Ids\),\) \+ X.shape\[1:\]")],
    "scatter_nd_add": [Bad(inputs={"X": XM, "Index": Meta((2, 1), np.dtype(I64)),
                                   "Updates": Meta((2,), np.dtype(F))},
                           error=ShapeError,
                           match=r"Updates must have shape .* = \(2, 3\), got \(2,\)")],
    "index_add": [Bad(inputs={"X": XM, "Index": Meta((2,), np.dtype(F)), "AddValue": XM},
                      error=ShapeError, match=r"Index must be an integer tensor")],
    "take_along_axis": [Bad(inputs={"Input": XM, "Index": Meta((4,), np.dtype(I64))},
                            error=ShapeError,
                            match=r"Index must have Input's rank 2, got shape \(4,\)")],
    "put_along_axis": [Bad(inputs={"Input": XM, "Index": Meta((4, 1), np.dtype(I64)),
                                   "Value": Meta((4, 1), np.dtype(F))}, attrs={"Axis": 2},
                           error=ShapeError, match=r"axis 2 is out of range for Input of rank 2")],
    "index_sample": [Bad(inputs={"X": XM, "Index": Meta((3, 2), np.dtype(I64))}, error=ShapeError,
                         match=r"X and Index must have one number of rows")],
}
