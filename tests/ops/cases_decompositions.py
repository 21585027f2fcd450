"""Contract cases for paddle_nb/ops/decompositions.py and matrix_solvers.py.

References: singular values from the eigenvalues of A^T A (numpy.roots of its characteristic
polynomial), LU by a Doolittle loop written here, ranks by counting those singular values,
Cholesky solves by forward and back substitution. Factors whose signs are a convention (Q, R,
U, VH, eigenvectors) are checked by their defining properties (``seeded`` cases take check
functions), and their values against PaddlePaddle in tests/ops/test_linalg_paddle.py.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(21)
F = np.float32


def spread(m, n, *batch):
    """Matrices with well separated singular values (so SVD's gradient is well defined)."""
    a = rng.standard_normal(batch + (m, n)) * 0.3
    k = min(m, n)
    a[..., range(k), range(k)] += np.arange(k, 0, -1) * 1.5
    return a.astype(F)


def _singular_values(a):
    gram = np.swapaxes(a, -1, -2) @ a if a.shape[-2] >= a.shape[-1] else a @ np.swapaxes(a, -1, -2)
    flat = gram.reshape((-1,) + gram.shape[-2:]).astype(np.float64)
    roots = [np.sort(np.real(np.roots(np.poly(g))))[::-1] for g in flat]
    return np.sqrt(np.clip(np.array(roots), 0, None)).reshape(gram.shape[:-1])


def _svd_ref(ins, attrs):
    a = ins["X"].astype(np.float64)
    s = _singular_values(a)

    return {"S": s.astype(F)}


def _qr_ref(ins, attrs):
    a = ins["X"].astype(np.float64)
    n = a.shape[-1]

    def check_r(r):
        r = np.asarray(r, np.float64)
        np.testing.assert_allclose(np.tril(r[..., :n, :], -1), 0, atol=1e-6)
        # R^T R = A^T A: R is A's triangular factor up to the signs of its rows
        np.testing.assert_allclose(np.swapaxes(r, -1, -2) @ r, np.swapaxes(a, -1, -2) @ a,
                                   rtol=1e-4, atol=1e-4)
    return {"R": check_r}


def _doolittle(a):
    """LU with partial pivoting, row by row: (packed LU, 1-based pivots)."""
    a = a.astype(np.float64).copy()
    m, n = a.shape
    piv = []
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv.append(p + 1)
        a[[j, p]] = a[[p, j]]
        for i in range(j + 1, m):
            a[i, j] /= a[j, j]
            for c in range(j + 1, n):
                a[i, c] -= a[i, j] * a[j, c]
    return a, np.array(piv, np.int32)


def _lu_ref(ins, attrs):
    a = ins["X"]
    flat = a.reshape((-1,) + a.shape[-2:])
    packed, pivots = zip(*(_doolittle(m) for m in flat))
    batch = a.shape[:-2]
    return {"Out": np.array(packed).reshape(a.shape).astype(F),
            "Pivots": np.array(pivots).reshape(batch + (min(a.shape[-2:]),)),
            "Infos": np.zeros(batch if batch else (1,), np.int32)}


def _lu_unpack_ref(ins, attrs):
    lu, piv = ins["X"].astype(np.float64), ins["Pivots"]
    m, n = lu.shape
    k = min(m, n)
    lower = np.eye(m, k)
    upper = np.zeros((k, n))
    for i in range(m):
        for j in range(n):
            if i > j and j < k:
                lower[i, j] = lu[i, j]
            elif i <= j and i < k:
                upper[i, j] = lu[i, j]
    order = list(range(m))
    for j, p in enumerate(piv):
        order[j], order[p - 1] = order[p - 1], order[j]
    pmat = np.zeros((m, m))
    for i, r in enumerate(order):
        pmat[r, i] = 1
    return {"Pmat": pmat.astype(F), "L": lower.astype(F), "U": upper.astype(F)}


def lu_of(a):
    packed, piv = _doolittle(a)
    return packed.astype(F), piv


_LU33, _PIV33 = lu_of(spread(3, 3))
_LU43, _PIV43 = lu_of(spread(4, 3))

CASES = {
    "svd": [
        Case(inputs={"X": spread(4, 3)}, ref=_svd_ref, grad=("X",), rtol=1e-4, atol=1e-5),
        Case(inputs={"X": spread(2, 3, 2)}, ref=_svd_ref, grad=("X",), rtol=1e-4, atol=1e-5,
             name="batch of wide matrices"),
        Case(inputs={"X": spread(3, 3)}, attrs={"full_matrices": True}, ref=_svd_ref,
             grad=("X",), grad_outputs=("S",), rtol=1e-4, atol=1e-5, name="full matrices"),
    ],
    "qr": [
        Case(inputs={"X": spread(4, 3)}, ref=_qr_ref, grad=("X",), seeded=True),
        Case(inputs={"X": spread(3, 3, 2)}, attrs={"mode": "complete"}, ref=_qr_ref,
             grad=("X",), seeded=True, name="complete, batch"),
        Case(inputs={"X": spread(2, 3)}, attrs={"mode": "r"}, ref=_qr_ref, seeded=True,
             name="R only"),
    ],
    "lu": [
        Case(inputs={"X": spread(3, 3)}, ref=_lu_ref, grad=("X",), grad_outputs=("Out",),
             rtol=1e-4, atol=1e-5),
        Case(inputs={"X": spread(3, 4, 2)}, ref=_lu_ref, rtol=1e-4, atol=1e-5,
             name="batch of wide matrices"),
    ],
    "lu_unpack": [
        Case(inputs={"X": _LU33, "Pivots": _PIV33}, ref=_lu_unpack_ref, grad=("X",),
             grad_outputs=("L", "U")),
        Case(inputs={"X": _LU43, "Pivots": _PIV43}, ref=_lu_unpack_ref, grad=("X",),
             grad_outputs=("L", "U"), name="tall"),
    ],
}

BAD = {
    "svd": [Bad(inputs={"X": Meta((3,), np.dtype(F))}, error=ShapeError,
                match=r"X must be a \(batch of\) matrices.*got shape \(3,\)")],
    "qr": [Bad(inputs={"X": Meta((3,), np.dtype(F))}, error=ShapeError,
               match=r"X must be a \(batch of\) matrices")],
    "lu": [Bad(inputs={"X": Meta((4,), np.dtype(F))}, error=ShapeError,
               match=r"X must be a \(batch of\) matrices")],
    "lu_unpack": [Bad(inputs={"X": Meta((4,), np.dtype(F)),
                              "Pivots": Meta((4,), np.dtype("int32"))},
                      error=ShapeError, match=r"X must be a \(batch of\) matrices")],
}


# ---- matrix_solvers.py ---------------------------------------------------------------------

def _rank_ref(ins, attrs):
    a = ins["X"].astype(np.float64)
    if attrs.get("hermitian"):
        flat = a.reshape((-1,) + a.shape[-2:])
        s = np.abs(np.array([np.real(np.roots(np.poly(m))) for m in flat])).reshape(a.shape[:-1])
    else:
        s = _singular_values(a)
    if attrs.get("use_default_tol", True):
        tol = s.max(axis=-1, keepdims=True) * max(a.shape[-2:]) * np.finfo(F).eps
    else:
        tol = attrs["tol"]
    return {"Out": (s > tol).sum(axis=-1).astype(np.int32)}


def low_rank(n, rank, *batch):
    a = rng.standard_normal(batch + (n, rank)) @ rng.standard_normal(batch + (rank, n))
    return a.astype(F)


def _normal_equations(a, y):
    """The least-squares solution of a full-column-rank system: (A^T A)^-1 A^T y."""
    at = np.swapaxes(a, -1, -2)
    return np.linalg.inv(at @ a) @ at @ y


def _lstsq_ref(ins, attrs):
    a, y = ins["X"].astype(np.float64), ins["Y"].astype(np.float64)
    out = _normal_equations(a, y)
    return {"Solution": out.astype(F), "Residuals": ((y - a @ out) ** 2).sum(-2).astype(F),
            "Rank": np.full(a.shape[:-2], a.shape[-1], np.int32)}


def _substitute(lower, b):
    """x with lower @ x = b, by forward substitution."""
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - lower[i, :i] @ x[:i]) / lower[i, i]
    return x


