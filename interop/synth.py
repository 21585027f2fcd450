"""Parameters and inputs made from their names: the same numbers in any process, with NumPy alone.

The corpus (``interop/make_corpus.py``) commits PaddlePaddle's programs but not their
parameters: VGG's or AlexNet's weights would be hundreds of megabytes. Instead both sides
overwrite every persistable variable with :func:`synth_params`, so a committed model is its
``.pdmodel`` plus its inputs and PaddlePaddle's outputs. This module imports neither paddle nor
paddle_nb, so PaddlePaddle's venv (NumPy 1.26) and paddle_nb's (NumPy 2.x) both run it.

The numbers come from ``numpy.random.Generator(PCG64(crc32(name)))``: PCG64's stream and
``Generator.random`` (float32: the top 24 bits of a 32-bit draw, times 2**-24) are stable
across NumPy versions, and ``crc32`` (unlike ``hash``) is the same in every process. Each
range keeps a deep network finite: a weight is uniform in +-sqrt(3 / fan_in), so that a layer
keeps the variance of its input; a scale or a variance lies in [0.5, 1.5]; a bias or a mean is
within +-0.1.
"""

import hashlib
import zlib

import numpy as np

__all__ = ["synth_params", "synth_input", "generator", "Digest"]


def generator(key):
    """The random generator of ``key`` (a string): the same draws in every process."""
    return np.random.Generator(np.random.PCG64(zlib.crc32(key.encode("utf-8"))))


def _uniform(key, shape, low, high):
    """float32 uniform in [low, high), computed in float32 so that both sides round alike."""
    u = generator(key).random(tuple(int(d) for d in shape), dtype=np.float32)
    u *= np.float32(high - low)          # in place: VGG's classifier alone is 100M values
    u += np.float32(low)
    return u


def _fan_in(name, shape):
    """The inputs one output sums over: a filter [out, in/groups, k...] sums over all but
    dim 0, and so does a recurrent cell's weight [gates * hidden, in]; a Linear weight
    [in, out] sums over dim 0 (PaddlePaddle stores it input-major)."""
    if len(shape) >= 3 or "_cell_" in name:
        return int(np.prod(shape[1:]))
    return int(shape[0]) if shape else 1


def _range(name, shape):
    """(low, high) for the variable ``name`` of ``shape``, by what its name says it is."""
    lowered = name.lower()
    if "variance" in lowered or lowered.endswith(".w_2"):     # BatchNorm's running variance
        return 0.5, 1.5
    if "mean" in lowered or (lowered.endswith(".w_1") and len(shape) == 1):
        return -0.1, 0.1                                      # BatchNorm's running mean
    if len(shape) <= 1:
        # a bias (``.b_0``) is small; a 1-D weight is a norm's scale (or PReLU's alpha)
        return (-0.1, 0.1) if ".b_" in lowered or "bias" in lowered else (0.5, 1.5)
    a = float(np.sqrt(3.0 / max(_fan_in(name, shape), 1)))
    return -a, a


def synth_params(name, shape, dtype="float32"):
    """The value of persistable variable ``name``: see the module docstring for the ranges.

    Integer variables are not made here (callers keep what the startup program wrote).

    >>> v = synth_params("conv2d_0.w_0", [4, 3, 3, 3])
    >>> v.dtype, v.shape, bool(abs(v).max() < (3 / 27) ** 0.5)
    (dtype('float32'), (4, 3, 3, 3), True)
    >>> bool((synth_params("conv2d_0.w_0", [4, 3, 3, 3]) == v).all())
    True
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"synth_params makes floating-point values; '{name}' is {dtype}")
    low, high = _range(name, shape)
    return _uniform(name, shape, low, high).astype(dtype, copy=False)


def synth_input(key, shape, dtype="float32", high=None):
    """An input: floats uniform in [-1, 1), or integers in [0, ``high``) (token ids, labels)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return _uniform(key, shape, -1.0, 1.0).astype(dtype, copy=False)
    if high is None:
        raise ValueError(f"synth_input: integer input '{key}' needs high=")
    return generator(key).integers(0, int(high), tuple(int(d) for d in shape)).astype(dtype)


class Digest:
    """A SHA-256 of values' first elements: the corpus stores one per program, so that a side
    whose NumPy draws other numbers says so instead of differing later. The first 4096
    elements of each value are enough to tell, and hashing VGG's 500 MB whole is not cheap."""

    def __init__(self):
        self._sha = hashlib.sha256()

    def update(self, value):
        self._sha.update(np.ascontiguousarray(value).reshape(-1)[:4096].tobytes())
        return self

    def hexdigest(self):
        return self._sha.hexdigest()
