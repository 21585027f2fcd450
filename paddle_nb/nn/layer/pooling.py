"""Pooling layers of paddle.nn: Max/Avg/Adaptive pools in 1, 2 and 3 dimensions."""

__all__ = []
