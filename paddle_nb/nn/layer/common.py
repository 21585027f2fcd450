"""Common layers of paddle.nn: Linear, Bilinear, Embedding, Dropout and its kinds, Flatten, Identity."""

__all__ = []
