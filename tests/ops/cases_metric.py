"""Contract cases for paddle_nb/ops/metric.py: top_k, arg_max, accuracy (no gradients).

The references loop over rows with Python's ``sorted`` and ``max``.
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(9)
F = np.float32


def distinct(*shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(F) - 3.5


def top_k_ref(ins, attrs):
    x, k = ins["X"], attrs.get("k", 1)
    rows = x.reshape(-1, x.shape[-1])
    idx = np.array([sorted(range(len(r)), key=lambda i: (-r[i], i))[:k] for r in rows], np.int64)
    vals = np.array([[r[i] for i in row] for r, row in zip(rows, idx)], x.dtype)
    shape = x.shape[:-1] + (k,)
    return {"Out": vals.reshape(shape), "Indices": idx.reshape(shape)}


def arg_max_ref(ins, attrs):
    x = ins["X"]
    if attrs.get("flatten", False):
        flat = list(x.reshape(-1))
        out = np.array(flat.index(max(flat))).reshape((1,) * x.ndim if attrs.get("keepdims")
                                                      else ())     # 0-D, as in 2.6
    else:
        axis = attrs.get("axis", -1) % x.ndim
        moved = np.moveaxis(x, axis, -1)
        rows = moved.reshape(-1, moved.shape[-1])
        out = np.array([list(r).index(max(r)) for r in rows]).reshape(moved.shape[:-1])
        if attrs.get("keepdims", False):
            out = np.expand_dims(out, axis)
    return {"Out": out.astype(attrs.get("dtype", np.int64))}


def accuracy_ref(ins, attrs):
    idx, label = ins["Indices"], ins["Label"]
    correct = sum(1 for row, lab in zip(idx, label[:, 0]) if lab in list(row))
    total = len(label)
    return {"Accuracy": np.array(correct / total, F), "Correct": np.array(correct, np.int32),
            "Total": np.array(total, np.int32)}


def acc_case(n, k, classes, name):
    scores = rng.random((n, classes)).astype(F)
    order = np.argsort(-scores, axis=1)[:, :k]
    label = rng.integers(0, classes, (n, 1)).astype(np.int64)
    values = np.take_along_axis(scores, order, axis=1)
    return Case(inputs={"Out": values, "Indices": order.astype(np.int64), "Label": label},
                ref=accuracy_ref, name=name)


TIES = np.array([[1, 3, 3, 0], [2, 2, 2, 2]], F)
CASES = {
    "top_k": [
        Case(inputs={"X": distinct(3, 5)}, ref=top_k_ref, name="k=1 default"),
        Case(inputs={"X": distinct(3, 5)}, attrs={"k": 3}, ref=top_k_ref, name="k=3"),
        Case(inputs={"X": distinct(2, 3, 4)}, attrs={"k": 4}, ref=top_k_ref, name="3-D, k=D"),
        Case(inputs={"X": TIES}, attrs={"k": 2}, ref=top_k_ref, name="ties: lower index first"),
        Case(inputs={"X": rng.integers(0, 50, (4, 6)).astype(np.int64)}, attrs={"k": 2},
             ref=top_k_ref, name="int64"),
    ],
    "arg_max": [
        Case(inputs={"X": distinct(3, 5)}, ref=arg_max_ref, name="default axis -1"),
        Case(inputs={"X": distinct(3, 4, 2)}, attrs={"axis": 1}, ref=arg_max_ref, name="axis 1"),
        Case(inputs={"X": distinct(3, 4)}, attrs={"axis": 0, "keepdims": True}, ref=arg_max_ref,
             name="keepdims"),
        Case(inputs={"X": distinct(3, 4)}, attrs={"flatten": True}, ref=arg_max_ref,
             name="flatten"),
        Case(inputs={"X": distinct(2, 3)}, attrs={"flatten": True, "keepdims": True},
             ref=arg_max_ref, name="flatten keepdims"),
        Case(inputs={"X": TIES}, attrs={"dtype": np.int32}, ref=arg_max_ref,
             name="int32, ties take the first"),
        Case(inputs={"X": distinct(2, 3)}, attrs={"dtype": 2}, ref=lambda i, a: arg_max_ref(
            i, {**a, "dtype": np.int32}), name="dtype as VarType number 2 (INT32)"),
    ],
    "accuracy": [
        acc_case(8, 1, 4, "top-1"),
        acc_case(10, 3, 5, "top-3"),
        Case(inputs={"Out": np.ones((3, 2), F), "Indices": np.array([[0, 1], [2, 3], [4, 0]]),
                     "Label": np.array([[1], [1], [4]])}, ref=accuracy_ref, name="hand-made"),
    ],
}


def _m(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


I64 = np.int64
BAD = {
    "top_k": [
        Bad(inputs={"X": _m(3, 4)}, attrs={"k": 5}, error=ShapeError,
            match=r"k=5 is larger than X's last dimension: X has shape \(3, 4\)"),
        Bad(inputs={"X": _m(3, 4)}, attrs={"k": 0}, error=AttrError, match="at least 1"),
    ],
    "arg_max": [
        Bad(inputs={"X": _m(3, 4)}, attrs={"axis": 2}, error=ShapeError,
            match=r"axis 2 is out of range for X of shape \(3, 4\)"),
        Bad(inputs={"X": _m(3, 4)}, attrs={"dtype": "float32"}, error=ShapeError,
            match="dtype must be int32 or int64"),
    ],
    "accuracy": [
        Bad(inputs={"Out": _m(4, 2), "Indices": _m(4, 2, dtype=I64), "Label": _m(4, 2, dtype=I64)},
            error=ShapeError, match=r"Label must have shape \[N, 1\], got \(4, 2\)"),
        Bad(inputs={"Out": _m(4, 2), "Indices": _m(4, 2, dtype=I64), "Label": _m(5, 1, dtype=I64)},
            error=ShapeError, match=r"same batch size, got Indices \(4, 2\) and Label \(5, 1\)"),
        Bad(inputs={"Out": _m(4, 2), "Indices": _m(4, dtype=I64), "Label": _m(4, 1, dtype=I64)},
            error=ShapeError, match=r"Indices must be rank 2 \[N, k\], got shape \(4,\)"),
    ],
}
