"""Activation layers of paddle.nn (ReLU, GELU, Softmax, PReLU, ...)."""

__all__ = []
