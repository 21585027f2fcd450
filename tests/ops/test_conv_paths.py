"""conv_forward's paths agree with a plain NumPy convolution: one GEMM per image, the batch in
one GEMM (small images, conv.MERGE_PIXELS; a large filter over a few pixels, gemm.blocked,
in row blocks), im2col by rows (stride 1, depthwise filters on wide images), depthwise
filters from channels-last columns (narrow images, strides) and over short images (the width's
columns, rows mixed by the filter), 1x1
filters read in place, groups and dilations, filter taps that see only padding left out."""

import numpy as np
import pytest

from paddle_nb.ops import conv, conv_channels_last, conv_depthwise
from paddle_nb.ops.machinery import gemm
from paddle_nb.ops.machinery.window import out_hw

rng = np.random.default_rng(11)


def reference(x, w, strides, pads, dil, groups):
    """Direct sums over the kernel window, in float64."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp_ = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    oh, ow = out_hw((h, wd), (kh, kw), strides, pads, dil)
    y = np.zeros((n, m, oh, ow))
    mg = m // groups
    for o in range(m):
        g = o // mg
        for i in range(kh):
            for j in range(kw):
                h0, w0 = i * dil[0], j * dil[1]
                patch = xp_[:, g * cg:(g + 1) * cg, h0:h0 + strides[0] * (oh - 1) + 1:strides[0],
                            w0:w0 + strides[1] * (ow - 1) + 1:strides[1]]
                y[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    return y


CASES = [  # x shape, w shape, strides, pads, dilations, groups
    ((3, 4, 5, 5), (6, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 4, 4, 6), (6, 2, 3, 3), (2, 1), (1, 0, 1, 2), (1, 1), 2),
    ((2, 3, 7, 7), (4, 3, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),
    ((2, 4, 3, 3), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4),
    ((2, 5, 1, 1), (7, 5, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 5, 3, 3), (7, 5, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 5, 4, 4), (7, 5, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    ((1, 4, 5, 5), (6, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 2, 12, 12), (3, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 3, 6, 5), (6, 1, 3, 2), (1, 1), (0, 2, 1, 0), (2, 1), 3),       # by rows, uneven pads
    ((1, 1, 5, 5), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),       # one channel: by rows
    # taps that read only padding (left out): thin images, big kernels, dilations, strides
    ((1, 6, 1, 8), (6, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 6),
    ((1, 6, 2, 7), (12, 1, 5, 5), (2, 1), (2, 2, 2, 2), (1, 1), 6),
    ((1, 4, 2, 6), (3, 4, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 1),
    ((1, 3, 2, 2), (2, 3, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),
    ((1, 3, 1, 3), (2, 3, 3, 3), (1, 2), (3, 1, 1, 2), (2, 1), 1),
    ((2, 3, 1, 1), (4, 3, 5, 5), (2, 2), (4, 1, 2, 3), (1, 1), 1),
    # depthwise from channels-last columns (narrow images, strides) and by rows (wide ones)
    ((2, 32, 6, 6), (32, 1, 3, 3), (2, 2), (1, 0, 1, 1), (1, 1), 32),
    ((1, 32, 5, 5), (32, 1, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 32),
    ((1, 32, 3, 20), (32, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 32),
    ((1, 4, 9, 18), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4),      # tall and wide: by rows
]

short = conv_depthwise.forward_short
SHORT = [  # depthwise over short images (conv_depthwise.forward_short)
    ((1, 6, 2, 20), (6, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 6),      # a text line's map
    ((2, 4, 3, 18), (8, 1, 3, 3), (2, 1), (1, 1, 1, 1), (1, 1), 4),      # two filters a channel
    ((1, 4, 4, 40), (4, 1, 3, 3), (1, 2), (1, 0, 2, 1), (2, 2), 4),      # rows no tap joins
    ((1, 3, 1, 18), (3, 1, 5, 3), (1, 1), (2, 2, 0, 0), (1, 1), 3),      # no width padding
    ((1, 3, 5, 16), (3, 1, 3, 1), (1, 1), (0, 0, 0, 0), (1, 1), 3),
]


def _forward_matches_the_reference(x, w, strides, pads, dil, groups):
    """conv_forward as it chooses gives the reference's sums, C-contiguous float32."""
    o_hw = out_hw(x.shape[2:], w.shape[2:], strides, pads, dil)
    got = conv.conv_forward(np, x, w, strides, pads, dil, o_hw, groups)
    assert got.shape == (x.shape[0], w.shape[0]) + tuple(o_hw) and got.dtype == np.float32
    assert got.flags.c_contiguous
    np.testing.assert_allclose(got, reference(x, w, strides, pads, dil, groups), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("crop, block", [(1, 16), (conv.CROP_COLUMNS, gemm.BLOCK_BYTES)],
                         ids=["crop-all-blocks", "defaults"])
@pytest.mark.parametrize("merge", [0, conv.MERGE_PIXELS], ids=["per-image", "merged"])
@pytest.mark.parametrize("xs, ws, strides, pads, dil, groups", CASES)
def test_conv_forward_paths(monkeypatch, merge, crop, block, xs, ws, strides, pads, dil, groups):
    monkeypatch.setattr(conv, "MERGE_PIXELS", merge)
    monkeypatch.setattr(conv, "MERGE_FILTER_BYTES", 0)      # the small filters here merge too
    monkeypatch.setattr(conv, "CROP_COLUMNS", crop)
    monkeypatch.setattr(gemm, "BLOCK_BYTES", block)     # 16: every filter counts as large
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    _forward_matches_the_reference(x, w, strides, pads, dil, groups)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs, ws, strides, pads, dil, groups", SHORT)
def test_depthwise_over_short_images(monkeypatch, dtype, xs, ws, strides, pads, dil, groups):
    """A depthwise filter over an image at most twice its (live) height, at least 16 outputs
    wide, runs conv_depthwise.forward_short (the width's columns, the rows mixed by the filter):
    the reference's sums in float32 and float64, C-contiguous."""
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    o_hw = out_hw(x.shape[2:], w.shape[2:], strides, pads, dil)
    ran = []
    monkeypatch.setattr(conv, "forward_short", lambda *a: ran.append(a) or short(*a))
    got = conv.conv_forward(np, x, w, strides, pads, dil, o_hw, groups)
    assert ran, "conv_forward took another form"
    assert got.dtype == dtype and got.flags.c_contiguous
    np.testing.assert_allclose(got, reference(x, w, strides, pads, dil, groups),
                               rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_which_depthwise_filters_count_as_short():
    w = np.zeros((8, 1, 3, 3), np.float32)
    short = conv_depthwise.serves
    assert short(np.zeros((1, 8, 6, 20), np.float32), w, (6, 20))
    assert not short(np.zeros((1, 8, 7, 20), np.float32), w, (7, 20))     # taller than 2 x 3
    assert not short(np.zeros((1, 8, 6, 8), np.float32), w, (6, 8))       # narrow
    assert not short(np.zeros((1, 8, 6, 20), np.float32), np.zeros((8, 2, 3, 3)), (6, 20))


def test_live_taps_bound_the_taps_that_see_pixels():
    """Brute force over small geometries: every tap outside [first, stop) reads only padding,
    and the padding left above stays >= 0."""
    from paddle_nb.ops.machinery.window import live_taps, out_size
    for size in range(1, 5):
        for k in range(1, 6):
            for stride in (1, 2, 3):
                for pad0 in range(0, 4):
                    for dil in (1, 2):
                        out = out_size(size, k, stride, pad0, pad0, dil)
                        if out <= 0:
                            continue
                        first, stop = live_taps(size, k, stride, pad0, dil, out)
                        assert pad0 - first * dil >= 0
                        for i in [*range(first), *range(stop, k)]:
                            rows = [o * stride + i * dil - pad0 for o in range(out)]
                            assert all(r < 0 or r >= size for r in rows), (size, k, i)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 9])
