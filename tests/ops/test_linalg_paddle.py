"""The decompositions and solvers against PaddlePaddle 2.6.2's own programs and numbers.

``interop/ops/linalg_refs.py`` (run with PaddlePaddle 2.6.2) built each case with
paddle.linalg's public API in static mode (svd, qr, lu, lu_unpack, matrix_rank, lstsq,
cholesky_solve, eigvals, pinv, cond), added ``sum(out * w)`` and ``append_backward``, so the
programs hold 2.6's descs and grad ops (``svd_grad``, ``qr_grad``, ``lu_grad``,
``lu_unpack_grad``, ``cholesky_solve_grad``...). Here paddle_nb parses each serialized program,
runs it on the same feeds and must fetch the same values, shapes and dtypes, gradients
included; and the declared dtype and shape of each fetched output must be what came.
(``eigvals`` are compared as sets: LAPACK's float32 routine, which 2.6 calls, and its float64
one, which NumPy calls, may order them apart.)
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops.paddle26 import program_cases

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "linalg_ops.npz"


def _cases():
    return program_cases("linalg_ops.npz")


CASES = _cases()


def _unit_phase(vectors):
    """Each column divided by the phase of its largest entry."""
    big = vectors[np.abs(vectors).argmax(axis=0), np.arange(vectors.shape[1])]
    return vectors / (big / np.abs(big))


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_paddles_program_gives_paddles_numbers(name):
    if name not in CASES:
        pytest.fail(f"{FIXTURE} is absent (interop/ops/linalg_refs.py writes it)")
    case = CASES[name]
    program = pd.Program.parse(case["program"])
    names = list(case["fetch"])
    got = pd.Executor(pd.CPUPlace()).run(program, feed=case["feed"], fetch_list=names,
                                         scope=pd.Scope())
    block = program.global_block()
    for n, value in zip(names, got):
        want = case["fetch"][n]
        value = np.asarray(value)
        assert value.dtype == want.dtype, f"{name}: {n} is {value.dtype}, paddle {want.dtype}"
        assert value.shape == want.shape, \
            f"{name}: {n} has shape {value.shape}, paddle {want.shape}"
        if name == "eigvals":      # (LAPACK's float32 and float64 routines order them apart)
            value, want = np.sort_complex(value), np.sort_complex(want)
        if name == "eig" and value.ndim == 2:       # each vector up to a unit factor
            value, want = _unit_phase(value), _unit_phase(want)
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-5, err_msg=f"{name}: {n}")
        if "@GRAD" not in n and (name, n) != ("lu", "lu_0.tmp_2"):
            # (2.6 declares lu's Infos of one matrix [0] and gives [1]; paddle_nb declares [1])
            var = block.var(n)
            assert np.dtype(var.dtype) == value.dtype, (name, n, var.dtype)
            assert all(d in (-1, k) for d, k in zip(var.shape, value.shape)) and \
                len(var.shape) == value.ndim, (name, n, var.shape, value.shape)


def test_the_programs_use_the_ops_this_work_is_about():
    if not CASES:
        pytest.fail(f"{FIXTURE} is absent")
    seen = set()
    for case in CASES.values():
        seen.update(op.type for op in pd.Program.parse(case["program"]).global_block().ops)
    for wanted in ["eig", "conj", "svd_grad", "qr_grad", "lu_grad", "lu_unpack_grad",
                   "matrix_rank", "lstsq",
                   "cholesky_solve_grad", "eigvals", "eigh_grad", "inverse_grad"]:
        assert wanted in seen, wanted
