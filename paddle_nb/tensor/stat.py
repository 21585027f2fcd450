"""Statistics at paddle's top level: mean, var, std, median, quantile."""

__all__ = []
