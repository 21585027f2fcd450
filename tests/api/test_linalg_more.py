"""paddle.linalg's decompositions and compositions built through paddle_nb's API, against NumPy,
and (eig, cov, corrcoef, whose sweep cases cannot agree with PaddlePaddle's numbers) against
the programs PaddlePaddle 2.6.2 wrote for them.

tests/ops/test_linalg_paddle.py runs PaddlePaddle's own programs here; interop/sweep's cases
compare every paddle.linalg name at the op and API levels. Two differences on purpose:
2.6.2's static ``cov`` divides by 0 (inf; ``corrcoef`` nan), paddle_nb's by the count less
ddof, with the same ops in the same order; ``eig``'s eigenvectors may differ from
PaddlePaddle's by a unit factor each (LAPACK's float32 and float64 routines), and are compared
so here.
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as paddle
from paddle_nb.framework import unique_name

# the public names these tests compare with PaddlePaddle 2.6.2 (tools/api_coverage.py counts them)
COVERED = ["paddle.linalg.eig", "paddle.linalg.cov", "paddle.linalg.corrcoef"]

L = paddle.linalg
FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "linalg_ops.npz"
rng = np.random.default_rng(3)


def run(build, *arrays):
    """(fetched outputs, forward op types) of ``build`` on fed ``arrays``."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        xs = [paddle.static.data(f"x{i}", list(a.shape), str(a.dtype))
              for i, a in enumerate(arrays)]
        out = build(*xs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    got = exe.run(main, feed={f"x{i}": a for i, a in enumerate(arrays)}, fetch_list=outs)
    return got, [op.type for op in main.global_block().ops]


def paddles(name):
    """PaddlePaddle's recorded op types, feeds and fetches for case ``name``."""
    if not FIXTURE.is_file():
        pytest.fail(f"{FIXTURE} is absent (interop/ops/linalg_refs.py writes it)")
    with np.load(FIXTURE) as values:
        program = paddle.Program.parse(values[f"{name}/program"].tobytes())
        feed = {k.split("/")[-1]: values[k] for k in values.files if k.startswith(f"{name}/feed/")}
        fetch = [values[k] for k in values.files if k.startswith(f"{name}/fetch/")]
    # (these cases feed no differentiable input: the programs hold the forward ops only)
    return [op.type for op in program.global_block().ops], feed, fetch


def tall(m=4, n=3):
    a = rng.uniform(-0.2, 0.2, (m, n))
    a[range(n), range(n)] += np.arange(n, 0, -1) + 0.5
    return a.astype("float32")


def test_eig_is_paddles_up_to_each_vectors_unit_factor():
    ops, feed, (values, vectors) = paddles("eig")
    (mine_values, mine_vectors), mine_ops = run(L.eig, feed["x"])
    assert mine_ops == ops == ["eig"]
    assert mine_values.dtype == values.dtype == np.complex64
    np.testing.assert_allclose(mine_values, values, rtol=1e-5, atol=1e-5)
    phase = lambda v: v / (v[np.abs(v).argmax(0), range(v.shape[1])] /  # noqa: E731
                           np.abs(v[np.abs(v).argmax(0), range(v.shape[1])]))
    np.testing.assert_allclose(phase(mine_vectors), phase(vectors), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, fn, ref", [("cov_as_26", L.cov, np.cov),
                                           ("corrcoef_as_26", L.corrcoef, np.corrcoef)])
def test_cov_and_corrcoef_append_paddles_ops_and_compute_numpys_values(name, fn, ref):
    ops, feed, (theirs,) = paddles(name)
    (mine,), mine_ops = run(fn, feed["x"])
    assert mine_ops == ops
    assert not np.isfinite(theirs).all()          # 2.6.2's division by 0
    np.testing.assert_allclose(mine, ref(feed["x"].astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_cov_options():
    x = rng.uniform(size=(4, 3)).astype("float32")
    (by_columns, biased), _ = run(lambda v: (L.cov(v, rowvar=False), L.cov(v, ddof=False)), x)
    np.testing.assert_allclose(by_columns, np.cov(x, rowvar=False), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(biased, np.cov(x, ddof=0), rtol=1e-5, atol=1e-6)


def test_decompositions_against_numpy():
    a = tall()
    (u, s, vh, q, r, pinv, lu, piv), _ = run(
        lambda x: (*L.svd(x), *L.qr(x), L.pinv(x), *L.lu(x)), a)
    np.testing.assert_allclose(u * s @ vh, a, atol=1e-5)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    np.testing.assert_allclose(pinv, np.linalg.pinv(a), rtol=1e-4, atol=1e-5)
    assert lu.shape == (4, 3) and piv.dtype == np.int32 and piv.shape == (3,)


def test_lu_unpack_rebuilds_the_matrix():
    a = rng.uniform(-1, 1, (2, 3, 3)).astype("float32")
    (p, lower, upper), _ = run(lambda x: L.lu_unpack(*L.lu(x)), a)
    np.testing.assert_allclose(p @ lower @ upper, a, atol=1e-5)


def test_solvers_ranks_and_conditions_against_numpy():
    a, b = tall(), rng.uniform(-1, 1, (4, 2)).astype("float32")
    spd = (a.T @ a).astype("float32")
    (sol, res, rank, sv), _ = run(lambda x, y: L.lstsq(x, y, driver="gelsd"), a, b)
    want, want_res, want_rank, want_sv = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(sol, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(res, want_res, rtol=1e-4, atol=1e-5)
    assert rank == want_rank and np.allclose(sv, want_sv, rtol=1e-5)
    (solved, cond, cond_fro, rank1), _ = run(
        lambda m, y: (L.cholesky_solve(y, L.cholesky(m)), L.cond(m), L.cond(m, "fro"),
                      L.matrix_rank(m, tol=1e9)), spd, b[:3])
    np.testing.assert_allclose(solved, np.linalg.solve(spd, b[:3]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cond, np.linalg.cond(spd), rtol=1e-4)
    np.testing.assert_allclose(cond_fro, np.linalg.cond(spd, "fro"), rtol=1e-4)
    assert rank1 == 0


def test_householder_product_is_numpys_q():
    a = rng.uniform(-1, 1, (4, 3))
    h, tau = np.linalg.qr(a, mode="raw")
    (q,), _ = run(L.householder_product, h.T.astype("float32"), tau.astype("float32"))
    np.testing.assert_allclose(q, np.linalg.qr(a)[0], rtol=1e-4, atol=1e-5)


def test_pca_lowrank_recovers_a_low_rank_matrix():
    x = (rng.standard_normal((6, 2)) @ rng.standard_normal((2, 4))).astype("float32")
    (u, s, v), _ = run(lambda m: L.pca_lowrank(m, q=2), x)
    assert u.shape == (6, 2) and s.shape == (2,) and v.shape == (4, 2)
    np.testing.assert_allclose(u * s @ v.T, x - x.mean(0), atol=1e-4)


def test_what_is_not_available_says_so():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3, 3], "float32")
        with pytest.raises(ValueError, match="householder_product: x must be a matrix"):
            L.householder_product(x, paddle.static.data("t", [3], "float32"))
        with pytest.raises(NotImplementedError, match="cond: p='nuc' is not available"):
            L.cond(x, "nuc")
        with pytest.raises(NotImplementedError, match="fweights and aweights"):
            L.cov(paddle.static.data("y", [3, 4], "float32"), fweights=x)
