"""Tensor attributes at paddle's top level: shape, numel, rank, is_tensor, real/imag."""

__all__ = []
