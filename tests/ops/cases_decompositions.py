"""Contract cases for paddle_nb/ops/decompositions.py and matrix_solvers.py.

References: singular values from the eigenvalues of A^T A (numpy.roots of its characteristic
polynomial), LU by a Doolittle loop written here, ranks by counting those singular values,
Cholesky solves by forward and back substitution. Factors whose signs are a convention (Q, R,
U, VH, eigenvectors) are checked by their defining properties (``seeded`` cases take check
functions), and their values against PaddlePaddle in tests/ops/test_linalg_paddle.py.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.registry import Meta
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
    "lu_unpack": [Bad(inputs={"X": Meta((4,), np.dtype(F)), "Pivots": Meta((4,), np.dtype("int32"))},
                      error=ShapeError, match=r"X must be a \(batch of\) matrices")],
}
