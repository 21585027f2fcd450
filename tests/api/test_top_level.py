"""paddle's top-level names that build no ops, against PaddlePaddle 2.6.2's behaviour.

``tests/fixtures/paddle26/api/top_level.json`` holds what PaddlePaddle 2.6.2 reports
(interop/api/top_level_refs.py writes it): dtype limits (``finfo``, ``iinfo``), the grad-mode
context managers (no-ops in static mode, ``is_grad_enabled()`` False), ``broadcast_shape``,
``check_shape``, the default dtype and the mode functions. Each test asks paddle_nb the same.
"""

import builtins
import json
import pathlib
import warnings

import numpy as np
import pytest

import paddle_nb as paddle

FACTS = json.loads((pathlib.Path(__file__).resolve().parents[1]
                    / "fixtures/paddle26/api/top_level.json").read_text())

COVERED = [
    "paddle.finfo", "paddle.iinfo", "paddle.dtype", "paddle.set_grad_enabled",
    "paddle.enable_grad", "paddle.is_grad_enabled", "paddle.no_grad", "paddle.broadcast_shape",
    "paddle.check_shape", "paddle.in_dynamic_mode", "paddle.enable_static",
    "paddle.get_default_dtype", "paddle.set_default_dtype", "paddle.seed", "paddle.CPUPlace",
    "paddle.ParamAttr", "paddle.summary", "paddle.flops",
]


def raised(call):
    """The builtin exception classes a call raises (None when it returns)."""
    try:
        call()
    except Exception as error:
        return {c.__name__ for c in type(error).__mro__ if c.__name__ in vars(builtins)}
    return None


def same_error(got, want):
    """paddle_nb raises where PaddlePaddle does, an instance of PaddlePaddle's builtin class."""
    return (got is None) == (want is None) and (want is None or want[0] in got)


@pytest.mark.parametrize("name", sorted(FACTS["finfo"]))
def test_finfo_matches_paddle(name):
    info = paddle.finfo(name if name == "bfloat16" else getattr(paddle, name))
    for attr, want in FACTS["finfo"][name].items():
        got = getattr(info, attr)
        assert got == want if attr == "dtype" else np.isclose(got, want, rtol=1e-12), attr


@pytest.mark.parametrize("name", sorted(FACTS["iinfo"]))
def test_iinfo_matches_paddle(name):
    info = paddle.iinfo(getattr(paddle, name))
    assert {a: getattr(info, a) for a in FACTS["iinfo"][name]} == FACTS["iinfo"][name]


def test_iinfo_of_a_float_and_dtype_isinstance():
    assert same_error(raised(lambda: paddle.iinfo(paddle.float32)), FACTS["iinfo_float_error"])
    for name, want in FACTS["dtype_isinstance"].items():
        if name != "bfloat16":      # NumPy has no bfloat16: paddle_nb leaves paddle.bfloat16 out
            assert isinstance(getattr(paddle, name), paddle.dtype) == want, name


def test_grad_mode_is_a_no_op_in_static_mode():
    want = FACTS["grad_mode"]
    seen = {"outside": paddle.is_grad_enabled()}
    with paddle.set_grad_enabled(True):
        seen["set_grad_enabled(True)"] = paddle.is_grad_enabled()
    with paddle.set_grad_enabled(False):
        seen["set_grad_enabled(False)"] = paddle.is_grad_enabled()
    with paddle.enable_grad():
        seen["enable_grad"] = paddle.is_grad_enabled()
    with paddle.no_grad():
        seen["no_grad"] = paddle.is_grad_enabled()

    @paddle.no_grad()
    def decorated(a):
        return a + 1
    seen["no_grad decorator"] = decorated(1)
    assert seen == want


def test_grad_mode_changes_no_program():
    main = paddle.Program()
    with paddle.program_guard(main, paddle.Program()):
        x = paddle.static.data("x", [2, 3])
        with paddle.set_grad_enabled(False), paddle.enable_grad():
            y = paddle.exp(x)
    assert [op.type for op in main.global_block().ops] == ["exp"] and y.shape == x.shape


def test_broadcast_shape_matches_paddle():
    for a, b, want in FACTS["broadcast_shape"]:
        assert paddle.broadcast_shape(a, b) == want
    assert same_error(raised(lambda: paddle.broadcast_shape([2, 3], [4])),
                      FACTS["broadcast_shape_error"])


def test_check_shape_matches_paddle():
    with paddle.program_guard(paddle.Program(), paddle.Program()):
        shape_t = paddle.static.data("s", [2], "int64")
        bad_t = paddle.static.data("f", [2], "float32")
        calls = {"list": [2, 3], "tensor": shape_t, "tensor_in_list": [2, shape_t],
                 "string": "2,3", "float_element": [2.0, 3], "float_tensor": bad_t}
        for key, shape in calls.items():
            got = raised(lambda: paddle.check_shape(shape, "op"))
            assert same_error(got, FACTS["check_shape"][key]), key


