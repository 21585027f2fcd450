"""Contract cases for paddle_nb/ops/select.py: where, top_k_v2, one_hot_v2.

top_k's reference sorts each row with Python's ``sorted`` (values without
ties, so the order is unambiguous); one_hot's loops over the labels.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(33)
F = np.float32
I64 = np.int64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _where_ref(ins, attrs):
    c, x, y = ins["Condition"], ins["X"], ins["Y"]
    out = np.empty_like(x)
    for pos in np.ndindex(*x.shape):
        out[pos] = x[pos] if c[pos] else y[pos]
    return {"Out": out}


def _topk_ref(ins, attrs):
    x = ins["X"]
    k = int(ins["K"].reshape(-1)[0]) if ins.get("K") is not None else attrs.get("k", 1)
    axis = attrs.get("axis", -1) % x.ndim
    largest = attrs.get("largest", True)
    moved = np.moveaxis(x, axis, -1)
    values = np.empty(moved.shape[:-1] + (k,), x.dtype)
    index = np.empty(moved.shape[:-1] + (k,), I64)
    for lead in np.ndindex(*moved.shape[:-1]):
        row = list(moved[lead])
        order = sorted(range(len(row)), key=lambda j: row[j], reverse=largest)[:k]
        values[lead] = [row[j] for j in order]
        index[lead] = order
    return {"Out": np.moveaxis(values, -1, axis), "Indices": np.moveaxis(index, -1, axis)}


def _one_hot_ref(ins, attrs):
    x = ins["X"]
    depth = int(ins["depth_tensor"].reshape(-1)[0]) if ins.get("depth_tensor") is not None \
        else attrs["depth"]
    dtype = {5: F, 3: I64}.get(attrs.get("dtype", 5), attrs.get("dtype"))
    out = np.zeros(x.shape + (depth,), dtype)
    for pos in np.ndindex(*x.shape):
        if 0 <= x[pos] < depth:
            out[pos + (x[pos],)] = 1
    return {"Out": out}


COND = np.array([[True, False, True], [False, False, True]])
CASES = {
    "where": [
        Case(inputs={"Condition": COND, "X": arr(2, 3), "Y": arr(2, 3)}, ref=_where_ref,
             grad=("X", "Y")),
        Case(inputs={"Condition": np.array([True, False]), "X": np.array([1, 2], I64),
                     "Y": np.array([7, 8], I64)}, ref=_where_ref, name="int64"),
        Case(inputs={"Condition": np.ones((2, 1, 2), bool), "X": arr(2, 1, 2),
                     "Y": arr(2, 1, 2)}, ref=_where_ref, grad=("X", "Y"), name="all true"),
    ],
    "top_k_v2": [
        Case(inputs={"X": arr(3, 5)}, attrs={"k": 2}, ref=_topk_ref, grad=("X",)),
        Case(inputs={"X": arr(4, 3, 2)}, attrs={"k": 3, "axis": 0, "largest": False},
             ref=_topk_ref, grad=("X",), name="smallest along axis 0"),
        Case(inputs={"X": arr(2, 6), "K": np.array([4], np.int32)}, attrs={"k": 1},
             ref=_topk_ref, grad=("X",), name="K tensor wins"),
        Case(inputs={"X": np.array([[3, 9, 1, 7]], I64)}, attrs={"k": 4}, ref=_topk_ref,
             name="int64, k = the whole row"),
        Case(inputs={"X": arr(2, 3, 4)}, attrs={"k": 1, "axis": 1}, ref=_topk_ref, grad=("X",),
             name="k 1 in the middle axis"),
    ],
    "one_hot_v2": [
        Case(inputs={"X": np.array([[0], [2], [3]], I64)}, attrs={"depth": 4}, ref=_one_hot_ref),
        Case(inputs={"X": np.array([1, 0, 1], np.int32)}, attrs={"depth": 2, "dtype": 3},
             ref=_one_hot_ref, name="int64 rows from int32 labels"),
        Case(inputs={"X": np.array([[4, -1], [1, 2]], I64), "depth_tensor": np.array([3], I64)},
             attrs={"allow_out_of_range": True}, ref=_one_hot_ref,
             name="depth_tensor; out of range gives zeros"),
    ],
}

M = Meta((2, 3), np.dtype(F))
BAD = {
    "where": [
        Bad(inputs={"Condition": Meta((2, 3), np.dtype(F)), "X": M, "Y": M}, error=ShapeError,
            match="Condition must be a bool tensor, got float32"),
        Bad(inputs={"Condition": Meta((2, 3), np.dtype(bool)), "X": M, "Y": Meta((3,), M.dtype)},
            error=ShapeError, match=r"one shape, got Condition \(2, 3\) and Y \(3,\)"),
        Bad(inputs={"Condition": Meta((2, 3), np.dtype(bool)), "X": M,
                    "Y": Meta((2, 3), np.dtype(I64))},
            error=ShapeError, match="X and Y must have one dtype, got float32 and int64"),
    ],
    "top_k_v2": [
        Bad(inputs={"X": M}, attrs={"k": 4}, error=ShapeError,
            match=r"k \(4\) must be in 0..3 \(X's dim 1\) for X of shape \(2, 3\)"),
        Bad(inputs={"X": M}, attrs={"axis": 2}, error=ShapeError,
            match=r"axis 2 is out of range for X of shape \(2, 3\)"),
        Bad(inputs={"X": M}, attrs={"k": -2}, error=ShapeError, match="k must be >= 0, got -2"),
    ],
    "one_hot_v2": [
        Bad(inputs={"X": Meta((3, 1), np.dtype(I64))}, error=ShapeError,
            match=r"depth must be >= 1 \(the number of classes\), got -1"),
        Bad(inputs={"X": M}, attrs={"depth": 3}, error=ShapeError,
            match="X must be an integer tensor of labels, got float32"),
    ],
}


def test_topk_indices_are_int64_and_batch_stays_unknown():
    out = harness.infer("top_k_v2", {"X": Meta((-1, 7), np.dtype(F))}, {"k": 3})
    assert out["Out"].shape == out["Indices"].shape == (-1, 3)
    assert out["Indices"].dtype == np.dtype(I64)
    k_tensor = harness.infer("top_k_v2", {"X": M, "K": Meta((1,), np.dtype(np.int32))})
    assert k_tensor["Out"].shape == (2, -1)


def test_one_hot_refuses_an_out_of_range_label_unless_allowed():
    import pytest
    with pytest.raises(ValueError, match=r"every label must be in 0..2 \(depth 3\)"):
        harness.forward("one_hot_v2", {"X": np.array([3], I64)}, {"depth": 3})


def test_one_hot_with_depth_tensor_has_an_unknown_last_dim():
    out = harness.infer("one_hot_v2", {"X": Meta((-1, 1), np.dtype(I64)),
                                       "depth_tensor": Meta((1,), np.dtype(I64))})
    assert out["Out"].shape == (-1, 1, -1) and out["Out"].dtype == np.dtype(F)
