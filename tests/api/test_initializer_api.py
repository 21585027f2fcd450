"""``paddle.nn.initializer`` and ``ParamAttr`` against PaddlePaddle 2.6.2, and the values they draw.

``interop/api/initializer_refs.py`` recorded, per case, the startup ops PaddlePaddle writes for
one parameter made with ``ParamAttr(initializer=...)``. Here the same case (``CASES`` is
shared) makes a parameter through paddle_nb's ParamAttr and LayerHelper: the startup op and
its attributes must be PaddlePaddle's. Random draws cannot be PaddlePaddle's numbers (other
generators), so their statistics are checked against the distribution instead.
"""

import base64
import json
import math
import pathlib

import numpy as np
import pytest

import paddle_nb
from interop.api import initializer_refs as refs
from paddle_nb.framework.variable import to_var_type
from paddle_nb.layers.helper import LayerHelper
from paddle_nb.nn import initializer as I


# the public names these tests compare with PaddlePaddle 2.6.2 (tools/api_coverage.py counts them)
COVERED = [
    "paddle.nn.initializer.Constant",
    "paddle.nn.initializer.Normal",
    "paddle.nn.initializer.TruncatedNormal",
    "paddle.nn.initializer.Uniform",
    "paddle.nn.initializer.XavierNormal",
    "paddle.nn.initializer.XavierUniform",
    "paddle.nn.initializer.KaimingNormal",
    "paddle.nn.initializer.KaimingUniform",
    "paddle.nn.initializer.Assign",
]

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api" / \
    "initializer_api.json"


@pytest.fixture(scope="module")
def recorded():
    if not FIXTURE.is_file():
        pytest.fail(f"{FIXTURE} is absent (interop/api/initializer_refs.py writes it)")
    return json.loads(FIXTURE.read_text())


def make_param(init, shape, dtype="float32", **attr):
    """A parameter ``w`` made by ParamAttr(initializer=init): (main, startup, param)."""
    main, startup = paddle_nb.Program(), paddle_nb.Program()
    with paddle_nb.program_guard(main, startup):
        param = LayerHelper("create_parameter").param(
            paddle_nb.ParamAttr(name="w", initializer=init, **attr), shape, dtype)
    return main, startup, param


def _same(mine, theirs, key):
    if key == "dtype":
        return to_var_type(mine) == theirs
    if isinstance(theirs, float):
        return np.float32(mine) == np.float32(theirs)
    if isinstance(theirs, list) and theirs and isinstance(theirs[0], float):
        return np.array_equal(np.float32(mine), np.float32(theirs))
    return list(mine) == theirs if isinstance(theirs, list) else mine == theirs


@pytest.mark.parametrize("name", list(refs.CASES))
def test_the_startup_op_is_paddles(recorded, name):
    make, shape, dtype = refs.case_parts(name)
    _, startup, _ = make_param(make(paddle_nb), shape, dtype)
    mine = startup.global_block().ops
    theirs = recorded["ops"][name]
    assert [op.type for op in mine] == [t for t, _ in theirs]
    for op, (_, attrs) in zip(mine, theirs):
        for key, value in attrs.items():
            if not value and key.endswith("_values"):
                continue          # the other dtypes' empty value lists
            assert _same(op.attr(key), value, key), (name, key, op.attr(key), value)


@pytest.mark.parametrize("name", refs.DRAWN)
def test_paddles_startup_program_runs_here_and_draws_like_paddle(recorded, name):
    startup = paddle_nb.Program.parse(base64.b64decode(recorded["drawn"][name]["program"]))
    scope = paddle_nb.Scope()
    paddle_nb.Executor(paddle_nb.CPUPlace(), seed=7).run(startup, scope=scope)
    mine = refs.stats(scope.find_var("w").get_tensor().numpy())
    mean, std, low, high = recorded["drawn"][name]["stats"]
    assert abs(mine[0] - mean) < 0.25 * std and abs(mine[1] - std) < 0.2 * std
    if name == "truncated_normal":      # both cut at two standard deviations of 0.5
        assert -1.0 - 1e-6 <= min(mine[2], low) and max(mine[3], high) <= 1.0 + 1e-6


