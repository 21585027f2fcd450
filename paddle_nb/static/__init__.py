"""``paddle.static``: building and running static programs with PaddlePaddle 2.x's names."""

__all__ = []
