"""Comparison and logic at paddle's top level: equal, less_than, logical_and, bitwise_and, isnan, ..."""

__all__ = []
