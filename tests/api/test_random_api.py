"""paddle.rand, randn, randint, randperm, normal, bernoulli, ... against PaddlePaddle 2.6.2.

Each case of interop/api/random_api_refs.py is built here exactly as that script built it in
PaddlePaddle 2.6.2, and must write what 2.6 wrote: the same ops in the same order, reading
and writing the same variable names, with the same attributes; outputs declared with the
same names, shapes and dtypes; and running it must fetch arrays of the shapes and dtypes 2.6
fetched (PaddlePaddle's own program too, parsed and run here). The values are random, so
they are checked against their laws instead (NumPy statistics over a few thousand draws,
with bounds about six standard errors wide), and the seeds: seed 0 follows the Executor's
generator, a fixed seed repeats.
"""

import base64
import json
import pathlib
import re

import numpy as np
import pytest

import paddle_nb as pd
from interop.api.random_api_refs import CASES, FEEDS
from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.framework import unique_name

COVERED = ["paddle.rand", "paddle.randn", "paddle.standard_normal", "paddle.normal",
           "paddle.uniform", "paddle.randint", "paddle.randint_like", "paddle.randperm",
           "paddle.bernoulli", "paddle.multinomial", "paddle.poisson",
           "paddle.tensor.exponential_", "paddle.tensor.random.uniform_random_batch_size_like"]

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/api/random_api.json"
RECORDED = json.loads(FIXTURE.read_text()) if FIXTURE.is_file() else {}
DTYPE_ATTRS = ("dtype", "in_dtype", "out_dtype")


def _recorded(name):
    if name not in RECORDED:
        pytest.fail(f"{FIXTURE} lacks {name} (interop/api/random_api_refs.py writes it)")
    return RECORDED[name]


def _build(build, feeds=FEEDS):
    """(main program, outputs) of ``build(paddle, data)`` here, under a fresh name generator."""
    main = pd.Program()
    with unique_name.guard(), pd.program_guard(main, pd.Program()):
        made = {}

        def data(key):
            if key not in made:
                made[key] = pd.layers.data(key, list(feeds[key].shape), str(feeds[key].dtype),
                                           append_batch_size=False)
            return made[key]
        outs = build(pd, data)
    return main, outs


def _run(main, outs, feeds=FEEDS, seed=None):
    feed = {k: v for k, v in feeds.items() if main.global_block().has_var(k)}
    return pd.Executor(pd.CPUPlace(), seed=seed).run(main, feed=feed, fetch_list=outs,
                                                      scope=pd.Scope())


def _same_attr(op_type, name, mine, theirs):
    if name in DTYPE_ATTRS:
        return theirs == -1 and mine == -1 or convert_dtype(mine) == convert_dtype(theirs)
    if isinstance(theirs, float):
        return np.float32(mine) == np.float32(theirs)
    return mine == theirs


class NameMap:
    """PaddlePaddle's names against ours: equal, except the temporaries of a Variable's
    arithmetic (``out * std + mean``), which 2.6 names ``tmp_N`` from its process-wide
    generator and paddle_nb's Variable operators name per program (``scale_0.tmp_0``); those
    must correspond one to one."""

    def __init__(self):
        self.seen, self.taken = {}, set()

    def same(self, mine, theirs):
        if not re.fullmatch(r"tmp_\d+", theirs):
            return mine == theirs
        if theirs not in self.seen and mine not in self.taken:
            self.seen[theirs] = mine
            self.taken.add(mine)
        return self.seen.get(theirs) == mine


@pytest.mark.parametrize("name", list(CASES))
def test_same_ops_names_and_attributes(name):
    want = _recorded(name)["ops"]
    main, _ = _build(CASES[name])
    ops = main.global_block().ops
    assert [op.type for op in ops] == [op["type"] for op in want]
    names = NameMap()
    for op, theirs in zip(ops, want):
        for kind, mine in (("inputs", op.inputs), ("outputs", op.outputs)):
            given = {slot: n for slot, n in theirs[kind].items() if n}
            mine = {slot: n for slot, n in mine.items() if n}
            assert mine.keys() == given.keys(), f"{op.type} {kind}: {mine}, {given} in Paddle"
            for slot in given:
                assert len(mine[slot]) == len(given[slot]) and all(
                    names.same(m, t) for m, t in zip(mine[slot], given[slot])), \
                    f"{op.type} {kind}: {mine}, {given} in PaddlePaddle"
        declared = op.opdef.attrs
        for attr, value in theirs["attrs"].items():
            if attr in declared:
                assert _same_attr(op.type, attr, op.attr(attr), value), \
                    f"{op.type}.{attr}: {op.attr(attr)!r} here, {value!r} in PaddlePaddle"


@pytest.mark.parametrize("name", list(CASES))
def test_outputs_are_declared_as_in_paddle(name):
    want = _recorded(name)["outputs"]
    _, outs = _build(CASES[name])
    got = [{"shape": list(o.shape), "dtype": o.dtype.name} for o in outs]
    assert got == [{"shape": w["shape"], "dtype": w["dtype"]} for w in want]
    for out, theirs in zip(outs, want):
        if not re.fullmatch(r"tmp_\d+", theirs["name"]):    # (NameMap says why)
            assert out.name == theirs["name"]


@pytest.mark.parametrize("name", list(CASES))
def test_runs_to_the_shapes_and_dtypes_paddle_fetched(name):
    want = _recorded(name)["fetched"]
    main, outs = _build(CASES[name])
    got = _run(main, outs)
    assert [{"shape": list(v.shape), "dtype": v.dtype.name} for v in got] == want
    for out, value in zip(outs, got):     # what the program declares holds what ran
        assert out.dtype == value.dtype
        assert all(d in (-1, k) for d, k in zip(out.shape, value.shape))


