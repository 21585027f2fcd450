"""Window geometry shared by convolution and pooling: sizes, paddings, strided views.

A 2-D window op slides a kh x kw window (its taps spaced by ``dilations``,
moved by ``strides``) over an image padded by ``paddings`` ([h, w] or
[top, bottom, left, right]; ``padding_algorithm`` "SAME" or "VALID" computes
them instead). The windows of an NCHW image are one strided *view*
(:func:`windows`, no copy), copied once into a reused work array
(:func:`scratch`) when a GEMM needs columns; putting window values back (col2im)
is :func:`add_windows`, one strided slice per kernel position. Shape rules use
the same arithmetic as kernels, with -1 (unknown) staying unknown.
"""

import math
import threading

from paddle_nb.ops.machinery.registry import Attr, fail

__all__ = ["pair_check", "positive", "both", "one_of", "WINDOW_ATTRS", "out_size",
           "resolve_padding", "out_hw", "nchw_shape", "from_nchw_shape", "to_nchw", "from_nchw",
           "rank4", "windows", "pad", "scratch", "window_slices", "add_windows",
           "adaptive_bounds", "live_taps", "row_windows", "strided"]


# ---- attribute checks ----

def pair_check(name, lengths=(2,)):
    def check(v):
        if len(v) not in lengths:
            return f"{name} needs {' or '.join(map(str, lengths))} values, got {len(v)}"
        return None
    return check


def positive(v):
    return None if all(i > 0 for i in v) else "every value must be positive"


def both(*checks):
    return lambda v: next((p for p in (c(v) for c in checks) if p), None)


def one_of(*names):
    return lambda v: None if v in names else f"expected one of {list(names)}"


WINDOW_ATTRS = {
    "strides": Attr("ints", [1, 1], both(pair_check("strides"), positive)),
    "paddings": Attr("ints", [0, 0], pair_check("paddings", (2, 4)),
                     comment="[h, w] or [top, bottom, left, right]"),
    "padding_algorithm": Attr("str", "EXPLICIT", one_of("EXPLICIT", "SAME", "VALID")),
    "data_format": Attr("str", "NCHW", one_of("NCHW", "NHWC", "AnyLayout")),
}


# ---- sizes and paddings (-1 = unknown stays unknown) ----

