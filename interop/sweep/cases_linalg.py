"""Sweep cases for paddle.linalg and the initializers (see specs.py for the helpers).

The automatic cases feed a [2, 3] matrix, which most of paddle.linalg refuses: these feed
square, well-conditioned, symmetric positive-definite, lower-triangular or batched matrices
with fixed values (``M``), so that both frameworks see the same matrices.
"""

import numpy as np

from interop.sweep.specs_base import B, F, Int, V, cls, fn  # noqa: F401


def M(values, grad=True, dtype="float32"):
    """A fed input with these exact values."""
    values = np.asarray(values, dtype=np.float64)
    return {"shape": list(values.shape), "dtype": dtype, "value": values.ravel().tolist(),
            "low": 0.0, "high": 1.0, "grad": grad}


_rng = np.random.default_rng(2026)


def _general(*shape):
    """Well-conditioned matrices: near 2 I, off-diagonal entries up to 0.5."""
    a = _rng.uniform(-0.5, 0.5, shape)
    return a + 2 * np.eye(shape[-1]) if shape[-1] == shape[-2] else a + \
        np.eye(shape[-2], shape[-1]) * 2


def _spd(*shape):
    a = _rng.uniform(-0.5, 0.5, shape)
    return a @ np.swapaxes(a, -1, -2) + 2 * np.eye(shape[-1])


def _separated(m, n, *batch):
    """Matrices with well separated singular values (3, 2, 1 ...)."""
    a = _rng.uniform(-0.2, 0.2, batch + (m, n))
    k = min(m, n)
    a[..., range(k), range(k)] += np.arange(k, 0, -1) + 0.5
    return a


def _lu(a):
    """LU with partial pivoting: (packed L\\U, 1-based pivots), as getrf writes them."""
    a = a.copy()
    pivots = []
    for j in range(a.shape[0]):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        pivots.append(p + 1)
        a[[j, p]] = a[[p, j]]
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, np.array(pivots)


SQ = M(_general(3, 3))
SQ_BATCH = M(_general(2, 3, 3))
SPD = M(_spd(3, 3))
SPD_BATCH = M(_spd(2, 3, 3))
LOWER = M(np.tril(_general(3, 3)))
TALL = M(_separated(4, 3))
WIDE_BATCH = M(_separated(2, 3, 2))
_PACKED, _PIVOTS = _lu(_rng.uniform(-1, 1, (3, 3)))
RHS = M(_rng.uniform(-1, 1, (3, 2)))
LOW_RANK = M(np.outer([1.0, 2.0, 3.0], [1.0, 0.5, -1.0]) + np.outer([0.0, 1.0, -1.0],
                                                                     [2.0, 1.0, 0.0]))

CASES = [
    # the names paddle_nb had: square and SPD inputs
    fn("paddle.linalg.det", V("x"), x=SQ),
    fn("paddle.linalg.det", V("x"), x=SQ_BATCH, tag="batch"),
    fn("paddle.linalg.slogdet", V("x"), x=SQ),
    fn("paddle.linalg.inv", V("x"), x=SQ),
    fn("paddle.linalg.inv", V("x"), x=SQ_BATCH, tag="batch"),
    fn("paddle.linalg.solve", V("x"), V("y"), x=SQ, y=RHS),
    fn("paddle.linalg.cholesky", V("x"), x=SPD),
    fn("paddle.linalg.cholesky", V("x"), upper=True, x=SPD_BATCH, tag="upper batch"),
    fn("paddle.linalg.triangular_solve", V("x"), V("y"), upper=False, x=LOWER, y=RHS),
    fn("paddle.linalg.eigh", V("x"), x=SPD),
    fn("paddle.linalg.eigvalsh", V("x"), x=SPD),
    # (2.6.2's eigvalsh_grad is wrong for a batch: not even symmetric; values only here)
    fn("paddle.linalg.eigvalsh", V("x"), x=SPD_BATCH, grad=False, tag="batch"),
    fn("paddle.linalg.matrix_power", V("x"), 3, x=SQ),
    fn("paddle.linalg.matrix_power", V("x"), -2, x=SQ, tag="negative"),
    fn("paddle.linalg.multi_dot", [V("a"), V("b"), V("c")], a=F(2, 3), b=F(3, 4), c=F(4, 2)),
    fn("paddle.linalg.norm", V("x"), x=F(2, 3)),
    fn("paddle.linalg.norm", V("x"), p=1, axis=1, x=F(2, 3), tag="p1 rows"),
    fn("paddle.linalg.norm", V("x"), p="fro", axis=[0, 1], x=F(2, 3, 2), tag="fro axes"),
    # decompositions
    fn("paddle.linalg.svd", V("x"), x=TALL),
    fn("paddle.linalg.svd", V("x"), x=WIDE_BATCH, tag="batch"),
    fn("paddle.linalg.qr", V("x"), x=TALL),
    fn("paddle.linalg.qr", V("x"), mode="r", x=TALL, grad=False, tag="r"),
    fn("paddle.linalg.lu", V("x"), x=SQ),
    fn("paddle.linalg.lu", V("x"), get_infos=True, x=SQ_BATCH, tag="infos batch"),
    fn("paddle.linalg.lu_unpack", V("x"), V("y"), x=M(_PACKED), y=M(_PIVOTS, dtype="int32")),
    fn("paddle.linalg.matrix_rank", V("x"), x=LOW_RANK),
    fn("paddle.linalg.matrix_rank", V("x"), tol=0.5, x=SQ_BATCH, tag="tol"),
    fn("paddle.linalg.lstsq", V("x"), V("y"), driver="gelsd", x=TALL,
       y=M(_rng.uniform(-1, 1, (4, 2))),
       grad=False),
    fn("paddle.linalg.cholesky_solve", V("x"), V("y"), x=RHS,
       y=M(np.linalg.cholesky(_spd(3, 3)))),
    fn("paddle.linalg.pinv", V("x"), x=TALL),
    fn("paddle.linalg.pinv", V("x"), hermitian=True, x=SPD, tag="hermitian"),
    fn("paddle.linalg.cond", V("x"), x=SQ),
    fn("paddle.linalg.cond", V("x"), p="fro", x=SQ, tag="fro"),
    fn("paddle.linalg.cov", V("x"), x=F(3, 4)),
    fn("paddle.linalg.corrcoef", V("x"), x=F(3, 4)),
    fn("paddle.linalg.eigvals", V("x"), x=SQ, grad=False),
    # (eigenvectors are defined up to a unit factor: LAPACK's float32 and float64 routines may
    # choose different signs, so this case may differ in output 1 by a vector's sign)
    fn("paddle.linalg.eig", V("x"), x=SQ, grad=False),
    fn("paddle.linalg.householder_product", V("x"), V("tau"), x=TALL, tau=M([1.2, 0.7, 1.5])),
    fn("paddle.linalg.householder_product", V("x"), V("tau"), x=M(_rng.uniform(-1, 1, (3, 2))),
       tau=M([1.1, 0.4]), tag="square tau"),
    fn("paddle.linalg.pca_lowrank", V("x"), q=2, x=F(5, 3), grad=False),
]
