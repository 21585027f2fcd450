"""The ops of the common layers and linear algebra against PaddlePaddle 2.6.2's own programs.

``interop/ops/common_refs.py`` (run with PaddlePaddle 2.6.2) built each case with paddle's
public API in static mode: ``bmm``, ``dot``, ``mv``, ``cross``, ``kron``,
``bilinear_tensor_product``, ``p_norm``, ``frobenius_norm``, ``dist``, ``trace`` and
``einsum``, and their grad ops from ``append_backward`` of ``sum(out * w)`` (``einsum_grad``
reads ``InnerCache`` and ``x_shape``, not the operands). paddle_nb parses each serialized
program, runs it on the same feeds and must fetch the same values, shapes and dtypes,
gradients included; each output must also have the shape and dtype its VarDesc declares.
``diag_embed`` and ``sequence_mask`` are compared forward only (2.6 has no diag_embed_grad).
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import program_cases, run_case
from tests.ops.signs import align_signs, sign_dependent_grads, sign_free_axis

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "common_ops.npz"


def _cases():
    return program_cases("common_ops.npz")


CASES = _cases()

# 2.6.2 declares determinant's and slogdeterminant's outputs with Input's shape ([2, 3, 3],
# [3, 3]) though they compute [2] and [2]: paddle_nb declares what they compute
DECLARED_WRONG = {"determinant_0.tmp_0", "slogdeterminant_0.tmp_0"}


def _run(name, place):
    if name not in CASES:
        pytest.fail(f"{FIXTURE} is absent (interop/ops/common_refs.py writes it)")
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
        assert value.shape == want.shape, f"{name}: {n} is {value.shape}, paddle {want.shape}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=f"{name}: {n}")
        if n in DECLARED_WRONG:
            continue
        declared = block.var(n)            # (-1: a size known only when it runs)
        assert len(declared.shape) == value.ndim and all(
            d in (-1, v) for d, v in zip(declared.shape, value.shape)), \
            f"{name}: {n} declared {declared.shape}, computed {value.shape}"
        assert declared.dtype == value.dtype, f"{name}: {n} declared {declared.dtype}"


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_runs_on_the_gpu_as_on_the_cpu(name, device):
    _, program, names, on_cpu = _run(name, pd.CPUPlace())
    _, _, _, on_gpu = _run(name, pd.GPUPlace(0))
    follows_signs = sign_dependent_grads(program)
    for n, want, value in zip(names, on_cpu, on_gpu):
        if n in follows_signs:        # checked on each device by the gradient checks instead
            continue
        axis = sign_free_axis(program, n)     # eigenvectors: cuSOLVER's signs are not LAPACK's
        if axis is not None:
            value = align_signs(value, want, axis)
        np.testing.assert_allclose(np.asarray(value), np.asarray(want), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: {n} on the GPU")


def test_the_programs_use_the_ops_this_work_is_about():
    if not CASES:
        pytest.fail(f"{FIXTURE} is absent")
    seen = set()
    for case in CASES.values():
        for op in pd.Program.parse(case["program"]).global_block().ops:
            seen.add(op.type)
            seen.update(f"{op.type}:{slot}" for slot, args in op.inputs.items() if args)
    for wanted in ["bmm_grad", "dot_grad", "mv_grad", "cross_grad", "kron_grad",
                   "bilinear_tensor_product_grad", "bilinear_tensor_product:Bias",
                   "p_norm_grad", "frobenius_norm_grad", "dist_grad", "trace_grad",
                   "einsum_grad", "einsum_grad:x_shape", "einsum_grad:InnerCache",
                   "diag_embed", "sequence_mask", "sequence_mask:MaxLenTensor",
                   "inverse_grad", "determinant_grad", "slogdeterminant_grad", "solve_grad",
                   "cholesky_grad", "matrix_power_grad", "multi_dot_grad",
                   "triangular_solve_grad", "eigvalsh_grad", "eigh_grad"]:
        assert wanted in seen, wanted
