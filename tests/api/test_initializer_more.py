"""``paddle.nn.initializer.Orthogonal``, ``Dirac``, ``Bilinear`` and ``calculate_gain`` against
PaddlePaddle 2.6.2.

``interop/api/initializer_more_refs.py`` recorded, per case, the startup ops PaddlePaddle
writes for one parameter, its startup program and the value it gave the parameter. Here the
same case builds through paddle_nb's ParamAttr: the op types, in order, and their attributes
must be PaddlePaddle's (paddle_nb writes a filter's reshaped steps into variables of their own
where PaddlePaddle reshapes in place, so the variable names may differ); Dirac's and
Bilinear's values must be PaddlePaddle's; Orthogonal's draws (other generators) must be
orthogonal rows or columns times the gain, and PaddlePaddle's own startup program must run
here and give such a matrix too.
"""

import base64
import json
import math
import pathlib

import numpy as np
import pytest

import paddle_nb
from interop.api import initializer_more_refs as refs
from paddle_nb.framework import unique_name
from paddle_nb.framework.variable import to_var_type
from paddle_nb.layers.helper import LayerHelper
from paddle_nb.nn import initializer as I
from paddle_nb.ops.machinery import registry

# the public names these tests compare with PaddlePaddle 2.6.2 (tools/api_coverage.py counts them)
COVERED = [
    "paddle.nn.initializer.Orthogonal",
    "paddle.nn.initializer.Dirac",
    "paddle.nn.initializer.Bilinear",
    "paddle.nn.initializer.calculate_gain", "paddle.nn.initializer.set_global_initializer"]

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api" / \
    "initializer_more.json"


@pytest.fixture(scope="module")
def recorded():
    if not FIXTURE.is_file():
        pytest.fail(f"{FIXTURE} is absent (interop/api/initializer_more_refs.py writes it)")
    return json.loads(FIXTURE.read_text())


def make_param(init, shape):
    main, startup = paddle_nb.Program(), paddle_nb.Program()
    with unique_name.guard(), paddle_nb.program_guard(main, startup):
        LayerHelper("create_parameter").param(paddle_nb.ParamAttr(name="w", initializer=init),
                                              shape, "float32")
    return startup


def run(startup, seed=5):
    scope = paddle_nb.Scope()
    paddle_nb.Executor(paddle_nb.CPUPlace(), seed=seed).run(startup, scope=scope)
    return scope.find_var("w").get_tensor().numpy().astype(np.float64)


def _same(mine, theirs, key):
    if key == "dtype":
        return to_var_type(mine) == theirs
    if isinstance(theirs, float):
        return np.float32(mine) == np.float32(theirs)
    if isinstance(theirs, list) and theirs and isinstance(theirs[0], float):
        return np.array_equal(np.float32(mine), np.float32(theirs))
    return list(mine) == theirs if isinstance(theirs, list) else mine == theirs


@pytest.mark.parametrize("name", list(refs.CASES))
def test_the_startup_ops_are_paddles(recorded, name):
    make, shape = refs.CASES[name]
    mine = make_param(make(paddle_nb), shape).global_block().ops
    theirs = recorded["cases"][name]["ops"]
    assert [op.type for op in mine] == [t["type"] for t in theirs]
    for op, their in zip(mine, theirs):
        declared = registry.get(op.type).attrs
        for key, value in their["attrs"].items():
            if key not in declared or (not value and key.endswith("_values")):
                continue      # mkldnn switches paddle_nb does not declare; empty value lists
            assert _same(op.attr(key), value, key), (name, op.type, key, op.attr(key), value)
        assert sorted(op.inputs) == sorted(their["inputs"]), (name, op.type)


def _orthogonal(values, gain):
    rows = values.shape[0]
    flat = values.reshape(rows, -1)
    gram = flat @ flat.T if rows <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(len(gram)), atol=1e-5)


@pytest.mark.parametrize("name, gain", [("orthogonal_wide", 1.0),
                                        ("orthogonal_tall_gain", 2.0),
                                        ("orthogonal_filter", 1.0)])
def test_orthogonal_draws_are_orthogonal_here_and_in_paddles_program(recorded, name, gain):
    make, shape = refs.CASES[name]
    case = recorded["cases"][name]
    _orthogonal(np.array(case["value"]).reshape(shape), gain)            # PaddlePaddle's
    _orthogonal(run(make_param(make(paddle_nb), shape)), gain)           # paddle_nb's
    if len(shape) == 2:     # (a filter's: PaddlePaddle reshapes a variable in place, which
        theirs = paddle_nb.Program.parse(base64.b64decode(case["program"]))   # paddle_nb's
        _orthogonal(run(theirs), gain)     # executor refuses: a variable has one declared shape)
    first, second = run(make_param(make(paddle_nb), shape), 1), run(
        make_param(make(paddle_nb), shape), 2)
    assert not np.allclose(first, second)                                # a random draw


