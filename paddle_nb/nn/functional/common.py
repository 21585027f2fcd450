"""paddle.nn.functional's common functions: linear, bilinear, dropout and its kinds, cosine_similarity."""

__all__ = []
