"""RoI pooling, nms and deformable convolution against PaddlePaddle 2.6.2's own programs,
numbers and gradients.

``interop/ops/detection_grad_refs.py`` (run with PaddlePaddle 2.6.2) built each case with
``paddle.vision.ops`` in static mode, with the backward of ``sum(out * w)``; here paddle_nb
parses each serialized program, runs it on the same feeds and must fetch the same values,
shapes and dtypes, each as the program declares it. (2.6.2's static ``psroi_pool`` reads the
ROIs' LoD, fed there as one image's; the same ROIs fed plain here are that one image's.
2.6.2 declares ``yolov3_loss``'s GTMatchMask float32 while its kernel writes int32, as
paddle_nb's does: that declaration is corrected here before the run.)
"""


import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import program_cases



def _cases():
    return program_cases("detection_grad_ops.npz")


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_paddles_program_gives_paddles_numbers_and_gradients(name):
    case = CASES[name]
    program = pd.Program.parse(case["program"])
    for op in program.global_block().ops:
        if op.type == "yolov3_loss":
            program.global_block().var(op.output("GTMatchMask")[0]).dtype = "int32"
    names = list(case["fetch"])
    got = pd.Executor().run(program, feed=case["feed"], fetch_list=names, scope=pd.Scope())
    block = program.global_block()
    for n, value in zip(names, got):
        want = case["fetch"][n]
        assert value.dtype == want.dtype, n
        assert value.shape == want.shape, f"{n}: {value.shape} != {want.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=f"{name}: {n}")
        declared = block.var(n)
        assert declared.dtype == value.dtype, n
        assert len(declared.shape) == value.ndim and all(
            d in (-1, s) for d, s in zip(declared.shape, value.shape)), (n, declared.shape)