def test_few_columns_in_row_blocks(monkeypatch, n):
    """gemm.few_columns equals matmul, on the blocked path (2..FEW columns of a large left
    operand, blocks of 100 rows and a shorter last one) and off it."""
    monkeypatch.setattr(gemm, "BLOCK_BYTES", 100 * 30 * 4)
    a = rng.standard_normal((650, 30)).astype(np.float32)
    b = rng.standard_normal((30, n)).astype(np.float32)
    assert gemm.blocked(np, a.nbytes, n) == (2 <= n <= gemm.FEW)
    got = gemm.few_columns(np, a, b)
    assert got.shape == (650, n) and got.dtype == np.float32
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def channels_last(w):
    """``w`` with the same shape and values, laid (M, kh, kw, C) in memory."""
    return np.ascontiguousarray(w.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


@pytest.mark.parametrize("xs, ws, strides, pads, dil, groups",
                         [c for c in CASES if c[5] == 1 and c[1][1] > 1 and c[1][2] * c[1][3] > 1]
                         + [((1, 4, 2, 2), (40, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
                            ((2, 3, 9, 9), (2, 3, 3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 1),
                            ((2, 3, 2, 2), (5, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
                            ((1, 3, 3, 2), (5, 3, 3, 2), (2, 1), (2, 1, 0, 1), (2, 1), 1)])
@pytest.mark.parametrize("by_taps", [0, conv_channels_last.BY_TAPS_BYTES],
                         ids=["by-taps-any-filter", "defaults"])
def test_a_filter_laid_channels_last(monkeypatch, by_taps, xs, ws, strides, pads, dil, groups):
    """A filter whose memory is (M, kh, kw, C) (the filter_layout pass's) runs the channels-last
    im2col, in both GEMM orientations (few pixels: (M, P); many: (P, M)), or one GEMM per tap
    on images of a few pixels, with the same sums."""
    monkeypatch.setattr(conv_channels_last, "BY_TAPS_BYTES", by_taps)
    x = rng.standard_normal(xs).astype(np.float32)
    w = channels_last(rng.standard_normal(ws).astype(np.float32))
    assert conv.channels_last(np, w) and not w.flags.c_contiguous
    _forward_matches_the_reference(x, w, strides, pads, dil, groups)


def test_which_filters_count_as_channels_last():
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    assert not conv.channels_last(np, w) and conv.channels_last(np, channels_last(w))
    one_by_one = rng.standard_normal((4, 3, 1, 1)).astype(np.float32)   # both layouts are one
    assert not conv.channels_last(np, channels_last(one_by_one))
    assert conv.prefers_channels_last(64, 64, 64) and not conv.prefers_channels_last(3, 64, 64)
    assert not conv.prefers_channels_last(128, 128, 256)


def test_which_depthwise_filters_go_channels_last():
    x = np.zeros((1, 32, 8, 8), np.float32)
    w = np.zeros((32, 1, 3, 3), np.float32)
    narrow = conv_channels_last.depthwise_channels_last
    assert narrow(np, x, w, (8, 8))
    assert not narrow(np, x, w, (8, 16))                  # wide: by rows
    assert not narrow(np, x, w, (1, 1))                   # one pixel
    assert not narrow(np, x[:, :16], w[:16], (8, 8))      # few channels


@pytest.mark.gpu
def test_depthwise_over_short_images_on_the_device(device):
    """forward_short uses only ``xp`` calls: on CuPy (or the fake, which refuses NumPy arrays in
    device code) it gives the CPU's sums, including the zero tap of rows no filter row joins."""
    for xs, ws, strides, pads, dil, _ in SHORT:
        x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(
            np.float32)
        o_hw = out_hw(x.shape[2:], w.shape[2:], strides, pads, dil)
        cpu = short(np, x, w, strides, pads, dil, o_hw)
        got = short(device, device.asarray(x), device.asarray(w), strides, pads, dil, o_hw)
        np.testing.assert_allclose(device.asnumpy(got), cpu, rtol=1e-5, atol=1e-5)
