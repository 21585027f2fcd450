"""Activation functions of paddle.nn.functional (relu, gelu, softmax, ...): each appends its op."""

__all__ = []