def out_size(size, k, stride, pad0, pad1, dilation=1, ceil_mode=False, truncate=False):
    """Output length of a window sliding over ``size``.

    ``truncate`` divides as C++ does (toward zero), as PaddlePaddle's pool2d does: a window
    larger than the (padded) input then still gives one output, over the part that exists.

    >>> out_size(5, 3, 2, 1, 1), out_size(5, 2, 2, 0, 0, ceil_mode=True), out_size(-1, 3, 1, 0, 0)
    (3, 3, -1)
    >>> out_size(2, 3, 2, 0, 0), out_size(2, 3, 2, 0, 0, truncate=True)
    (0, 1)
    """
    if size < 0:
        return -1
    span = size + pad0 + pad1 - (dilation * (k - 1) + 1) + (stride - 1 if ceil_mode else 0)
    steps = -(-span // stride) if truncate and span < 0 else span // stride
    return steps + 1


def resolve_padding(hw, ksize, strides, paddings, dilations, algorithm):
    """(top, bottom, left, right) and dilations after ``padding_algorithm``, as Paddle does.

    SAME pads so that out = ceil(in / stride) (extra on the bottom/right) and sets
    dilations to 1; VALID pads nothing.

    >>> resolve_padding((5, 5), (2, 2), (2, 2), [0, 0], [1, 1], "SAME")
    ((0, 1, 0, 1), (1, 1))
    """
    pads = list(paddings) if len(paddings) == 4 else [paddings[0]] * 2 + [paddings[1]] * 2
    if algorithm == "VALID":
        return (0, 0, 0, 0), tuple(dilations)
    if algorithm == "SAME":
        for i, (size, k, s) in enumerate(zip(hw, ksize, strides)):
            total = max((-(-size // s) - 1) * s + k - size, 0) if size >= 0 else 0
            pads[2 * i:2 * i + 2] = [total // 2, total - total // 2]
        return tuple(pads), (1, 1)
    return tuple(pads), tuple(dilations)


def out_hw(hw, ksize, strides, pads, dilations=(1, 1), ceil_mode=False, what="Input",
           truncate=False):
    """(OH, OW) of the windows; fails, naming ``what``, when an image is too small."""
    out = tuple(out_size(hw[i], ksize[i], strides[i], pads[2 * i], pads[2 * i + 1],
                         dilations[i], ceil_mode, truncate) for i in range(2))
    if any(size >= 0 and o <= 0 for size, o in zip(hw, out)):
        fail(f"{what} of spatial size {tuple(hw)} is too small for a {tuple(ksize)} window with "
             f"paddings {pads}, dilations {tuple(dilations)}: the output would be {out}")
    return out


# ---- layouts: kernels work in NCHW; NHWC is transposed in and out (views, no copy) ----

def nchw_shape(shape, data_format):
    return shape if data_format != "NHWC" else (shape[0], shape[3], shape[1], shape[2])


def from_nchw_shape(shape, data_format):
    return shape if data_format != "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def to_nchw(x, data_format):
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def from_nchw(x, data_format):
    return x.transpose(0, 2, 3, 1) if data_format == "NHWC" else x


def rank4(slot, meta):
    if len(meta.shape) != 4:
        fail(f"{slot} must be a 4-D tensor, got shape {tuple(meta.shape)}")


# ---- strided windows ----

def strided(xp, x, shape, steps):
    """``as_strided(x, shape, steps)``: a view of ``x``'s memory (no copy). For a C-contiguous
    NumPy array it is the ndarray constructor over x's buffer, which also refuses a view that
    leaves the buffer: ~0.5 us against as_strided's ~3.5 (a model's convolutions and pools
    each take one or two views a run). Other arrays (a strided view, CuPy's) go as_strided."""
    if xp.__name__ == "numpy" and x.flags.c_contiguous and x.size:
        return xp.ndarray(shape, x.dtype, x, 0, steps)
    return xp.lib.stride_tricks.as_strided(x, shape, steps)


def windows(xp, x, ksize, strides, dilations, out_hw):
    """A strided view (N, C, kh, kw, OH, OW) of every window of padded ``x`` (no copy).

    A strided view may not check bounds (as_strided does not), so the extent is checked here.
    """
    for i in range(2):
        if (out_hw[i] - 1) * strides[i] + dilations[i] * (ksize[i] - 1) + 1 > x.shape[2 + i]:
            raise ValueError(f"{tuple(out_hw)} windows of {tuple(ksize)} do not fit in an image "
                             f"of shape {tuple(x.shape)}")
    sn, sc, sh, sw = x.strides
    shape = tuple(x.shape[:2]) + tuple(ksize) + tuple(out_hw)
    steps = (sn, sc, sh * dilations[0], sw * dilations[1], sh * strides[0], sw * strides[1])
    return strided(xp, x, shape, steps)


def row_windows(xp, x, ksize, dilations, out_h):
    """For stride 1: a strided view (N, C, kh, kw, OH * W) of padded ``x`` (N, C, H, W), each
    tap's windows as one contiguous run of whole image rows (no copy).

    Tap (i, j) of output pixel (o, p) reads x[o + i*dh, p + j*dw]: on the image laid flat,
    offset (i*dh) * W + j*dw + (o * W + p). So the OH x W grid of outputs, W - OW columns
    of them past the right edge (garbage, cropped by the caller), reads one run of OH * W
    values per tap. Copying runs of a few hundred values is much faster than OW-long pieces
    (:func:`windows`). The last tap's run passes the last row by (kw - 1) * dw values: x
    must have a spare row at the bottom (pad it by one more).
    """
    n, c, h, w = x.shape
    run = out_h * w
    if (ksize[0] - 1) * dilations[0] * w + (ksize[1] - 1) * dilations[1] + run > h * w:
        raise ValueError(f"rows of {out_h} windows of {tuple(ksize)} do not fit in an image of "
                         f"shape {tuple(x.shape)} (it needs a spare row)")
    sn, sc, sh, sw = x.strides
    return strided(xp, x, (n, c, ksize[0], ksize[1], run),
                   (sn, sc, sh * dilations[0], sw * dilations[1], sw))


def pad(xp, x, pads, value=0, reuse=False):
    """x with its last two axes padded by (top, bottom, left, right), filled with ``value``.

    A filled array with x written into its middle: cheaper than ``xp.pad``'s general
    machinery. ``reuse=True`` writes into the "pad" :func:`scratch` array, for a caller
    that consumes the result before returning (im2col).
    """
    if not any(pads):
        return x
    h, w = x.shape[-2:]
    shape = x.shape[:-2] + (h + pads[0] + pads[1], w + pads[2] + pads[3])
    if reuse:
        out = scratch(xp, shape, x.dtype, "pad")
        out.fill(value)
    else:
        out = xp.full(shape, value, x.dtype)
    out[..., pads[0]:pads[0] + h, pads[2]:pads[2] + w] = x
    return out


_SCRATCH = threading.local()


def scratch(xp, shape, dtype, slot="cols"):
    """A work array of ``shape`` reused across calls (one per thread, array module and slot).

    im2col columns are big (kh * kw times the image) and die at the end of the kernel;
    allocating them afresh costs page faults on every run. Only one caller may hold a
    slot at a time: take it, fill it, use it, and do not return it.
    """
    nbytes = int(math.prod(shape)) * dtype.itemsize   # dtype: an array's .dtype (also CuPy's)
    bufs = _SCRATCH.__dict__.setdefault("bufs", {})
    key = (xp.__name__, slot)
    buf = bufs.get(key)
    if buf is None or buf.nbytes < nbytes:
        buf = bufs[key] = xp.empty(max(nbytes, 1), dtype=xp.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)


def window_slices(x, ksize, strides, dilations, out_hw):
    """For each kernel position (i, j): the strided view (..., OH, OW) of the pixels it sees.

    Looping over the kh * kw positions (never over windows) keeps each step a
    whole-array operation: pooling is a running max or sum of these views.
    """
    (oh, ow), (sh, sw) = out_hw, strides
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            h0, w0 = i * dilations[0], j * dilations[1]
            yield i, j, x[..., h0:h0 + sh * (oh - 1) + 1:sh, w0:w0 + sw * (ow - 1) + 1:sw]


def add_windows(dst, block, ksize, strides, dilations, out_hw):
    """col2im: add ``block(i, j)`` (..., OH, OW) into the padded image ``dst``, in place.

    One strided slice per kernel position (kh * kw of them), each adding a whole
    block: the overlaps of neighbouring windows add up. ``block`` is a function so
    that callers lay their columns out as suits them (contiguous per position).
    """
    for i, j, view in window_slices(dst, ksize, strides, dilations, out_hw):
        view += block(i, j)
    return dst


def adaptive_bounds(size, out):
    """Adaptive pooling's windows: starts floor(i*size/out), ends ceil((i+1)*size/out).

    >>> adaptive_bounds(5, 3)
    ([0, 1, 3], [2, 4, 5])
    """
    return ([(i * size) // out for i in range(out)],
            [-(-((i + 1) * size) // out) for i in range(out)])


def live_taps(size, k, stride, pad0, dilation, out):
    """[first, stop) of the kernel taps along one axis that can see a pixel of the image.

    Tap i reads rows o * stride + i * dilation - pad0 (o < out); a tap whose rows all
    fall in the padding contributes nothing, and a convolution may leave it out (a 3x3
    filter over a 1x1 image: only its centre). ``first`` never passes ``pad0 // dilation``
    so that the padding left on top stays >= 0.

    >>> live_taps(1, 3, 1, 1, 1, 1), live_taps(2, 5, 1, 2, 1, 2), live_taps(8, 3, 1, 1, 1, 8)
    ((1, 2), (1, 4), (0, 3))
    """
    first = max(0, -(-(pad0 - (out - 1) * stride) // dilation))
    stop = min(k, (size - 1 + pad0) // dilation + 1)
    return min(first, pad0 // dilation), max(stop, 0)


def live_window(hw: tuple, k_hw: tuple, strides: tuple, pads: tuple, dil: tuple,
                o_hw: tuple) -> tuple | None:
    """(rows, columns, pads) of the taps of a 2-D filter that meet a pixel, as slices, with
    the paddings that keep every window on the same pixels; None when every tap is live or
    the cropped windows would not give the same output size ``o_hw``. conv2d crops with it at
    run time, the crop_dead_taps pass once at load."""
    kept, new_pads = [], []
    for a in range(2):
        first, stop = live_taps(hw[a], k_hw[a], strides[a], pads[2 * a], dil[a], o_hw[a])
        if stop <= first:
            return None
        top = pads[2 * a] - first * dil[a]
        span = (stop - first - 1) * dil[a] + 1
        bottom = max(0, (o_hw[a] - 1) * strides[a] + span - top - hw[a])
        if (hw[a] + top + bottom - span) // strides[a] + 1 != o_hw[a]:
            return None
        kept.append(slice(first, stop))
        new_pads += [top, bottom]
    if all(s.stop - s.start == k for s, k in zip(kept, k_hw)):
        return None
    return kept[0], kept[1], tuple(new_pads)