def test_mode_and_default_dtype_match_paddle():
    assert paddle.in_dynamic_mode() == FACTS["in_dynamic_mode"]
    assert paddle.enable_static() == FACTS["enable_static"]
    assert paddle.get_default_dtype() == FACTS["default_dtype"]
    try:
        paddle.set_default_dtype("float64")
        assert paddle.get_default_dtype() == FACTS["default_dtype_after_set"]
        assert same_error(raised(lambda: paddle.set_default_dtype("int32")),
                          FACTS["set_default_dtype_int_error"])
    finally:
        paddle.set_default_dtype("float32")


def _draw():
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        r = paddle.rand([3])
    exe = paddle.static.Executor(paddle.CPUPlace())
    return exe.run(main, fetch_list=[r], scope=paddle.Scope())[0]


def test_seed_makes_unseeded_draws_repeat_on_a_cpu_place():
    """As in PaddlePaddle: after paddle.seed(s), an Executor's unseeded random ops repeat."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paddle.seed(5)
        first = _draw()
        paddle.seed(5)
        assert np.array_equal(first, _draw())



# -- the functions added at the top level, against NumPy formulas ------------------------------

RNG = np.random.default_rng(5)
A = RNG.uniform(0.2, 0.8, (2, 3)).astype("float32")
B = RNG.uniform(0.2, 0.8, (2, 3)).astype("float32")
K = np.array([[1, -2, 0], [3, 2, -1]], "int64")


def run(build, **feeds):
    main = paddle.Program()
    with paddle.program_guard(main, paddle.Program()):
        vars_ = {n: paddle.static.data(n, list(v.shape), v.dtype.name) for n, v in feeds.items()}
        out = build(**vars_)
    got, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feeds, fetch_list=[out],
                                                         scope=paddle.Scope())
    return np.asarray(got), main


def _multigammaln(x, p):
    from math import lgamma, log, pi
    return np.vectorize(lambda v: p * (p - 1) / 4 * log(pi)
                        + sum(lgamma(v - j / 2) for j in range(p)))(x)


NUMPY_CASES = [
    ("hypot", lambda x, y: paddle.hypot(x, y), np.sqrt(A ** 2 + B ** 2)),
    ("ldexp", lambda x, k: paddle.ldexp(x, k), A * 2.0 ** K),
    ("cdist", lambda x, y: paddle.cdist(x, y),
     np.array([[np.linalg.norm(a - b) for b in B] for a in A])),
    ("tensordot", lambda x, y: paddle.tensordot(x, y, axes=[[1], [1]]), A @ B.T),
    ("multigammaln", lambda x: paddle.multigammaln(x + 2.0, 3), _multigammaln(A + 2.0, 3)),
    ("trapezoid", lambda x: paddle.trapezoid(x, dx=0.5, axis=1), np.trapezoid(A, dx=0.5, axis=1)),
    ("cumulative_trapezoid", lambda x: paddle.cumulative_trapezoid(x, axis=0),
     np.cumsum((A[1:] + A[:-1]) / 2, axis=0)),
    ("addmm", lambda x, y: paddle.addmm(x[:, :2], x, paddle.t(y), beta=0.5, alpha=2.0),
     0.5 * A[:, :2] + 2.0 * A @ B.T),
    ("renorm", lambda x: paddle.renorm(x, 2.0, 0, 0.5),
     A * np.minimum(1, 0.5 / (np.linalg.norm(A, axis=1, keepdims=True) + 1e-7))),
    ("select_scatter", lambda x, y: paddle.select_scatter(x, y[:, 0], 1, 2),
     np.concatenate([A[:, :2], B[:, :1]], axis=1)),
    ("diagonal_scatter", lambda x, y: paddle.diagonal_scatter(x, y[0, :2], offset=1),
     np.where(np.eye(2, 3, 1, dtype=bool), np.pad(B[0, :2], (1, 0))[None, :], A)),
    ("nanquantile", lambda x: paddle.nanquantile(x, [0.2, 0.9], axis=0),
     np.nanquantile(A, [0.2, 0.9], axis=0)),
    ("combinations", lambda x: paddle.combinations(x[0]),
     np.array([[A[0, i], A[0, j]] for i in range(3) for j in range(i + 1, 3)])),
    ("vander", lambda x: paddle.vander(x[0], 4), np.vander(A[0], 4)),
    ("frexp mantissa", lambda x: paddle.frexp(x * 6.0 - 3.0)[0], np.frexp(A * 6.0 - 3.0)[0]),
    ("frexp exponent", lambda x: paddle.frexp(x * 6.0 - 3.0)[1],
     np.frexp(A * 6.0 - 3.0)[1].astype("float32")),
    ("gcd", lambda k: paddle.gcd(k * 6, k + 4), np.gcd(K * 6, K + 4)),
    ("lcm", lambda k: paddle.lcm(k * 6, k + 4), np.lcm(K * 6, K + 4)),
    ("lcm_", lambda k: paddle.lcm_(k * 6, k + 4), np.lcm(K * 6, K + 4)),
    ("tanh_", lambda x: paddle.tanh_(x), np.tanh(A)),
    ("cast_", lambda x: x.cast_("float64"), A.astype("float64")),
]


@pytest.mark.parametrize("name,build,want", NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_top_level_functions_match_numpy(name, build, want):
    feeds = {"x": A, "y": B, "k": K}
    import inspect
    used = {n: feeds[n] for n in inspect.signature(build).parameters}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, _ = run(build, **used)
    assert got.shape == np.shape(want)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6), name


def test_inplace_names_warn_and_build_the_out_of_place_op():
    with pytest.warns(UserWarning, match=r"abs_\(\) is the same as abs\(\)"):
        got, main = run(lambda x: paddle.abs_(x), x=A)
    assert [op.type for op in main.global_block().ops] == ["abs"]


def test_param_attr_names_initializes_and_freezes_like_paddle():
    want = FACTS["param_attr"]
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup), paddle.utils.unique_name.guard():
        weight = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Constant(0.5),
                                  learning_rate=0.5, trainable=False)
        bias = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.25))
        paddle.nn.Linear(3, 2, weight_attr=weight, bias_attr=bias)
    params = main.global_block().all_parameters()
    assert [p.name for p in params] == want["names"]
    assert [bool(p.trainable) for p in params] == want["trainable"]
    assert [float(p.optimize_attr["learning_rate"]) for p in params] == want["learning_rate"]
    assert [[op.type, op.output("Out")[0], float(op.attr("value"))]
            for op in startup.global_block().ops] == want["startup"]


def test_increment_backward_undoes_the_step_as_in_paddle():
    """2.6's backward of ``x = increment(x)`` writes no gradient and appends increment(-step):
    after the run x holds its fed value again (the sweep compares the numbers with 2.6)."""
    main = paddle.Program()
    with paddle.program_guard(main, paddle.Program()):
        x = paddle.static.data("x", [1])
        x.stop_gradient = False
        y = paddle.increment(x, 2.0)
        paddle.static.gradients([paddle.sum(y * y)], [x])
    ops = [(op.type, op.attr("step")) for op in main.global_block().ops if op.type == "increment"]
    assert ops == [("increment", 2.0), ("increment", -2.0)]
    got, = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": np.array([1.5], "float32")}, fetch_list=[x], scope=paddle.Scope())
    assert np.allclose(got, [1.5])


def _summary_nets():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
            self.bn = paddle.nn.BatchNorm2D(4)
            self.pool = paddle.nn.MaxPool2D(2)
            self.seq = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(64, 10))
            self.seq[1].weight.trainable = False

        def forward(self, x):
            return self.seq(self.pool(paddle.nn.functional.relu(self.bn(self.conv(x)))))

    return {"cnn": [Net, (2, 3, 8, 8)],
            "mlp": [lambda: paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(),
                                                 paddle.nn.Linear(4, 1200)), (None, 3)]}


@pytest.mark.parametrize("key", ["cnn", "mlp"])
def test_summary_prints_and_returns_what_paddle_does(key, capsys):
    make, size = _summary_nets()[key]
    with paddle.program_guard(paddle.Program(), paddle.Program()), \
            paddle.utils.unique_name.guard():
        result = paddle.summary(make(), size)
    assert result == FACTS["summary"][key]["result"]
    assert capsys.readouterr().out == FACTS["summary"][key]["text"]


def _flops_nets():
    nn = paddle.nn
    return {
        "cnn": [lambda: nn.Sequential(
            nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2),
            nn.Flatten(), nn.Linear(64, 10), nn.Dropout(0.5), nn.Linear(10, 3)), [2, 3, 8, 8]],
        "mixed": [lambda: nn.Sequential(
            nn.Conv2D(4, 4, 3, groups=2, bias_attr=False), nn.ReLU6(), nn.LeakyReLU(),
            nn.AdaptiveAvgPool2D(2), nn.AvgPool2D(2), nn.Flatten(), nn.Linear(4, 3),
            nn.LayerNorm(3), nn.BatchNorm1D(3), nn.PReLU(), nn.Sigmoid()), [1, 4, 6, 6]],
    }


def _without_class_paths(text):
    """The printout with each ``<class '...Name'>`` reduced to its name (the modules differ)."""
    import re
    return re.sub(r"<class '[\w.]*\.(\w+)'>", r"\1", text)


@pytest.mark.parametrize("key", ["cnn/False", "cnn/True", "mixed/True"])
def test_flops_counts_and_prints_what_paddle_does(key, capsys):
    """2.6 runs paddle.flops in dynamic mode only; its counts and table for the same networks
    (recorded there) are what paddle_nb's static flops gives."""
    name, detail = key.split("/")
    make, size = _flops_nets()[name]
    with paddle.program_guard(paddle.Program(), paddle.Program()), \
            paddle.utils.unique_name.guard():
        count = paddle.flops(make(), size, print_detail=detail == "True")
    assert count == FACTS["flops"][key]["flops"]
    assert _without_class_paths(capsys.readouterr().out) == \
        _without_class_paths(FACTS["flops"][key]["text"])