@pytest.mark.parametrize("name", list(CASES))
def test_paddle_program_runs_here(name):
    rec = _recorded(name)
    main = pd.Program.parse(base64.b64decode(rec["program"]))
    got = _run(main, [o["name"] for o in rec["outputs"]])
    assert [{"shape": list(v.shape), "dtype": v.dtype.name} for v in got] == rec["fetched"]


# ---- the values follow their laws ----

N = 4000
LAW_FEEDS = {"p": np.full((N,), 0.3, "float32"), "lam": np.full((N,), 4.0, "float64"),
             "mean": np.full((N,), 3.0, "float32"), "w": np.array([[1.0, 3.0, 6.0]], "float32"),
             "x": np.ones((20, 30), "float32")}


def _close(value, expected, spread, n):
    """|value - expected| within six standard errors of a mean of n draws."""
    assert abs(value - expected) < 6 * spread / np.sqrt(n), (value, expected)


def _draws(build, seed=7):
    main, outs = _build(build, LAW_FEEDS)
    return _run(main, outs, LAW_FEEDS, seed=seed)


def test_uniform_and_normal_draws():
    rand, uni, randn, normal, std_t = _draws(lambda paddle, data: [
        paddle.rand([N]), paddle.uniform([N], "float64", min=-2.0, max=3.0),
        paddle.randn([N]), paddle.normal(data("mean"), 2.0), paddle.normal(1.0, data("mean"))])
    assert 0 <= rand.min() and rand.max() < 1
    _close(rand.mean(), 0.5, 1 / np.sqrt(12), N)
    assert -2 <= uni.min() and uni.max() < 3 and uni.dtype == np.float64
    _close(uni.mean(), 0.5, 5 / np.sqrt(12), N)
    _close(randn.mean(), 0.0, 1.0, N)
    assert abs(randn.std() - 1) < 0.07
    _close(normal.mean(), 3.0, 2.0, N)
    assert abs(normal.std() - 2) < 0.14
    _close(std_t.mean(), 1.0, 3.0, N)


def test_integer_draws():
    ints, like, perm = _draws(lambda paddle, data: [
        paddle.randint(-3, 5, [N]), paddle.randint_like(data("x"), 4, dtype="int32"),
        paddle.randperm(50)])
    assert ints.min() == -3 and ints.max() == 4
    for k in range(-3, 5):
        _close((ints == k).mean(), 1 / 8, np.sqrt(1 / 8 * 7 / 8), N)
    assert like.shape == (20, 30) and like.dtype == np.int32
    assert set(np.unique(like)) == {0, 1, 2, 3}
    assert sorted(perm.tolist()) == list(range(50)) and perm.tolist() != list(range(50))


def test_draws_from_tensors():
    coin, counts, cats, expo = _draws(lambda paddle, data: [
        paddle.bernoulli(data("p")), paddle.poisson(data("lam")),
        paddle.multinomial(data("w"), N, replacement=True),
        paddle.tensor.exponential_(data("mean"), 0.5)])
    assert set(np.unique(coin)) == {0.0, 1.0}
    _close(coin.mean(), 0.3, np.sqrt(0.21), N)
    assert (counts == np.round(counts)).all() and counts.dtype == np.float64
    _close(counts.mean(), 4.0, 2.0, N)
    assert cats.shape == (1, N) and cats.dtype == np.int64
    for k, p in enumerate([0.1, 0.3, 0.6]):
        _close((cats == k).mean(), p, np.sqrt(p * (1 - p)), N)
    assert (expo >= 0).all()
    _close(expo.mean(), 2.0, 2.0, N)


def test_seed_zero_follows_the_executor_and_a_fixed_seed_repeats():
    build = lambda paddle, data: [paddle.randint(0, 1000, [16]),     # noqa: E731
                                  paddle.uniform([16], seed=42)]
    (a, fixed_a), (again, _), (b, fixed_b) = (_draws(build, seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(a, again)
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(fixed_a, fixed_b)


# ---- bad calls say what is wrong ----

@pytest.mark.parametrize("call,error,match", [
    (lambda paddle: paddle.randint(5, 3), ValueError, "low must be less than high"),
    (lambda paddle: paddle.randint(0), ValueError, "with high None, low must be > 0"),
    (lambda paddle: paddle.randint(0, 4, dtype="float32"), TypeError,
     r"randint: dtype must be one of \['int32', 'int64'\], got float32"),
    (lambda paddle: paddle.randperm(0), ValueError, "randperm: n must be > 0, got 0"),
    (lambda paddle: paddle.rand([2, 3], "int64"), TypeError, "dtype must be one of"),
    (lambda paddle: paddle.rand([2, -1]), ValueError, r"shape \[2, -1\] must hold sizes >= 0"),
    (lambda paddle: paddle.rand("2"), TypeError, "shape must be a list, a tuple or a 1-D int"),
    (lambda paddle: paddle.normal("a"), TypeError, "normal: mean must be a number or a tensor"),
    (lambda paddle: paddle.normal_(None), NotImplementedError,
     "works only in dynamic graph mode"),
])
def test_bad_calls_raise_clearly(call, error, match):
    with pd.program_guard(pd.Program()):
        with pytest.raises(error, match=match):
            call(pd)


def test_draws_from_an_integer_tensor_are_refused():
    with pd.program_guard(pd.Program()):
        ids = pd.layers.data("ids", [3], "int64", append_batch_size=False)
        with pytest.raises(TypeError, match="bernoulli: x must be a float16, float32 or "
                                            "float64 tensor, got int64"):
            pd.bernoulli(ids)
        with pytest.raises(TypeError, match=r"shape\[0\] must be an int32 or int64 tensor"):
            pd.rand([pd.layers.data("f", [], "float32", append_batch_size=False)])
