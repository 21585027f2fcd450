"""The tensor and indexing ops against PaddlePaddle 2.6.2's own programs and numbers.

``interop/ops/tensor_refs.py`` (run with PaddlePaddle 2.6.2) built each case with paddle's
public API in static mode, so the programs hold the descs 2.6 writes: its slot names and
attributes, ``fill_constant`` with ``ShapeTensorList`` / ``ValueTensor``, ``reshape2`` with
``ShapeTensor``, ``slice`` with ``EndsTensorList``, ``top_k_v2`` with ``K``, ``gather`` with
``Axis``, and its grad ops (``gather_grad``, ``expand_v2_grad``, ``cumsum_grad``...) from
``append_backward`` of ``sum(out * w)``. Here paddle_nb parses each serialized program, runs it
on the same feeds and must fetch the same values, shapes and dtypes, gradients included.
(gather's gradient is compared for axis 0 only: 2.6.2's CPU gather_grad for another axis
repeats the gradient of X's first slice along axis 0; paddle_nb's is checked against central
differences in cases_index.py.)
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import program_cases, run_case

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "tensor_ops.npz"


def _cases():
    return program_cases("tensor_ops.npz")


CASES = _cases()


def _run(name, place):
    if name not in CASES:
        pytest.fail(f"{FIXTURE} is absent (interop/ops/tensor_refs.py writes it)")
    case = CASES[name]
    program, names, got = run_case(case, place)
    return case, names, got


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_gives_paddles_numbers(name):
    case, names, got = _run(name, pd.CPUPlace())
    for n, value in zip(names, got):
        want = case["fetch"][n]
        value = np.asarray(value)
        assert value.dtype == want.dtype, f"{name}: {n} is {value.dtype}, paddle {want.dtype}"
        assert value.shape == want.shape, \
            f"{name}: {n} has shape {value.shape}, paddle {want.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_runs_on_the_gpu_as_on_the_cpu(name, device):
    # the tensor inputs (shape tensors, K, Axis) are device arrays there: read back to the host
    _, names, on_cpu = _run(name, pd.CPUPlace())
    _, _, on_gpu = _run(name, pd.GPUPlace(0))
    for n, want, value in zip(names, on_cpu, on_gpu):
        np.testing.assert_allclose(np.asarray(value), np.asarray(want), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: {n} on the GPU")


def test_the_programs_use_the_ops_and_inputs_this_work_is_about():
    if not CASES:
        pytest.fail(f"{FIXTURE} is absent")
    seen = set()
    for case in CASES.values():
        for op in pd.Program.parse(case["program"]).global_block().ops:
            seen.add(op.type)
            seen.update(f"{op.type}:{slot}" for slot, args in op.inputs.items() if args)
    for wanted in ["flatten_contiguous_range_grad", "shape", "fill_any_like", "tril_triu_grad",
                   "top_k_v2_grad", "top_k_v2:K", "where_grad", "gather_grad", "gather:Axis",
                   "index_select_grad", "gather_nd_grad", "expand_v2_grad",
                   "expand_v2:expand_shapes_tensor", "expand_as_v2_grad", "tile_grad",
                   "tile:repeat_times_tensor", "cumsum_grad", "one_hot_v2", "range",
                   "fill_constant:ShapeTensorList", "fill_constant:ShapeTensor",
                   "fill_constant:ValueTensor", "reshape2:ShapeTensor", "reshape2:Shape",
                   "slice:EndsTensorList", "slice_grad:EndsTensorList", "scale:ScaleTensor",
                   "unsqueeze2:AxesTensor", "unsqueeze2:AxesTensorList",
                   "unsqueeze2_grad:AxesTensor", "assign_value", "size"]:
        assert wanted in seen, wanted
