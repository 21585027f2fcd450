"""``paddle.utils``: ``unique_name`` (PaddlePaddle 2.x's process-wide name generator)."""

from paddle_nb.framework import unique_name

__all__ = ["unique_name"]
