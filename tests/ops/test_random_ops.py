"""Random ops beyond the contract suite: shape tensors at build time, rows a draw cannot use,
and the seeds through an Executor (a fixed ``seed`` repeats; seed 0 follows the run)."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness

F = np.float32


def _meta(shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def test_shape_tensors_leave_dims_unknown_at_build():
    """As PaddlePaddle 2.6 declares them: only gaussian_random keeps the constant dims given
    beside a ShapeTensorList."""
    one = _meta((), np.int32)
    for op_type, known in (("randint", (-1, -1)), ("uniform_random", (-1, -1)),
                           ("gaussian_random", (-1, 4))):
        attrs = {"low": 0, "high": 3} if op_type == "randint" else {}
        got = harness.infer(op_type, {"ShapeTensor": _meta((3,), np.int64)}, attrs)["Out"]
        assert got.shape == (-1, -1, -1)
        got = harness.infer(op_type, {"ShapeTensorList": [one, one]},
                            {**attrs, "shape": [-1, 4]})["Out"]
        assert got.shape == known


def test_multinomial_rejects_rows_it_cannot_draw_from():
    with pytest.raises(ValueError, match="row 0 of X sums to 0.0"):
        harness.forward("multinomial", {"X": np.zeros((1, 3), F)})
    with pytest.raises(ValueError, match="too few for 2 draws without replacement"):
        harness.forward("multinomial", {"X": np.array([[0.0, 1.0, 0.0]], F)}, {"num_samples": 2})


def _randint_program(seed):
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        main.global_block().append_op("randint", outputs={"Out": "r"},
                                      attrs={"low": 0, "high": 1000, "shape": [8], "seed": seed})
    return main


def _draw(program, run_seed):
    return pd.Executor(pd.CPUPlace(), seed=run_seed).run(program, fetch_list=["r"],
                                                         scope=pd.Scope())[0]


def test_a_fixed_seed_repeats_across_executors():
    program = _randint_program(seed=42)
    np.testing.assert_array_equal(_draw(program, 1), _draw(program, 2))


def test_seed_zero_follows_the_executor_generator():
    program = _randint_program(seed=0)
    np.testing.assert_array_equal(_draw(program, 1), _draw(program, 1))
    assert not np.array_equal(_draw(program, 1), _draw(program, 2))


DEVICE_CASES = {     # op -> (inputs, attrs): every random op once, on the device path
    "randint": ({}, {"low": 0, "high": 4, "shape": [3, 2]}),
    "randperm": ({}, {"n": 5}),
    "bernoulli": ({"X": np.full((2, 3), 0.5, F)}, {}),
    "poisson": ({"X": np.full((2, 3), 2.0, F)}, {}),
    "exponential": ({"X": np.zeros((2, 3), F)}, {"lambda": 2.0}),
    "multinomial": ({"X": np.array([[0.2, 0.8], [0.5, 0.5]], F)}, {"num_samples": 2}),
    "gumbel_softmax": ({"X": np.zeros((2, 3), F)}, {"hard": True, "axis": 0}),
    "rrelu": ({"X": np.array([-1.0, 2.0], F)}, {}),
    "dirichlet": ({"Alpha": np.ones((2, 3), F)}, {}),
    "uniform_random_batch_size_like": ({"Input": np.zeros((3, 2), F)}, {"shape": [1, 4]}),
}


@pytest.mark.parametrize("op_type", list(DEVICE_CASES))
def test_draws_land_on_the_device(op_type, device):
    """Inputs on the device are read back to the host, where the generator draws, and the
    draw goes to the device: same shapes and dtypes as on the CPU."""
    from paddle_nb.core import GPUPlace
    inputs, attrs = DEVICE_CASES[op_type]
    on_device = {k: device.asarray(v) for k, v in inputs.items()}
    cpu = harness.forward(op_type, inputs, attrs)
    gpu = harness.forward(op_type, on_device, attrs, place=GPUPlace(0))
    for slot, value in cpu.items():
        assert isinstance(gpu[slot], device.ndarray), f"{op_type}.{slot} is not on the device"
        host = device.asnumpy(gpu[slot])
        assert host.shape == value.shape and host.dtype == value.dtype
