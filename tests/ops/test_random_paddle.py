"""The random ops in PaddlePaddle 2.6.2's own programs, run here (interop/ops/random_refs.py).

Where the values do not depend on the draw (rrelu at test time, a Bernoulli of 0s and 1s, a
one-hot multinomial, randint over one value, randperm of 1, the zero gradient of a draw)
paddle_nb must fetch PaddlePaddle's values; where they do, the relation between the fetched
arrays must hold both for PaddlePaddle's values and for paddle_nb's: rrelu's Out = X * Noise
and X@GRAD = w * Noise with slopes in [lower, upper]; gumbel_softmax's rows summing to 1 and
its gradient, which PaddlePaddle takes from Out without dividing by the temperature. Always:
the same shapes and dtypes.
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/ops/random_refs.npz"


def _load():
    if not FIXTURE.is_file():
        return {}
    cases = {}
    with np.load(FIXTURE) as values:
        for key in values.files:
            name, kind, *rest = key.split("/")
            case = cases.setdefault(name, {"feed": {}, "fetch": {}})
            if kind in ("feed", "fetch"):
                case[kind][rest[0]] = values[key]
            else:
                case[kind] = values[key]
    for case in cases.values():
        case["fetch"] = [case["fetch"][str(k)] for k in range(len(case["fetch"]))]
    return cases


CASES = _load()


def _rrelu_relation(feed, fetched):
    x, w = feed["x"], feed["w"]
    out, noise, grad = fetched
    assert (noise[x >= 0] == 1).all()
    assert ((noise[x < 0] >= 0.1) & (noise[x < 0] <= 0.3)).all()
    np.testing.assert_allclose(out, x * noise, rtol=1e-6)
    np.testing.assert_allclose(grad, w * noise, rtol=1e-6)


def _gumbel_relation(axis):
    def check(feed, fetched):
        out, grad = fetched
        np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=1e-5)
        w = feed["w"]
        np.testing.assert_allclose(grad, out * (w - (out * w).sum(axis=axis, keepdims=True)),
                                   rtol=1e-5, atol=1e-6)
    return check


def _draw_with_zero_gradient(feed, fetched):
    """A draw's values are free (here, >= 0); its gradient (the last fetch) is zero."""
    assert (fetched[0] >= 0).all()
    assert not fetched[-1].any()


# name -> None (values compared with PaddlePaddle's) or a relation check
RELATIONS = {
    "rrelu_test": None, "bernoulli_coins": None, "multinomial_one_hot": None,
    "randint_one_value": None, "randperm_one": None,
    "rrelu_train": _rrelu_relation,
    "gumbel_softmax_soft": _gumbel_relation(-1),
    "gumbel_softmax_hard_axis0": _gumbel_relation(0),
    "poisson": _draw_with_zero_gradient, "exponential": _draw_with_zero_gradient,
}


def _case(name):
    if name not in CASES:
        pytest.fail(f"{FIXTURE} is absent (interop/ops/random_refs.py writes it)")
    return CASES[name]


@pytest.mark.parametrize("name", list(RELATIONS))
def test_paddle_program_runs_here(name):
    case = _case(name)
    main = pd.Program.parse(case["program"].tobytes())
    names = [str(n) for n in case["fetch_names"]]
    got = pd.Executor(pd.CPUPlace()).run(main, feed=case["feed"], fetch_list=names,
                                         scope=pd.Scope())
    for mine, theirs, var in zip(got, case["fetch"], names):
        assert mine.shape == theirs.shape and mine.dtype == theirs.dtype, var
        declared = main.global_block().var(var)
        assert declared.dtype == mine.dtype, var
    relation = RELATIONS[name]
    if relation is None:
        for mine, theirs, var in zip(got, case["fetch"], names):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6, err_msg=var)
    else:
        relation(case["feed"], case["fetch"])      # PaddlePaddle's own values
        relation(case["feed"], got)
