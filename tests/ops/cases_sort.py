"""Contract cases for paddle_nb/ops/sort.py and arg_min: argsort, kthvalue, mode,
searchsorted, where_index, masked_select, arg_min.

References use Python's ``sorted`` with keys, ``bisect`` and plain loops. Inputs for
gradient checks hold distinct values, away from ties (a tie is a kink).
"""

import bisect

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(51)
F = np.float32
I64 = np.int64


def distinct(*shape):
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 2).astype(F)


def _rows(x, axis):
    moved = np.moveaxis(x, axis, -1)
    return moved.reshape(-1, moved.shape[-1]), moved.shape[:-1]


def _argsort_ref(ins, attrs):
    x, axis = ins["X"], attrs.get("axis", -1) % ins["X"].ndim
    rows, lead = _rows(x, axis)
    desc = attrs.get("descending", False)
    order = [sorted(range(len(r)), key=lambda i: (-r[i] if desc else r[i], i)) for r in rows]
    idx = np.moveaxis(np.array(order).reshape(lead + (x.shape[axis],)), -1, axis)
    return {"Out": np.take_along_axis(x, idx, axis), "Indices": idx}


def _kth_ref(ins, attrs):
    x, axis, k = ins["X"], attrs.get("axis", -1) % ins["X"].ndim, attrs.get("k", 1)
    rows, lead = _rows(x, axis)
    picks = [sorted(range(len(r)), key=lambda i: r[i])[k - 1] for r in rows]
    vals = np.array([r[p] for r, p in zip(rows, picks)], x.dtype).reshape(lead)
    idx = np.array(picks).reshape(lead)
    if attrs.get("keepdim"):
        vals, idx = np.expand_dims(vals, axis), np.expand_dims(idx, axis)
    return {"Out": vals, "Indices": idx}


def _mode_ref(ins, attrs):
    x, axis = ins["X"], attrs.get("axis", -1) % ins["X"].ndim
    rows, lead = _rows(x, axis)
    vals, idx = [], []
    for r in rows:
        r = list(r)
        best = min(set(r), key=lambda v: (-r.count(v), v))
        vals.append(best)
        idx.append(max(i for i, v in enumerate(r) if v == best))
    vals, idx = np.array(vals, x.dtype).reshape(lead), np.array(idx).reshape(lead)
    if attrs.get("keepdim"):
        vals, idx = np.expand_dims(vals, axis), np.expand_dims(idx, axis)
    return {"Out": vals, "Indices": idx}


def _searchsorted_ref(ins, attrs):
    seq, values = ins["SortedSequence"], ins["Values"]
    find = bisect.bisect_right if attrs.get("right") else bisect.bisect_left
    if seq.ndim == 1:
        out = [find(list(seq), v) for v in values.reshape(-1)]
    else:
        out = [find(list(s), v) for s, row in zip(seq.reshape(-1, seq.shape[-1]),
                                                 values.reshape(-1, values.shape[-1])) for v in row]
    return {"Out": np.array(out, np.int32 if attrs.get("out_int32") else I64).reshape(values.shape)}


def _where_index_ref(ins, attrs):
    c = ins["Condition"]
    return {"Out": np.array([p for p in np.ndindex(*c.shape) if c[p]], I64).reshape(-1, c.ndim)}


def _masked_ref(ins, attrs):
    x, m = np.broadcast_arrays(ins["X"], ins["Mask"])
    return {"Y": np.array([x[p] for p in np.ndindex(*x.shape) if m[p]], ins["X"].dtype)}


def _arg_min_ref(ins, attrs):
    x = ins["X"]
    if attrs.get("flatten"):
        flat = list(x.reshape(-1))
        return {"Out": np.array(flat.index(min(flat)), I64)}
    axis = attrs.get("axis", -1) % x.ndim
    rows, lead = _rows(x, axis)
    return {"Out": np.array([list(r).index(min(r)) for r in rows], I64).reshape(lead)}


