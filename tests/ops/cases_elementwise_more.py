"""Contract cases for paddle_nb/ops/elementwise_more.py.

Floordiv and mod are checked against Python's own ``//`` and ``%`` per element (which
define the rounding PaddlePaddle 2.6 follows), fmax / fmin against ``max`` / ``min`` with
NaNs dropped, atan2 against ``math.atan2``.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(51)
F = np.float32


def per_pair(f, dtype=None):
    def ref(ins, attrs):
        names = list(ins)
        x, y = np.broadcast_arrays(ins[names[0]], ins[names[1]])
        out = np.array([f(a, b) for a, b in zip(x.ravel().tolist(), y.ravel().tolist())],
                       dtype=dtype or ins[names[0]].dtype)
        return {"Out": out.reshape(x.shape)}
    return ref


XI = np.array([[7, -7, 7, -7], [9, -9, 0, 5]], np.int64)
YI = np.array([[2, 2, -2, -2], [4, 4, 3, -3]], np.int64)
XF = rng.uniform(-5, 5, (2, 4)).astype(F)
YF = (rng.uniform(0.5, 2, (2, 4)) * np.where(rng.random((2, 4)) < 0.5, -1, 1)).astype(F)


def axis_ref(f):
    def ref(ins, attrs):
        return per_pair(f)({"X": ins["X"], "Y": ins["Y"].reshape(1, 4)}, attrs)
    return ref


CASES = {
    "elementwise_floordiv": [
        Case(inputs={"X": XI, "Y": YI}, ref=per_pair(lambda a, b: a // b)),
        Case(inputs={"X": XF, "Y": YF}, ref=per_pair(lambda a, b: a // b), name="float"),
        Case(inputs={"X": XI, "Y": YI[0]}, attrs={"axis": 1}, ref=axis_ref(lambda a, b: a // b),
             name="axis 1"),
    ],
    "elementwise_mod": [
        Case(inputs={"X": XI, "Y": YI}, ref=per_pair(lambda a, b: a % b)),
        Case(inputs={"X": XF, "Y": YF}, ref=per_pair(lambda a, b: a % b), rtol=1e-5, atol=1e-5,
             name="float"),
        Case(inputs={"X": XI.astype(np.int32), "Y": np.array([3], np.int32)},
             ref=per_pair(lambda a, b: a % b), name="broadcast int32"),
    ],
    "elementwise_heaviside": [
        Case(inputs={"X": np.array([[-1.5, 0.0, 2.0], [0.0, 3.0, -0.5]], F),
                     "Y": rng.uniform(-1, 1, (2, 3)).astype(F)}, grad=("Y",),   # X: jumps at 0
             ref=per_pair(lambda a, b: 0.0 if a < 0 else b if a == 0 else 1.0)),
    ],
    "elementwise_fmax": [
        Case(inputs={"X": XF, "Y": YF}, ref=per_pair(max), grad=("X", "Y")),
        Case(inputs={"X": XF, "Y": YF[:1]}, ref=per_pair(max), grad=("X", "Y"),
             name="broadcast"),
        Case(inputs={"X": np.array([np.nan, 1.0, np.nan], F),
                     "Y": np.array([2.0, np.nan, np.nan], F)},
             ref=lambda ins, a: {"Out": np.array([2.0, 1.0, np.nan], F)}, name="NaN"),
    ],
    "elementwise_fmin": [
        Case(inputs={"X": XF, "Y": YF}, ref=per_pair(min), grad=("X", "Y")),
        Case(inputs={"X": np.array([np.nan, 1.0], F), "Y": np.array([2.0, np.nan], F)},
             ref=lambda ins, a: {"Out": np.array([2.0, 1.0], F)}, name="NaN"),
    ],
    "atan2": [
        Case(inputs={"X1": XF, "X2": YF}, ref=per_pair(math.atan2), grad=("X1", "X2")),
        Case(inputs={"X1": XF, "X2": YF[:1]}, ref=per_pair(math.atan2), grad=("X1", "X2"),
             name="broadcast"),
    ],
}
MISMATCH = {"X": Meta((2, 4), np.dtype(F)), "Y": Meta((2, 4), np.dtype(np.float64))}
BAD = {
    "elementwise_floordiv": [
        Bad(inputs=MISMATCH, error=ShapeError,
            match="X and Y must have the same dtype, got float32 and float64")],
    "elementwise_mod": [Bad(inputs={"X": Meta((2, 4), np.dtype(F)), "Y": Meta((3,), np.dtype(F))},
                            error=ShapeError, match="do not broadcast")],
    "elementwise_heaviside": [Bad(inputs=MISMATCH, error=ShapeError, match="same dtype")],
    "elementwise_fmax": [Bad(inputs={"X": Meta((2, 4), np.dtype(bool)),
                                     "Y": Meta((2, 4), np.dtype(bool))},
                             error=ShapeError, match="number tensor.*got bool")],
    "elementwise_fmin": [Bad(inputs={"X": Meta((2, 4), np.dtype(F)),
                                     "Y": Meta((2, 3), np.dtype(F))},
                             error=ShapeError, match="do not broadcast")],
    "atan2": [Bad(inputs={"X1": Meta((2,), np.dtype(F)), "X2": Meta((2,), np.dtype(np.float64))},
                  error=ShapeError, match="X1 and X2 must have the same dtype")],
}

def nextafter_ref(ins, attrs):
    """Step one unit in the last place by hand: x's bits plus or minus one (x != 0, y != x)."""
    x, y = np.broadcast_arrays(ins["x"], ins["y"])
    out = x.copy()
    ints = out.view(np.int32 if x.dtype == np.float32 else np.int64)
    up = (y > x) == (x > 0)             # away from zero when moving in x's direction
    ints[(x != y) & up] += 1
    ints[(x != y) & ~up] -= 1
    return {"out": out}


CASES["nextafter"] = [
    Case(inputs={"x": np.array([1.0, 3.0, -2.0, 5.0], F), "y": np.array([2.0, -1.0, -3.0, 5.0], F)},
         ref=nextafter_ref),
    Case(inputs={"x": np.array([[1.0, 3.0]]), "y": np.array([0.0])}, ref=nextafter_ref,
         name="float64, y broadcast"),
]
BAD["nextafter"] = [Bad(inputs={"x": Meta((2,), np.dtype(np.int32)),
                                "y": Meta((2,), np.dtype(np.int32))},
                        error=ShapeError, match="x must be a floating-point tensor")]
