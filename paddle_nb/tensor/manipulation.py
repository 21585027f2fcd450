"""Tensor manipulation at paddle's top level: reshape, transpose, concat, split, gather, scatter, flip, roll, ..."""

__all__ = []
