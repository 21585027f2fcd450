"""Tensor creation at paddle's top level: full, zeros, ones, *_like, arange, linspace, eye, meshgrid, to_tensor."""

__all__ = []
