"""LoDTensor: an n-dimensional array that gets memory only when asked.

Lazy allocation, as in "Design Doc: Variable": a new tensor holds no shape, dtype or memory.
``mutable_data(place, dtype, shape)`` allocates, or reuses the memory it holds by one of
two rules (:func:`memory_reuse`): paddle_nb's, when place, dtype and shape all match, or
PaddlePaddle's, when the place matches and the block is big enough (``DenseTensor::
mutable_data``); ``set(array, place)`` copies data in.
The LoD ("level of detail") is a list of offset tables that cut the first
dimension into sequences: ``[[0, 2, 5]]`` means rows 0-1 and rows 2-4.

>>> import numpy as np
>>> from paddle_nb.core.place import CPUPlace
>>> t = LoDTensor()
>>> t.is_allocated(), t.shape
(False, None)
>>> a = t.mutable_data(CPUPlace(), "float32", (2, 3))
>>> t.shape, t.dtype, t.nbytes
((2, 3), dtype('float32'), 24)
>>> t.mutable_data(CPUPlace(), "float32", (2, 3)) is a   # same place, dtype, shape: reused
True
"""

from __future__ import annotations

import _thread
import contextlib
import time
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.core.events import EVENTS
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.place import CPUPlace, Place
from paddle_nb.errors import LoDError, NotAllocatedError, OutOfMemoryError, ScopeDestroyedError

if TYPE_CHECKING:
    from paddle_nb.core.variable import Variable

__all__ = ["LoDTensor", "memory_reuse", "memory_reuse_rule", "set_memory_reuse_rule",
           "REUSE_RULES", "written_in_place"]

# what a tensor holds: a numpy.ndarray, or a cupy.ndarray on a GPUPlace
Array = Any
HostArray = numpy.ndarray
_CPU = CPUPlace()

# When mutable_data keeps the memory a tensor holds (docs/design_notes.md, "Memory reuse"):
# "paddle_nb": same place, dtype and shape (one array per tensor, as NumPy has it);
# "paddle": same place and a block at least as big (PaddlePaddle's DenseTensor::mutable_data
# reinterprets its block; here a view of the block the tensor allocated).
REUSE_RULES = ("paddle_nb", "paddle")
_reuse_rule = ["paddle_nb"]

# The arrays mutable_data handed out to write into. Kernels never write into an array they
# were given (a new value is a new array, LoDTensor.hold), so a cache may trust an array's
# identity for its values, unless the array was handed out by mutable_data, the one way to
# write into a tensor's array in place (at any time after the call): such an array's values
# are never the cache's to trust. (Weakly held; an array that takes no weak reference is
# remembered by id, which at worst makes a later array of that id miss a cache.)
_handed_out: weakref.WeakSet = weakref.WeakSet()
_handed_out_ids: set[int] = set()


def written_in_place(array: Any) -> bool:
    """True when ``array`` was handed out by ``mutable_data`` (its values may change in
    place at any time): a cache keyed by an array's identity must not trust it."""
    try:
        return array in _handed_out
    except TypeError:
        return id(array) in _handed_out_ids


def _hand_out(array: Any) -> Any:
    try:
        _handed_out.add(array)
    except TypeError:
        _handed_out_ids.add(id(array))
    return array


def memory_reuse_rule() -> str:
    """The rule ``mutable_data`` follows now: ``"paddle_nb"`` (the default) or ``"paddle"``."""
    return _reuse_rule[0]


def set_memory_reuse_rule(rule: str) -> str:
    """Make ``mutable_data`` follow ``rule`` (one of :data:`REUSE_RULES`); return the rule
    it followed before. Process-wide: a setting for a lesson, not for a threaded server."""
    if rule not in REUSE_RULES:
        raise ValueError(f"set_memory_reuse_rule: expected one of {REUSE_RULES}, got {rule!r}")
    before, _reuse_rule[0] = _reuse_rule[0], rule
    return before


