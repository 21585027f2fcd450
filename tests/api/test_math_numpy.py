"""The 2.x math, logic and stat functions and the Variable operators against NumPy.

test_math_api.py holds them to PaddlePaddle 2.6.2's own numbers; here each is checked
against an independent NumPy formula, with the dtype and shape rules written out: a full
reduction is 0-D, ``paddle.sum`` of int32 is int64, ``7 // -2`` is -4 and ``7 % -2`` is -1
(Python's rounding), an int Variable times a float is float32, ``x == y`` is a bool tensor.
"""

import numpy as np
import pytest

import paddle_nb as paddle
import paddle_nb.nn.functional as F
from paddle_nb.framework import unique_name

rng = np.random.default_rng(3)
X = rng.uniform(-2, 2, (2, 3)).astype("float32")
Y = rng.uniform(0.5, 2, (2, 3)).astype("float32")
INTS_I = np.array([[7, -7, 3], [9, 0, -5]], "int32")
INTS_J = np.array([[2, -2, 4], [-4, 3, 3]], "int32")


def run(build):
    """Build ``build(x, y, i, j)`` in a fresh program, run it, return (value, Variable)."""
    main = paddle.Program()
    with unique_name.guard(), paddle.program_guard(main, paddle.Program()):
        feeds = {n: paddle.layers.data(n, list(v.shape), v.dtype.name, append_batch_size=False)
                 for n, v in (("x", X), ("y", Y), ("i", INTS_I), ("j", INTS_J))}
        out = build(**feeds)
    value, = paddle.Executor(paddle.CPUPlace()).run(
        main, feed={"x": X, "y": Y, "i": INTS_I, "j": INTS_J}, fetch_list=[out],
        scope=paddle.Scope())
    return np.asarray(value), out


CASES = [
    ("add", lambda x, y, **_: paddle.add(x, y), X + Y),
    ("floor_divide ints", lambda i, j, **_: paddle.floor_divide(i, j), INTS_I // INTS_J),
    ("remainder ints", lambda i, j, **_: paddle.remainder(i, j), INTS_I % INTS_J),
    ("pow 3", lambda x, **_: paddle.pow(x, 3), X ** 3),
    ("sum of int32 is int64", lambda i, **_: paddle.sum(i), np.int64(INTS_I.sum())),
    ("sum over axis 1", lambda x, **_: paddle.sum(x, axis=1), X.sum(1)),
    ("mean keepdim", lambda x, **_: paddle.mean(x, axis=0, keepdim=True), X.mean(0, keepdims=True)),
    ("max is 0-D", lambda x, **_: paddle.max(x), np.float32(X.max())),
    ("prod", lambda y, **_: paddle.prod(y, axis=0), Y.prod(0)),
    ("logsumexp", lambda x, **_: paddle.logsumexp(x, axis=1), np.log(np.exp(X).sum(1))),
    ("var unbiased", lambda x, **_: paddle.var(x), np.float32(X.var(ddof=1))),
    ("std biased axis 1", lambda x, **_: paddle.std(x, 1, unbiased=False), X.std(1)),
    ("cumprod", lambda y, **_: paddle.cumprod(y, 1), np.cumprod(Y, 1)),
    ("clip", lambda x, **_: paddle.clip(x, -0.5, 0.5), np.clip(X, -0.5, 0.5)),
    ("lerp", lambda x, y, **_: paddle.lerp(x, y, 0.25), X + 0.25 * (Y - X)),
    ("isclose", lambda x, y, **_: paddle.isclose(x, y), np.isclose(X, Y)),
    ("logical_xor", lambda x, y, **_: paddle.logical_xor(x > 0, y > 1), (X > 0) ^ (Y > 1)),
    ("bitwise_and", lambda i, j, **_: paddle.bitwise_and(i, j), INTS_I & INTS_J),
    ("int times float", lambda i, **_: i * 1.5, (INTS_I * 1.5).astype("float32")),
    ("int true division", lambda i, j, **_: i / j, (INTS_I / INTS_J).astype("float32")),
    ("int // int", lambda i, j, **_: i // j, INTS_I // INTS_J),
    ("reflected division", lambda y, **_: 2 / y, 2 / Y),
    ("reflected power", lambda x, **_: 2 ** x, 2 ** X),
    ("comparison", lambda x, y, **_: x == y, X == Y),
    ("comparison with a number", lambda x, **_: x < 0.5, X < 0.5),
    ("not", lambda x, **_: ~(x > 0), ~(X > 0)),
    ("abs", lambda x, **_: abs(x), np.abs(X)),
    ("softmax over axis 0", lambda x, **_: F.softmax(x, axis=0),
     np.exp(X) / np.exp(X).sum(0, keepdims=True)),
    ("celu", lambda x, **_: F.celu(x, 2.0), np.where(X > 0, X, 2 * (np.exp(X / 2) - 1))),
    ("hardsigmoid", lambda x, **_: F.hardsigmoid(x), np.clip(X / 6 + 0.5, 0, 1)),
]


@pytest.mark.parametrize("label,build,want", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(label, build, want):
    value, out = run(build)
    want = np.asarray(want)
    assert value.dtype == want.dtype and value.shape == want.shape, label
    assert out.dtype == want.dtype and len(out.shape) == want.ndim, f"{label}: declared"
    np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=label)


def test_a_number_is_refused_where_paddle_refuses_it():
    with pytest.raises(TypeError, match="add: 'y' must be a Variable"):
        run(lambda x, **_: paddle.add(x, 2.0))


def test_quantile_interpolates_like_numpy_in_float64():
    value, out = run(lambda x, **_: paddle.quantile(x, 0.3, axis=1))
    assert out.dtype == np.float64 and np.allclose(value, np.quantile(X, 0.3, axis=1))


def test_unavailable_names_say_what_to_use():
    with pytest.raises(NotImplementedError, match="with prepend / append is not available"):
        run(lambda x, **_: paddle.diff(x, prepend=x))


def test_gumbel_softmax_writes_paddles_op_and_draws_a_distribution():
    value, out = run(lambda x, **_: F.gumbel_softmax(x, temperature=0.5, axis=0))
    op = out.block.ops[-1]
    assert (op.type, out.name) == ("gumbel_softmax", "gumbel_softmax_0.tmp_0")
    assert op.attrs["temperature"] == 0.5 and op.attrs["axis"] == 0 and not op.attrs["hard"]
    np.testing.assert_allclose(value.sum(axis=0), 1, rtol=1e-5)
    hard, _ = run(lambda x, **_: F.gumbel_softmax(x, hard=True))
    assert set(np.unique(hard)) <= {0.0, 1.0} and np.all(hard.sum(axis=-1) == 1)
