"""conv2d's forward paths from the image laid channels last: small images, filters laid at load.

conv.py's im2col reads an NCHW image, where a window's values come in runs of OW pixels: a 4x4
image copies thousands of runs of 4 values, and on small images that copy costs as much as the
GEMM. From the image laid channels last, (N, H', W', C), a window row of kw taps is one run of
kw*C values (:func:`columns_channels_last`). Three kernels read those columns:

- :func:`forward_channels_last`: a dense filter that the ``filter_layout`` pass stored laid
  (M, kh, kw, C) (:func:`channels_last` reads the layout from its strides), so that it is an
  (M, kh*kw*C) matrix for one GEMM without a copy;
- :func:`forward_by_taps`: the same filter over images of a few pixels (2x2), one GEMM per tap
  on the pixels that tap meets, skipping the products with padding (5/9 of them on a 2x2 image
  under a 3x3 filter), each tap's (M, C) block read in place from the laid filter;
- :func:`forward_depthwise`: a depthwise filter over a narrow output, one ``einsum`` along the
  channels.

NumPy only (the layout check says no for another array module): CuPy runs conv.py's forms.
Measured on the zoo's shapes, one thread, against conv.py's paths: see each function.
"""

from paddle_nb.ops.machinery.gemm import few_columns
from paddle_nb.ops.machinery.window import scratch, strided

__all__ = ["channels_last", "prefers_channels_last", "columns_channels_last",
           "forward_channels_last", "forward_by_taps", "depthwise_channels_last",
           "forward_depthwise", "DEPTHWISE_NARROW", "BY_TAPS_PIXELS", "BY_TAPS_BYTES"]

DEPTHWISE_NARROW = 8       # a depthwise filter runs forward_depthwise up to this output width
BY_TAPS_PIXELS = 4         # forward_by_taps: images of at most this many output pixels ...
BY_TAPS_BYTES = 1 << 20    # ... under a filter of at least this many bytes


def channels_last(xp, w):
    """Whether filter ``w`` (M, C, kh, kw) lies in memory as (M, kh, kw, C): the layout the
    ``filter_layout`` pass stores (a NumPy array whose strides say so; the values and shape are
    the filter's)."""
    return (xp.__name__ == "numpy" and w.shape[1] > 1 and w.shape[2] * w.shape[3] > 1
            and w.transpose(0, 2, 3, 1).flags.c_contiguous)


def prefers_channels_last(c, m, pixels):
    """Whether a dense convolution of ``c`` input and ``m`` output channels, ``pixels`` output
    pixels per image, runs faster with its filter channels last than on conv.py's im2col:
    measured on the zoo's 3x3 and 7x7 shapes, 0.55-0.93x the time on images of at most 64
    pixels and on large images of few output channels; slower (1.1-1.3x) with a few input
    channels (a network's first conv: runs of 3 values to copy)."""
    return c >= 16 and (pixels <= 64 or pixels >= 4 * m)


def columns_channels_last(xp, x, k_hw, strides, pads, dil, o_hw):
    """im2col of NCHW ``x`` from the image padded channels last: columns (N*OH*OW, kh, kw, C),
    N*OH*OW*kh runs of kw*C values to copy (conv.py's copies N*C*kh*kw runs of OW values)."""
    n, c, h, wd = x.shape
    padded = scratch(xp, (n, h + pads[0] + pads[1], wd + pads[2] + pads[3], c), x.dtype, "pad")
    if any(pads):
        padded.fill(0)
    padded[:, pads[0]:pads[0] + h, pads[2]:pads[2] + wd] = x.transpose(0, 2, 3, 1)
    sn, sh, sw, sc = padded.strides
    view = strided(
        xp, padded, (n, o_hw[0], o_hw[1]) + tuple(k_hw) + (c,),
        (sn, sh * strides[0], sw * strides[1], sh * dil[0], sw * dil[1], sc))
    cols = scratch(xp, view.shape, x.dtype)
    xp.copyto(cols, view)
    return cols.reshape((n * o_hw[0] * o_hw[1],) + tuple(k_hw) + (c,))


def _nchw(xp, y, n, m, o_hw):
    """(N, M, OH, OW) from a GEMM's (M, N*OH*OW) result (a view for one image)."""
    y = y.reshape((m, n) + tuple(o_hw))
    return y.reshape((1, m) + tuple(o_hw)) if n == 1 else xp.ascontiguousarray(
        y.transpose(1, 0, 2, 3))


