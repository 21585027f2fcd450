"""Previews of a tensor's values: a table when small, a heat-map when large.

A small array (at most ``max_cells`` values) prints as an HTML table. A large
one is drawn as a heat-map, an inline PNG (a ``data:`` URI, made here with
zlib: no image library, no network), one pixel per value or per block of
values. NaN and infinities are never hidden: NaN cells are magenta, +Inf
white, -Inf black, and the caption counts them.
"""

import base64
import struct
import zlib

import numpy

from paddle_nb.viz.style import esc, fmt_bytes, fmt_shape

__all__ = ["preview", "summary", "heatmap_png"]

NAN_RGB = (255, 0, 255)
POS_INF_RGB = (255, 255, 255)
NEG_INF_RGB = (0, 0, 0)
# A perceptual ramp (viridis, five anchors): low values dark blue, high values yellow.
RAMP = numpy.array([(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)],
                   dtype=numpy.float64)


def preview(array, max_cells=100, max_side=256):
    """HTML showing ``array``'s values: a table up to ``max_cells`` values, else a heat-map.

    >>> html = preview(numpy.array([[1.0, numpy.nan], [numpy.inf, 4.0]]))
    >>> 'data-preview="table"' in html, 'class="pnb-nan"' in html, 'class="pnb-inf"' in html
    (True, True, True)
    """
    a = numpy.asarray(array)
    head = f'<div class="pnb-muted">{esc(summary(a))}</div>'
    if a.size == 0:
        return f'<div data-preview="empty">{head}</div>'
    if a.size <= max_cells:
        return f'<div data-preview="table">{head}{_table(a)}</div>'
    return f'<div data-preview="heatmap">{head}{_heatmap(a, max_side)}</div>'


def summary(a):
    """One line: dtype, shape, bytes, range of the finite values, NaN/Inf counts.

    >>> summary(numpy.array([1.0, numpy.nan, -numpy.inf], dtype="float32"))
    'float32[3], 12 B; finite values in [1, 1], mean 1; NaN: 1, -Inf: 1'
    """
    text = f"{a.dtype}{fmt_shape(a.shape)}, {fmt_bytes(a.nbytes)}"
    if a.size == 0 or a.dtype.kind not in "fiub":
        return text
    x = a.astype(numpy.float64)
    finite = numpy.isfinite(x)
    if finite.any():
        f = x[finite]
        text += f"; finite values in [{f.min():.4g}, {f.max():.4g}], mean {f.mean():.4g}"
    counts = [("NaN", int(numpy.isnan(x).sum())), ("+Inf", int(numpy.isposinf(x).sum())),
              ("-Inf", int(numpy.isneginf(x).sum()))]
    marks = [f"{k}: {n}" for k, n in counts if n]
    return text + ("; " + ", ".join(marks) if marks else "")


def _as_2d(a):
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    return a.reshape(-1, a.shape[-1])


def _cell(v):
    if isinstance(v, (numpy.floating, float)):
        if numpy.isnan(v):
            return '<td class="pnb-nan">nan</td>'
        if numpy.isinf(v):
            return f'<td class="pnb-inf">{"+" if v > 0 else "-"}inf</td>'
        return f"<td>{v:.4g}</td>"
    return f"<td>{esc(v)}</td>"


def _table(a):
    rows = _as_2d(a)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    return f'<table class="pnb-values">{body}</table>'


def _pooled(x, max_side):
    """Shrink a 2-D float array to at most ``max_side`` per side by block means (one block
    size for both axes, so the picture keeps the array's proportions).

    A block holding a NaN stays NaN, and one holding an Inf (and no NaN) stays that Inf,
    so that a single bad value still shows in the picture.
    """
    rows, cols = x.shape
    fy = fx = max(-(-rows // max_side), -(-cols // max_side))
    if fy == 1 and fx == 1:
        return x, 1, 1
    pad = numpy.full((-(-rows // fy) * fy, -(-cols // fx) * fx), numpy.nan)
    mask = numpy.zeros(pad.shape, bool)
    pad[:rows, :cols] = x
    mask[:rows, :cols] = True
    blocks = pad.reshape(pad.shape[0] // fy, fy, pad.shape[1] // fx, fx).swapaxes(1, 2)
    valid = mask.reshape(blocks.shape[0], fy, blocks.shape[1], fx).swapaxes(1, 2)
    flat, ok = blocks.reshape(*blocks.shape[:2], -1), valid.reshape(*blocks.shape[:2], -1)
    finite = numpy.isfinite(flat) & ok
    sums = numpy.where(finite, flat, 0.0).sum(-1)
    n = finite.sum(-1)
    out = numpy.divide(sums, n, out=numpy.zeros_like(sums), where=n > 0)
    out[(numpy.isposinf(flat) & ok).any(-1)] = numpy.inf
    out[(numpy.isneginf(flat) & ok).any(-1)] = -numpy.inf
    out[(numpy.isnan(flat) & ok).any(-1)] = numpy.nan
    return out, fy, fx


def _colours(x):
    """An (H, W, 3) uint8 image of ``x``: the ramp over the finite range, NaN/Inf marked."""
    finite = numpy.isfinite(x)
    lo, hi = (x[finite].min(), x[finite].max()) if finite.any() else (0.0, 1.0)
    t = numpy.zeros_like(x) if hi == lo else (numpy.where(finite, x, lo) - lo) / (hi - lo)
    pos = t * (len(RAMP) - 1)
    k = numpy.clip(pos.astype(int), 0, len(RAMP) - 2)
    frac = (pos - k)[..., None]
    rgb = RAMP[k] * (1 - frac) + RAMP[k + 1] * frac
    rgb[numpy.isnan(x)] = NAN_RGB
    rgb[numpy.isposinf(x)] = POS_INF_RGB
    rgb[numpy.isneginf(x)] = NEG_INF_RGB
    return numpy.round(rgb).astype(numpy.uint8)


def heatmap_png(array, max_side=256):
    """PNG bytes of ``array`` as a heat-map (2-D view; block means beyond ``max_side``)."""
    x = _as_2d(numpy.asarray(array)).astype(numpy.float64)
    pooled, _, _ = _pooled(x, max_side)
    return _png(_colours(pooled))


def _png(rgb):
    """Encode an (H, W, 3) uint8 image as PNG (8-bit RGB, no filtering)."""
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b""))


def _heatmap(a, max_side):
    x = _as_2d(a).astype(numpy.float64)
    pooled, fy, fx = _pooled(x, max_side)
    data = base64.b64encode(_png(_colours(pooled))).decode("ascii")
    height, width = pooled.shape
    scale = max(1, min(8, 320 // max(width, 1), 240 // max(height, 1)))
    shown_w, shown_h = width * scale, max(height * scale, 12)
    block = f"{min(fy, x.shape[0])}x{min(fx, x.shape[1])}"
    pooled_note = f", each pixel the mean of {block} values" if fy > 1 else ""
    caption = (f"shown as {x.shape[0]}x{x.shape[1]}{pooled_note}; dark blue low, yellow high; "
               "NaN magenta, +Inf white, -Inf black")
    return (f'<img class="pnb-heat" alt="heat-map of {esc(fmt_shape(a.shape))}" '
            f'width="{shown_w}" height="{shown_h}" '
            f'src="data:image/png;base64,{data}"/><div class="pnb-muted">{esc(caption)}</div>')
