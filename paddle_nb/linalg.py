"""``paddle.linalg``: the linear-algebra functions PaddlePaddle 2.6 lists there (they live in
paddle_nb/tensor/linalg.py; the products and ``trace`` are at paddle's top level)."""

from paddle_nb.tensor.linalg import (
    cholesky, det, eigh, eigvalsh, inv, matrix_power, multi_dot, norm, slogdet, solve,
    triangular_solve,
)

__all__ = ["cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_power", "multi_dot", "norm",
           "slogdet", "solve", "triangular_solve"]
