"""Contract cases for paddle_nb/ops/activation_param.py.

References are written independently of the kernels: ``math.erf`` per element
for gelu, ``np.logaddexp`` for softplus, plain comparisons for the piecewise
ops. Inputs keep 0.1 away from every kink, so central differences see smooth
functions.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(5)
F = np.float32


def away(x, kinks, gap=0.1):
    """``x`` with every value closer than ``gap`` to a kink moved ``gap`` past it."""
    x = np.array(x, dtype=np.float64)
    for k in kinks:
        near = np.abs(x - k) < gap
        x[near] = k + np.where(x[near] >= k, gap, -gap)
    return x.astype(F)


def spread(lo, hi, kinks=(), shape=(3, 4)):
    return away(rng.uniform(lo, hi, shape), kinks)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gelu_ref(x, approximate):
    x = x.astype(np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(x)


def softplus_ref(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.logaddexp(0, beta * x) / beta)


def shrink_ref(x, lam):
    return np.sign(x) * np.maximum(np.abs(x) - lam, 0)


# op -> [(x, attrs, reference(x, attrs)), ...]; the first checks defaults
TABLE = {
    "relu6": [(spread(-2, 8, (0, 6)), {}, lambda x, a: np.clip(x, 0, 6)),
              (spread(-1, 3, (0, 2)), {"threshold": 2.0}, lambda x, a: np.clip(x, 0, 2))],
    "hard_swish": [
        (spread(-5, 5, (-3, 3)), {}, lambda x, a: x * np.clip(x + 3, 0, 6) / 6),
        (spread(-3, 3, (-1, 1)), {"threshold": 2.0, "scale": 4.0, "offset": 1.0},
         lambda x, a: x * np.clip(x + 1, 0, 2) / 4)],
    "hard_sigmoid": [
        (spread(-4, 4, (-2.5, 2.5)), {}, lambda x, a: np.clip(0.2 * x + 0.5, 0, 1)),
        (spread(-4, 4, (-3, 3)), {"slope": 1 / 6, "offset": 0.5},
         lambda x, a: np.clip(x / 6 + 0.5, 0, 1))],
    "swish": [(spread(-4, 4), {}, lambda x, a: x / (1 + np.exp(-x))),
              (spread(-4, 4), {"beta": 2.0}, lambda x, a: x * sigmoid(2 * x))],
    "silu": [(spread(-6, 6), {}, lambda x, a: x / (1 + np.exp(-x)))],
    "gelu": [(spread(-4, 4), {}, lambda x, a: gelu_ref(x, False)),
             (spread(-4, 4), {"approximate": True}, lambda x, a: gelu_ref(x, True)),
             (np.linspace(-7, 7, 29).astype(F), {}, lambda x, a: gelu_ref(x, False))],
    "leaky_relu": [(spread(-3, 3, (0,)), {}, lambda x, a: np.where(x > 0, x, 0.02 * x)),
                   (spread(-3, 3, (0,)), {"alpha": 0.3}, lambda x, a: np.maximum(x, 0.3 * x))],
    "elu": [(spread(-3, 3, (0,)), {}, lambda x, a: np.where(x > 0, x, np.exp(x) - 1)),
            (spread(-3, 3, (0,)), {"alpha": -0.5},
             lambda x, a: np.where(x > 0, x, -0.5 * (np.exp(x) - 1)))],
    "softplus": [(spread(-5, 5), {}, lambda x, a: np.log1p(np.exp(x))),
                 (spread(-4, 4, (2.5,)), {"beta": 2.0, "threshold": 5.0},
                  lambda x, a: softplus_ref(x, 2.0, 5.0))],
    "brelu": [(spread(-2, 30, (0, 24)), {}, lambda x, a: np.clip(x, 0, 24)),
              (spread(-2, 2, (-1, 1)), {"t_min": -1.0, "t_max": 1.0},
               lambda x, a: np.clip(x, -1, 1))],
    "logsigmoid": [(spread(-8, 8), {}, lambda x, a: np.log(sigmoid(x.astype(np.float64))))],
    "tanh_shrink": [(spread(-3, 3), {}, lambda x, a: x - np.tanh(x))],
    "softshrink": [(spread(-2, 2, (-0.5, 0.5)), {}, lambda x, a: shrink_ref(x, 0.5)),
                   (spread(-2, 2, (-1, 1)), {"lambda": 1.0}, lambda x, a: shrink_ref(x, 1.0))],
    "hard_shrink": [
        (spread(-2, 2, (-0.5, 0.5)), {}, lambda x, a: np.where(np.abs(x) > 0.5, x, 0)),
        (spread(-3, 3, (-1.5, 1.5)), {"threshold": 1.5},
         lambda x, a: x * (np.abs(x) > 1.5))],
    "mish": [(spread(-5, 5), {}, lambda x, a: x * np.tanh(np.log1p(np.exp(x)))),
             (spread(-4, 4, (1,)), {"threshold": 1.0},
              lambda x, a: x * np.tanh(np.where(x > 1, x, np.log1p(np.exp(x)))))],
}


def _case(x, attrs, f, i):
    return Case(inputs={"X": x}, attrs=attrs, ref=lambda ins, at, f=f: {"Out": f(ins["X"], at)},
                grad=("X",), name=f"case {i}")


CASES = {op: [_case(x, attrs, f, i) for i, (x, attrs, f) in enumerate(rows)]
         for op, rows in TABLE.items()}
CASES["relu6"].append(Case(inputs={"X": spread(-2, 8, (0, 6), shape=(2, 3, 2))},
                           ref=lambda ins, a: {"Out": np.clip(ins["X"], 0, 6)}, grad=("X",),
                           name="rank 3"))
CASES["leaky_relu"].append(Case(inputs={"X": np.array(-1.5, F)}, attrs={"alpha": 0.1},
                                ref=lambda ins, a: {"Out": 0.1 * ins["X"]}, grad=("X",),
                                name="0-d"))
CASES["gelu"].append(Case(inputs={"X": spread(-3, 3, shape=(5,)).astype(np.float64)},
                          ref=lambda ins, a: {"Out": gelu_ref(ins["X"], False)},
                          rtol=1e-14, atol=1e-15, name="float64 to 1e-14"))

INT = Meta((3, 4), np.dtype(np.int64))
BAD = {op: [Bad(inputs={"X": INT}, error=ShapeError, match="floating-point")] for op in TABLE}
BAD["relu6"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"threshold": 0.0}, error=AttrError,
                        match="threshold.*must be > 0"))
BAD["hard_swish"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"scale": 0.0}, error=AttrError,
                             match="scale.*must not be 0"))
BAD["softplus"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"beta": 0}, error=AttrError,
                           match="beta.*must not be 0"))
BAD["softshrink"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"lambda": -1.0},
                             error=AttrError, match="lambda.*must be >= 0"))
BAD["brelu"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"t_min": 2.0, "t_max": 1.0},
                        error=ShapeError, match="t_min must be less than t_max"))
BAD["gelu"].append(Bad(inputs={"X": spread(0, 1)}, attrs={"approximate": "tanh"},
                       error=AttrError, match="approximate.*expects bool"))

# ---- clip and pow ------------------------------------------------------------------------

XC = spread(-2, 2, (-0.5, 0.7))


def clip_ref(ins, attrs):
    lo = attrs["min"] if ins.get("Min") is None else ins["Min"].item()
    hi = attrs["max"] if ins.get("Max") is None else ins["Max"].item()
    return {"Out": np.array([[min(max(v, lo), hi) for v in row] for row in ins["X"]])}


CASES["clip"] = [
    Case(inputs={"X": XC}, attrs={"min": -0.5, "max": 0.7}, ref=clip_ref, grad=("X",)),
    Case(inputs={"X": XC, "Min": np.array([-0.5], F), "Max": np.array([0.7], F)},
         attrs={"min": -3e38, "max": 3e38}, ref=clip_ref, grad=("X",), name="Min and Max tensors"),
    Case(inputs={"X": XC, "Max": np.array([0.7], F)}, attrs={"min": -0.5, "max": 9.0},
         ref=clip_ref, grad=("X",), name="Max tensor only"),
    Case(inputs={"X": np.arange(-4, 4).reshape(2, 4)}, attrs={"min": -2.0, "max": 1.0},
         ref=clip_ref, name="int64"),
    Case(inputs={"X": np.array(0.9, F), "Max": np.array([0.7], F)}, attrs={"min": 0.0, "max": 1.0},
         ref=lambda ins, a: {"Out": np.array(0.7)}, grad=("X",), name="0-d X"),
]
BAD["clip"] = [
    Bad(inputs={"X": Meta((3, 4), np.dtype(bool))}, attrs={"min": 0.0, "max": 1.0},
        error=ShapeError, match="floating-point or integer"),
    Bad(inputs={"X": XC}, attrs={"min": 1.0, "max": 0.0}, error=ShapeError,
        match="max must be >= min, got min=1.0, max=0.0"),
    Bad(inputs={"X": XC, "Min": Meta((2,), np.dtype(F))}, attrs={"min": 0.0, "max": 1.0},
        error=ShapeError, match=r"Min must hold one value, got shape \(2,\)"),
    Bad(inputs={"X": XC}, attrs={"min": 0.0}, error=AttrError, match="'max'.*required"),
]

XP = spread(0.5, 2)
CASES["pow"] = [
    Case(inputs={"X": spread(-2, 2)}, attrs={"factor": 3.0},
         ref=lambda ins, a: {"Out": ins["X"].astype(np.float64) ** 3}, grad=("X",)),
    Case(inputs={"X": XP}, attrs={"factor": -1.5},
         ref=lambda ins, a: {"Out": 1 / np.sqrt(ins["X"].astype(np.float64)) ** 3}, grad=("X",),
         name="negative fractional factor"),
    Case(inputs={"X": XP, "FactorTensor": np.array([2.5], F)},
         ref=lambda ins, a: {"Out": np.sqrt(ins["X"].astype(np.float64)) ** 5}, grad=("X",),
         name="FactorTensor replaces factor"),
    Case(inputs={"X": XP}, ref=lambda ins, a: {"Out": ins["X"]}, grad=("X",), name="default 1"),
]
BAD["pow"] = [
    Bad(inputs={"X": INT}, error=ShapeError, match="floating-point"),
    Bad(inputs={"X": XP, "FactorTensor": Meta((1, 2), np.dtype(F))}, error=ShapeError,
        match=r"FactorTensor must hold one value, got shape \(1, 2\)"),
    Bad(inputs={"X": XP}, attrs={"factor": "2"}, error=AttrError, match="factor.*expects float"),
]
