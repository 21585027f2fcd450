"""Contract cases for paddle_nb/ops/special.py (i0, i0e, i1, i1e, polygamma).

References are independent of the kernels' series: the Bessel functions by numerical
integration of I_v(x) = (1/pi) * integral over [0, pi] of exp(x cos t) cos(v t) dt (the
trapezoid rule on 2001 points is exact to float64 for a periodic integrand), polygamma by
summing (-1)^(n+1) n! / (x + k)^(n+1) over 200000 terms plus the integral of the tail.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(91)
F = np.float32
T = np.linspace(0, math.pi, 2001)


def bessel_ref(v, order, scaled):
    f = np.exp(v * np.cos(T) - (abs(v) if scaled else 0)) * np.cos(order * T)
    return (f.sum() - (f[0] + f[-1]) / 2) * (T[1] - T[0]) / math.pi


def polygamma_ref(v, n, terms=200000):
    k = np.arange(terms)
    total = np.sum(1.0 / (v + k) ** (n + 1))
    end = v + terms
    total += 1 / (n * end ** n) - 1 / (2 * end ** (n + 1))      # the rest, by Euler-Maclaurin
    return (-1) ** (n + 1) * math.factorial(n) * total


def per_element(f):
    return lambda x: np.vectorize(f, otypes=[np.float64])(x.astype(np.float64))


X = rng.uniform(-6, 6, (2, 4)).astype(F)
BIG = np.array([-45.0, 38.0, 41.0, 60.0], np.float64)
CASES = {}
for _name, (_order, _scaled) in {"i0": (0, False), "i0e": (0, True), "i1": (1, False),
                                  "i1e": (1, True)}.items():
    _ref = per_element(lambda v, o=_order, s=_scaled: bessel_ref(v, o, s))
    CASES[_name] = [
        Case(inputs={"x": X}, ref=lambda ins, a, r=_ref: {"out": r(ins["x"])}, grad=("x",)),
        Case(inputs={"x": np.array([0.0, 0.5, -1.0], F)},
             ref=lambda ins, a, r=_ref: {"out": r(ins["x"])}, name="around 0"),
    ]
    if _scaled:        # the unscaled ones reach 1e24 there: the scaled ones show the expansion
        CASES[_name].append(Case(inputs={"x": BIG}, ref=lambda ins, a, r=_ref: {"out": r(ins["x"])},
                                 rtol=1e-9, name="the large-x expansion, float64"))

P = rng.uniform(0.3, 6, (2, 3)).astype(F)
CASES["polygamma"] = [
    Case(inputs={"x": P}, attrs={"n": 1}, grad=("x",),
         ref=lambda ins, a: {"out": per_element(lambda v: polygamma_ref(v, 1))(ins["x"])}),
    Case(inputs={"x": P}, attrs={"n": 3}, grad=("x",),
         ref=lambda ins, a: {"out": per_element(lambda v: polygamma_ref(v, 3))(ins["x"])},
         name="n = 3"),
    Case(inputs={"x": np.array([-0.5, -2.5, 0.5], np.float64)}, attrs={"n": 1},
         ref=lambda ins, a: {"out": per_element(lambda v: polygamma_ref(v, 1))(ins["x"])},
         rtol=1e-8, name="negative x, float64"),
]

INT = Meta((2, 3), np.dtype(np.int32))
BAD = {name: [Bad(inputs={"x": INT}, error=ShapeError, match="x must be a floating-point tensor")]
       for name in CASES}
BAD["polygamma"].append(Bad(inputs={"x": P}, attrs={"n": -1}, error=AttrError,
                            match="n.*must be >= 0"))
