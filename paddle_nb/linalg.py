"""``paddle.linalg``: the linear-algebra functions PaddlePaddle 2.6 lists there (they live in
paddle_nb/tensor/linalg.py; the products and ``trace`` are at paddle's top level)."""

from paddle_nb.tensor.linalg import (
    cholesky, det, eigh, eigvalsh, inv, matrix_power, multi_dot, norm, slogdet, solve,
    triangular_solve,
)

from paddle_nb.tensor.decomposition import (
    cholesky_solve, eig, eigvals, lstsq, lu, lu_unpack, matrix_rank, qr, svd,
)
from paddle_nb.tensor.linalg_compose import (
    cond, corrcoef, cov, householder_product, pca_lowrank, pinv,
)

__all__ = ["cholesky_solve", "cond", "corrcoef", "cov", "eig", "eigvals", "householder_product",
           "lstsq", "lu", "lu_unpack", "matrix_rank", "pca_lowrank", "pinv", "qr", "svd",
           "cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "multi_dot", "norm",
           "slogdet", "solve", "triangular_solve"]
