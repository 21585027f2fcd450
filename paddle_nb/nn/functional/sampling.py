"""Resampling in paddle.nn.functional: pad, interpolate/upsample, unfold/fold, grid_sample, affine_grid, pixel_shuffle."""

__all__ = []
