"""Contract cases for paddle_nb/ops/grids.py and counting.py: linspace, eye, empty,
tril_indices, unique, unique_consecutive, bincount, histogram (no gradients).

References build lists with Python loops (``itertools.groupby`` for runs, dict counts).
"""

import itertools

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

F = np.float32
I64 = np.int64


def _linspace_ref(ins, attrs):
    a, b, n = float(ins["Start"][0]), float(ins["Stop"][0]), int(ins["Num"][0])
    vals = [a + (b - a) * i / (n - 1) for i in range(n)] if n > 1 else [a][:n]
    return {"Out": np.array(vals, attrs.get("dtype", F))}


def _eye_ref(ins, attrs):
    n = attrs["num_rows"]
    m = attrs.get("num_columns", -1)
    m = n if m < 0 else m
    return {"Out": np.array([[1.0 if i == j else 0.0 for j in range(m)] for i in range(n)],
                            attrs.get("dtype", F)).reshape(n, m)}


def _tril_ref(ins, attrs):
    pos = [(i, j) for i in range(attrs["rows"]) for j in range(attrs["cols"])
           if j - i <= attrs.get("offset", 0)]
    return {"out": np.array(pos, I64).T.reshape(2, -1)}


def _unique_ref(ins, attrs):
    flat = list(ins["X"].reshape(-1))
    values = sorted(set(flat))
    return {"Out": np.array(values, ins["X"].dtype),
            "Indices": np.array([flat.index(v) for v in values], I64),
            "Index": np.array([values.index(v) for v in flat], I64),
            "Counts": np.array([flat.count(v) for v in values], I64)}


def _unique_consecutive_ref(ins, attrs):
    flat = list(ins["X"].reshape(-1))
    groups = [(k, len(list(g))) for k, g in itertools.groupby(flat)]
    run = [i for i, (_, n) in enumerate(groups) for _ in range(n)]
    return {"Out": np.array([k for k, _ in groups], ins["X"].dtype), "Index": np.array(run, I64),
            "Counts": np.array([n for _, n in groups], I64)}


def _bincount_ref(ins, attrs):
    x, w = list(ins["X"]), ins.get("Weights")
    n = max(max(x) + 1, attrs.get("minlength", 0))
    out = [0.0] * n
    for k, v in enumerate(x):
        out[v] += 1 if w is None else w[k]
    return {"Out": np.array(out, I64 if w is None else w.dtype)}


def _histogram_ref(ins, attrs):
    x, bins, lo, hi = ins["X"].reshape(-1), attrs["bins"], attrs["min"], attrs["max"]
    out = [0] * bins
    for v in x:
        if lo <= v <= hi:
            out[min(int((v - lo) / (hi - lo) * bins), bins - 1)] += 1
    return {"Out": np.array(out, I64)}


CASES = {
    "linspace": [
        Case(inputs={"Start": np.array([0.], F), "Stop": np.array([1.], F),
                     "Num": np.array([5], np.int32)}, ref=_linspace_ref),
        Case(inputs={"Start": np.array([2.], F), "Stop": np.array([-4.], F),
                     "Num": np.array([4], np.int32)}, attrs={"dtype": I64}, ref=_linspace_ref,
             name="int64, downwards"),
    ],
    "eye": [Case(inputs={}, attrs={"num_rows": 3, "num_columns": 4}, ref=_eye_ref),
            Case(inputs={}, attrs={"num_rows": 2, "dtype": I64}, ref=_eye_ref, name="square")],
    "empty": [Case(inputs={}, attrs={"shape": [2, 3]},
                   ref=lambda ins, attrs: {"Out": np.zeros((2, 3), F)})],
    "tril_indices": [Case(inputs={}, attrs={"rows": 4, "cols": 3, "offset": 0}, ref=_tril_ref),
                     Case(inputs={}, attrs={"rows": 3, "cols": 4, "offset": -1}, ref=_tril_ref,
                          name="below the diagonal")],
    "unique": [Case(inputs={"X": np.array([[3., 1, 3], [2, 1, 1]], F)},
                    attrs={"return_index": True, "return_inverse": True, "return_counts": True,
                           "is_sorted": True}, ref=_unique_ref)],
    "unique_consecutive": [Case(inputs={"X": np.array([1, 1, 2, 2, 2, 1, 3, 3], I64)},
                                attrs={"return_inverse": True, "return_counts": True},
                                ref=_unique_consecutive_ref)],
    "bincount": [Case(inputs={"X": np.array([1, 3, 1, 0], I64)}, attrs={"minlength": 6},
                      ref=_bincount_ref),
                 Case(inputs={"X": np.array([1, 3, 1], I64), "Weights": np.array([.5, 1, 2], F)},
                      ref=_bincount_ref, name="weights")],
    "histogram": [Case(inputs={"X": np.array([0.5, 1, 2.5, 3, 3, -1], F)},
                       attrs={"bins": 3, "min": 0, "max": 3}, ref=_histogram_ref)],
}

