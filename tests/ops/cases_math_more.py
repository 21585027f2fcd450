"""Contract cases for paddle_nb/ops/math_more.py (cumprod, lerp).

References: running products by an explicit loop, lerp written as (1 - w) x + w y.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(61)
F = np.float32
X = (rng.uniform(0.5, 1.5, (2, 3, 4)).astype(F)
     * np.where(rng.random((2, 3, 4)) < 0.3, -1, 1).astype(F))


def cumprod_ref(ins, attrs):
    x = np.moveaxis(ins["X"].astype(np.float64), attrs["dim"], -1)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        total = 1.0
        for i in range(x.shape[-1]):
            total *= x[idx + (i,)]
            out[idx + (i,)] = total
    return {"Out": np.moveaxis(out, -1, attrs["dim"])}


def lerp_ref(ins, attrs):
    x, y, w = (ins[k].astype(np.float64) for k in ("X", "Y", "Weight"))
    return {"Out": (1 - w) * x + w * y}


CASES = {
    "cumprod": [
        Case(inputs={"X": X}, attrs={"dim": 1}, ref=cumprod_ref, grad=("X",)),
        Case(inputs={"X": X}, attrs={"dim": -1}, ref=cumprod_ref, grad=("X",), name="dim -1"),
        Case(inputs={"X": np.array([[2.0, 0.0, 3.0, 0.5]], F)}, attrs={"dim": 1},
             ref=cumprod_ref, grad=("X",), name="a zero"),
        Case(inputs={"X": np.arange(1, 7, dtype=np.int64).reshape(2, 3)}, attrs={"dim": 0},
             ref=lambda ins, a: {"Out": np.array([[1, 2, 3], [4, 10, 18]])}, name="int64"),
    ],
    "lerp": [
        Case(inputs={"X": X[0], "Y": X[1], "Weight": rng.uniform(0, 1, (3, 4)).astype(F)},
             ref=lerp_ref, grad=("X", "Y")),
        Case(inputs={"X": X[0], "Y": X[1, 0], "Weight": np.array(0.3, F)}, ref=lerp_ref,
             grad=("X", "Y"), name="broadcast Y and a 0-D weight"),
    ],
}
BAD = {
    "cumprod": [Bad(inputs={"X": X}, attrs={"dim": 3}, error=ShapeError,
                    match=r"dim 3 is out of range for X of shape \(2, 3, 4\)")],
    "lerp": [Bad(inputs={"X": X, "Y": X, "Weight": Meta((), np.dtype(np.float64))},
                 error=ShapeError, match="X and Weight must have the same dtype")],
}
