"""Random ops beyond the contract suite: shape tensors at build time, rows a draw cannot use,
and the seeds through an Executor (a fixed ``seed`` repeats; seed 0 follows the run)."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.registry import Meta
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
