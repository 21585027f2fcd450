"""Containers of paddle.nn: Sequential, LayerList, LayerDict, ParameterList."""

__all__ = []
