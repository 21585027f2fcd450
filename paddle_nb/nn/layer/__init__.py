"""The layer classes of ``paddle.nn``, one module per family (``paddle_nb.nn`` lists them)."""

from __future__ import annotations
