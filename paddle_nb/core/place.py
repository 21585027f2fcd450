"""Places: where a tensor's memory lives.

A Place names a device: ``CPUPlace()`` (NumPy arrays) or ``GPUPlace(i)``
(CuPy arrays on CUDA device ``i``). Kernels never branch on the place; they
receive the place's array module ``xp`` (``numpy`` or ``cupy``) and call it.
CuPy is optional: without it, or without a device, ``gpu_available()`` is
False and using a GPUPlace raises a clear :class:`PlaceUnavailableError`.
"""

import contextlib
from types import ModuleType
from typing import Any

import numpy

from paddle_nb.errors import PlaceUnavailableError

__all__ = ["Place", "CPUPlace", "GPUPlace", "gpu_available", "cupy_or_none"]

# [module or None], filled on first use so that import stays light
_CUPY: list[ModuleType | None] = []


def cupy_or_none() -> ModuleType | None:
    """Return the ``cupy`` module when it imports and sees a device, else None."""
    if not _CUPY:
        try:
            import cupy
            cupy.cuda.runtime.getDeviceCount()
            _CUPY.append(cupy)
        except Exception:  # no cupy, no driver, no device: all mean "no GPU"
            _CUPY.append(None)
    return _CUPY[0]


def gpu_available() -> bool:
    """True when CuPy is installed and at least one CUDA device is visible."""
    cupy = cupy_or_none()
    if cupy is None:
        return False
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


class Place:
    """A device. Places compare equal by kind and device id.

    >>> CPUPlace() == CPUPlace(), CPUPlace() == GPUPlace(0)
    (True, False)
    """

    __slots__ = ("kind", "device_id", "_hash", "key")

    def __init__(self, kind: str, device_id: int = 0) -> None:
        self.kind = kind
        self.device_id = device_id
        # what equal places share: counters keyed by it are found without a Python-level
        # __hash__ and __eq__ (MEMORY counts every allocation)
        self.key = (kind, device_id)
        self._hash = hash(self.key)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Place) and self.kind == other.kind
                                 and self.device_id == other.device_id)

    def __hash__(self) -> int:
        return self._hash

    def is_gpu(self) -> bool:
        return self.kind == "gpu"

    @property
    def xp(self) -> ModuleType:
        """The array module whose arrays live on this place."""
        raise NotImplementedError

    def device_guard(self) -> contextlib.AbstractContextManager[Any]:
        """A context in which new arrays are made on this place's device."""
        return contextlib.nullcontext()


class CPUPlace(Place):
    """The host: tensors are NumPy arrays.

    >>> CPUPlace()
    CPUPlace()
    """

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("cpu", 0)

    @property
    def xp(self) -> ModuleType:
        return numpy

    def __repr__(self) -> str:
        return "CPUPlace()"


class GPUPlace(Place):
    """CUDA device ``device_id``: tensors are CuPy arrays.

    Making one always works; using it without CuPy or a device raises
    :class:`~paddle_nb.errors.PlaceUnavailableError` saying how to get CuPy.

    >>> GPUPlace(1)
    GPUPlace(1)
    """

    __slots__ = ()

    def __init__(self, device_id: int = 0) -> None:
        if not isinstance(device_id, int) or device_id < 0:
            raise ValueError(f"GPUPlace: device_id must be an int >= 0, got {device_id!r}")
        super().__init__("gpu", device_id)

    @property
    def xp(self) -> ModuleType:
        cupy = cupy_or_none()
        if cupy is None:
            raise PlaceUnavailableError(
                f"{self!r} needs CuPy and a CUDA device, and this machine has "
                f"{'CuPy but no visible device' if _cupy_installed() else 'no CuPy'}. "
                "Install the CuPy of your CUDA: `pip install -e '.[gpu]'` (CUDA 12), "
                "`pip install -e '.[gpu-cuda13]'` (CUDA 13) or `conda install -c conda-forge "
                "cupy`; or use pd.CPUPlace().")
        count = cupy.cuda.runtime.getDeviceCount()
        if self.device_id >= count:
            raise PlaceUnavailableError(
                f"{self!r}: expected a device id below {count} (devices visible), "
                f"got {self.device_id}")
        return cupy

    def device_guard(self) -> contextlib.AbstractContextManager[Any]:
        return self.xp.cuda.Device(self.device_id)

    def __repr__(self) -> str:
        return f"GPUPlace({self.device_id})"


def _cupy_installed() -> bool:
    import importlib.util
    return importlib.util.find_spec("cupy") is not None