def test_calculate_gain_is_paddles(recorded):
    got = [I.calculate_gain(n, p) for n, p in refs.GAINS]
    np.testing.assert_allclose(got, recorded["gains"], rtol=1e-15)
    with pytest.raises(ValueError, match="nonlinearity 'swish'"):
        I.calculate_gain("swish")


def draw(init, shape, seed=5):
    _, startup, _ = make_param(init, shape)
    scope = paddle_nb.Scope()
    paddle_nb.Executor(paddle_nb.CPUPlace(), seed=seed).run(startup, scope=scope)
    return scope.find_var("w").get_tensor().numpy().astype(np.float64)


@pytest.mark.parametrize("init, shape, low, high, std", [
    (I.Uniform(-0.3, 0.2), (200, 100), -0.3, 0.2, 0.5 / math.sqrt(12)),
    (I.XavierUniform(), (300, 100), -math.sqrt(6 / 400), math.sqrt(6 / 400),
     math.sqrt(2 / 400)),
    (I.KaimingUniform(), (100, 50, 2, 2), -math.sqrt(6 / 200), math.sqrt(6 / 200),
     math.sqrt(2 / 200)),
])
def test_uniform_draws_fill_their_range(init, shape, low, high, std):
    values = draw(init, shape)
    assert low <= values.min() < low + 0.01 * (high - low)
    assert high - 0.01 * (high - low) < values.max() <= high
    assert abs(values.std() - std) < 0.02 * std


@pytest.mark.parametrize("init, shape, mean, std, cut", [
    (I.Normal(0.1, 2.0), (200, 100), 0.1, 2.0, None),
    (I.XavierNormal(), (300, 100), 0.0, math.sqrt(2 / 400), None),
    (I.KaimingNormal(nonlinearity="tanh"), (400, 50), 0.0, 5 / 3 / math.sqrt(400), None),
    (I.TruncatedNormal(1.0, 0.5), (200, 100), 1.0, 0.5 * 0.8796, 1.0),   # cut at 2 std
])
def test_normal_draws_have_their_mean_and_spread(init, shape, mean, std, cut):
    values = draw(init, shape)
    assert abs(values.mean() - mean) < 0.03 * std + 1e-9
    assert abs(values.std() - std) < 0.03 * std
    if cut is not None:
        assert values.min() >= mean - cut - 1e-6 and values.max() <= mean + cut + 1e-6


def test_constant_and_assign_values():
    np.testing.assert_array_equal(draw(I.Constant(0.5), (2, 3)), np.full((2, 3), 0.5))
    table = np.arange(6, dtype="float32").reshape(2, 3) / 4
    np.testing.assert_array_equal(draw(I.Assign(table), (2, 3)), table)
    with pytest.raises(ValueError, match="4 values given for a parameter of shape"):
        make_param(I.Assign([1.0, 2.0, 3.0, 4.0]), (2, 3))


def test_a_global_initializer_must_be_an_initializer():
    with pytest.raises(TypeError, match="must be a paddle.nn.initializer"):
        I.set_global_initializer(0.5)


def test_param_attr_gives_name_rate_regularizer_trainable_and_need_clip():
    decay = paddle_nb.regularizer.L1Decay(0.1)
    main, startup, param = make_param(I.Constant(1.0), (2, 2), learning_rate=0.5,
                                      regularizer=decay, trainable=False, need_clip=False)
    assert param.name == "w" and main.global_block().var("w") is param
    assert param.optimize_attr == {"learning_rate": 0.5} and param.regularizer is decay
    assert param.trainable is False and param.stop_gradient and param.need_clip is False
    assert [op.output("Out") for op in startup.global_block().ops] == [["w"]]
    clone = main.clone()
    assert clone.global_block().var("w").need_clip is False
