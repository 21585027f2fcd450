"""Memory accounting: bytes in use and peak bytes, per place.

Every tensor allocation and release is counted here, so that a notebook can
show how much memory each place holds and how high it went. The counts are
the tensors' ``nbytes``; the allocator underneath (NumPy's, CuPy's pool) may
hold more.

>>> from paddle_nb.core.place import CPUPlace
>>> MEMORY.reset_peak()
>>> before = MEMORY.in_use(CPUPlace())
>>> MEMORY.allocate(CPUPlace(), 100); MEMORY.release(CPUPlace(), 100)
>>> MEMORY.in_use(CPUPlace()) - before, MEMORY.peak(CPUPlace()) - before
(0, 100)
"""

from typing import Any

from paddle_nb.core.place import Place

__all__ = ["MemoryStats", "MemoryTracker", "MEMORY", "memory_stats"]


class MemoryStats:
    """Counters for one place."""

    __slots__ = ("in_use", "peak", "allocations", "releases")

    def __init__(self) -> None:
        self.in_use = self.peak = self.allocations = self.releases = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class MemoryTracker:
    """Counts bytes per place. ``in_use`` never goes below zero."""

    def __init__(self) -> None:
        self._stats: dict[tuple, MemoryStats] = {}     # by Place.key
        self._places: dict[tuple, Place] = {}

    def _of(self, place: Place) -> MemoryStats:
        stats = self._stats.get(place.key)
        if stats is None:
            stats = self._stats[place.key] = MemoryStats()
            self._places[place.key] = place
        return stats

    def allocate(self, place: Place, nbytes: int) -> None:
        stats = self._stats.get(place.key) or self._of(place)
        stats.in_use += nbytes
        stats.allocations += 1
        if stats.in_use > stats.peak:
            stats.peak = stats.in_use

    def release(self, place: Place, nbytes: int) -> None:
        stats = self._stats.get(place.key) or self._of(place)
        stats.in_use -= nbytes
        stats.releases += 1

    def transient_peak(self, place: Place, nbytes: int) -> None:
        """Note that a run briefly held ``nbytes`` more than is in use now (the executor's
        fast path keeps temporaries outside tensors, and reports their peak here)."""
        stats = self._of(place)
        if stats.in_use + nbytes > stats.peak:
            stats.peak = stats.in_use + nbytes

    def in_use(self, place: Place) -> int:
        return self._of(place).in_use

    def peak(self, place: Place) -> int:
        return self._of(place).peak

    def reset_peak(self) -> None:
        for stats in self._stats.values():
            stats.peak = stats.in_use

    def snapshot(self) -> dict[Place, dict[str, int]]:
        """``{place: {"in_use", "peak", "allocations", "releases"}}`` for every place seen."""
        return {self._places[key]: stats.as_dict() for key, stats in self._stats.items()}


MEMORY = MemoryTracker()


def memory_stats(place: Place | None = None) -> dict[Any, Any]:
    """Counters of one place, or of every place seen when ``place`` is None."""
    if place is None:
        return MEMORY.snapshot()
    return MEMORY._of(place).as_dict()
