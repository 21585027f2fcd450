"""Sweep cases for paddle.linalg and the initializers (see specs.py for the helpers)."""

from interop.sweep.specs_base import B, F, I, V, cls, fn  # noqa: F401

CASES = []