BAD = {
    "linspace": [Bad(inputs={"Start": Meta((2,), np.dtype(F)), "Stop": Meta((1,), np.dtype(F)),
                             "Num": Meta((1,), np.dtype(np.int32))}, error=ShapeError,
                     match=r"Start must hold one value, got shape \(2,\)")],
    "eye": [Bad(inputs={}, attrs={"num_rows": -2}, error=ShapeError,
                match=r"num_rows must be 0 or more, got -2")],
    "empty": [],
    "tril_indices": [],
    "unique": [Bad(inputs={"X": Meta((3,), np.dtype(F))}, attrs={"dtype": F}, error=ShapeError,
                   match=r"dtype must be int32 or int64, got float32")],
    "unique_consecutive": [Bad(inputs={"X": Meta((3,), np.dtype(F))}, attrs={"dtype": F},
                               error=ShapeError, match=r"dtype must be int32 or int64")],
    "bincount": [Bad(inputs={"X": Meta((3,), np.dtype(F))}, error=ShapeError,
                     match=r"X must be a 1-D integer tensor, got float32")],
    "histogram": [],
}


def _shard_ref(ins, attrs):
    size = -(-attrs["index_num"] // attrs["nshards"])
    out = [v - attrs["shard_id"] * size if v // size == attrs["shard_id"]
           else attrs.get("ignore_value", -1) for v in ins["X"].reshape(-1)]
    return {"Out": np.array(out, ins["X"].dtype).reshape(ins["X"].shape)}


CASES["shard_index"] = [Case(inputs={"X": np.array([[1], [6], [12], [19]], I64)},
                             attrs={"index_num": 20, "nshards": 3, "shard_id": 1},
                             ref=_shard_ref)]
BAD["shard_index"] = [Bad(inputs={"X": Meta((2, 1), np.dtype(I64))},
                          attrs={"index_num": 20, "nshards": 2, "shard_id": 2}, error=ShapeError,
                          match=r"shard_id must be in 0..nshards-1, got shard_id 2")]


def _triu_ref(ins, attrs):
    pos = [(i, j) for i in range(attrs["row"]) for j in range(attrs["col"])
           if j - i >= attrs.get("offset", 0)]
    return {"out": np.array(pos, I64).T.reshape(2, -1)}


def _logspace_ref(ins, attrs):
    exps = _linspace_ref(ins, {"dtype": np.float64})["Out"]
    return {"Out": np.array([float(ins["Base"][0]) ** e for e in exps], attrs.get("dtype", F))}


CASES["triu_indices"] = [Case(inputs={}, attrs={"row": 3, "col": 4, "offset": 1}, ref=_triu_ref),
                         Case(inputs={}, attrs={"row": 4, "col": 3, "offset": -1}, ref=_triu_ref,
                              name="below")]
CASES["logspace"] = [Case(inputs={"Start": np.array([0.], F), "Stop": np.array([2.], F),
                                  "Num": np.array([3], np.int32), "Base": np.array([10.], F)},
                          ref=_logspace_ref)]
BAD["triu_indices"] = []
BAD["logspace"] = [Bad(inputs={"Start": Meta((1,), np.dtype(F)), "Stop": Meta((1,), np.dtype(F)),
                               "Num": Meta((1,), np.dtype(np.int32)),
                               "Base": Meta((2,), np.dtype(F))},
                       error=ShapeError, match=r"Base must hold one value")]
