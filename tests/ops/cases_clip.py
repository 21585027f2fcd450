"""Contract cases for paddle_nb/ops/clip.py: squared_l2_norm (and its grad), clip_by_norm.

The references sum squares in a Python loop and decide the clipping with Python
floats.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(5)
F = np.float32


def arr(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(F)


def _sum_of_squares(x):
    return sum(float(v) ** 2 for v in np.asarray(x, np.float64).reshape(-1))


def squared_l2_norm_ref(ins, attrs):
    return {"Out": np.array([_sum_of_squares(ins["X"])])}


def clip_by_norm_ref(ins, attrs):
    x = np.asarray(ins["X"], np.float64)
    norm = math.sqrt(_sum_of_squares(x))
    limit = attrs["max_norm"]
    return {"Out": x * (limit / norm) if norm > limit else x}


CASES = {
    "squared_l2_norm": [
        Case(inputs={"X": arr(3, 4)}, ref=squared_l2_norm_ref, grad=("X",), name="matrix"),
        Case(inputs={"X": arr(2, 3, 2)}, ref=squared_l2_norm_ref, grad=("X",), name="rank 3"),
        Case(inputs={"X": np.array(1.5, F)}, ref=squared_l2_norm_ref, name="0-D"),
    ],
    "clip_by_norm": [
        Case(inputs={"X": arr(4, 3)}, attrs={"max_norm": 1.0}, ref=clip_by_norm_ref,
             name="over the limit: scaled"),
        Case(inputs={"X": arr(5, scale=0.1)}, attrs={"max_norm": 5.0}, ref=clip_by_norm_ref,
             name="under the limit: kept"),
        Case(inputs={"X": np.zeros((2, 2), F)}, attrs={"max_norm": 1.0}, ref=clip_by_norm_ref,
             name="zeros"),
    ],
}

BAD = {
    "squared_l2_norm": [
        Bad(inputs={"X": Meta((3,), np.dtype(np.int32))}, error=ShapeError,
            match="X must be a floating-point tensor"),
    ],
    "clip_by_norm": [
        Bad(inputs={"X": Meta((3,), np.dtype(np.int64))}, attrs={"max_norm": 1.0},
            error=ShapeError, match="X must be a floating-point tensor"),
    ],
}
