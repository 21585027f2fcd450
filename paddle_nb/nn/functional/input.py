"""paddle.nn.functional's input functions: one_hot, embedding."""

__all__ = []
