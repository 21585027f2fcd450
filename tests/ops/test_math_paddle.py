"""The math, reduction, logic and activation ops against PaddlePaddle 2.6.2's programs.

``interop/ops/math_refs.py`` (run with PaddlePaddle 2.6.2) built each case with paddle's
public API in static mode (``paddle.sin``, ``paddle.amax``, ``F.prelu``, ...) plus
``append_backward`` of ``sum(out * w)``, so the programs hold 2.6's op types, slots,
attributes and grad ops. paddle_nb parses each program, runs it on the same feeds and must
fetch the same values, shapes and dtypes, gradients included; each output's dtype must also
be the one 2.6's program declares for it (``paddle.sum`` of int32 declares int64).
"""

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import fixture, program_cases, run_case

WRITER = "interop/ops/math_refs.py"


def _cases():
    return program_cases("math_refs.npz")


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_gives_paddles_numbers(name):
    fixture("math_refs.npz", WRITER)
    case = CASES[name]
    program, names, got = run_case(case, pd.CPUPlace())
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
    fixture("math_refs.npz", WRITER)
    seen = {op.type for case in CASES.values()
            for op in pd.Program.parse(case["program"]).global_block().ops}
    for wanted in ["sin_grad", "acosh_grad", "floor_grad", "round_grad", "log2_grad",
                   "rsqrt_grad", "reciprocal_grad", "erf_grad", "lgamma_grad", "digamma_grad",
                   "softsign_grad", "tanh_shrink_grad", "thresholded_relu_grad", "stanh_grad",
                   "logit_grad", "selu_grad", "celu_grad", "prelu_grad", "maxout_grad",
                   "rrelu_grad", "atan2_grad", "elementwise_fmax_grad", "elementwise_fmin_grad",
                   "elementwise_heaviside_grad", "lerp_grad", "elementwise_floordiv",
                   "elementwise_mod", "reduce_prod_grad", "reduce_amax_grad",
                   "reduce_amin_grad", "logsumexp_grad", "reduce_any", "reduce_all",
                   "cumprod_grad", "isnan_v2", "isinf_v2", "isfinite_v2", "is_empty",
                   "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_xor",
                   "isclose", "allclose", "equal_all", "erfinv_grad", "logcumsumexp_grad",
                   "cummax_grad", "cummin_grad", "i0_grad", "i0e_grad", "i1_grad", "i1e_grad",
                   "polygamma_grad", "multiplex_grad", "nextafter", "nanmedian_grad"]:
        assert wanted in seen, wanted