def _chol_solve_ref(ins, attrs):
    b, y = ins["X"].astype(np.float64), ins["Y"].astype(np.float64)
    lower = np.triu(y).T if attrs.get("upper") else np.tril(y)
    z = _substitute(lower, b)
    x = _substitute(lower.T[::-1, ::-1], z[::-1])[::-1]      # back substitution, reversed
    return {"Out": x.astype(F)}


def factor(n, upper=False):
    a = rng.standard_normal((n, n)) * 0.3 + 2 * np.eye(n)
    return (np.triu(a) if upper else np.tril(a)).astype(F)


def _eig_ref(ins, attrs):
    a = ins["X"].astype(np.float64)
    expected = np.sort_complex(np.roots(np.poly(a)))

    def check_values(values):
        np.testing.assert_allclose(np.sort_complex(np.asarray(values)), expected, rtol=1e-4,
                                   atol=1e-5)
    return check_values


def _eig_pairs_ref(ins, attrs):
    a = ins["X"].astype(np.float64)

    def check_vectors(vectors):
        values = np.linalg.eigvals(a)         # (pairs checked: A v = w v)
        v = np.asarray(vectors)
        for w in values:
            residual = np.abs(a @ v - v * w).sum(axis=0).min()
            assert residual < 1e-4, (w, residual)
        np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, rtol=1e-5)
    return {"Eigenvalues": _eig_ref(ins, attrs), "Eigenvectors": check_vectors}


