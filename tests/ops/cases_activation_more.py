"""Contract cases for paddle_nb/ops/activation_more.py.

References are plain NumPy written per formula (not the kernels' ``where`` forms) or
explicit loops (prelu's channels, maxout's groups); inputs keep 0.1 away from every kink.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(31)
F = np.float32


def away(x, kinks, gap=0.1):
    x = np.array(x, dtype=np.float64)
    for k in kinks:
        near = np.abs(x - k) < gap
        x[near] = k + np.where(x[near] >= k, gap, -gap)
    return x.astype(F)


def spread(lo, hi, kinks=(), shape=(3, 4)):
    return away(rng.uniform(lo, hi, shape), kinks)


SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805


def elu_like(x, alpha):
    x = x.astype(np.float64)
    return np.array([v if v > 0 else alpha * (math.exp(v) - 1) for v in x.ravel()]).reshape(x.shape)


TABLE = {
    "thresholded_relu": [
        (spread(-2, 3, (1,)), {}, lambda x, a: x * (x > 1)),
        (spread(-2, 3, (0.5,)), {"threshold": 0.5}, lambda x, a: x * (x > 0.5))],
    "stanh": [(spread(-3, 3), {}, lambda x, a: 1.7159 * np.tanh(0.67 * x)),
              (spread(-3, 3), {"scale_a": 2.0, "scale_b": 0.5},
               lambda x, a: 0.5 * np.tanh(2 * x.astype(np.float64)))],
    "logit": [(spread(0.05, 0.95), {"eps": 0.0}, lambda x, a: np.log(x / (1 - x))),
              (spread(0.0, 1.0, (0.2, 0.8)), {"eps": 0.2},
               lambda x, a: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))))],
    "selu": [(spread(-3, 3, (0,)), {}, lambda x, a: SELU_S * elu_like(x, SELU_A)),
             (spread(-3, 3, (0,)), {"scale": 2.0, "alpha": 0.5},
              lambda x, a: 2 * elu_like(x, 0.5))],
    "celu": [(spread(-3, 3, (0,)), {}, lambda x, a: elu_like(x, 1.0)),
             (spread(-3, 3, (0,)), {"alpha": 2.0},
              lambda x, a: np.where(x > 0, x, 2 * (np.exp(x / 2.0) - 1)))],
}


def _case(x, attrs, f, i):
    return Case(inputs={"X": x}, attrs=attrs, ref=lambda ins, at, f=f: {"Out": f(ins["X"], at)},
                grad=("X",), name=f"case {i}")


CASES = {op: [_case(x, attrs, f, i) for i, (x, attrs, f) in enumerate(rows)]
         for op, rows in TABLE.items()}
INT = Meta((3, 4), np.dtype(np.int64))
BAD = {op: [Bad(inputs={"X": INT}, error=ShapeError, match="floating-point")] for op in TABLE}
BAD["celu"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"alpha": 0.0}, error=AttrError,
                       match="alpha.*must not be 0"))
BAD["logit"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"eps": 0.7}, error=AttrError,
                        match=r"eps.*must be in \[0, 0.5\)"))

# ---- prelu ------------------------------------------------------------------------------------


def prelu_ref(ins, attrs):
    x, alpha = ins["X"].astype(np.float64), ins["Alpha"].astype(np.float64).ravel()
    mode, fmt = attrs.get("mode", "all"), attrs.get("data_format", "NCHW")
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape):
        if mode == "all":
            a = alpha[0]
        elif mode == "channel":
            a = alpha[idx[-1] if fmt == "NHWC" else idx[1]]
        else:
            a = alpha[np.ravel_multi_index(idx[1:], x.shape[1:])]
        out[idx] = x[idx] if x[idx] > 0 else a * x[idx]
    return {"Out": out}


XP = spread(-2, 2, (0,), shape=(2, 3, 2, 2))
CASES["prelu"] = [
    Case(inputs={"X": XP, "Alpha": np.array([0.25], F)}, ref=prelu_ref, grad=("X", "Alpha")),
    Case(inputs={"X": XP, "Alpha": np.array([0.1, 0.2, 0.3], F)}, attrs={"mode": "channel"},
         ref=prelu_ref, grad=("X", "Alpha"), name="channel NCHW"),
    Case(inputs={"X": XP, "Alpha": np.array([0.1, 0.5], F)},
         attrs={"mode": "channel", "data_format": "NHWC"}, ref=prelu_ref, grad=("X", "Alpha"),
         name="channel NHWC"),
    Case(inputs={"X": XP, "Alpha": spread(0.1, 0.9, shape=(1, 3, 2, 2))},
         attrs={"mode": "element"}, ref=prelu_ref, grad=("X", "Alpha"), name="element"),
]
BAD["prelu"] = [
    Bad(inputs={"X": XP, "Alpha": Meta((2,), np.dtype(F))}, attrs={"mode": "channel"},
        error=ShapeError,
        match=r"Alpha must hold 3 value\(s\) for mode 'channel'.*got shape \(2,\)"),
    Bad(inputs={"X": XP, "Alpha": np.array([0.1], F)}, attrs={"mode": "row"}, error=AttrError,
        match="mode.*must be 'all', 'channel' or 'element'"),
]

# ---- maxout -----------------------------------------------------------------------------------


def maxout_ref(ins, attrs):
    x, groups = ins["X"], attrs["groups"]
    axis = attrs.get("axis", 1) % 4
    channels = x.shape[axis] // groups
    parts = [np.max(np.stack([np.take(x, c * groups + g, axis=axis) for g in range(groups)]),
                    axis=0) for c in range(channels)]
    return {"Out": np.stack(parts, axis=axis)}


XM = rng.permutation(48).reshape(2, 4, 3, 2).astype(F) * 0.1     # distinct: no ties
CASES["maxout"] = [
    Case(inputs={"X": XM}, attrs={"groups": 2}, ref=maxout_ref, grad=("X",)),
    Case(inputs={"X": XM.transpose(0, 2, 3, 1).copy()}, attrs={"groups": 4, "axis": -1},
         ref=maxout_ref, grad=("X",), name="NHWC"),
]
BAD["maxout"] = [
    Bad(inputs={"X": XM}, attrs={"groups": 3}, error=ShapeError,
        match=r"channel dimension \(4\) must be a multiple of groups, got groups=3"),
    Bad(inputs={"X": Meta((2, 4), np.dtype(F))}, attrs={"groups": 2}, error=ShapeError,
        match=r"X must be rank 4"),
]
