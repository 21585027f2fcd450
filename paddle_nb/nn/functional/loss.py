"""Losses of paddle.nn.functional: cross_entropy, mse_loss, binary_cross_entropy, nll_loss, kl_div, ..."""

__all__ = []