@pytest.mark.parametrize("name", ["dirac", "dirac_groups", "bilinear", "bilinear_odd"])
def test_dirac_and_bilinear_values_are_paddles(recorded, name):
    make, shape = refs.CASES[name]
    want = np.array(recorded["cases"][name]["value"]).reshape(shape)
    np.testing.assert_array_equal(run(make_param(make(paddle_nb), shape)), want)
    if name.startswith("bilinear"):      # (Dirac's reshapes the parameter in place: see above)
        theirs = paddle_nb.Program.parse(base64.b64decode(recorded["cases"][name]["program"]))
        np.testing.assert_array_equal(run(theirs), want)


def test_a_dirac_filter_passes_its_channels_through():
    """conv(x, Dirac filter) = x on the channels the identity kernels pick."""
    kernel = run(make_param(I.Dirac(), [3, 3, 3, 3]))
    x = np.random.default_rng(0).standard_normal((3, 5, 5))
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    out = np.einsum("oikl,ikl->o", kernel, padded[:, 1:4, 1:4])
    np.testing.assert_allclose(out, x[:, 1, 1], atol=1e-12)     # the window's centre


def test_calculate_gain_is_paddles(recorded):
    got = [I.calculate_gain(n, p) for n, p in refs.GAINS]
    np.testing.assert_allclose(got, recorded["gains"], rtol=1e-15)
    assert math.isclose(I.calculate_gain("leaky_relu", 1.0), 1.0)


def test_bad_shapes_say_what_was_expected():
    with pytest.raises(ValueError, match="Orthogonal: only a parameter of 2 or more"):
        make_param(I.Orthogonal(), [4])
    with pytest.raises(ValueError, match="Dirac: only a convolution filter of 3, 4 or 5"):
        make_param(I.Dirac(), [2, 2])
    with pytest.raises(ValueError, match="multiple of groups=3"):
        make_param(I.Dirac(groups=3), [4, 2, 3])
    with pytest.raises(ValueError, match="shape\\[2\\] and shape\\[3\\] must be equal"):
        make_param(I.Bilinear(), [1, 1, 3, 4])


# PaddlePaddle 2.6.2's startup program for the script of the test below (recorded there):
# the global initializers replace the layers' defaults, a ParamAttr's initializer wins over
# them, and set_global_initializer(None) brings the defaults back
GLOBAL_STARTUP = [("uniform_random", "linear_0.w_0", {"min": -0.5, "max": 0.5}),
                  ("fill_constant", "linear_0.b_0", {"value": 0.3}),
                  ("uniform_random", "conv2d_0.w_0", {"min": -0.5, "max": 0.5}),
                  ("fill_constant", "conv2d_0.b_0", {"value": 0.3}),
                  ("fill_constant", "linear_1.w_0", {"value": 2.0}),
                  ("fill_constant", "linear_1.b_0", {"value": 0.3}),
                  ("uniform_random", "linear_2.w_0", {"min": -1.0954452, "max": 1.0954452}),
                  ("fill_constant", "linear_2.b_0", {"value": 0.0})]


def test_set_global_initializer_replaces_the_layers_defaults_as_in_paddle():
    import paddle_nb as paddle
    from paddle_nb import nn
    main, startup = paddle.static.Program(), paddle.static.Program()
    try:
        with paddle.static.program_guard(main, startup):
            nn.initializer.set_global_initializer(nn.initializer.Uniform(-0.5, 0.5),
                                                  nn.initializer.Constant(0.3))
            nn.Linear(2, 3), nn.Conv2D(1, 2, 3)
            nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=nn.initializer.Constant(2.0)))
            nn.initializer.set_global_initializer(None)
            nn.Linear(2, 3)
    finally:
        nn.initializer.set_global_initializer(None)
    got = [(op.type, op.output("Out")[0], {k: op.attr(k) for k in want})
           for op, (_, _, want) in zip(startup.global_block().ops, GLOBAL_STARTUP)]
    assert [(t, n) for t, n, _ in got] == [(t, n) for t, n, _ in GLOBAL_STARTUP]
    for (_, name, attrs), (_, _, want) in zip(got, GLOBAL_STARTUP):
        for key, value in want.items():
            assert abs(attrs[key] - value) < 1e-6, (name, key, attrs[key], value)
