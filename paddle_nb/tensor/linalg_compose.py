"""The paddle.linalg functions PaddlePaddle 2.6 composes from other ops, appended in its
order: ``pinv`` (svd or eigh, a cutoff, ``where``), ``cond`` (svd's extreme values, or two
Frobenius norms), ``cov`` and ``corrcoef`` (centred products), ``pca_lowrank`` (randomized
subspace iteration with ``qr``, then ``svd``).

One difference on purpose: in static mode PaddlePaddle 2.6.2's ``cov`` divides by a constant
0 (its ``if norm_factor <= 0`` test on a Variable is always taken), so its covariances (and
correlations) come out inf / nan; here they are divided by the count less ``ddof``, as the
documentation says. The dead comparison ops stay, so that the op types and their order are
2.6's.
"""

from __future__ import annotations

import numpy

from paddle_nb.framework.variable import register_tensor_methods
from paddle_nb.layers.helper import layer_helper
from paddle_nb.nn.functional import compose
from paddle_nb.tensor import creation, manipulation, math, reduction, search, stat
from paddle_nb.tensor.decomposition import qr, svd
from paddle_nb.tensor.linalg import eigh, inverse
from paddle_nb.tensor.linalg import matmul, mm, t, transposed
from paddle_nb.tensor.random import randn
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["pinv", "cond", "cov", "corrcoef", "pca_lowrank", "householder_product",
           "pseudo_inverse", "condition_number", "covariance", "correlation",
           "randomized_pca", "householder"]


def _swap_last(x: Tensor) -> Any:
    """The permutation that transposes the last two axes."""
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


def _conj(x: Tensor) -> Tensor:
    return layer_helper("conj").out("conj", {"X": x}, {})


def pseudo_inverse(x: Tensor, rcond: float, hermitian: bool, name: str | None) -> Tensor:
    """x^+ = V diag(1/s) U^T over the singular values s > rcond * max(s) (|eigenvalues| and
    eigenvectors for hermitian x)."""
    helper = layer_helper("pinv", name)
    if hermitian:
        values, vectors = eigh(x, name=name)
        s = helper.out("abs", {"X": values}, {})
        largest = helper.out("reduce_max", {"X": s}, _max_attrs())
    else:
        u, s, vt = _svd_named(x, helper)
        values = s
        largest = helper.out("reduce_max", {"X": s}, _max_attrs())
    cutoff = creation.full([1], rcond, x.dtype) * largest
    big = creation.full([1], float("inf"), x.dtype)
    keep = s > cutoff
    inverted = search.where(keep, 1 / values, 1 / big)
    row = helper.out("unsqueeze2", {"X": inverted}, {"axes": [-2]},
                     extra_outputs={"XShape": helper.tmp_name()})
    if hermitian:
        scaled = helper.out("elementwise_mul", {"X": vectors, "Y": row}, {"axis": -1})
        conj = helper.out("conj", {"X": vectors}, {})
        return helper.out("matmul_v2", {"X": scaled, "Y": conj},
                          {"trans_x": False, "trans_y": True})
    v = helper.out("transpose2", {"X": vt}, {"axis": _swap_last(vt)},
                   extra_outputs={"XShape": helper.tmp_name()})
    scaled = helper.out("elementwise_mul", {"X": v, "Y": row}, {"axis": -1})
    return helper.out("matmul_v2", {"X": scaled, "Y": u}, {"trans_x": False, "trans_y": True})


def _max_attrs() -> Any:
    return {"dim": [-1], "keep_dim": True, "reduce_all": False, "in_dtype": -1, "out_dtype": -1}


def _svd_named(x: Tensor, helper: Any) -> Any:
    """svd's U, S, VH as pinv's first temporaries (pinv_N.tmp_0, tmp_1 = S, tmp_2 = VH)."""
    u, s, vh = helper.tmp_name(), helper.tmp_name(), helper.tmp_name()
    helper.append("svd", {"X": x}, {"U": u, "S": s, "VH": vh}, {"full_matrices": False})
    block = helper.block
    return block.var(u), block.var(s), block.var(vh)