@contextlib.contextmanager
def memory_reuse(rule: str) -> Iterator[str]:
    """``with memory_reuse("paddle"):`` runs its body under PaddlePaddle's rule, then puts
    the rule before back.

    >>> t = LoDTensor()
    >>> block = t.mutable_data(CPUPlace(), "float32", (10, 10))
    >>> with memory_reuse("paddle"):
    ...     smaller = t.mutable_data(CPUPlace(), "float64", (5, 5))   # 200 bytes fit in 400
    >>> smaller.base is not None, t.nbytes, t.capacity
    (True, 200, 400)
    """
    before = set_memory_reuse_rule(rule)
    try:
        yield rule
    finally:
        set_memory_reuse_rule(before)


def redeliver_interrupt() -> None:
    """Deliver a Ctrl-C again, from a finalizer that caught it. Python ignores what a
    ``__del__`` raises, so a KeyboardInterrupt that lands in one (a garbage collection during
    a save or a run) would be lost; a helper thread hands it back to the main thread, which
    raises it as soon as the finalizer has returned (asked from the finalizer itself, it
    would be raised inside it, and lost again)."""
    try:
        _thread.start_new_thread(_interrupt_main_soon, ())   # (Thread.start would wait)
    except RuntimeError:          # the interpreter is shutting down: nothing to interrupt
        pass


def _interrupt_main_soon() -> None:
    time.sleep(0.005)             # long after the finalizer's last line
    _thread.interrupt_main()


