"""Linear algebra at paddle's top level and in paddle.linalg: matmul, bmm, einsum, dot, norm, ..."""

__all__ = []