def condition_number(x: Tensor, p: float | str | None, name: str | None) -> Tensor:
    """||x|| ||x^-1||: the 2-norm's is max(s) / min(s) (min / max for p = -2)."""
    if p in (None, 2, -2):
        _, s, _ = svd(x)
        helper = layer_helper("norm", name)
        attrs = {"dim": [-1], "keep_dim": False, "reduce_all": False, "in_dtype": -1,
                 "out_dtype": -1}
        largest = helper.out("reduce_max", {"X": s}, attrs)
        smallest = helper.out("reduce_min", {"X": s}, attrs)
        pair = (smallest, largest) if p == -2 else (largest, smallest)
        return helper.out("elementwise_div", {"X": pair[0], "Y": pair[1]}, {"axis": -1})
    if p == "fro":
        inv = inverse(x)
        return _frobenius(x) * _frobenius(inv)
    raise compose.not_available(
        f"paddle.linalg.cond: p={p!r} is not available in paddle_nb; use p=None, 2, -2 "
        "or 'fro'")


def _frobenius(x: Tensor) -> Tensor:
    helper = layer_helper("norm")
    attrs = {"dim": [-1], "keep_dim": False, "reduce_all": False, "in_dtype": -1,
             "out_dtype": -1}
    squares = helper.out("pow", {"X": x}, {"factor": 2.0})
    rows = helper.out("reduce_sum", {"X": squares}, attrs)
    total = helper.out("reduce_sum", {"X": rows}, attrs)
    return helper.out("pow", {"X": total}, {"factor": 0.5})


def covariance(x: Tensor, rowvar: bool, ddof: bool, fweights: Any, aweights: Any) -> Tensor:
    """sum_k (x_ik - mean_i) x_jk / (N - ddof), the variables in rows (columns when not
    rowvar)."""
    if fweights is not None or aweights is not None:
        raise compose.not_available("paddle.linalg.cov: fweights and aweights are not "
                                    "available in paddle_nb; weight the observations first")
    if len(x.shape) > 2:
        raise compose.argument_error(f"paddle.linalg.cov: x must be 1-D or 2-D, got "
                                     f"'{x.name}' {tuple(x.shape)}")
    nx = manipulation.reshape(x, [1, -1]) if len(x.shape) == 1 else x
    if not rowvar and nx.shape[0] != 1:
        nx = t(nx)
    count = creation.to_tensor(nx.shape[1]).astype(x.dtype)
    mean = reduction.sum(nx, axis=1) / count
    factor = count - int(bool(ddof))
    factor <= 0                             # noqa: B015  (2.6's test, see the module's note)
    creation.to_tensor(0).astype(x.dtype)   # (2.6's replacement factor, unused here)
    centred = nx - manipulation.unsqueeze(mean, 1)
    product = mm(centred, _conj(t(nx)))
    return manipulation.squeeze(product / factor)


def correlation(x: Tensor, rowvar: bool) -> Tensor:
    """cov_ij / sqrt(cov_ii cov_jj), clipped to [-1, 1]."""
    c = covariance(x, rowvar, True, None, None)
    if not c.shape:
        return c / c
    std = math.sqrt(creation.diag(c))
    c = c / manipulation.unsqueeze(std, 1)
    c = c / manipulation.unsqueeze(std, 0)
    return math.clip(c, -1, 1)


def _basis(a: Tensor, q: int, niter: int) -> Tensor:
    """An orthonormal basis Q [m, q] of a's range, by niter rounds of subspace iteration from
    a Gaussian start."""
    start = randn([a.shape[-1], q], dtype=numpy.dtype(a.dtype).name)
    a_h = manipulation.transpose(a, _swap_last(a))
    basis = qr(matmul(a, start))[0]
    for _ in range(niter):
        basis = qr(matmul(a_h, basis))[0]
        basis = qr(matmul(a, basis))[0]
    return basis


