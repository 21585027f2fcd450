"""The detection post-processing ops against PaddlePaddle 2.6.2's own programs and numbers.

``interop/ops/detection_refs.py`` (run with PaddlePaddle 2.6.2) built each case with
``paddle.vision.ops`` (``multiclass_nms3`` through its LayerHelper, as PaddleDetection's
exported models write it) in static mode; here paddle_nb parses each serialized program, runs
it on the same feeds and must fetch the same values, shapes and dtypes. (matrix_nms's
program declares Out [M, 6] and Index [M, 1] while its kernel returns a row per kept box;
paddle_nb's shape inference declares [-1, 6] and [-1, 1].)
"""


import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import program_cases



def _cases():
    return program_cases("detection_ops.npz")


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_paddles_program_gives_paddles_numbers(name):
    case = CASES[name]
    program = pd.Program.parse(case["program"])
    names = list(case["fetch"])
    got = pd.Executor().run(program, feed=case["feed"], fetch_list=names, scope=pd.Scope())
    for n, value in zip(names, got):
        want = case["fetch"][n]
        assert value.dtype == want.dtype, n
        assert value.shape == want.shape, f"{n}: {value.shape} != {want.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")
