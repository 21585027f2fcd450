"""Pooling of paddle.nn.functional: max/avg and adaptive pools in 1, 2 and 3 dimensions."""

__all__ = []
