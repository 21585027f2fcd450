"""paddle.nn's attention: MultiHeadAttention, TransformerEncoder/Decoder(Layer), Transformer."""

__all__ = []
