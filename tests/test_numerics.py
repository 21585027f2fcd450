"""Nothing silently wrong in the numbers: exact constants, integer scale, empty batches,
float16 training, redefined data (each a defect seen on an earlier main).

- ``layers.fill_constant`` and the ``Constant`` initializer write ``str_value``, the exact text
  the kernel reads: the float32 attribute ``value`` alone turned 123456789 into 123456792,
  2**31 - 1 into -2**31 and 0.1 in float64 into 0.10000000149.
- ``scale`` on integers truncates the factor and the bias to the integer type, and wraps.
- ``batch_norm`` refuses a 0-row batch before writing anything; the running mean and variance
  stay as they were (they used to become NaN).
- a float16 parameter is updated in float32 by every optimizer: one step with a zero gradient
  leaves it as it was (Adam's epsilon 1e-8 is 0 in float16: it used to become NaN).
- ``data`` of a name already declared with another shape or dtype is refused.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import OpRunError, VarRedefinedError


def _run(main, startup=None, feed=None, fetch=()):
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    if startup is not None:
        exe.run(startup, scope=scope)
    return exe.run(main, feed=feed or {}, fetch_list=list(fetch), scope=scope), scope


def test_fill_constant_is_exact_for_big_integers_and_float64():
    main = pd.Program()
    with pd.program_guard(main):
        outs = [pd.layers.fill_constant([1], "int64", 123456789),
                pd.layers.fill_constant([2], "int32", 2 ** 31 - 1),
                pd.layers.fill_constant([1], "float64", 0.1),
                pd.layers.fill_constant([1], "int64", 2 ** 62 + 1)]
    got, _ = _run(main, fetch=outs)
    assert [v.tolist() for v in got] == [[123456789], [2 ** 31 - 1] * 2, [0.1], [2 ** 62 + 1]]
    assert [op.attr("str_value") for op in main.global_block().ops] == [
        "123456789", "2147483647", "0.1", "4611686018427387905"]


@pytest.mark.parametrize("constant", [pd.initializer.Constant, pd.nn.initializer.Constant])
def test_constant_initializer_is_exact_in_float64(constant):
    main, startup = pd.Program(), pd.Program()
    with pd.static.program_guard(main, startup):
        w = pd.static.create_parameter([3], "float64", default_initializer=constant(0.1))
    (value,), _ = _run(main, startup, fetch=[w])
    assert value.dtype == np.float64 and value.tolist() == [0.1] * 3


def test_scale_of_integers_truncates_the_factor_and_wraps():
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[3], dtype="int32", append_batch_size=False)
        out = pd.layers.scale(x, scale=2.5, bias=1.7)
    (got,), _ = _run(main, feed={"x": np.array([1, -3, 2 ** 30], np.int32)}, fetch=[out])
    assert got.dtype == np.int32 and got.tolist() == [3, -5, -2 ** 31 + 1]


def _batch_norms():
    yield "nn.BatchNorm1D", lambda x: pd.nn.BatchNorm1D(3)(x)
    yield "layers.batch_norm", lambda x: pd.layers.batch_norm(x)

    def functional(x):
        mean = pd.static.create_global_var([3], 0.0, "float32", persistable=True, name="rm")
        var = pd.static.create_global_var([3], 1.0, "float32", persistable=True, name="rv")
        return pd.nn.functional.batch_norm(x, mean, var, training=True)
    yield "F.batch_norm", functional


@pytest.mark.parametrize("make", [pytest.param(make, id=label) for label, make in _batch_norms()])
def test_batch_norm_refuses_an_empty_batch_and_writes_nothing(make):
    main, startup = pd.Program(), pd.Program()
    with pd.static.program_guard(main, startup):
        x = pd.static.data("x", [-1, 3], "float32")
        y = make(x)
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.arange(6, dtype=np.float32).reshape(2, 3)}, scope=scope)
    state = [v.name for v in main.global_block().vars.values() if v.persistable]
    before = {n: scope.find_var(n).get_tensor().numpy().copy() for n in state}
    with pytest.raises(OpRunError, match=r"'batch_norm'.*every dimension of X.*\(0, 3\)"):
        exe.run(main, feed={"x": np.zeros((0, 3), np.float32)}, fetch_list=[y], scope=scope)
    for n in state:
        np.testing.assert_array_equal(scope.find_var(n).get_tensor().numpy(), before[n])


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adamax", "Lamb", "Momentum", "RMSProp",
                                  "Adagrad", "Adadelta", "SGD"])
def test_float16_parameters_survive_a_zero_gradient(name):
    main, startup = pd.Program(), pd.Program()
    with pd.static.program_guard(main, startup):
        x = pd.static.data("x", [2, 3], "float16")
        w = pd.static.create_parameter([3], "float16", name="w",
                                       default_initializer=pd.nn.initializer.Constant(0.5))
        kwargs = {"lamb_weight_decay": 0.0} if name == "Lamb" else \
            {"weight_decay": 0.0} if name == "AdamW" else {}
        getattr(pd.optimizer, name)(0.1, **kwargs).minimize(pd.sum(x * w))
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    for _ in range(2):
        exe.run(main, feed={"x": np.zeros((2, 3), np.float16)}, scope=scope)
    got = scope.find_var("w").get_tensor().numpy()
    assert got.dtype == np.float16 and got.tolist() == [0.5] * 3


def test_float16_adam_steps_like_float32_adam_rounded():
    def train(dtype):
        main, startup = pd.Program(), pd.Program()
        with pd.static.program_guard(main, startup):
            x = pd.static.data("x", [2, 3], dtype)
            w = pd.static.create_parameter([3], dtype, name="w",
                                           default_initializer=pd.nn.initializer.Constant(0.5))
            pd.optimizer.Adam(0.01).minimize(pd.sum(x * w))
        scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
        exe.run(startup, scope=scope)
        feed = np.array([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]], dtype)
        for _ in range(3):
            exe.run(main, feed={"x": feed}, scope=scope)
        return scope.find_var("w").get_tensor().numpy()
    half, single = train("float16"), train("float32")
    np.testing.assert_allclose(half.astype(np.float32), single, rtol=2e-3)


@pytest.mark.parametrize("guard,data", [
    pytest.param(lambda: pd.program_guard(pd.Program()), pd.layers.data, id="layers.data"),
    pytest.param(lambda: pd.static.program_guard(pd.Program(), pd.Program()), pd.static.data,
                 id="static.data")])
def test_data_of_a_declared_name_with_another_shape_or_dtype_is_refused(guard, data):
    with guard():
        first = data("x", [3], "float32")
        with pytest.raises(VarRedefinedError, match=r"previous shape is \[(-1, )?3\], the new "
                                                    r"shape is \[(-1, )?4\]"):
            data("x", [4], "float32")
        with pytest.raises(VarRedefinedError, match="previous data type is float32, the new "
                                                    "data type is int64"):
            data("x", [3], "int64")
        assert data("x", [3], "float32") is first       # the same declaration: the same one