def randomized_pca(x: Tensor, q: int | None, center: bool, niter: int) -> tuple[Tensor, ...]:
    """(U, S, V) with (x - mean) ~ U diag(S) V^T of rank q."""
    m, n = x.shape[-2:]
    q = min(6, m, n) if q is None else int(q)
    a = x - stat.mean(x, axis=-2, keepdim=True) if center else x
    if m < n or n > q:
        a_t = manipulation.transpose(a, _swap_last(a))
        basis = _basis(a_t, q, niter)
        u, s, vh = svd(matmul(a, basis))
        return u, s, matmul(basis, manipulation.transpose(vh, _swap_last(vh)))
    basis = _basis(a, q, niter)
    b = matmul(manipulation.transpose(basis, _swap_last(basis)), a)
    u, s, vh = svd(b)
    return matmul(basis, u), s, manipulation.transpose(vh, _swap_last(vh))


def householder(x: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i column i of x below
    the diagonal with a 1 on it (LAPACK's orgqr): slices, products and set_value in 2.6's
    order."""
    if len(x.shape) != 2 or len(tau.shape) != 1:
        raise compose.argument_error(
            f"paddle.linalg.householder_product: x must be a matrix [m, n] and tau a vector "
            f"(a batch is not available in paddle_nb), got '{x.name}' {tuple(x.shape)} and "
            f"'{tau.name}' {tuple(tau.shape)}")
    m, n = x.shape
    if m < n or tau.shape[0] > n:
        raise compose.argument_error(
            f"paddle.linalg.householder_product: x needs rows >= columns >= len(tau), got "
            f"x {tuple(x.shape)} and tau {tuple(tau.shape)}")
    out = creation.eye(m, m, dtype=x.dtype).astype(x.dtype)
    for i in range(tau.shape[0]):
        w = x[i:, i]
        w[0] = 1
        w = manipulation.reshape(w, [-1, 1])
        out[:, i:] = out[:, i:] - (out[:, i:] @ w @ transposed(w)) * tau[i]
    return out[:, :n]


# -- the paddle.linalg names (PaddlePaddle 2.6's signatures) -------------------------------------
def pinv(x: Tensor, rcond: float = 1e-15, hermitian: bool = False, name: str | None = None
        ) -> Tensor:
    """The pseudo-inverse: 1/s on the singular values above rcond * the largest (0 on the
    others), V diag(1/s) U^T; for hermitian x, from its eigenvalues."""
    return pseudo_inverse(x, rcond, hermitian, name)


def cond(x: Tensor, p: str | None = None, name: str | None = None) -> Tensor:
    """The condition number of each square matrix: in the 2-norm (p None, 2, -2: the ratio of
    its extreme singular values) or 'fro' (||x|| ||x^-1||)."""
    return condition_number(x, p, name)


def cov(x: Tensor, rowvar: bool = True, ddof: bool = True, fweights: Any = None,
        aweights: Any = None, name: str | None = None) -> Tensor:
    """The covariance of the variables (rows of ``x``, columns when not rowvar)."""
    return covariance(x, rowvar, ddof, fweights, aweights)


def corrcoef(x: Tensor, rowvar: bool = True, name: str | None = None) -> Tensor:
    """Pearson's correlation coefficients of the variables: cov / (std_i std_j), clipped."""
    return correlation(x, rowvar)


def pca_lowrank(x: Tensor, q: int | None = None, center: bool = True, niter: int = 2,
                name: str | None = None) -> tuple[Tensor, ...]:
    """(U, S, V) of a rank-q approximation of ``x`` (centered) by randomized subspace
    iteration (random: a Gaussian start)."""
    return randomized_pca(x, q, center, niter)


def householder_product(x: Tensor, tau: Tensor, name: str | None = None) -> Tensor:
    """The first n columns of the product of the Householder reflections I - tau_i v_i v_i^T
    that x (below its diagonal) and tau describe (a matrix x; LAPACK's orgqr)."""
    return householder(x, tau)


# PaddlePaddle 2.6 also makes these Variable methods (x.pinv(), x.cov() ...)
register_tensor_methods({
    "pinv": pinv, "cond": cond, "cov": cov, "corrcoef": corrcoef, "pca_lowrank": pca_lowrank,
    "householder_product": householder_product,
})