class LoDTensor:
    """A lazily allocated array on a place, with optional sequence offsets (LoD).

    Invariant: ``data`` is None or an array of ``place.xp`` whose bytes are
    counted in :data:`~paddle_nb.core.memory.MEMORY` under ``place``. ``data`` and
    ``owner`` are plain attributes, read without checks (the executor reads ``data`` for
    every input, where a property would cost as much as the lookup); only this class and
    the owning Variable write them (``hold``, ``set`` and ``free`` keep the invariant).
    """

    __slots__ = ("data", "_place", "_lod", "owner", "_dead", "_block", "__weakref__")

    def __init__(self) -> None:
        self.data: Array | None = None     # the held array, or None
        self._place: Place = _CPU          # where data lives (the CPU while it holds none)
        self._lod: list[list[int]] = []
        # the core Variable that holds this tensor, for events and errors
        self.owner: Variable | None = None
        self._dead: str | None = None    # a message once the owning scope destroyed it
        # the block mutable_data allocated, while ``data`` is it or a view of it (the
        # "paddle" reuse rule hands out views); None when ``data`` came from elsewhere
        self._block: Array | None = None

    # -- allocation -------------------------------------------------------------------------
    def mutable_data(self, place: Place, dtype: Any, shape: Any) -> Array:
        """Return this tensor's array on ``place``, allocating it if needed (lazy allocation).

        The array is for writing into: the one way to change a tensor's array in place
        (``array()`` hands out the value, ``set`` replaces it)."""
        self._check_alive()
        if not isinstance(place, Place):
            raise TypeError(f"mutable_data: expected a Place, got {place!r}")
        dtype = convert_dtype(dtype)
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"mutable_data: shape {shape} of {self._who()} has a negative "
                             "dimension")
        array = self.data
        if array is not None and self._place == place and array.dtype == dtype \
                and array.shape == shape:
            return _hand_out(array)
        if _reuse_rule[0] == "paddle" and self._fits(place, dtype, shape):
            return _hand_out(self._view_of_block(self._block, dtype, shape))
        try:
            with place.device_guard():
                new = place.xp.empty(shape, dtype=dtype)
        except MemoryError as err:     # name what asked, not only NumPy's sizes
            nbytes = dtype.itemsize * int(numpy.prod(shape, dtype=object))
            raise OutOfMemoryError(
                f"mutable_data: could not allocate {nbytes} bytes for {self._who()} "
                f"({dtype}{list(shape)}) on {place!r}; the tensor keeps what it held") from err
        self.hold(new, place)
        self._block = new
        return _hand_out(new)

    def _fits(self, place: Place, dtype: numpy.dtype[Any], shape: tuple[int, ...]) -> bool:
        """PaddlePaddle's test: a block of this tensor's own, on ``place``, big enough."""
        block = self._block
        return block is not None and self._place == place \
            and block.nbytes >= dtype.itemsize * int(numpy.prod(shape, dtype=object))

    def _view_of_block(self, block: Array, dtype: numpy.dtype[Any],
                       shape: tuple[int, ...]) -> Array:
        """The first bytes of the held ``block`` seen as ``dtype`` and ``shape``; the memory
        counts do not change (the block stays allocated, as in PaddlePaddle)."""
        if block.dtype == dtype and block.shape == shape:
            view = block
        else:
            nbytes = dtype.itemsize * int(numpy.prod(shape, dtype=object))
            view = block.reshape(-1).view(numpy.uint8)[:nbytes].view(dtype).reshape(shape)
        self.data = view
        return view

    def set(self, array: Any, place: Place | None = None) -> LoDTensor:
        """Copy ``array`` (anything NumPy or CuPy accepts) into this tensor on ``place``.

        ``place`` defaults to the tensor's current place, or the CPU.
        """
        self._check_alive()
        place = place or self._place
        if isinstance(array, LoDTensor):
            lod = array._lod
            array = array.numpy() if array._place != place else array.data
            self._lod = [list(level) for level in lod]
        if place.is_gpu():
            xp = place.xp
            with place.device_guard():
                new = xp.array(array, copy=True)
        else:
            if hasattr(array, "get") and not isinstance(array, numpy.ndarray):
                array = array.get()       # a CuPy array: bring it to the host
            new = numpy.array(array, copy=True)
        if new.dtype == numpy.dtype(numpy.float64) and not _is_float64_source(array):
            new = new.astype(numpy.float32)   # Python floats become float32, as in Paddle
        convert_dtype(new.dtype)            # refuse dtypes paddle_nb cannot describe
        self.hold(new, place)
        return self

    def hold(self, array: Array, place: Place) -> None:
        """Take ``array`` as the value, without a copy (``set`` copies), keeping the memory
        counts right: the executor's write. Kernels never write into an array they were
        given (they return new ones), so an array held twice is never changed under anyone."""
        self.free()
        self.data = array
        self._place = place
        MEMORY.allocate(place, array.nbytes)
        if EVENTS.active:
            owner = self.owner
            EVENTS.emit("tensor_allocated", owner.made_in if owner else None,
                        name=owner.name if owner else None, place=place,
                        nbytes=array.nbytes, shape=array.shape, dtype=array.dtype)

    def free(self) -> None:
        """Give the memory back (the tensor becomes empty again)."""
        array = self.data
        if array is None:
            return
        if self._block is not None:      # a view of the block: the block is what goes back
            array, self._block = self._block, None
        self.data = None
        MEMORY.release(self._place, array.nbytes)
        if EVENTS.active:
            owner = self.owner
            EVENTS.emit("tensor_freed", owner.made_in if owner else None,
                        name=owner.name if owner else None, place=self._place,
                        nbytes=array.nbytes)

    def destroy(self, why: str) -> None:
        """Free the memory and make every later use raise ScopeDestroyedError (the owning
        Variable calls this when its scope destroys it)."""
        self.free()
        self._dead = why

    def __del__(self) -> None:
        try:
            if self.data is not None:
                held = self.data if self._block is None else self._block
                MEMORY.release(self._place, held.nbytes)
        except KeyboardInterrupt:
            redeliver_interrupt()
        except Exception:
            pass

    # -- reading ----------------------------------------------------------------------------
    @property
    def destroyed_why(self) -> str | None:
        """None while the tensor lives; after, why it was destroyed (for display)."""
        return self._dead

    def is_allocated(self) -> bool:
        self._check_alive()
        return self.data is not None

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The dimensions as a tuple, or None while nothing is allocated."""
        self._check_alive()
        return None if self.data is None else tuple(self.data.shape)

    @property
    def dtype(self) -> numpy.dtype[Any] | None:
        """A ``numpy.dtype``, or None while nothing is allocated."""
        self._check_alive()
        return None if self.data is None else self.data.dtype

    @property
    def place(self) -> Place | None:
        self._check_alive()
        return self._place if self.data is not None else None

    @property
    def nbytes(self) -> int:
        self._check_alive()
        return 0 if self.data is None else int(self.data.nbytes)

    @property
    def capacity(self) -> int:
        """The bytes this tensor holds: ``nbytes``, or more when, under PaddlePaddle's reuse
        rule, it sees a smaller request through the block it allocated first."""
        self._check_alive()
        if self.data is None:
            return 0
        return int(self.data.nbytes if self._block is None else self._block.nbytes)

    def array(self) -> Array:
        """The held array itself (NumPy or CuPy), without a copy: to read. Write through
        ``set`` or ``mutable_data``: kernels and caches take an array's identity for its
        values (:func:`written_in_place`)."""
        self._check_alive()
        if self.data is None:
            raise NotAllocatedError(f"{self._who()} holds no data yet: expected an allocated "
                                    "tensor (call mutable_data or set first)")
        return self.data

    def numpy(self) -> HostArray:
        """A host (NumPy) copy of the data."""
        array = self.array()
        if self._place.is_gpu():
            return array.get()
        return array.copy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> HostArray:
        data = self.numpy()
        return data if dtype is None else data.astype(dtype)

    # -- level of detail --------------------------------------------------------------------
    def lod(self) -> list[list[int]]:
        """The offset tables, one list per level (``[]`` when there are none)."""
        self._check_alive()
        return [list(level) for level in self._lod]

    def set_lod(self, lod: Any) -> None:
        """Set the offset tables; each starts at 0 and never decreases."""
        self._check_alive()
        lod = [[int(x) for x in level] for level in lod]
        for k, level in enumerate(lod):
            if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
                raise LoDError(f"LoD level {k} of {self._who()}: expected offsets starting at 0 "
                               f"and never decreasing, got {level}")
            if k + 1 < len(lod) and len(lod[k + 1]) != level[-1] + 1:
                raise LoDError(f"LoD level {k} of {self._who()} ends at {level[-1]}, so level "
                               f"{k + 1} needs {level[-1] + 1} offsets, got {len(lod[k + 1])}")
        if lod and self.data is not None and lod[-1][-1] != self.data.shape[0]:
            raise LoDError(f"LoD of {self._who()}: the last level ends at {lod[-1][-1]}, "
                           f"expected the first dimension {self.data.shape[0]}")
        self._lod = lod

    def recursive_sequence_lengths(self) -> list[list[int]]:
        """The LoD as sequence lengths: ``[[0, 2, 5]]`` -> ``[[2, 3]]``."""
        return [[b - a for a, b in zip(level, level[1:])] for level in self.lod()]

    def set_recursive_sequence_lengths(self, lengths: Any) -> None:
        lod = []
        for level in lengths:
            offsets = [0]
            for n in level:
                offsets.append(offsets[-1] + int(n))
            lod.append(offsets)
        self.set_lod(lod)

    # -- helpers ----------------------------------------------------------------------------
    def _who(self) -> str:
        owner = self.owner
        return f"the tensor of variable '{owner.name}'" if owner is not None else "this LoDTensor"

    def _check_alive(self) -> None:
        if self._dead is not None:
            owner = self.owner
            who = f"variable '{owner.name}'" if owner is not None else "this LoDTensor"
            raise ScopeDestroyedError(f"{who} was destroyed: {self._dead}")

    def __repr__(self) -> str:
        if self._dead is not None:
            return f"LoDTensor(<destroyed: {self._dead}>)"
        if self.data is None:
            return "LoDTensor(<not allocated>)"
        lod = f", lod={self._lod}" if self._lod else ""
        return (f"LoDTensor(shape={tuple(self.data.shape)}, dtype={self.data.dtype}, "
                f"place={self._place!r}{lod})")


def _is_float64_source(array: Any) -> bool:
    """True when the caller passed float64 data on purpose (not Python floats)."""
    dtype = getattr(array, "dtype", None)   # `None == dtype('float64')` is True in NumPy
    return dtype is not None and dtype == numpy.dtype(numpy.float64)
