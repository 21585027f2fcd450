"""Sweep cases for paddle's top-level functions (see specs.py for the helpers)."""

from interop.sweep.specs_base import B, F, I, V, cls, fn  # noqa: F401

CASES = []
