"""Contract cases for paddle_nb/ops/math.py: scale, sum, mean, cumsum and tril_triu.

cumsum's reference adds element by element in a Python loop; tril_triu's
compares each position's row and column with the diagonal.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(5)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def meta(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _scale_ref(ins, attrs):
    x = ins["X"]
    s = attrs.get("scale", 1.0) if ins.get("ScaleTensor") is None else ins["ScaleTensor"].item()
    b = attrs.get("bias", 0.0)
    out = np.empty_like(x)
    for i, v in np.ndenumerate(x):
        out[i] = s * v + b if attrs.get("bias_after_scale", True) else s * (v + b)
    return {"Out": out}


def _sum_ref(ins, attrs):
    total = np.zeros_like(ins["X"][0])
    for x in ins["X"]:
        total = total + x
    return {"Out": total}


def _mean_ref(ins, attrs):
    x = ins["X"].astype(np.float64)
    return {"Out": np.array(x.sum() / x.size)}


def _cumsum_ref(ins, attrs):
    x = ins["X"].reshape(-1) if attrs.get("flatten") else ins["X"]
    axis = 0 if attrs.get("flatten") else attrs.get("axis", -1) % x.ndim
    moved = np.moveaxis(x, axis, -1)
    out = np.empty_like(moved)
    n = moved.shape[-1]
    for lead in np.ndindex(*moved.shape[:-1]):
        for i in range(n):
            js = range(i, n) if attrs.get("reverse") else range(i + 1)
            total = moved.dtype.type(0)
            for j in js:
                if not (attrs.get("exclusive") and j == i):
                    total += moved[lead + (j,)]
            out[lead + (i,)] = total
    return {"Out": np.moveaxis(out, -1, axis)}


def _triangle_ref(ins, attrs):
    x, k = ins["X"], attrs.get("diagonal", 0)
    out = np.zeros_like(x)
    for pos in np.ndindex(*x.shape):
        i, j = pos[-2:]
        if (j - i <= k) if attrs.get("lower", False) else (j - i >= k):
            out[pos] = x[pos]
    return {"Out": out}


CASES = {
    "cumsum": [
        Case(inputs={"X": arr(3, 4)}, attrs={"axis": 1}, ref=_cumsum_ref, grad=("X",)),
        Case(inputs={"X": arr(3, 2, 2)}, attrs={"axis": 0, "reverse": True}, ref=_cumsum_ref,
             grad=("X",), name="reverse"),
        Case(inputs={"X": arr(2, 5)}, attrs={"exclusive": True}, ref=_cumsum_ref, grad=("X",),
             name="exclusive, default axis -1"),
        Case(inputs={"X": arr(2, 3)}, attrs={"exclusive": True, "reverse": True, "axis": -2},
             ref=_cumsum_ref, grad=("X",), name="exclusive and reverse"),
        Case(inputs={"X": arr(2, 3)}, attrs={"flatten": True, "axis": 1}, ref=_cumsum_ref,
             grad=("X",), name="flatten"),
        Case(inputs={"X": np.arange(6, dtype=np.int64).reshape(2, 3)}, ref=_cumsum_ref,
             name="int64"),
    ],
    "tril_triu": [
        Case(inputs={"X": arr(3, 4)}, attrs={"lower": True}, ref=_triangle_ref, grad=("X",)),
        Case(inputs={"X": arr(3, 4)}, ref=_triangle_ref, grad=("X",), name="default: triu"),
        Case(inputs={"X": arr(2, 3, 3)}, attrs={"lower": True, "diagonal": -1},
             ref=_triangle_ref, grad=("X",), name="batched, below the diagonal"),
        Case(inputs={"X": arr(4, 2)}, attrs={"diagonal": 1}, ref=_triangle_ref, grad=("X",),
             name="upper, above the diagonal"),
        Case(inputs={"X": np.arange(9, dtype=np.int32).reshape(3, 3)}, attrs={"lower": True},
             ref=_triangle_ref, name="int32"),
    ],
    "scale": [
        Case(inputs={"X": arr(3, 4)}, attrs={"scale": 2.5, "bias": 1.0}, ref=_scale_ref,
             grad=("X",), name="bias after scale"),
        Case(inputs={"X": arr(3, 4)}, attrs={"scale": -0.5, "bias": 2.0, "bias_after_scale": False},
             ref=_scale_ref, grad=("X",), name="bias before scale"),
        Case(inputs={"X": arr(2, 3, 2)}, ref=_scale_ref, grad=("X",), name="defaults"),
        Case(inputs={"X": arr(5), "ScaleTensor": np.array([3.0], F)}, attrs={"scale": 9.0},
             ref=_scale_ref, grad=("X",), name="ScaleTensor overrides scale"),
        Case(inputs={"X": np.arange(6, dtype=np.int64).reshape(2, 3)}, attrs={"scale": 2.0},
             ref=_scale_ref, name="int64 stays int64"),
        # PaddlePaddle casts scale and bias to the integer type first (2.5 -> 2, 1.7 -> 1,
        # -2.5 -> -2), and the integer arithmetic wraps
        Case(inputs={"X": np.array([1, -3, 2 ** 30], np.int32)}, attrs={"scale": 2.5, "bias": 1.7},
             ref=lambda ins, attrs: {"Out": np.array([3, -5, -2 ** 31 + 1], np.int32)},
             name="int32 truncates scale and bias, wraps"),
        Case(inputs={"X": np.array([1, -3, 2 ** 30], np.int32)},
             attrs={"scale": 3.0, "bias": 0.5, "bias_after_scale": False},
             ref=lambda ins, attrs: {"Out": np.array([3, -9, -2 ** 30], np.int32)},
             name="int32 bias before scale wraps"),
        Case(inputs={"X": np.array([1, -3, 2 ** 62], np.int64)},
             attrs={"scale": -2.5, "bias": -1.5},
             ref=lambda ins, attrs: {"Out": np.array([-3, 5, 2 ** 63 - 1], np.int64)},
             name="int64 negative scale truncates toward 0, wraps"),
    ],
    "sum": [
        Case(inputs={"X": [arr(2, 3), arr(2, 3), arr(2, 3)]}, ref=_sum_ref, grad=("X",),
             name="three tensors"),
        Case(inputs={"X": [arr(4)]}, ref=_sum_ref, grad=("X",), name="one tensor"),
        Case(inputs={"X": [arr(2, 2, 2), arr(2, 2, 2)]}, ref=_sum_ref, grad=("X",), name="rank 3"),
    ],
    "mean": [
        Case(inputs={"X": arr(3, 4)}, ref=_mean_ref, grad=("X",)),
        Case(inputs={"X": arr(5)}, ref=_mean_ref, grad=("X",), name="rank 1"),
        Case(inputs={"X": arr(2, 1, 3)}, ref=_mean_ref, grad=("X",), name="rank 3"),
    ],
}

BAD = {
    "cumsum": [
        Bad(inputs={"X": meta(3, 4)}, attrs={"axis": 2}, error=ShapeError,
            match=r"axis 2 is out of range for X of shape \(3, 4\)"),
    ],
    "tril_triu": [
        Bad(inputs={"X": meta(4)}, error=ShapeError,
            match=r"X must have rank >= 2 \(matrices in its last two dims\), got shape \(4,\)"),
    ],
    "scale": [
        Bad(inputs={"X": meta(3, 4), "ScaleTensor": meta(2)}, error=ShapeError,
            match=r"ScaleTensor must hold one value, got shape \(2,\)"),
    ],
    "sum": [
        Bad(inputs={"X": [meta(2, 3), meta(3, 2)]}, error=ShapeError,
            match=r"same shape: X\[0\] has shape \(2, 3\), X\[1\] has shape \(3, 2\)"),
        Bad(inputs={"X": [meta(2, 3), meta(2, 3, dtype=np.float64)]}, error=ShapeError,
            match=r"same dtype: X\[0\] is float32, X\[1\] is float64"),
        Bad(inputs={"X": []}, error=ShapeError, match="at least one"),
    ],
    "mean": [
        Bad(inputs={"X": meta(3, 4, dtype=np.int64)}, error=ShapeError, match="floating-point"),
    ],
}
