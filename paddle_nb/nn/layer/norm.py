"""Normalization layers of paddle.nn: BatchNorm*, LayerNorm, GroupNorm, InstanceNorm*, LocalResponseNorm."""

__all__ = []
