"""Elementwise math and reductions at paddle's top level: add, exp, sum, mean, cumsum, clip, ..."""

__all__ = []
