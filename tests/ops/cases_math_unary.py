"""Contract cases for paddle_nb/ops/math_unary.py.

References come from Python's ``math`` module per element (``math.erf``, ``math.lgamma``,
a central difference of ``math.lgamma`` for digamma) or from NumPy functions the kernels
do not use; inputs stay inside each function's domain and away from the rounding ops'
jumps, so central differences see smooth functions.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(21)
F = np.float32


def per_element(f):
    return lambda x: np.vectorize(f, otypes=[np.float64])(x.astype(np.float64))


def digamma_ref(v, h=1e-5):
    return (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h)


def round_ref(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def uniform(lo, hi, shape=(3, 4)):
    return rng.uniform(lo, hi, shape).astype(F)


def off_integers(lo, hi, shape=(3, 4)):
    """Values at least 0.1 from an integer and from a half-integer."""
    x = rng.uniform(lo, hi, shape)
    frac = x - np.floor(x)
    x = np.floor(x) + np.clip(frac, 0.1, 0.9)
    x = np.where(np.abs(frac - 0.5) < 0.1, np.floor(x) + 0.35, x)
    return x.astype(F)


# op -> [(x, reference(x)), ...]
TABLE = {
    "erf": [(uniform(-3, 3), per_element(math.erf))],
    "rsqrt": [(uniform(0.2, 4), lambda x: 1 / np.sqrt(x.astype(np.float64)))],
    "sin": [(uniform(-4, 4), per_element(math.sin))],
    "cos": [(uniform(-4, 4), per_element(math.cos))],
    "tan": [(uniform(-1.2, 1.2), per_element(math.tan))],
    "asin": [(uniform(-0.9, 0.9), per_element(math.asin))],
    "acos": [(uniform(-0.9, 0.9), per_element(math.acos))],
    "atan": [(uniform(-4, 4), per_element(math.atan))],
    "sinh": [(uniform(-3, 3), per_element(math.sinh))],
    "cosh": [(uniform(-3, 3), per_element(math.cosh))],
    "asinh": [(uniform(-4, 4), per_element(math.asinh))],
    "acosh": [(uniform(1.2, 5), per_element(math.acosh))],
    "atanh": [(uniform(-0.9, 0.9), per_element(math.atanh))],
    "floor": [(off_integers(-3, 3), per_element(math.floor))],
    "ceil": [(off_integers(-3, 3), per_element(math.ceil))],
    "round": [(off_integers(-3, 3), per_element(round_ref)),
              (np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], F), per_element(round_ref))],
    "trunc": [(off_integers(-3, 3), per_element(math.trunc))],
    "reciprocal": [(uniform(0.3, 3) * np.where(rng.random((3, 4)) < 0.5, -1, 1).astype(F),
                    lambda x: 1 / x.astype(np.float64))],
    "log2": [(uniform(0.2, 8), per_element(math.log2))],
    "log10": [(uniform(0.2, 50), per_element(math.log10))],
    "log1p": [(uniform(-0.8, 4), per_element(math.log1p))],
    "expm1": [(uniform(-3, 3), per_element(math.expm1))],
    "softsign": [(uniform(-4, 4), per_element(lambda v: v / (1 + abs(v))))],
    "lgamma": [(uniform(0.1, 12), per_element(math.lgamma)),
               (off_integers(-3.9, -0.1, (8,)), per_element(math.lgamma))],
    "digamma": [(uniform(0.2, 12), per_element(digamma_ref)),
                (off_integers(-3.9, -0.1, (8,)), per_element(digamma_ref))],
}


def _case(x, f, i):
    return Case(inputs={"X": x}, ref=lambda ins, a, f=f: {"Out": f(ins["X"])}, grad=("X",),
                rtol=1e-5, atol=1e-5 if i else 1e-6, name=f"case {i}")


CASES = {op: [_case(x, f, i) for i, (x, f) in enumerate(rows)] for op, rows in TABLE.items()}
CASES["round"][1].grad = ()       # halves sit on the jumps: no central difference there
CASES["sin"].append(Case(inputs={"X": np.array(0.7, np.float64)},
                         ref=lambda ins, a: {"Out": np.array(math.sin(0.7))}, grad=("X",),
                         rtol=1e-14, name="0-d float64"))
CASES["lgamma"].append(Case(inputs={"X": np.array([0.5, 1, 2, 3.5, 30], np.float64)},
                            ref=lambda ins, a: {"Out": per_element(math.lgamma)(ins["X"])},
                            rtol=1e-12, atol=1e-12, name="float64 to 1e-12"))

BAD = {op: [Bad(inputs={"X": Meta((3, 4), np.dtype(np.int64))}, error=ShapeError,
                match="X must be a floating-point tensor, got int64")] for op in TABLE}

# erfinv: the reference inverts math.erf by bisection
def erfinv_ref(v):
    if abs(v) >= 1:
        return math.copysign(math.inf, v)
    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
    return (lo + hi) / 2


CASES["erfinv"] = [
    Case(inputs={"X": uniform(-0.95, 0.95)},
         ref=lambda ins, a: {"Out": per_element(erfinv_ref)(ins["X"])}, grad=("X",)),
    Case(inputs={"X": np.array([0.0, 0.999, -0.9999, 1.0, -1.0], np.float64)},
         ref=lambda ins, a: {"Out": per_element(erfinv_ref)(ins["X"])}, rtol=1e-9,
         name="tails and +-1 in float64"),
]
BAD["erfinv"] = [Bad(inputs={"X": Meta((3,), np.dtype(np.int32))}, error=ShapeError,
                     match="floating-point")]
