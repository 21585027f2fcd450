"""Convolution layers of paddle.nn: Conv1D/2D/3D and their Transpose."""

__all__ = []
