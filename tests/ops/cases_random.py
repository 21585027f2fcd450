"""Contract cases for paddle_nb/ops/random.py.

The draws cannot equal PaddlePaddle's (another generator), so the forward cases are
``seeded``: their references return check functions that test a large draw against its
law (range, mean, spread, frequencies) with bounds about six standard errors wide, which a
fair draw misses with probability far below 1e-6 (and the fixed seeds make each check
deterministic anyway). The gradient cases run on small inputs: the harness gives every
forward call the same generator state, so central differences see the same noise.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

F = np.float32
F64 = np.float64


def _meta(shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _varies_with_the_run(op_type, ins, attrs):
    """Seed 0 (or no seed): the run's generator draws, so two run seeds give two draws and
    one run seed the same draw twice."""
    a, b = (harness.forward(op_type, ins, attrs, seed=s)["Out"] for s in (1, 2))
    np.testing.assert_array_equal(a, harness.forward(op_type, ins, attrs, seed=1)["Out"])
    assert not np.array_equal(a, b), f"{op_type}: two run seeds drew the same numbers"


def _checked(op_type, check, slot="Out", vary=True):
    """A reference that runs ``check(out, ins, attrs)`` and then (``vary``: where two draws
    can hardly agree) the run-generator check."""
    def ref(ins, attrs):
        def run(out):
            check(out, ins, attrs)
            if vary and not attrs.get("seed"):
                _varies_with_the_run(op_type, ins, attrs)
        return {slot: run}
    return ref


def _frequencies(values, categories):
    return np.array([(values == c).mean() for c in categories])


# ---- randint ----

def _randint_check(out, ins, attrs):
    low, high = attrs["low"], attrs["high"]
    assert out.min() >= low and out.max() < high
    freq = _frequencies(out, range(low, high))
    k = high - low
    assert np.abs(freq - 1 / k).max() < 6 * np.sqrt((1 / k) * (1 - 1 / k) / out.size) + 1e-12
    if attrs.get("seed"):       # a fixed seed draws the same numbers whatever the run's generator
        again = harness.forward("randint", ins, attrs, seed=5)["Out"]
        np.testing.assert_array_equal(again, out)
        other = harness.forward("randint", ins, {**attrs, "seed": attrs["seed"] + 1})["Out"]
        assert not np.array_equal(other, out)


# ---- randperm ----

def _randperm_check(out, ins, attrs):
    assert out.shape == (attrs["n"],)
    np.testing.assert_array_equal(np.sort(out), np.arange(attrs["n"]))
    assert not np.array_equal(out, np.arange(attrs["n"])), "randperm left 0..n-1 in order"


# ---- bernoulli, poisson, exponential ----

def _bernoulli_check(out, ins, attrs):
    p = ins["X"]
    assert set(np.unique(out)) <= {0, 1}
    assert (out[p == 0] == 0).all() and (out[p == 1] == 1).all()
    for value in np.unique(p):
        drawn = out[p == value]
        assert abs(drawn.mean() - value) <= 6 * np.sqrt(value * (1 - value) / drawn.size) + 1e-12


def _poisson_check(out, ins, attrs):
    lam = float(ins["X"].reshape(-1)[0])
    assert (out >= 0).all() and (out == np.round(out)).all()
    assert abs(out.mean() - lam) < 6 * np.sqrt(lam / out.size)
    assert abs(out.var() / lam - 1) < 0.1


def _exponential_check(out, ins, attrs):
    mean = 1 / attrs.get("lambda", 1.0)
    assert out.shape == ins["X"].shape and (out >= 0).all()
    assert abs(out.mean() / mean - 1) < 6 / np.sqrt(out.size)
    assert abs(out.std() / mean - 1) < 0.05


# ---- multinomial ----

def _multinomial_check(out, ins, attrs):
    probs = np.atleast_2d(ins["X"]).astype(F64)
    rows = out.reshape(-1, attrs["num_samples"])
    for row, p in zip(rows, probs / probs.sum(axis=-1, keepdims=True)):
        if not attrs.get("replacement"):
            assert len(set(row.tolist())) == row.size, "a category drawn twice without replacement"
            assert (p[row] > 0).all()
            continue
        freq = _frequencies(row, range(p.size))
        assert (np.abs(freq - p) < 6 * np.sqrt(p * (1 - p) / row.size) + 1e-12).all(), freq


# ---- gumbel_softmax ----

def _gumbel_check(out, ins, attrs):
    axis = attrs.get("axis", -1)
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=1e-5)
    if not attrs.get("hard"):
        assert (out > 0).all() and (out < 1).all()
        return
    assert set(np.unique(out)) <= {0.0, 1.0}
    # the Gumbel-max trick: with X = log p, a row's one-hot lands on k with probability p[k]
    p = np.exp(np.moveaxis(ins["X"], axis, -1).reshape(-1, out.shape[axis])[0])
    freq = np.moveaxis(out, axis, -1).reshape(-1, p.size).mean(axis=0)
    n = out.size // p.size
    assert (np.abs(freq - p) < 6 * np.sqrt(p * (1 - p) / n)).all(), freq


# ---- rrelu ----

def _rrelu_refs(ins, attrs):
    x, lower, upper = ins["X"], attrs.get("lower", 0.125), attrs.get("upper", 1 / 3)
    if attrs.get("is_test"):
        noise = np.where(x >= 0, 1.0, (lower + upper) / 2).astype(x.dtype)
        return {"Noise": noise, "Out": x * noise}
    seen = {}

    def check_noise(noise):
        assert (noise[x >= 0] == 1).all()
        slopes = noise[x < 0]
        assert (slopes >= lower).all() and (slopes <= upper).all()
        spread = (upper - lower) / np.sqrt(12)
        assert abs(slopes.mean() - (lower + upper) / 2) < 6 * spread / np.sqrt(slopes.size) + 1e-9
        seen["noise"] = noise

    def check_out(out):
        np.testing.assert_allclose(out, x * seen["noise"], rtol=1e-6)
    return {"Noise": check_noise, "Out": check_out}   # dict order: Noise is checked first


# ---- dirichlet ----

def _dirichlet_check(out, ins, attrs):
    alpha = ins["Alpha"].astype(F64)
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-5)
    assert (out >= 0).all()
    a0 = alpha.sum(axis=-1, keepdims=True)
    mean = (alpha / a0)[0]
    sd = np.sqrt(mean * (1 - mean) / (a0[0] + 1))
    assert (np.abs(out.mean(axis=0) - mean) < 6 * sd / np.sqrt(out.shape[0])).all()


def _non_negative(out):
    assert (out >= 0).all()


def _rng_array(shape, low, high, dtype=F, seed=3):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


# away from 0, where rrelu has its kink
RRELU_X = np.array([[-1.5, 0.7, -0.4], [1.2, -0.9, 0.3]], F)
GUMBEL_P = np.log(np.array([0.2, 0.3, 0.5], F))
BIG = (100, 100)

CASES = {
    "randint": [
        Case(inputs={}, attrs={"low": -3, "high": 5, "shape": list(BIG), "seed": 11},
             ref=_checked("randint", _randint_check), seeded=True),
        Case(inputs={}, attrs={"low": 0, "high": 2, "shape": [5000], "dtype": "int32"},
             ref=_checked("randint", _randint_check), seeded=True, name="int32, run generator"),
        Case(inputs={"ShapeTensor": np.array([60, 50], np.int64)},
             attrs={"low": 10, "high": 13, "seed": 4},
             ref=_checked("randint", _randint_check), seeded=True, name="ShapeTensor"),
        Case(inputs={"ShapeTensorList": [np.array([40], np.int32), np.array(50, np.int32)]},
             attrs={"low": 0, "high": 4, "shape": [-1, -1]},
             ref=_checked("randint", _randint_check), seeded=True, name="ShapeTensorList"),
    ],
    "randperm": [
        Case(inputs={}, attrs={"n": 50}, ref=_checked("randperm", _randperm_check), seeded=True),
        Case(inputs={}, attrs={"n": 20, "dtype": "float64"},
             ref=_checked("randperm", _randperm_check), seeded=True, name="float64"),
        Case(inputs={}, attrs={"n": 1, "dtype": "int32"},
             ref=lambda ins, a: {"Out": np.array([0], np.int32)}, name="n = 1"),
    ],
    "bernoulli": [
        Case(inputs={"X": np.repeat(np.array([0.0, 0.2, 0.5, 0.9, 1.0], F), 4000)},
             ref=_checked("bernoulli", _bernoulli_check), seeded=True),
        Case(inputs={"X": np.full((50, 40), 0.3, F64)},
             ref=_checked("bernoulli", _bernoulli_check), seeded=True, name="float64"),
    ],
    "poisson": [
        Case(inputs={"X": np.array([[2.5, 1.0], [4.0, 0.5]], F64)}, grad=("X",),
             ref=lambda ins, a: {"Out": _non_negative}, seeded=True, name="gradient (zero)"),
        Case(inputs={"X": np.full(BIG, 3.0, F)}, ref=_checked("poisson", _poisson_check),
             seeded=True, name="rate 3"),
        Case(inputs={"X": np.full((4000,), 40.0, F64)}, ref=_checked("poisson", _poisson_check),
             seeded=True, name="rate 40, float64"),
    ],
    "exponential": [
        Case(inputs={"X": np.zeros((2, 3), F64)}, attrs={"lambda": 2.0}, grad=("X",),
             ref=lambda ins, a: {"Out": _non_negative}, seeded=True, name="gradient (zero)"),
        Case(inputs={"X": np.zeros(BIG, F)}, attrs={"lambda": 2.0},
             ref=_checked("exponential", _exponential_check), seeded=True, name="rate 2"),
        Case(inputs={"X": np.ones((8000,), F64)}, ref=_checked("exponential", _exponential_check),
             seeded=True, name="rate 1, float64"),
    ],
    "multinomial": [
        Case(inputs={"X": np.array([[0.1, 0.2, 0.7], [3.0, 1.0, 0.0]], F)},
             attrs={"num_samples": 4000, "replacement": True},
             ref=_checked("multinomial", _multinomial_check), seeded=True),
        Case(inputs={"X": np.array([1.0, 1.0, 2.0, 0.0], F64)},
             attrs={"num_samples": 3000, "replacement": True},
             ref=_checked("multinomial", _multinomial_check), seeded=True, name="1-D weights"),
        Case(inputs={"X": _rng_array((30, 6), 0.1, 1.0)}, attrs={"num_samples": 6},
             ref=_checked("multinomial", _multinomial_check), seeded=True,
             name="without replacement"),
        Case(inputs={"X": np.array([[0.0, 2.0, 0.0, 1.0]], F)}, attrs={"num_samples": 2},
             ref=_checked("multinomial", _multinomial_check, vary=False), seeded=True,
             name="without replacement skips zero weights"),
    ],
    "gumbel_softmax": [
        Case(inputs={"X": _rng_array((2, 3), -1.0, 1.0)}, grad=("X",),
             ref=_checked("gumbel_softmax", _gumbel_check), seeded=True,
             name="soft, temperature 1 (gradient)"),
        Case(inputs={"X": np.tile(GUMBEL_P, (6000, 1))}, attrs={"hard": True, "temperature": 0.5},
             ref=_checked("gumbel_softmax", _gumbel_check), seeded=True,
             name="hard: p's frequencies"),
        Case(inputs={"X": np.tile(GUMBEL_P[:, None], (1, 5000))}, attrs={"hard": True, "axis": 0},
             ref=_checked("gumbel_softmax", _gumbel_check), seeded=True, name="hard along axis 0"),
        Case(inputs={"X": _rng_array((3, 4, 2), -2.0, 2.0, F64)},
             attrs={"temperature": 3.0, "axis": 1},
             ref=_checked("gumbel_softmax", _gumbel_check), seeded=True, name="soft, axis 1"),
    ],
    "rrelu": [
        Case(inputs={"X": RRELU_X}, attrs={"lower": 0.1, "upper": 0.3}, grad=("X",),
             grad_outputs=("Out",), ref=_rrelu_refs, seeded=True, name="training (gradient)"),
        Case(inputs={"X": _rng_array(BIG, -1.0, 1.0)}, ref=_rrelu_refs, seeded=True,
             name="training, slopes' mean"),
        Case(inputs={"X": RRELU_X}, attrs={"lower": 0.2, "upper": 0.4, "is_test": True},
             grad=("X",), grad_outputs=("Out",), ref=_rrelu_refs, name="is_test: the mean slope"),
    ],
    "dirichlet": [
        Case(inputs={"Alpha": np.tile(np.array([1.0, 2.0, 3.0], F), (5000, 1))},
             ref=_checked("dirichlet", _dirichlet_check), seeded=True),
    ],
}

BAD = {
    "randint": [
        Bad(inputs={}, attrs={"low": 5, "high": 5, "shape": [2]}, error=ShapeError,
            match=r"low \(5\) must be less than high \(5\)"),
        Bad(inputs={}, attrs={"low": 0, "high": 5, "shape": [2], "dtype": "float32"},
            error=ShapeError, match="dtype must be int32 or int64, got float32"),
        Bad(inputs={}, attrs={"low": 0, "high": 5, "shape": [2, -3]}, error=ShapeError,
            match=r"shape must hold sizes >= 0, got \[2, -3\]"),
        Bad(inputs={"ShapeTensor": _meta((2, 1), np.int64)}, attrs={"low": 0, "high": 5},
            error=ShapeError, match=r"ShapeTensor must be a 1-D tensor of known length"),
    ],
    "randperm": [
        Bad(inputs={}, attrs={"n": 0}, error=ShapeError, match="n must be >= 1, got 0"),
        Bad(inputs={}, attrs={"n": 3, "dtype": "bool"}, error=ShapeError,
            match="dtype must be int32, int64, float32 or float64, got bool"),
    ],
    "bernoulli": [Bad(inputs={"X": _meta((2,), np.int64)}, error=ShapeError,
                      match="X must be a floating-point tensor, got int64")],
    "poisson": [Bad(inputs={"X": _meta((2,), np.int32)}, error=ShapeError,
                    match="X must be a floating-point tensor, got int32")],
    "exponential": [
        Bad(inputs={"X": _meta((2,))}, attrs={"lambda": 0.0}, error=ShapeError,
            match="lambda must be > 0, got 0.0"),
        Bad(inputs={"X": _meta((2,), np.int64)}, error=ShapeError,
            match="X must be a floating-point tensor"),
    ],
    "multinomial": [
        Bad(inputs={"X": _meta((2, 3, 4))}, error=ShapeError,
            match=r"X must be 1-D or 2-D .*, got shape \(2, 3, 4\)"),
        Bad(inputs={"X": _meta((-1, 3))}, attrs={"num_samples": 4}, error=ShapeError,
            match=r"without replacement num_samples \(4\) must not exceed the number of "
                  r"categories \(3\)"),
        Bad(inputs={"X": _meta((3,))}, attrs={"num_samples": 0}, error=ShapeError,
            match="num_samples must be >= 1, got 0"),
    ],
    "gumbel_softmax": [
        Bad(inputs={"X": _meta((2, 3))}, attrs={"axis": 2}, error=ShapeError,
            match="axis 2 is out of range for X of rank 2"),
        Bad(inputs={"X": _meta((2, 3))}, attrs={"temperature": 0.0}, error=ShapeError,
            match="temperature must be > 0, got 0.0"),
    ],
    "rrelu": [
        Bad(inputs={"X": _meta((2, 3))}, attrs={"lower": 0.5, "upper": 0.2}, error=ShapeError,
            match="need 0 <= lower <= upper <= 1, got lower 0.5, upper 0.2"),
        Bad(inputs={"X": _meta((2,), np.int32)}, error=ShapeError,
            match="X must be a floating-point tensor, got int32"),
    ],
    "dirichlet": [Bad(inputs={"Alpha": _meta((2, 3), np.int64)}, error=ShapeError,
                      match="Alpha must be a floating-point tensor, got int64")],
}

