"""A depthwise convolution over short images: im2col along the width only, the rows mixed by
the filter.

conv.py's depthwise forms copy every live filter tap's windows (kh * kw copies of the image, or
of its rows): on a text line's 2-row feature map a 5x5 filter has 15 live taps, so the columns
are 15 times the image, and that copy is most of the convolution's time. When the image is
about as short as the filter is tall, every output row reads (nearly) every input row, and the
filter can do the mixing of rows instead: per channel

    out[o, p] = sum over input rows r and width taps b of  F[o, (b, r)] * x[r, p * sw + b * dw]

where F[o, (b, r)] is the filter's tap (a, b) for the row a that joins output row o to input
row r (``a * dh = r - o * sh + top``), or 0 where none does. The columns (b, r, p) are kw copies
of the image (the width shifts; :func:`width_columns`), and F is gathered from the filter per
run (a few thousand values). Per channel it is one (OH, kw*H) x (kw*H, OW) GEMM, stacked over
the channels; the output comes out NCHW, with no padded rows and no crop. It computes the
products with padding rows as zeros when the image is taller than the live filter rows, so it
serves short images (:func:`serves`). Only ``xp`` calls: NumPy and CuPy share it.
"""

import functools

import numpy

from paddle_nb.ops.machinery.window import scratch, strided

__all__ = ["serves", "forward_short", "row_taps", "SHORT_ROWS", "SHORT_WIDTH"]

SHORT_ROWS = 2      # serves images of at most this many times the filter's (live) rows ...
SHORT_WIDTH = 16    # ... and outputs at least this wide (narrower: conv_channels_last's einsum)


def serves(x, w, o_hw):
    """Whether :func:`forward_short` runs depthwise filter ``w`` (one input channel per group)
    over ``x``: an image of at most SHORT_ROWS times the filter's rows (the filter as cropped to
    its live taps) and an output at least SHORT_WIDTH wide.

    Measured, one thread, against conv.py's forms (im2col by rows at stride 1, windows
    otherwise): 0.52x the time on a text line's 2x32 map under a 5x5 filter (256 channels),
    0.5-0.9x on 1- to 6-row maps 32-100 wide (3x3 and 5x5, strides 1 and (2, 1)); 1.0-1.1x
    on an 8-row map under a 3x3 filter, 1.5-2.7x on 14x14 and 56x56 maps (not served)."""
    return (w.shape[1] == 1 and x.shape[2] <= SHORT_ROWS * w.shape[2]
            and o_hw[1] >= SHORT_WIDTH)


@functools.lru_cache(maxsize=512)
def row_taps(h, kh, kw, stride, top, dil, oh):
    """(index, full): for each output row o and column (b, r) of the GEMM, the flat filter tap
    ``a * kw + b`` that joins output row o to input row r, or ``kh * kw`` where none does;
    ``full`` says no entry is ``kh * kw`` (every output row reads every input row). An (OH, kw*H)
    integer array, built once per geometry."""
    index = numpy.full((oh, kw, h), kh * kw, dtype=numpy.intp)
    for o in range(oh):
        for r in range(h):
            a, off = divmod(r - o * stride + top, dil)
            if off == 0 and 0 <= a < kh:
                index[o, :, r] = a * kw + numpy.arange(kw)
    index.setflags(write=False)
    return index.reshape(oh, kw * h), bool((index < kh * kw).all())


def width_columns(xp, x, kw, strides, pads, dil, ow):
    """Columns (N, C, kw*H, OW) of ``x`` padded left and right: row (b, r) holds image row r
    shifted by width tap b (every width window, no row padding). Copied from a strided view of
    the padded image (the "pad" scratch) into the "cols" scratch."""
    n, c, h, wd = x.shape
    left, right = pads[2], pads[3]
    if left or right:
        padded = scratch(xp, (n, c, h, wd + left + right), x.dtype, "pad")
        padded.fill(0)      # one pass over a short image: cheaper than two strided fills
        padded[..., left:left + wd] = x
    else:
        padded = x
    sn, sc, sh, sw = padded.strides
    view = strided(xp, padded, (n, c, kw, h, ow), (sn, sc, sw * dil[1], sh, sw * strides[1]))
    cols = scratch(xp, view.shape, x.dtype)
    xp.copyto(cols, view)
    return cols.reshape(n, c, kw * h, ow)


def forward_short(xp, x, w, strides, pads, dil, o_hw):
    """conv_forward of a depthwise filter ``w`` (M, 1, kh, kw), M a multiple of the C channels,
    over short images: one (M/C*OH, kw*H) x (kw*H, OW) GEMM per channel (the module's text)."""
    n, c, h, _ = x.shape
    m, _, kh, kw = w.shape
    cols = width_columns(xp, x, kw, strides, pads, dil, o_hw[1])
    index, full = row_taps(h, kh, kw, strides[0], pads[0], dil[0], o_hw[0])
    taps = w.reshape(m, kh * kw)
    if not full:        # a zero tap for the (output row, input row) pairs no filter row joins
        taps = xp.concatenate([taps, xp.zeros((m, 1), dtype=w.dtype)], axis=1)
    mixed = taps.take(xp.asarray(index), axis=1).reshape(c, m // c * o_hw[0], kw * h)
    return xp.matmul(mixed, cols).reshape((n, m) + tuple(o_hw))
