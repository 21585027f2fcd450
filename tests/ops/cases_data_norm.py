"""Contract cases for data_norm (paddle_nb/ops/data_norm.py): per-column statistics from the
running totals, written out column by column."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(14)
F = np.float32


def data_norm_ref(ins, attrs):
    x = ins["X"].astype(np.float64)
    size, total, square = (ins[k].astype(np.float64) for k in
                           ("BatchSize", "BatchSum", "BatchSquareSum"))
    means = np.array([total[c] / size[c] for c in range(x.shape[1])])
    scales = np.array([np.sqrt(size[c] / square[c]) for c in range(x.shape[1])])
    return {"Y": (x - means) * scales, "Means": means, "Scales": scales}


CASES = {
    "data_norm": [
        Case({"X": rng.uniform(0, 1, (4, 3)).astype(F), "BatchSize": np.array([5, 6, 7], F),
              "BatchSum": np.array([1, 2, 3], F), "BatchSquareSum": np.array([4, 5, 6], F)},
             {"epsilon": 1e-5}, ref=data_norm_ref, grad=("X",), grad_outputs=("Y",)),
    ],
}
BAD = {
    "data_norm": [Bad({"X": Meta((4, 3, 2), np.dtype("float32"), 0),
                       "BatchSize": Meta((3,), np.dtype("float32"), 0),
                       "BatchSum": Meta((3,), np.dtype("float32"), 0),
                       "BatchSquareSum": Meta((3,), np.dtype("float32"), 0)}, {}, ShapeError,
                      r"X must be \[N, C\]")],
}
