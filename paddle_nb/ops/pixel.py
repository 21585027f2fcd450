"""Rearranging pixels: ``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``,
``temporal_shift``.

Each is a reshape, a transpose and a reshape, so each gradient is the inverse
rearrangement of Out@GRAD. pixel_shuffle (factor r) turns C * r * r channels
into an image r times larger: channel c * r * r + i * r + j becomes pixel
(h * r + i, w * r + j) of channel c; pixel_unshuffle undoes it. channel_shuffle
(g groups) reads the channels as a (g, C / g) grid and writes them transposed,
so that grouped convolutions that follow mix the groups; its inverse is the
same shuffle with C / g groups. temporal_shift (video models) reads X as
[N, T, C, H, W] segments and moves some channels one segment along T.
"""

from collections.abc import Callable
from typing import Any

from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.window import one_of

__all__ = ["shuffle_pixels", "unshuffle_pixels", "shuffle_channels"]

LAYOUT = Attr("str", "NCHW", one_of("NCHW", "NHWC"))


def _positive(v):
    return None if v >= 1 else "must be at least 1"


def shuffle_pixels(x, r, nhwc):
    """(N, C*r*r, H, W) -> (N, C, H*r, W*r) (or the NHWC forms)."""
    if nhwc:
        n, h, w, c = x.shape
        y = x.reshape(n, h, w, c // (r * r), r, r).transpose(0, 1, 4, 2, 5, 3)
        return y.reshape(n, h * r, w * r, c // (r * r))
    n, c, h, w = x.shape
    y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


def unshuffle_pixels(x, r, nhwc):
    """(N, C, H*r, W*r) -> (N, C*r*r, H, W) (or the NHWC forms): shuffle_pixels undone."""
    if nhwc:
        n, h, w, c = x.shape
        y = x.reshape(n, h // r, r, w // r, r, c).transpose(0, 1, 3, 5, 2, 4)
        return y.reshape(n, h // r, w // r, c * r * r)
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * r * r, h // r, w // r)


def shuffle_channels(x, groups, nhwc):
    """Channels read as a (groups, C / groups) grid, written transposed."""
    if nhwc:
        n, h, w, c = x.shape
        return x.reshape(n, h, w, groups, c // groups).swapaxes(3, 4).reshape(x.shape)
    n, c, h, w = x.shape
    return x.reshape(n, groups, c // groups, h, w).swapaxes(1, 2).reshape(x.shape)


def _rank4(x):
    if len(x.shape) != 4:
        fail(f"X must be a 4-D tensor, got shape {tuple(x.shape)}")


def _nchw(shape, data_format):
    return (shape[0], shape[3], shape[1], shape[2]) if data_format == "NHWC" else tuple(shape)


def _back(shape, data_format):
    return (shape[0], shape[2], shape[3], shape[1]) if data_format == "NHWC" else tuple(shape)


def _shuffle_infer(x, *, upscale_factor, data_format):
    _rank4(x)
    n, c, h, w = _nchw(x.shape, data_format)
    r = upscale_factor
    if c >= 0 and c % (r * r):
        fail(f"X's {c} channels must be divisible by upscale_factor^2 = {r * r} "
             f"(X shape {tuple(x.shape)}, {data_format})")
    out = (n, c // (r * r) if c >= 0 else -1, h * r if h >= 0 else -1, w * r if w >= 0 else -1)
    return x.with_shape(_back(out, data_format))


def _unshuffle_infer(x, *, downscale_factor, data_format):
    _rank4(x)
    n, c, h, w = _nchw(x.shape, data_format)
    r = downscale_factor
    if (h >= 0 and h % r) or (w >= 0 and w % r):
        fail(f"X's height and width must be divisible by downscale_factor = {r} "
             f"(X shape {tuple(x.shape)}, {data_format})")
    out = (n, c * r * r if c >= 0 else -1, h // r if h >= 0 else -1, w // r if w >= 0 else -1)
    return x.with_shape(_back(out, data_format))


def _channel_infer(x, *, groups, data_format):
    _rank4(x)
    c = _nchw(x.shape, data_format)[1]
    if c >= 0 and c % groups:
        fail(f"groups={groups} does not divide X's {c} channels (X shape {tuple(x.shape)}, "
             f"{data_format})")
    return x


def _grad_infer(op_type, attr):
    """The grad op's X@GRAD: X's shape, worked back from Out@GRAD by the inverse op's rule."""
    inverse: dict[str, Callable[..., Any]] = {"pixel_shuffle": _unshuffle_infer,
                                              "pixel_unshuffle": _shuffle_infer}
    other = {"upscale_factor": "downscale_factor", "downscale_factor": "upscale_factor"}

    def infer(dout, **attrs):
        if op_type == "channel_shuffle":
            return dout
        return inverse[op_type](dout, **{other[attr]: attrs[attr],
                                         "data_format": attrs["data_format"]})
    return infer


def _register(op_type, attr, infer, forward, backward, doc):
    attrs = {attr: Attr("int", 1, _positive), "data_format": LAYOUT}
    register(OpDef(
        op_type, inputs=["X"], outputs=["Out"], attrs=attrs, infer=infer,
        kernel=lambda ctx, x, **a: forward(x, a[attr], a["data_format"] == "NHWC"),
        grad=grad_op(op_type + "_grad", inputs=()), doc=doc))
    register(OpDef(
        op_type + "_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
        infer=_grad_infer(op_type, attr),
        kernel=lambda ctx, dout, **a: backward(dout, a[attr], a["data_format"] == "NHWC"),
        doc=f"the gradient of {op_type}: Out@GRAD rearranged back"))


_register("pixel_shuffle", "upscale_factor", _shuffle_infer, shuffle_pixels, unshuffle_pixels,
          "Out = X [N, C*r*r, H, W] rearranged into [N, C, H*r, W*r]")
_register("pixel_unshuffle", "downscale_factor", _unshuffle_infer, unshuffle_pixels,
          shuffle_pixels, "Out = X [N, C, H*r, W*r] rearranged into [N, C*r*r, H, W]")


def _channel_grad(dout, groups, nhwc):
    c = dout.shape[3 if nhwc else 1]
    return shuffle_channels(dout, c // groups, nhwc)


_register("channel_shuffle", "groups", _channel_infer, shuffle_channels, _channel_grad,
          "Out = X with its channels read as a (groups, C/groups) grid and written transposed")


# ---- temporal_shift ----

def _temporal(x, seg_num, shift_ratio, nhwc, backward):
    """Shift the first C * r channels one segment back in time (out[t] = x[t - 1]), the next
    C * r forward (out[t] = x[t + 1]), zeros coming in; ``backward`` shifts the other way
    (the gradient)."""
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    nt, c, h, w = x.shape
    v = x.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out = v.copy()
    first, second = (slice(None, c1), slice(c1, c2))
    back, fwd = (second, first) if backward else (first, second)
    out[:, :, back] = 0
    out[:, 1:, back] = v[:, :-1, back]
    out[:, :, fwd] = 0
    out[:, :-1, fwd] = v[:, 1:, fwd]
    out = out.reshape(nt, c, h, w)
    return out.transpose(0, 2, 3, 1) if nhwc else out


def _temporal_infer(x, *, seg_num, shift_ratio, data_format):
    _rank4(x)
    if x.shape[0] >= 0 and x.shape[0] % seg_num:
        fail(f"X's first dimension {x.shape[0]} (N * seg_num) must be divisible by "
             f"seg_num={seg_num}")
    return x


TEMPORAL_ATTRS = {"seg_num": Attr("int", 1, _positive),
                  "shift_ratio": Attr("float", 0.25, lambda v: None if 0 <= v <= 0.5 else
                                      "must be in [0, 0.5]"),
                  "data_format": LAYOUT}

register(OpDef(
    "temporal_shift", inputs=["X"], outputs=["Out"], attrs=TEMPORAL_ATTRS,
    infer=_temporal_infer,
    kernel=lambda ctx, x, **a: _temporal(x, a["seg_num"], a["shift_ratio"],
                                         a["data_format"] == "NHWC", False),
    grad=grad_op("temporal_shift_grad", inputs=()),
    doc="Out = X [N*T, C, H, W] with C*r channels shifted one segment back in time and C*r "
        "forward"))
register(OpDef(
    "temporal_shift_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=TEMPORAL_ATTRS,
    infer=lambda dout, **a: dout,
    kernel=lambda ctx, dout, **a: _temporal(dout, a["seg_num"], a["shift_ratio"],
                                            a["data_format"] == "NHWC", True),
    doc="the gradient of temporal_shift: Out@GRAD shifted the other way"))
