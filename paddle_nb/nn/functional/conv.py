"""Convolutions of paddle.nn.functional: conv1d/2d/3d and their transposes."""

__all__ = []
