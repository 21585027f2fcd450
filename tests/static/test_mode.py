"""The top-level mode, device, seed and dtype functions (paddle_nb/static/mode.py)."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.framework import unique_name
from paddle_nb.static import mode


def test_static_only():
    assert mode.enable_static() is None and mode.in_dynamic_mode() is False
    with pytest.raises(pd.errors.DynamicModeError, match="static programs only"):
        mode.disable_static()
    with pytest.raises(pd.errors.DynamicModeError, match="paddle.static.gradients"):
        mode.grad([], [])


def test_no_grad_is_a_context_manager_and_a_decorator():
    with mode.no_grad():
        pass

    @mode.no_grad
    def f(a):
        return a + 1

    @mode.no_grad()
    def g(a):
        return a * 2

    assert f(1) == 2 and g(2) == 4 and f.__name__ == "f"


def test_seed_makes_static_executors_repeat_their_draws():
    def init():
        main, startup = pd.Program(), pd.Program()
        with unique_name.guard(), static.program_guard(main, startup):
            static.nn.fc(static.data("x", [None, 4]), 3)
        scope = pd.Scope()
        static.Executor().run(startup, scope=scope)
        return scope.find_var("fc_0.w_0").get_tensor().numpy(), startup

    old = mode.get_seed()
    try:
        mode.seed(7)
        a, startup = init()
        b, _ = init()
        np.testing.assert_array_equal(a, b)
        assert startup.random_seed == 0          # as in PaddlePaddle 2.6: programs untouched
        mode.seed(8)
        assert not np.array_equal(init()[0], a)
    finally:
        mode.SETTINGS.seed = old
    with pytest.raises(TypeError):
        mode.seed(1.5)


def test_devices_and_places():
    assert mode.get_device() == "cpu" and mode.set_device("cpu") == pd.CPUPlace()
    assert mode.is_compiled_with_cuda() == pd.gpu_available()
    assert mode.CUDAPinnedPlace() == pd.CPUPlace()
    with pytest.raises(ValueError, match="set_device"):
        mode.set_device("tpu")
    if pd.gpu_available():
        try:
            assert mode.set_device("gpu") == pd.GPUPlace(0) and mode.get_device() == "gpu:0"
            assert mode.CUDAPlace(0) == pd.GPUPlace(0)
        finally:
            mode.set_device("cpu")


def test_dtypes_and_the_default_dtype():
    assert mode.float32 == np.float32 and mode.int64 == np.int64 and mode.bool == np.bool_
    assert not hasattr(mode, "bfloat16")
    assert mode.get_default_dtype() == "float32"
    try:
        mode.set_default_dtype("float64")
        with static.program_guard(pd.Program(), pd.Program()):
            assert static.data("x", [2]).dtype == np.float64
    finally:
        mode.set_default_dtype("float32")
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        mode.set_default_dtype("int32")


def test_create_parameter_is_named_as_paddle():
    main = pd.Program()
    with unique_name.guard(), static.program_guard(main, pd.Program()):
        w = mode.create_parameter([2, 2], "float32")
        b = mode.create_parameter([2], "float32", is_bias=True,
                                  default_initializer=pd.initializer.Constant(0.5))
    assert (w.name, b.name) == ("create_parameter_0.w_0", "create_parameter_1.b_0")
