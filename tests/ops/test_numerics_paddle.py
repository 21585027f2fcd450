"""Exact constants, integer scale, float16 optimizer state, empty batches and redefined data
against PaddlePaddle 2.6.2 (``interop/ops/numerics_refs.py`` wrote ``numerics.npz``).

Constants must come out exactly as PaddlePaddle's do: ``fill_constant`` reads its text
``str_value`` (123456789 in int64, 0.1 in float64), ``fill_any_like`` only a float32 ``value``
(0.10000000149 in float64, 2**31 - 1 in int32 overflows to -2**31, as in PaddlePaddle).
PaddlePaddle's CPU build has no float16 kernels, so its float16 training programs are compared
by the dtypes they declare, and run by paddle_nb alone.
"""

import json

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import OpRunError, VarRedefinedError
from tests.ops import paddle26

NAME, WRITER = "numerics.npz", "interop/ops/numerics_refs.py"
OPTIMIZERS = ["Adam", "AdamW", "Adamax", "Lamb", "Momentum", "RMSProp", "Adagrad", "Adadelta",
              "SGD"]


def _values():
    with np.load(paddle26.fixture(NAME, WRITER)) as found:
        return {k: found[k] for k in found.files}


def _case(values, name):
    case = {"feed": {}, "fetch": {}}
    for key, value in values.items():
        head, kind, *rest = key.split("/")
        if head == name:
            if kind in ("program", "startup"):
                case[kind] = pd.Program.parse(value.tobytes())
            elif kind in ("feed", "fetch"):
                case[kind]["/".join(rest)] = value
    return case


def _run(case):
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(case["startup"], scope=scope)
    names = list(case["fetch"])
    return exe.run(case["program"], feed=case["feed"], fetch_list=names, scope=scope), names


@pytest.mark.parametrize("name", ["fill_exact", "constant_init", "scale_int"])
def test_paddles_programs_give_its_values_exactly(name):
    case = _case(_values(), name)
    got, names = _run(case)
    block = case["program"].global_block()
    for n, value in zip(names, got):
        want = case["fetch"][n]
        assert value.dtype == want.dtype and value.shape == want.shape, n
        np.testing.assert_array_equal(value, want, err_msg=n)
        assert block.var(n).dtype == value.dtype, f"{n}: declared {block.var(n).dtype}"


def _declared(program):
    return {v.name: v.dtype.name for v in program.global_block().vars.values() if v.persistable}


def _fp16_program(name):
    main, startup = pd.Program(), pd.Program()
    with pd.static.program_guard(main, startup), pd.utils.unique_name.guard():
        x = pd.static.data("x", [2, 3], "float16")
        w = pd.static.create_parameter([3], "float16", name="w",
                                       default_initializer=pd.nn.initializer.Constant(0.5))
        getattr(pd.optimizer, name)(0.1).minimize(pd.sum(x * w))
    return main, startup


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_float16_optimizer_state_is_declared_as_paddle_declares_it(name):
    want = json.loads(_values()[f"fp16_{name.lower()}/declared"].tobytes())
    main, _ = _fp16_program(name)
    assert _declared(main) == want
    assert _declared(_case(_values(), f"fp16_{name.lower()}")["program"]) == want


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_paddles_float16_training_step_with_a_zero_gradient_keeps_the_parameter(name):
    """PaddlePaddle's own program (startup and main) in paddle_nb: the update is computed in
    float32, so epsilon is not 0 and a zero gradient gives no 0 / 0."""
    case = _case(_values(), f"fp16_{name.lower()}")
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(case["startup"], scope=scope)
    if name == "Momentum":
        # PaddlePaddle's own program disagrees with itself: its startup fills the velocity in
        # float16, its momentum op declares it float32. paddle_nb refuses that clearly, and
        # runs once the velocity holds what the program declares.
        zero = np.zeros((2, 3), np.float16)
        with pytest.raises(OpRunError, match="'w_velocity_0' holds float16 values but the "
                                             "program declares it float32"):
            exe.run(case["program"], feed={"x": zero}, scope=scope)
        velocity = scope.find_var("w_velocity_0").get_tensor()
        velocity.set(velocity.numpy().astype(np.float32), pd.CPUPlace())
    for _ in range(2):
        exe.run(case["program"], feed={"x": np.zeros((2, 3), np.float16)}, scope=scope)
    w = scope.find_var("w").get_tensor().numpy()
    assert w.dtype == np.float16
    if name == "Lamb":              # its decay moves the parameter, gradient or not
        assert np.isfinite(w).all() and (w < 0.5).all()
    elif name == "AdamW":           # its decoupled decay: w * (1 - lr * coeff) per step
        np.testing.assert_allclose(w, 0.5 * (1 - 0.1 * 0.01) ** 2, rtol=1e-3)
    else:
        np.testing.assert_array_equal(w, np.full(3, 0.5, np.float16))


def test_an_empty_batch_is_refused_by_batch_norm_as_by_paddle():
    values = _values()
    for mode in ("train", "eval"):
        assert "expected to be -1 or a positive number" in \
            values[f"errors/batch_norm_{mode}"].tobytes().decode()
    main, startup = pd.Program(), pd.Program()
    with pd.static.program_guard(main, startup):
        x = pd.static.data("x", [-1, 3], "float32")
        y = pd.nn.BatchNorm1D(3)(x)
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    with pytest.raises(OpRunError, match=r"'batch_norm'.*X must be -1 or positive.*\(0, 3\)"):
        exe.run(main, feed={"x": np.zeros((0, 3), np.float32)}, fetch_list=[y], scope=scope)


@pytest.mark.parametrize("case,shape,dtype,what", [
    ("data_shape", [4], "float32", r"previous shape is \[3\], the new shape is \[4\]"),
    ("data_dtype", [3], "int64", "previous data type is float32, the new data type is int64"),
    ("data_batch", [-1, 3], "float32", r"previous shape is \[3\], the new shape is \[-1, 3\]")])
def test_data_redefined_is_refused_as_by_paddle(case, shape, dtype, what):
    assert "has been created before" in _values()[f"errors/{case}"].tobytes().decode()
    with pd.static.program_guard(pd.Program(), pd.Program()):
        pd.static.data("x", [3], "float32")
        with pytest.raises(VarRedefinedError, match=f"'x' has been created before.*{what}"):
            pd.static.data("x", shape, dtype)
