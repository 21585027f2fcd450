"""addmm, renorm, fill_diagonal_tensor and increment's backward against PaddlePaddle 2.6.2.

``interop/ops/top_ops_refs.py`` (run with PaddlePaddle 2.6.2) built each case with paddle's
public API in static mode (``paddle.addmm``, ``paddle.renorm``, ``paddle.diagonal_scatter``,
``paddle.increment``) plus ``append_backward`` of ``sum(out * w)``, so the programs hold 2.6's
op types, slots, attributes and grad ops. paddle_nb parses each program, runs it on the same
feeds and must fetch the same values, shapes, dtypes and gradients; each output's dtype must
also be the one 2.6's program declares for it.
"""

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import fixture, program_cases

WRITER = "interop/ops/top_ops_refs.py"


def _cases():
    return program_cases("top_ops_refs.npz")


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_gives_paddles_numbers(name):
    fixture("top_ops_refs.npz", WRITER)
    case = CASES[name]
    program = pd.Program.parse(case["program"])
    names = list(case["fetch"])
    got = pd.Executor(pd.CPUPlace()).run(program, feed=case["feed"], fetch_list=names,
                                         scope=pd.Scope())
    block = program.global_block()
    for n, value in zip(names, got):
        want, value = case["fetch"][n], np.asarray(value)
        assert value.dtype == want.dtype, f"{name}: {n} is {value.dtype}, paddle {want.dtype}"
        assert value.shape == want.shape, \
            f"{name}: {n} has shape {value.shape}, paddle {want.shape}"
        declared = block.var(n)
        assert declared.dtype == value.dtype, f"{name}: {n} declared {declared.dtype}"
        assert len(declared.shape) == value.ndim, f"{name}: {n} declared {declared.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")


def test_the_programs_use_the_ops_this_work_is_about():
    fixture("top_ops_refs.npz", WRITER)
    seen = {op.type for case in CASES.values()
            for op in pd.Program.parse(case["program"]).global_block().ops}
    for wanted in ["addmm_grad", "renorm_grad", "fill_diagonal_tensor_grad", "increment"]:
        assert wanted in seen, wanted
