"""The vision ops against PaddlePaddle 2.6.2's own programs and numbers.

``interop/ops/vision_refs.py`` (run with PaddlePaddle 2.6.2) built each case with
``paddle.nn.functional`` in static mode, so the programs hold the descs 2.6 writes:
conv3d / conv3d_transpose (written with data_format "NCHW"), pool3d,
max_pool3d_with_index, pad3d and pad (F.pad of 3-, 4- and 5-D tensors), the
linear / bicubic / trilinear / 5-D nearest resizes, affine_grid and grid_sampler,
the pixel and channel shuffles, temporal_shift, unfold and fold, unpool and
unpool3d, and their grad ops from
``append_backward`` of ``sum(out * w)``. paddle_nb parses each serialized program,
runs it on the same feeds and must fetch the same values, shapes and dtypes,
gradients included; each output's declared VarDesc (2.6's shape rule) must agree
with what the kernel made.
"""

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import fixture, program_cases, run_case

WRITER = "interop/ops/vision_refs.py"


def _cases():
    return program_cases("vision_ops.npz")


CASES = _cases()


def _run(name, place):
    fixture("vision_ops.npz", WRITER)
    case = CASES[name]
    program, names, got = run_case(case, place)
    return case, program, names, got


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_gives_paddles_numbers(name):
    case, program, names, got = _run(name, pd.CPUPlace())
    block = program.global_block()
    for n, value in zip(names, got):
        want, value = case["fetch"][n], np.asarray(value)
        assert value.dtype == want.dtype, f"{name}: {n} is {value.dtype}, paddle {want.dtype}"
        assert value.shape == want.shape, \
            f"{name}: {n} has shape {value.shape}, paddle {want.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")
        declared = tuple(block.var(n).shape)
        assert len(declared) == value.ndim and all(
            d in (-1, s) for d, s in zip(declared, value.shape)), \
            f"{name}: {n} declares {declared}, the kernel made {value.shape}"


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_runs_on_the_gpu_as_on_the_cpu(name, device):
    _, _, names, on_cpu = _run(name, pd.CPUPlace())
    _, _, _, on_gpu = _run(name, pd.GPUPlace(0))
    for n, want, value in zip(names, on_cpu, on_gpu):
        np.testing.assert_allclose(np.asarray(value), np.asarray(want), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: {n} on the GPU")


def test_the_programs_use_the_ops_this_work_is_about():
    fixture("vision_ops.npz", WRITER)
    seen = {op.type for case in CASES.values()
            for op in pd.Program.parse(case["program"]).global_block().ops}
    for op in ["conv3d", "conv3d_transpose", "pool3d", "max_pool3d_with_index", "pad3d", "pad",
               "linear_interp_v2", "bicubic_interp_v2", "trilinear_interp_v2",
               "nearest_interp_v2", "affine_grid", "grid_sampler", "pixel_shuffle",
               "pixel_unshuffle", "channel_shuffle", "unfold", "fold", "temporal_shift",
               "unpool", "unpool3d"]:
        assert op in seen and op + "_grad" in seen, op
