"""The manipulation, indexing, search and creation ops against PaddlePaddle 2.6.2's own
programs and numbers.

``interop/ops/manip_refs.py`` (run with PaddlePaddle 2.6.2) built each case with paddle's
public API in static mode (``paddle.flip``, ``paddle.scatter``, ``paddle.sort``,
``x[::-1, 3:0:-2]``, ``x[mask]``, ...), so the programs hold the descs 2.6 writes, grad ops
included (from ``append_backward`` of ``sum(out * w)``). Here paddle_nb parses each program,
runs it on the same feeds and must fetch the same values, shapes and dtypes; it also checks
that the shapes and dtypes the parsed program declares agree with what ran (-1 for what only
the run knows).
"""

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import fixture, program_cases, run_case

NAME, WRITER = "manip_ops.npz", "interop/ops/manip_refs.py"


def _cases():
    return program_cases(NAME)


CASES = _cases()


def _run(name):
    fixture(NAME, WRITER)
    case = CASES[name]
    program, names, got = run_case(case, pd.CPUPlace())
    return case, program, names, got


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_gives_paddles_numbers(name):
    case, program, names, got = _run(name)
    block = program.global_block()
    for n, value in zip(names, got):
        want, value = case["fetch"][n], np.asarray(got[names.index(n)])
        assert value.dtype == want.dtype, f"{name}: {n} is {value.dtype}, paddle {want.dtype}"
        assert value.shape == want.shape, \
            f"{name}: {n} has shape {value.shape}, paddle {want.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")
        declared = block.var(n)
        assert declared.dtype == value.dtype, f"{name}: {n} declared {declared.dtype}"
        assert len(declared.shape) == value.ndim and all(
            d in (-1, v) for d, v in zip(declared.shape, value.shape)), \
            f"{name}: {n} declared {declared.shape}, ran {value.shape}"


def test_the_programs_use_the_ops_this_work_is_about():
    fixture(NAME, WRITER)
    seen = {op.type for case in CASES.values()
            for op in pd.Program.parse(case["program"]).global_block().ops}
    for wanted in ["strided_slice", "strided_slice_grad", "flip", "roll_grad", "scatter_grad",
                   "scatter_nd_add_grad", "index_add_grad", "take_along_axis_grad",
                   "put_along_axis_grad", "index_sample_grad", "masked_select_grad",
                   "where_index", "argsort_grad", "arg_min",
                   "searchsorted", "unbind", "unstack_grad", "stack", "diag_v2",
                   "diagonal_grad", "meshgrid_grad", "linspace", "eye", "tril_indices",
                   "triu_indices", "logspace",
                   "repeat_interleave_grad", "unique", "unique_consecutive", "bincount",
                   "histogram", "crop_tensor_grad", "shard_index", "gather_nd_grad",
                   "slice_grad"]:
        assert wanted in seen, wanted