X = distinct(3, 4)
CASES = {
    "argsort": [
        Case(inputs={"X": X}, ref=_argsort_ref, grad=("X",), name="last axis"),
        Case(inputs={"X": X}, attrs={"axis": 0, "descending": True}, ref=_argsort_ref,
             grad=("X",), name="axis 0 descending"),
        Case(inputs={"X": np.array([2., 1., 2., 1.], F)}, attrs={"descending": True},
             ref=_argsort_ref, name="ties keep their order"),
    ],
    "kthvalue": [
        Case(inputs={"X": X}, attrs={"k": 2}, ref=_kth_ref, grad=("X",)),
        Case(inputs={"X": X}, attrs={"k": 3, "axis": 0, "keepdim": True}, ref=_kth_ref,
             grad=("X",), name="axis 0 keepdim"),
    ],
    "mode": [
        Case(inputs={"X": X}, ref=_mode_ref, grad=("X",), name="all distinct"),
        Case(inputs={"X": np.array([[1., 2, 2, 3, 3], [5, 5, 1, 1, 0]], F)}, ref=_mode_ref,
             name="ties: the smallest, at its last position"),
        Case(inputs={"X": np.array([[1., 4], [4, 4], [2, 1]], F)},
             attrs={"axis": 0, "keepdim": True},
             ref=_mode_ref, name="axis 0 keepdim"),
    ],
    "searchsorted": [
        Case(inputs={"SortedSequence": np.array([1., 3, 3, 5], F),
                     "Values": np.array([[3., 0], [6, 4]], F)},
             ref=_searchsorted_ref),
        Case(inputs={"SortedSequence": np.array([[1, 3, 5], [2, 4, 6]], I64),
                     "Values": np.array([[3, 5], [1, 6]], I64)},
             attrs={"right": True, "out_int32": True}, ref=_searchsorted_ref, name="rows, right"),
    ],
    "where_index": [
        Case(inputs={"Condition": X > 0}, ref=_where_index_ref),
        Case(inputs={"Condition": np.array([0., 2, 0, 1], F)}, ref=_where_index_ref, name="float"),
    ],
    "masked_select": [
        Case(inputs={"X": X, "Mask": X > 0.2}, ref=_masked_ref, grad=("X",)),
        Case(inputs={"X": X, "Mask": np.array([True, False, True, True])}, ref=_masked_ref,
             grad=("X",), name="Mask broadcast"),
    ],
    "arg_min": [
        Case(inputs={"X": X}, ref=_arg_min_ref),
        Case(inputs={"X": X}, attrs={"flatten": True}, ref=_arg_min_ref, name="flatten is 0-D"),
    ],
}

XM = Meta((3, 4), np.dtype(F))
BAD = {
    "argsort": [Bad(inputs={"X": XM}, attrs={"axis": 2}, error=ShapeError,
                    match=r"axis 2 is out of range for X of shape \(3, 4\)")],
    "kthvalue": [Bad(inputs={"X": XM}, attrs={"k": 5}, error=ShapeError,
                     match=r"k must be in 1..4 \(X's dim 1\), got 5")],
    "mode": [Bad(inputs={"X": XM}, attrs={"axis": -3}, error=ShapeError, match=r"out of range")],
    "searchsorted": [Bad(inputs={"SortedSequence": XM, "Values": Meta((2, 2), np.dtype(F))},
                         error=ShapeError, match=r"leading dims \(3,\) must equal Values' \(2,\)")],
    "masked_select": [Bad(inputs={"X": XM, "Mask": Meta((3, 4), np.dtype(F))}, error=ShapeError,
                          match=r"Mask must be a bool tensor, got float32")],
    "arg_min": [Bad(inputs={"X": XM}, attrs={"axis": 2}, error=ShapeError, match=r"out of range")],
    "where_index": [],
}
