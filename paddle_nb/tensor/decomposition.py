"""paddle.linalg's decompositions and what PaddlePaddle 2.6 builds from them: svd, qr, lu,
lu_unpack, matrix_rank, lstsq, cholesky_solve, eig, eigvals (one op each), and the
compositions pinv, cond, cov, corrcoef and pca_lowrank (the ops 2.6 appends, in its order).

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     x = pd.static.data("x", [3, 2])
...     u, s, vh = svd(x)
>>> (u.name, u.shape), (s.name, s.shape), (vh.name, vh.shape)
(('svd_0.tmp_0', (3, 2)), ('svd_0.tmp_2', (2,)), ('svd_0.tmp_1', (2, 2)))
"""

import numpy

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.layers.helper import layer_helper

__all__ = ["svd", "qr", "lu", "lu_unpack", "matrix_rank", "lstsq", "cholesky_solve", "eig",
           "eigvals", "pinv", "cond", "cov", "corrcoef", "pca_lowrank", "householder_product"]


def _outputs(key, op_type, inputs, slots, attrs, name=None):
    """Append ``op_type`` writing one new temporary per output slot (in ``slots``' order)."""
    helper = layer_helper(key, name)
    names = {slot: helper.tmp_name() for slot in slots}
    helper.append(op_type, inputs, names, attrs)
    return [helper.block.var(names[slot]) for slot in slots]


def svd(x, full_matrices=False, name=None):
    """(U, S, VH) with x = U diag(S) VH, S descending (``svd``)."""
    u, vh, s = _outputs("svd", "svd", {"X": x}, ["U", "VH", "S"],
                        {"full_matrices": bool(full_matrices)}, name)
    return u, s, vh


def qr(x, mode="reduced", name=None):
    """(Q, R) with x = Q R; ``mode`` 'reduced', 'complete', or 'r' (R alone) (``qr``)."""
    q, r = _outputs("qr", "qr", {"X": x}, ["Q", "R"], {"mode": str(mode)}, name)
    return r if mode == "r" else (q, r)


def lu(x, pivot=True, get_infos=False, name=None):
    """(LU packed, pivots[, infos]) of x = P L U (``lu``)."""
    out, pivots, infos = _outputs("lu", "lu", {"X": x}, ["Out", "Pivots", "Infos"],
                                  {"pivots": bool(pivot)}, name)
    return (out, pivots, infos) if get_infos else (out, pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) of lu's packed ``x`` and pivots ``y`` (``lu_unpack``)."""
    return tuple(_outputs("lu_unpack", "lu_unpack", {"X": x, "Pivots": y}, ["Pmat", "L", "U"],
                          {"unpack_ludata": bool(unpack_ludata),
                           "unpack_pivots": bool(unpack_pivots)}, name))


def matrix_rank(x, tol=None, hermitian=False, name=None):
    """The rank of each matrix (int32): singular values above ``tol`` (a number or a tensor),
    by default max(m, n) * eps * the largest (``matrix_rank``)."""
    inputs, attrs = {"X": x}, {"hermitian": bool(hermitian)}
    if tol is None:
        attrs.update(tol=0.0, use_default_tol=True)
    elif hasattr(tol, "block"):
        inputs["TolTensor"] = tol
        attrs.update(use_default_tol=False)
    else:
        attrs.update(tol=float(tol), use_default_tol=False)
    return layer_helper("matrix_rank", name).out("matrix_rank", inputs, attrs)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """(solution, residuals, rank, singular_values) of the least-squares x @ solution = y."""
    driver = "gelsy" if driver is None else driver
    if rcond is None:
        eps = 1e-15 if numpy.dtype(x.dtype) == numpy.float64 else 1e-7
        rcond = eps * max(x.shape[-2:])
    return tuple(_outputs("lstsq", "lstsq", {"X": x, "Y": y},
                          ["Solution", "Residuals", "Rank", "SingularValues"],
                          {"rcond": float(rcond), "driver": str(driver)}, name))


def cholesky_solve(x, y, upper=False, name=None):
    """The solution of A @ out = x for A = y y^T (y the Cholesky factor; U^T U when upper)."""
    return layer_helper("cholesky_solve", name).out(
        "cholesky_solve", {"X": x, "Y": y}, {"upper": bool(upper)})


def eig(x, name=None):
    """(eigenvalues, eigenvectors), complex, of each general square matrix (``eig``)."""
    return tuple(_outputs("eig", "eig", {"X": x}, ["Eigenvalues", "Eigenvectors"], {}, name))


def eigvals(x, name=None):
    """The eigenvalues, complex, of each general square matrix (``eigvals``)."""
    return layer_helper("eigvals", name).out("eigvals", {"X": x}, {})


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The pseudo-inverse: 1/s on the singular values above rcond * the largest (0 on the
    others), V diag(1/s) U^T; for hermitian x, from its eigenvalues."""
    from paddle_nb.tensor.linalg_compose import pseudo_inverse
    return pseudo_inverse(x, rcond, hermitian, name)


def cond(x, p=None, name=None):
    """The condition number of each square matrix: in the 2-norm (p None, 2, -2: the ratio of
    its extreme singular values) or 'fro' (||x|| ||x^-1||)."""
    from paddle_nb.tensor.linalg_compose import condition_number
    return condition_number(x, p, name)


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance of the variables (rows of ``x``, columns when not rowvar)."""
    from paddle_nb.tensor.linalg_compose import covariance
    return covariance(x, rowvar, ddof, fweights, aweights)


def corrcoef(x, rowvar=True, name=None):
    """Pearson's correlation coefficients of the variables: cov / (std_i std_j), clipped."""
    from paddle_nb.tensor.linalg_compose import correlation
    return correlation(x, rowvar)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """(U, S, V) of a rank-q approximation of ``x`` (centered) by randomized subspace
    iteration (random: a Gaussian start)."""
    from paddle_nb.tensor.linalg_compose import randomized_pca
    return randomized_pca(x, q, center, niter)


def householder_product(x, tau, name=None):
    """The first n columns of the product of the Householder reflections I - tau_i v_i v_i^T
    that x (below its diagonal) and tau describe (a matrix x; LAPACK's orgqr)."""
    from paddle_nb.tensor.linalg_compose import householder
    return householder(x, tau)


# the ones PaddlePaddle 2.6 also makes Variable methods (x.qr(), x.pinv() ...; not svd or
# matrix_rank)
register_tensor_methods({
    "qr": qr, "lu": lu, "lu_unpack": lu_unpack, "lstsq": lstsq, "cholesky_solve": cholesky_solve,
    "eig": eig, "eigvals": eigvals, "pinv": pinv, "cond": cond, "cov": cov, "corrcoef": corrcoef,
    "pca_lowrank": pca_lowrank, "householder_product": householder_product,
})
