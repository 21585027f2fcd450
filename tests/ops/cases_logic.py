"""Contract cases for paddle_nb/ops/logic.py: comparisons and boolean logic (no gradients).

References compare element by element over ``np.ndindex`` with Python's
operators, broadcasting by index arithmetic rather than NumPy's rule.
"""

import operator

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(11)
F = np.float32

PY = {
    "less_than": operator.lt, "less_equal": operator.le, "greater_than": operator.gt,
    "greater_equal": operator.ge, "equal": operator.eq, "not_equal": operator.ne,
    "logical_and": lambda a, b: bool(a) and bool(b), "logical_or": lambda a, b: bool(a) or bool(b),
    "logical_xor": lambda a, b: bool(a) != bool(b),
}


def _ref(f):
    def ref(ins, attrs):
        x, y = ins["X"], ins["Y"]
        axis = attrs.get("axis", -1)
        start = x.ndim - y.ndim if axis == -1 else axis
        out = np.empty(x.shape, bool)
        for idx in np.ndindex(x.shape):
            yi = tuple(0 if y.shape[d] == 1 else idx[start + d] for d in range(y.ndim))
            out[idx] = f(x[idx], y[yi])
        return {"Out": out}
    return ref


def ints(*shape):
    return rng.integers(0, 3, shape).astype(np.int32)


def _compare_cases(name):
    f = _ref(PY[name])
    x = rng.integers(0, 3, (2, 3, 4)).astype(F)
    return [
        Case(inputs={"X": x, "Y": rng.integers(0, 3, (2, 3, 4)).astype(F)}, ref=f,
             name="same shape"),
        Case(inputs={"X": x, "Y": rng.integers(0, 3, (3,)).astype(F)}, attrs={"axis": 1}, ref=f,
             name="axis=1"),
        Case(inputs={"X": x, "Y": rng.integers(0, 3, (4,)).astype(F)}, ref=f, name="trailing"),
        Case(inputs={"X": ints(3, 4), "Y": ints(3, 1)}, ref=f, name="int32, numpy-style"),
        Case(inputs={"X": ints(5), "Y": ints(1)}, attrs={"force_cpu": True}, ref=f,
             name="scalar-like Y"),
    ]


def bools(*shape):
    return rng.random(shape) < 0.5


def _logical_cases(name):
    f = _ref(PY[name])
    return [
        Case(inputs={"X": bools(3, 4), "Y": bools(3, 4)}, ref=f, name="same shape"),
        Case(inputs={"X": bools(2, 3, 4), "Y": bools(4)}, ref=f, name="trailing broadcast"),
        Case(inputs={"X": bools(2, 3), "Y": bools(2, 1)}, ref=f, name="numpy-style"),
    ]


CASES = {name: _compare_cases(name) for name in list(PY)[:6]}
CASES.update({name: _logical_cases(name) for name in list(PY)[6:]})
CASES["logical_not"] = [
    Case(inputs={"X": bools(3, 4)}, ref=lambda ins, a: {"Out": ~ins["X"]}, name="bool"),
    Case(inputs={"X": ints(5)}, ref=lambda ins, a: {"Out": ins["X"] == 0},
         name="int: zero is False"),
]


def _m(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


B = np.bool_
BAD = {name: [
    Bad(inputs={"X": _m(2, 3), "Y": _m(2, 3, dtype=np.int64)}, error=ShapeError,
        match=r"X and Y must have the same dtype, got X float32 \(2, 3\) and Y int64 \(2, 3\)"),
    Bad(inputs={"X": _m(2, 3), "Y": _m(4)}, error=ShapeError, match="do not broadcast"),
] for name in list(PY)[:6]}
BAD.update({name: [
    Bad(inputs={"X": _m(2, 3, dtype=B), "Y": _m(2, 4, dtype=B)}, error=ShapeError,
        match=r"shapes \(2, 3\) and \(2, 4\) do not broadcast"),
    Bad(inputs={"X": _m(2, 3, dtype=B), "Y": _m(2, 3)}, error=ShapeError, match="same dtype"),
] for name in list(PY)[6:]})
BAD["logical_not"] = [Bad(inputs={"X": _m(2, 3, dtype=B)}, attrs={"axis": 1}, error=Exception,
                          match="has no attribute 'axis'")]
