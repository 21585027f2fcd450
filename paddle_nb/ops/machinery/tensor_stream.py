"""PaddlePaddle's binary format for one tensor, as ``save`` / ``save_combine`` write it.

A tensor is: uint32 version (0); the LoD as a uint64 level count and, per
level, a uint64 byte size and that many uint64 offsets; uint32 version (0);
an int32 byte size of a ``VarType.TensorDesc`` message; the message; the raw
little-endian data. A ``.pdiparams`` file is such tensors back to back,
sorted by variable name. Sizes are checked before anything is allocated, so
a corrupt file gives a clear error, never a huge allocation.
"""

import io
import struct
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy

from paddle_nb.core.dtypes import from_var_type, to_var_type
from paddle_nb.errors import ProtoDecodeError
from paddle_nb.proto import framework_pb2

__all__ = ["read_tensor", "write_tensor"]

_MAX_DESC = 1 << 20


_CHUNK = 1 << 24
_MAX_DIMS = 32


def _read(f: IO[bytes], n: int, name: str, what: str) -> bytes:
    if n <= _CHUNK:
        data = f.read(n)
    else:                      # a stream whose size is unknown: never ask for more at once
        parts, left = [], n
        while left:
            part = f.read(min(left, _CHUNK))
            if not part:
                break
            parts.append(part)
            left -= len(part)
        data = b"".join(parts)
    if len(data) != n:
        raise ProtoDecodeError(f"{name}: the file ends inside {what} (wanted {n} bytes, "
                               f"got {len(data)})")
    return data


def read_tensor(f: IO[bytes], name: str = "tensor", limit: int | None = None,
                check: Callable[..., Any] | None = None) -> tuple[numpy.ndarray, list[list[int]]]:
    """(array, lod) read from a binary stream ``f``; ``limit`` caps the data bytes.

    Without ``limit``, a seekable stream's remaining size caps them. ``check(dtype, dims,
    nbytes)``, when given, is called with what the header claims before the data is read
    (a loader compares it with the variable's declaration and raises).
    """
    if limit is None:
        limit = _remaining(f)
    (version,) = struct.unpack("<I", _read(f, 4, name, "the LoD version"))
    if version != 0:
        raise ProtoDecodeError(f"{name}: LoD version {version}, expected 0")
    (levels,) = struct.unpack("<Q", _read(f, 8, name, "the LoD level count"))
    if levels > 64:
        raise ProtoDecodeError(f"{name}: {levels} LoD levels, expected at most 64")
    lod = []
    for _ in range(levels):
        (size,) = struct.unpack("<Q", _read(f, 8, name, "a LoD level size"))
        if size % 8 or size > (limit or 1 << 31):
            raise ProtoDecodeError(f"{name}: LoD level of {size} bytes is not valid")
        lod.append(list(numpy.frombuffer(_read(f, size, name, "a LoD level"), "<u8")))
    (version,) = struct.unpack("<I", _read(f, 4, name, "the tensor version"))
    if version != 0:
        raise ProtoDecodeError(f"{name}: tensor version {version}, expected 0")
    (size,) = struct.unpack("<i", _read(f, 4, name, "the TensorDesc size"))
    if not 0 <= size <= _MAX_DESC:
        raise ProtoDecodeError(f"{name}: TensorDesc size {size} is not valid")
    desc = framework_pb2.VarType.TensorDesc()
    try:
        desc.ParseFromString(_read(f, size, name, "the TensorDesc"))
    except Exception as err:
        raise ProtoDecodeError(f"{name}: cannot decode its TensorDesc: {err}") from None
    if not desc.HasField("data_type"):
        raise ProtoDecodeError(f"{name}: its TensorDesc has no data type paddle_nb knows")
    try:
        dtype = from_var_type(desc.data_type)
    except TypeError as err:
        raise ProtoDecodeError(f"{name}: {err}") from None
    dims = list(desc.dims)
    if len(dims) > _MAX_DIMS:
        raise ProtoDecodeError(f"{name}: its TensorDesc has {len(dims)} dims, expected at most "
                               f"{_MAX_DIMS}")
    if any(d < 0 for d in dims):
        raise ProtoDecodeError(f"{name}: stored dims {dims} contain a negative size")
    if any(d >= 1 << 48 for d in dims):
        raise ProtoDecodeError(f"{name}: stored dims {dims} hold a size no tensor can have")
    count = 1
    for d in dims:
        count *= d
    nbytes = count * dtype.itemsize
    if limit is not None and nbytes > limit:
        raise ProtoDecodeError(f"{name}: dims {dims} need {nbytes} bytes but only {limit} remain")
    if check is not None:
        check(dtype, dims, nbytes)
    data = _read(f, nbytes, name, f"the data of shape {dims}")
    try:
        array = numpy.frombuffer(data, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(dims)
    except ValueError as err:          # e.g. [0, 2**40, 2**40]: no data, yet too big a shape
        raise ProtoDecodeError(f"{name}: stored dims {dims} are not a shape NumPy can hold: "
                               f"{err}") from None
    return array, [[int(x) for x in level] for level in lod]


def _remaining(f: IO[bytes]) -> int | None:
    """Bytes left in a seekable stream ``f``, or None when it cannot tell."""
    try:
        if not f.seekable():
            return None
        here = f.tell()
        end = f.seek(0, io.SEEK_END)
        f.seek(here)
    except (AttributeError, OSError, ValueError):
        return None
    return max(end - here, 0)


def write_tensor(f: IO[bytes], array: numpy.ndarray, lod: Sequence[Sequence[int]] = ()) -> None:
    """Write ``array`` (and its LoD) in PaddlePaddle's tensor format to stream ``f``."""
    array = numpy.asarray(array)
    if array.ndim:      # (ascontiguousarray would make a 0-D array 1-D; 2.x saves dims [])
        array = numpy.ascontiguousarray(array)
    f.write(struct.pack("<I", 0))
    f.write(struct.pack("<Q", len(lod)))
    for level in lod:
        data = numpy.asarray(level, dtype="<u8").tobytes()
        f.write(struct.pack("<Q", len(data)))
        f.write(data)
    f.write(struct.pack("<I", 0))
    desc = framework_pb2.VarType.TensorDesc(data_type=to_var_type(array.dtype), dims=array.shape)
    blob = desc.SerializeToString()
    f.write(struct.pack("<i", len(blob)))
    f.write(blob)
    f.write(array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes())


def tensor_bytes(array: numpy.ndarray, lod: Sequence[Sequence[int]] = ()) -> bytes:
    buf = io.BytesIO()
    write_tensor(buf, array, lod)
    return buf.getvalue()
