"""Search and sort at paddle's top level: argmax, argmin, argsort, sort, topk, where, nonzero, masked_select."""

__all__ = []