def forward_channels_last(xp, x, w, strides, pads, dil, o_hw):
    """conv_forward for a filter laid (M, kh, kw, C) (:func:`channels_last`): the columns of
    :func:`columns_channels_last`, then one GEMM with the filter as an (M, kh*kw*C) matrix,
    oriented so that the longer side is BLAS's rows: (M, P) for a few pixels (for one image it
    is already NCHW), (P, M) for many. Images of a few pixels under a large filter go
    :func:`forward_by_taps`. ResNet-18 0.82x, PP-LiteSeg 0.88x, PP-HGNetV2 0.90x its time."""
    n, m = x.shape[0], w.shape[0]
    if o_hw[0] * o_hw[1] <= BY_TAPS_PIXELS and w.nbytes >= BY_TAPS_BYTES:
        return forward_by_taps(xp, x, w, strides, pads, dil, o_hw)
    cols = columns_channels_last(xp, x, w.shape[2:], strides, pads, dil, o_hw)
    cols, wm = cols.reshape(cols.shape[0], -1), w.transpose(0, 2, 3, 1).reshape(m, -1)
    if cols.shape[0] >= 2 * m:
        y = xp.matmul(cols, wm.T).reshape((n,) + tuple(o_hw) + (m,))
        return xp.ascontiguousarray(y.transpose(0, 3, 1, 2))
    return _nchw(xp, few_columns(xp, wm, cols.T), n, m, o_hw)


def _tap_span(size, tap, stride, pad0, dil, out):
    """(first, stop, row): the outputs [first, stop) whose input row ``o * stride + tap * dil
    - pad0`` is in the image, and the input row of ``first``."""
    off = tap * dil - pad0
    first = -(off // stride) if off < 0 else 0
    stop = min(out, (size - 1 - off) // stride + 1) if off < size else 0
    return first, stop, first * stride + off


def forward_by_taps(xp, x, w, strides, pads, dil, o_hw):
    """conv_forward as one GEMM per filter tap, over the pixels that tap meets: for tap (a, b),
    out[:, :, outputs it reaches] += w[:, :, a, b] (M, C) x those pixels (C, N*k). A 2x2 image
    under a 3x3 filter has 16 (output, pixel) pairs where im2col multiplies 36 (the others read
    padding); each tap's block is read once, in place, from the filter laid (M, kh, kw, C)
    (rows kh*kw*C apart: a matrix BLAS takes as it is). Measured on 2x2 images, filters of
    1.2-9.4 MB: 0.56-0.81x the time of :func:`forward_channels_last` (UNet's 512->512 0.56x);
    on a 0.9 MB filter or 4x4 images the fixed cost of nine GEMMs is more (1.8x)."""
    n, c, h, wd = x.shape
    m, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    image, taps = xp.ascontiguousarray(x.transpose(1, 0, 2, 3)), w.transpose(0, 2, 3, 1)
    out = xp.zeros((m, n) + tuple(o_hw), dtype=x.dtype)
    for a in range(kh):
        r0, r1, i0 = _tap_span(h, a, strides[0], pads[0], dil[0], o_hw[0])
        for b in range(kw):
            c0, c1, j0 = _tap_span(wd, b, strides[1], pads[2], dil[1], o_hw[1])
            if r1 <= r0 or c1 <= c0:
                continue
            seen = image[:, :, i0:i0 + (r1 - r0 - 1) * strides[0] + 1:strides[0],
                         j0:j0 + (c1 - c0 - 1) * strides[1] + 1:strides[1]]
            part = xp.matmul(taps[:, a, b, :], seen.reshape(c, -1))
            out[:, :, r0:r1, c0:c1] += part.reshape(m, n, r1 - r0, c1 - c0)
    return _nchw(xp, out, n, m, o_hw)


def depthwise_channels_last(xp, x, w, o_hw):
    """Whether a depthwise filter (one per channel, M = C) runs :func:`forward_depthwise`:
    NumPy, and a narrow output (at most DEPTHWISE_NARROW wide), where conv.py's im2col by rows
    computes many outputs past the edge (an 8x8 image under a 5x5 filter: 12 columns for 8)
    and its strided windows copy short runs. Measured: 0.43-0.8x the time at widths 2-8 (1.0x
    for a 3x3 filter at 8), 1.1-2x at widths 16-32 (the text lines' stride-(2, 1) filters);
    left out: fewer than 32 channels, one output pixel or one live tap (a few microseconds
    either way, and the fixed cost of this path is more)."""
    return (xp.__name__ == "numpy" and w.shape[1] == 1 and w.shape[0] == x.shape[1] >= 32
            and 1 < o_hw[0] * o_hw[1] and o_hw[1] <= DEPTHWISE_NARROW
            and w.shape[2] * w.shape[3] > 1)


def forward_depthwise(xp, x, w, strides, pads, dil, o_hw):
    """A depthwise convolution from channels-last columns (P, kh*kw, C): out[p, c] = sum over
    the taps t of cols[p, t, c] * w[c, t], one ``einsum`` whose inner loop runs along the
    channels. Measured on the zoo's small images (PicoDet's 5x5 filters on 8x8 to 2x2 images,
    MobileNetV2's 3x3 on 2x2, stride-2 filters) 0.43-0.82x the time of the stacked GEMMs;
    PicoDet 0.92x, MobileNetV2 ~0.9x."""
    n, c = x.shape[:2]
    cols = columns_channels_last(xp, x, w.shape[2:], strides, pads, dil, o_hw)
    taps = xp.ascontiguousarray(w.reshape(c, -1).T)
    y = xp.einsum("ptc,tc->pc", cols.reshape(cols.shape[0], -1, c), taps)
    return xp.ascontiguousarray(y.reshape((n,) + tuple(o_hw) + (c,)).transpose(0, 3, 1, 2))
