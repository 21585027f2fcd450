"""PaddlePaddle 2.6.2's own numbers for the decompositions and solvers
(paddle_nb/ops/decompositions.py, matrix_solvers.py) and the paddle.linalg functions composed
from them.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python -m interop.ops.linalg_refs --out tests/fixtures/paddle26/ops

As interop/ops/tensor_refs.py (whose ``run_case`` this uses): each case builds a small static
program with the public paddle.linalg API, adds ``loss = sum(out * w)`` for every float output
and ``append_backward``, runs it on the CPU and stores the serialized program, the feeds and the
fetches (outputs and ``x@GRAD``) in ``linalg_ops.npz``; tests/ops/test_linalg_paddle.py runs
each program in paddle_nb. The matrices are well conditioned with distinct singular values,
so that the factors (whose signs are LAPACK's convention) and the gradients are well defined.
``eig``'s eigenvectors are compared up to a unit factor each (LAPACK's float32 and float64
routines may choose another); ``cov`` and ``corrcoef`` are 2.6.2's inf / nan (its static cov
divides by 0); not here: ``pca_lowrank`` (random).
"""

import argparse
import pathlib

import numpy as np
import paddle

from interop.ops.tensor_refs import run_case

rng = np.random.default_rng(26)
L = paddle.linalg


def separated(m, n, *batch):
    a = rng.uniform(-0.2, 0.2, batch + (m, n))
    k = min(m, n)
    a[..., range(k), range(k)] += np.arange(k, 0, -1) + 0.5
    return a.astype("float32")


def spd(n):
    a = rng.uniform(-0.5, 0.5, (n, n))
    return (a @ a.T + 2 * np.eye(n)).astype("float32")


def _lu_unpacked(v):
    lu, piv = L.lu(v["x"])
    return list(L.lu_unpack(lu, piv))


CASES = {
    "svd": ({"x": (separated(4, 3), True)}, lambda v: list(L.svd(v["x"]))),
    "svd_batch_wide": ({"x": (separated(2, 3, 2), True)}, lambda v: list(L.svd(v["x"]))),
    "qr": ({"x": (separated(4, 3), True)}, lambda v: list(L.qr(v["x"]))),
    "qr_complete_square": ({"x": (separated(3, 3), True)},
                           lambda v: list(L.qr(v["x"], mode="complete"))),
    "lu": ({"x": (separated(3, 3) + np.float32(0.3) * np.ones((3, 3), "float32"), True)},
           lambda v: list(L.lu(v["x"], get_infos=True))),
    "lu_unpack": ({"x": (rng.uniform(-1, 1, (3, 3)).astype("float32"), True)}, _lu_unpacked),
    "matrix_rank": ({"x": (np.outer([1, 2, 3], [1, 0.5, -1]).astype("float32"), False),
                     "y": (separated(3, 3, 2), False)},
                    lambda v: [L.matrix_rank(v["x"]), L.matrix_rank(v["y"], tol=0.5),
                               L.matrix_rank(v["y"], hermitian=True)]),
    "lstsq": ({"x": (separated(4, 3), False), "y": (rng.uniform(-1, 1, (4, 2)).astype(
        "float32"), False)}, lambda v: list(L.lstsq(v["x"], v["y"], driver="gelsd"))),
    "cholesky_solve": ({"x": (rng.uniform(-1, 1, (3, 2)).astype("float32"), True),
                        "y": (np.linalg.cholesky(spd(3)).astype("float32"), True)},
                       lambda v: [L.cholesky_solve(v["x"], v["y"])]),
    "cholesky_solve_upper": ({"x": (rng.uniform(-1, 1, (3, 1)).astype("float32"), True),
                              "y": (np.linalg.cholesky(spd(3)).T.copy(), True)},
                             lambda v: [L.cholesky_solve(v["x"], v["y"], upper=True)]),
    "eigvals": ({"x": (separated(3, 3), False)}, lambda v: [L.eigvals(v["x"])]),
    "pinv": ({"x": (separated(4, 3), True)}, lambda v: [L.pinv(v["x"])]),
    "pinv_hermitian": ({"x": (spd(3), True)}, lambda v: [L.pinv(v["x"], hermitian=True)]),
    "eig": ({"x": (separated(3, 3), False)}, lambda v: list(L.eig(v["x"]))),
    # (2.6.2's static cov divides by 0: these record its inf / nan, which its program gives here)
    "cov_as_26": ({"x": (separated(3, 4), False)}, lambda v: [L.cov(v["x"])]),
    "corrcoef_as_26": ({"x": (separated(3, 4), False)}, lambda v: [L.corrcoef(v["x"])]),
    "cond": ({"x": (separated(3, 3), True)}, lambda v: [L.cond(v["x"]), L.cond(v["x"], -2),
                                                       L.cond(v["x"], "fro")]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "linalg_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "linalg_ops.npz")


if __name__ == "__main__":
    main()
