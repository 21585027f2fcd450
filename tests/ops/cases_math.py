"""Contract cases for paddle_nb/ops/math.py: scale, sum and mean."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.registry import Meta
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


CASES = {
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
