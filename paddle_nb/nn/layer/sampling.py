"""Resampling layers of paddle.nn: Pad1D/2D/3D, Upsample, PixelShuffle/Unshuffle, Unfold/Fold."""

__all__ = []
