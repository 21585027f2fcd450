"""Contract cases for paddle_nb/ops/index.py: gather, index_select, gather_nd.

The references loop over output positions and read X one element at a time,
so they share nothing with the kernels' take / fancy indexing. Repeated
indices are included: their gradients must add up.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(21)
F = np.float32
I64 = np.int64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _take_ref(x, index, axis):
    index = np.asarray(index).reshape(-1) if np.ndim(index) else np.asarray(index)
    axis %= x.ndim
    shape = x.shape[:axis] + index.shape + x.shape[axis + 1:]
    out = np.empty(shape, x.dtype)
    for pos in np.ndindex(*shape):
        if index.ndim:
            src = pos[:axis] + (index[pos[axis]],) + pos[axis + 1:]
        else:
            src = pos[:axis] + (int(index),) + pos[axis:]
        out[pos] = x[src]
    return out


def _gather_ref(ins, attrs):
    axis = int(ins["Axis"].reshape(-1)[0]) if ins.get("Axis") is not None else attrs.get("axis", 0)
    return {"Out": _take_ref(ins["X"], ins["Index"], axis)}


def _index_select_ref(ins, attrs):
    return {"Out": _take_ref(ins["X"], ins["Index"], attrs.get("dim", 0))}


def _gather_nd_ref(ins, attrs):
    x, index = ins["X"], ins["Index"]
    k = index.shape[-1]
    out = np.empty(index.shape[:-1] + x.shape[k:], x.dtype)
    for lead in np.ndindex(*index.shape[:-1]):
        start = tuple(int(v) for v in index[lead])
        for rest in np.ndindex(*x.shape[k:]):
            out[lead + rest] = x[start + rest]
    return {"Out": out}


X = arr(4, 3, 2)
CASES = {
    "gather": [
        Case(inputs={"X": X, "Index": np.array([2, 0, 2], I64)}, ref=_gather_ref, grad=("X",),
             name="axis 0, a repeated index"),
        Case(inputs={"X": X, "Index": np.array([1, 1], np.int32)}, attrs={"axis": 1},
             ref=_gather_ref, grad=("X",), name="axis 1, int32 Index"),
        Case(inputs={"X": X, "Index": np.array([0, 1, 1, 0], I64), "Axis": np.array([2], I64)},
             ref=_gather_ref, grad=("X",), name="Axis tensor wins"),
        Case(inputs={"X": X, "Index": np.array(3, I64)}, ref=_gather_ref, grad=("X",),
             name="0-D Index drops the axis"),
        Case(inputs={"X": X, "Index": np.array([[1], [3]], I64)}, attrs={"axis": -3},
             ref=_gather_ref, grad=("X",), name="Index of shape (n, 1), negative axis"),
    ],
    "index_select": [
        Case(inputs={"X": X, "Index": np.array([1, 0, 1], I64)}, attrs={"dim": 1},
             ref=_index_select_ref, grad=("X",)),
        Case(inputs={"X": X, "Index": np.array([3, 3], np.int32)}, ref=_index_select_ref,
             grad=("X",), name="dim 0, repeats"),
        Case(inputs={"X": X, "Index": np.array([1], I64)}, attrs={"dim": -1},
             ref=_index_select_ref, grad=("X",), name="negative dim"),
    ],
    "gather_nd": [
        Case(inputs={"X": X, "Index": np.array([[0, 1], [3, 2], [0, 1]], I64)},
             ref=_gather_nd_ref, grad=("X",), name="k=2 of rank 3, a repeat"),
        Case(inputs={"X": X, "Index": np.array([[[1, 2, 1]], [[3, 0, 0]]], I64)},
             ref=_gather_nd_ref, grad=("X",), name="full positions, 3-D Index"),
        Case(inputs={"X": X, "Index": np.array([[2], [1]], np.int32)}, ref=_gather_nd_ref,
             grad=("X",), name="k=1: whole slices"),
        Case(inputs={"X": arr(2, 3), "Index": np.zeros((2, 0), I64)}, ref=_gather_nd_ref,
             grad=("X",), name="k=0: X per row"),
    ],
}

XM = Meta((4, 3, 2), np.dtype(F))
IDX = Meta((2,), np.dtype(I64))
BAD = {
    "gather": [
        Bad(inputs={"X": XM, "Index": Meta((2,), np.dtype(F))}, error=ShapeError,
            match=r"Index must be an integer tensor \(int32 or int64\), got float32"),
        Bad(inputs={"X": XM, "Index": IDX}, attrs={"axis": 3}, error=ShapeError,
            match=r"axis 3 is out of range for X of shape \(4, 3, 2\)"),
        Bad(inputs={"X": XM, "Index": Meta((2, 2), np.dtype(I64))}, error=ShapeError,
            match=r"Index must be 0-D, 1-D or of shape \(n, 1\), got shape \(2, 2\)"),
    ],
    "index_select": [
        Bad(inputs={"X": XM, "Index": Meta((2, 1), np.dtype(I64))}, error=ShapeError,
            match=r"Index must be 1-D, got shape \(2, 1\)"),
        Bad(inputs={"X": XM, "Index": IDX}, attrs={"dim": -4}, error=ShapeError,
            match=r"dim -4 is out of range"),
    ],
    "gather_nd": [
        Bad(inputs={"X": XM, "Index": Meta((2, 4), np.dtype(I64))}, error=ShapeError,
            match=r"Index's last dim \(4\) must not exceed X's rank"),
        Bad(inputs={"X": XM, "Index": Meta((), np.dtype(I64))}, error=ShapeError,
            match=r"Index must have rank >= 1"),
    ],
}


def test_gather_keeps_an_unknown_batch_dim():
    x = Meta((-1, 3, 2), np.dtype(F))
    assert harness.infer("gather", {"X": x, "Index": IDX}, {"axis": 1})["Out"].shape == (-1, 2, 2)
    assert harness.infer("gather", {"X": x, "Index": Meta((-1,), np.dtype(I64))})["Out"].shape \
        == (-1, 3, 2)
    assert harness.infer("gather_nd", {"X": x, "Index": Meta((-1, 1), np.dtype(I64))})[
        "Out"].shape == (-1, 3, 2)


def test_gather_with_an_axis_tensor_knows_only_the_rank():
    out = harness.infer("gather", {"X": XM, "Index": IDX, "Axis": Meta((1,), np.dtype(I64))})
    assert out["Out"].shape == (-1, -1, -1)