CASES.update({
    "matrix_rank": [
        Case(inputs={"X": low_rank(4, 2, 2)}, ref=_rank_ref),
        Case(inputs={"X": low_rank(3, 1)}, attrs={"use_default_tol": False, "tol": 0.5},
             ref=_rank_ref, name="given tolerance"),
        Case(inputs={"X": (low_rank(3, 2) + low_rank(3, 2).T)}, attrs={"hermitian": True},
             ref=_rank_ref, name="hermitian"),
    ],
    "lstsq": [
        Case(inputs={"X": spread(4, 3), "Y": rng.standard_normal((4, 2)).astype(F)},
             ref=_lstsq_ref, rtol=1e-4, atol=1e-5),
        Case(inputs={"X": spread(5, 2, 2), "Y": rng.standard_normal((2, 5, 1)).astype(F)},
             attrs={"driver": "gelsd"}, ref=_lstsq_ref, rtol=1e-4, atol=1e-5,
             name="batch, gelsd"),
    ],
    "cholesky_solve": [
        Case(inputs={"X": rng.standard_normal((3, 2)).astype(F), "Y": factor(3)},
             ref=_chol_solve_ref, grad=("X", "Y"), rtol=1e-4, atol=1e-5),
        Case(inputs={"X": rng.standard_normal((3, 1)).astype(F), "Y": factor(3, upper=True)},
             attrs={"upper": True}, ref=_chol_solve_ref, grad=("X", "Y"), rtol=1e-4,
             atol=1e-5, name="upper"),
    ],
    "eig": [Case(inputs={"X": rng.standard_normal((3, 3)).astype(F)}, ref=_eig_pairs_ref,
                 seeded=True)],
    "eigvals": [Case(inputs={"X": rng.standard_normal((4, 4)).astype(F)},
                     ref=lambda ins, attrs: {"Out": _eig_ref(ins, attrs)}, seeded=True)],
})

BAD.update({
    "matrix_rank": [Bad(inputs={"X": Meta((3, 4), np.dtype(F))}, attrs={"hermitian": True},
                        error=ShapeError, match=r"X must be a \(batch of\) square matrices")],
    "lstsq": [Bad(inputs={"X": Meta((4, 3), np.dtype(F)), "Y": Meta((3, 2), np.dtype(F))},
                  error=ShapeError, match=r"X and Y must have the same number of rows")],
    "cholesky_solve": [Bad(inputs={"X": Meta((3, 2), np.dtype(F)), "Y": Meta((3, 4), np.dtype(F))},
                           error=ShapeError, match=r"Y must be a \(batch of\) square")],
    "eig": [Bad(inputs={"X": Meta((3, 4), np.dtype(F))}, error=ShapeError,
                match=r"X must be a \(batch of\) square matrices.*\(3, 4\)")],
    "eigvals": [Bad(inputs={"X": Meta((3,), np.dtype(F))}, error=ShapeError,
                    match=r"X must be a \(batch of\) matrices")],
})

CASES["conj"] = [Case(inputs={"X": rng.standard_normal((2, 3)).astype(F)},
                      ref=lambda ins, attrs: {"Out": ins["X"]}, grad=("X",))]
BAD["conj"] = [Bad(inputs={"X": Meta((2,), np.dtype(bool))}, error=ShapeError,
                  match="X must be a number .* got bool")]
