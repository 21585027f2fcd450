"""Unique names, counted per program (docs/style.md rule 10: deterministic output).

>>> names = UniqueNames()
>>> names("fc"), names("fc"), names("tmp")
('fc_0', 'fc_1', 'tmp_0')
"""

import collections

__all__ = ["UniqueNames"]


class UniqueNames:
    """``names(prefix)`` -> ``prefix_0``, ``prefix_1``, ... for one program."""

    def __init__(self) -> None:
        self._counts: collections.Counter[str] = collections.Counter()

    def __call__(self, prefix: str) -> str:
        n = self._counts[prefix]
        self._counts[prefix] += 1
        return f"{prefix}_{n}"

    def copy(self) -> "UniqueNames":
        other = UniqueNames()
        other._counts = self._counts.copy()
        return other
