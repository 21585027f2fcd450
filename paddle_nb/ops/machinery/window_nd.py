"""Window geometry in any number of spatial dimensions (the 3-D ops use it).

window.py holds the 2-D version that conv2d and pool2d are tuned around; this
module says the same things for a tuple of spatial sizes, so that conv3d,
pool3d, unfold and fold share one statement of them: the output length of a
sliding window, "SAME"/"VALID" paddings, the strided view of every window
(no copy), and one strided slice per kernel position for running reductions
and col2im. Paddings come as ``[p0, p1, ...]`` (one per dimension, both
sides) or ``[p0_before, p0_after, p1_before, ...]``.
"""

import itertools

from paddle_nb.ops.machinery.registry import fail
from paddle_nb.ops.machinery.window import out_size, strided

__all__ = ["expand_paddings", "resolve_padding_nd", "out_sizes", "channel_last",
           "to_channel_first", "from_channel_first", "channel_first_shape",
           "channel_last_shape", "pad_nd", "windows_nd", "slices_nd", "kernel_positions"]


def expand_paddings(paddings, n):
    """[before, after] per dimension, flat: ``[1, 2]`` (n=2) -> ``[1, 1, 2, 2]``.

    >>> expand_paddings([1, 2, 3], 3), expand_paddings([0, 1, 2, 3], 2)
    ([1, 1, 2, 2, 3, 3], [0, 1, 2, 3])
    """
    if len(paddings) == n:
        return [p for v in paddings for p in (v, v)]
    if len(paddings) == 2 * n:
        return list(paddings)
    fail(f"paddings needs {n} or {2 * n} values, got {list(paddings)}")


def resolve_padding_nd(sizes, ksize, strides, paddings, dilations, algorithm):
    """(flat pads, dilations) after ``padding_algorithm``: SAME makes out = ceil(in / stride)
    (the extra on the far side) with dilations 1; VALID pads nothing."""
    n = len(sizes)
    pads = expand_paddings(paddings, n)
    if algorithm == "VALID":
        return (0,) * (2 * n), tuple(dilations)
    if algorithm == "SAME":
        for i, (size, k, s) in enumerate(zip(sizes, ksize, strides)):
            total = max((-(-size // s) - 1) * s + k - size, 0) if size >= 0 else 0
            pads[2 * i:2 * i + 2] = [total // 2, total - total // 2]
        return tuple(pads), (1,) * n
    return tuple(pads), tuple(dilations)


def out_sizes(sizes, ksize, strides, pads, dilations=None, ceil_mode=False, what="Input",
              truncate=False):
    """The windows' output sizes; fails, naming ``what``, when an input is too small."""
    dilations = dilations or (1,) * len(sizes)
    out = tuple(out_size(sizes[i], ksize[i], strides[i], pads[2 * i], pads[2 * i + 1],
                         dilations[i], ceil_mode, truncate) for i in range(len(sizes)))
    if any(size >= 0 and o <= 0 for size, o in zip(sizes, out)):
        fail(f"{what} of spatial size {tuple(sizes)} is too small for a {tuple(ksize)} window "
             f"with paddings {tuple(pads)}, dilations {tuple(dilations)}: the output would be "
             f"{out}")
    return out


# ---- layouts: kernels work channel-first; channel-last is transposed in and out (views) ----

def channel_last(data_format):
    """NHWC, NDHWC, NLC, NWC put the channels last; everything else (NCHW, NCDHW, and the
    "NCHW" conv3d_transpose writes) first."""
    return data_format in ("NHWC", "NDHWC", "NLC", "NWC")


def to_channel_first(x, data_format):
    if not channel_last(data_format):
        return x
    return x.transpose((0, x.ndim - 1) + tuple(range(1, x.ndim - 1)))


def from_channel_first(x, data_format):
    if not channel_last(data_format):
        return x
    return x.transpose((0,) + tuple(range(2, x.ndim)) + (1,))


def channel_first_shape(shape, data_format):
    shape = tuple(shape)
    return shape if not channel_last(data_format) else (shape[0], shape[-1]) + shape[1:-1]


def channel_last_shape(shape, data_format):
    """A channel-first shape written in ``data_format``."""
    shape = tuple(shape)
    return shape if not channel_last(data_format) else (shape[0],) + shape[2:] + (shape[1],)


# ---- arrays ----

def pad_nd(xp, x, pads, value=0):
    """x (N, C, *spatial) padded on its spatial axes by flat (before, after) pairs."""
    if not any(pads):
        return x
    n = x.ndim - 2
    shape = x.shape[:2] + tuple(x.shape[2 + i] + pads[2 * i] + pads[2 * i + 1]
                                for i in range(n))
    out = xp.full(shape, value, x.dtype)
    out[(Ellipsis,) + tuple(slice(pads[2 * i], pads[2 * i] + x.shape[2 + i])
                            for i in range(n))] = x
    return out


def windows_nd(xp, x, ksize, strides, dilations, outs):
    """A strided view (N, C, *ksize, *outs) of every window of padded ``x`` (no copy)."""
    n = x.ndim - 2
    for i in range(n):
        if (outs[i] - 1) * strides[i] + dilations[i] * (ksize[i] - 1) + 1 > x.shape[2 + i]:
            raise ValueError(f"{tuple(outs)} windows of {tuple(ksize)} do not fit in an array "
                             f"of shape {tuple(x.shape)}")
    st = x.strides
    shape = tuple(x.shape[:2]) + tuple(ksize) + tuple(outs)
    steps = (st[0], st[1]) + tuple(st[2 + i] * dilations[i] for i in range(n)) + \
        tuple(st[2 + i] * strides[i] for i in range(n))
    return strided(xp, x, shape, steps)


def kernel_positions(ksize):
    """Every kernel position, in row-major order: (0, 0, 0), (0, 0, 1), ..."""
    return itertools.product(*(range(k) for k in ksize))


def slices_nd(x, pos, strides, dilations, outs):
    """The strided view (..., *outs) of the pixels kernel position ``pos`` sees in ``x``."""
    index = tuple(slice(p * d, p * d + s * (o - 1) + 1, s)
                  for p, s, d, o in zip(pos, strides, dilations, outs))
    return x[(Ellipsis,) + index]
