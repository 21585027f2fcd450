"""``paddle.linalg``: the linear-algebra functions, also at paddle's top level (they live in
paddle_nb/tensor/linalg.py)."""

from paddle_nb.tensor.linalg import (
    bmm, cross, dist, dot, einsum, inner, kron, matmul, mm, mv, norm, outer, t, trace,
)

__all__ = ["bmm", "cross", "dist", "dot", "einsum", "inner", "kron", "matmul", "mm", "mv",
           "norm", "outer", "t", "trace"]
