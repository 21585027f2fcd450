"""``paddle.linalg``: the linear-algebra functions, also at paddle's top level (they live in
paddle_nb/tensor/linalg.py)."""

from paddle_nb.tensor.linalg import (
    bmm, cholesky, cross, det, dist, dot, einsum, inner, inv, inverse, kron, matmul, mm, mv, norm,
    outer, slogdet, solve, t, trace,
)

__all__ = ["bmm", "cholesky", "cross", "det", "dist", "dot", "einsum", "inner", "inv", "inverse", "kron",
           "matmul", "mm", "mv", "norm", "outer", "slogdet", "solve", "t", "trace"]
