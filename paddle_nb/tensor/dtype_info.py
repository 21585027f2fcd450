"""``paddle.finfo``, ``paddle.iinfo`` and ``paddle.dtype``: what a dtype can hold.

PaddlePaddle 2.6's ``finfo(dtype)`` describes a floating-point dtype (``bits``, ``eps``,
``min``, ``max``, ``tiny`` = ``smallest_normal``, ``resolution``, and ``dtype``, its name),
``iinfo(dtype)`` an integer one (``bits``, ``min``, ``max``, ``dtype``). paddle_nb's dtypes are
NumPy's (``paddle.float32`` is ``numpy.dtype("float32")``), so ``paddle.dtype`` is
``numpy.dtype`` and the numbers come from NumPy; bfloat16, which NumPy lacks, from its
definition (8 exponent bits, 7 mantissa bits).

>>> finfo("float32").eps, iinfo("uint8").max
(1.1920928955078125e-07, 255)
"""

from __future__ import annotations

import numpy

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.errors import OperandError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike

__all__ = ["finfo", "iinfo", "dtype"]

dtype = numpy.dtype     # the class of paddle.float32, paddle.int64, ... (isinstance checks)

_BFLOAT16 = dict(bits=16, eps=2.0 ** -7, max=3.3895313892515355e+38, tiny=2.0 ** -126,
                 resolution=0.01)


class finfo:    # noqa: N801 (PaddlePaddle's name)
    """The limits of a floating-point dtype (float16, bfloat16, float32, float64)."""

    def __init__(self, dtype: DTypeLike) -> None:
        if str(dtype).replace("paddle.", "") == "bfloat16":
            numbers, self.dtype = _BFLOAT16, "bfloat16"
        else:
            found = _dtype("finfo", dtype, "f")
            info, self.dtype = numpy.finfo(found), found.name
            numbers = dict(bits=info.bits, eps=float(info.eps), max=float(info.max),
                           tiny=float(info.tiny), resolution=10.0 ** -int(info.precision))
        self.bits, self.eps, self.max = numbers["bits"], numbers["eps"], numbers["max"]
        self.min, self.resolution = -numbers["max"], numbers["resolution"]
        self.tiny = self.smallest_normal = numbers["tiny"]

    def __repr__(self) -> Any:
        return (f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, "
                f"eps={self.eps}, smallest_normal={self.tiny}, bits={self.bits}, "
                f"dtype={self.dtype})")


class iinfo:    # noqa: N801 (PaddlePaddle's name)
    """The limits of an integer dtype (uint8, int8, int16, int32, int64)."""

    def __init__(self, dtype: DTypeLike) -> None:
        found = _dtype("iinfo", dtype, "iu")
        info = numpy.iinfo(found)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), \
            found.name

    def __repr__(self) -> Any:
        return f"iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


def _dtype(function: str, given: Any, kinds: str) -> Any:
    kind_names = {"f": "a floating-point dtype (float16, bfloat16, float32, float64)",
                  "iu": "an integer dtype (uint8, int8, int16, int32, int64)"}
    try:
        found = convert_dtype(given)
    except Exception:
        found = None
    if found is None or found.kind not in kinds or found.name == "uint64" \
            or found.name.startswith("uint") and found.name != "uint8":
        raise OperandError(f"paddle.{function}: expected {kind_names[kinds]}, got {given!r}")
    return found
