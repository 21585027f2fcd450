"""Contract cases for row_conv (paddle_nb/ops/row_conv.py) and spectral_norm
(paddle_nb/ops/spectral_norm.py).

row_conv's reference loops over batch, step, tap and feature; spectral_norm's takes sigma as
the top singular value from NumPy's SVD, so its power iteration runs long enough to agree
(forward only: paddle_nb has no spectral_norm_grad).
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(12)
F = np.float32


def row_conv_ref(ins, attrs):
    x, f = ins["X"].astype(np.float64), ins["Filter"]
    out = np.zeros_like(x)
    for b in range(x.shape[0]):
        for t in range(x.shape[1]):
            for k in range(f.shape[0]):
                if t + k < x.shape[1]:
                    out[b, t] += x[b, t + k] * f[k]
    return {"Out": out}


def spectral_ref(ins, attrs):
    w = ins["Weight"].astype(np.float64)
    mat = np.moveaxis(w, attrs["dim"], 0).reshape(w.shape[attrs["dim"]], -1)
    return {"Out": w / np.linalg.svd(mat, compute_uv=False)[0]}


W43 = np.array([[3.0, 0.5, 0.1], [0.4, 2.0, 0.3], [0.2, 0.1, 1.0], [0.3, 0.2, 0.1]], F)

CASES = {
    "row_conv": [
        Case({"X": rng.standard_normal((2, 5, 3)).astype(F),
              "Filter": rng.standard_normal((3, 3)).astype(F)}, ref=row_conv_ref,
             grad=("X", "Filter")),
        Case({"X": rng.standard_normal((1, 2, 2)).astype(F),
              "Filter": rng.standard_normal((4, 2)).astype(F)}, ref=row_conv_ref,
             grad=("X", "Filter"), name="context_longer_than_steps"),
    ],
    "spectral_norm": [
        Case({"Weight": W43, "U": np.ones(4, F), "V": np.ones(3, F)},
             {"dim": 0, "power_iters": 60}, ref=spectral_ref, rtol=1e-4),
        Case({"Weight": W43.reshape(2, 2, 3), "U": np.ones(2, F), "V": np.ones(6, F)},
             {"dim": 1, "power_iters": 60}, ref=spectral_ref, rtol=1e-4, name="dim1"),
    ],
}

BAD = {
    "row_conv": [Bad({"X": Meta((5, 3), np.float32, 0), "Filter": Meta((2, 3), np.float32, 0)},
                     {}, ShapeError, r"X must be \[B, T, D\]")],
    "spectral_norm": [Bad({"Weight": Meta((4, 3), np.float32, 0),
                           "U": Meta((3,), np.float32, 0), "V": Meta((3,), np.float32, 0)},
                          {"dim": 0}, ShapeError, r"U must be \[4\]")],
}
