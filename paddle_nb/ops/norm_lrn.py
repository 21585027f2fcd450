"""``lrn``: local response normalization across channels (AlexNet's), with its grad.

Each value is divided by a power of the energy of its neighbours across channels:
MidOut = k + alpha * sum(X[c']^2 for c' in the window of n channels around c),
Out = X * MidOut^-beta. The window of channel c runs from c - (n-1)//2 for n
channels (cut at the edges; n is odd, as PaddlePaddle requires). The grad sums, for
each channel, over the windows that contain it: the same window sum, mirrored.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = []

LRN_ATTRS = {
    "n": Attr("int", 5, lambda v: None if v > 0 and v % 2 else "must be odd and > 0",
              comment="the window size, centred on each channel"),
    "k": Attr("float", 2.0, comment="the bias"),
    "alpha": Attr("float", 1e-4, comment="the scale of the sum of squares"),
    "beta": Attr("float", 0.75, comment="the power"),
    "data_format": Attr("str", "AnyLayout", lambda v: None if v in ("AnyLayout", "NCHW", "NHWC")
                        else "expected 'NCHW' or 'NHWC'"),
}


def _channel_axis(data_format):
    return 3 if data_format == "NHWC" else 1


def window_sum(xp, a, n, before, axis):
    """out[c] = sum(a[c - before : c - before + n]) along ``axis``, the range cut at the
    edges: a running sum over a zero-padded copy."""
    a = xp.moveaxis(a, axis, -1)
    pad = [(0, 0)] * (a.ndim - 1) + [(before + 1, n - 1 - before)]
    run = xp.cumsum(xp.pad(a, pad), axis=-1)
    out = run[..., n:] - run[..., :-n]
    return xp.moveaxis(out, -1, axis)


def _lrn_infer(x, *, n, k, alpha, beta, data_format):
    if len(x.shape) != 4:
        fail(f"X must be 4-D ([N, C, H, W] or NHWC), got shape {tuple(x.shape)}")
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x, x


def _lrn_kernel(ctx, x, *, n, k, alpha, beta, data_format):
    xp = ctx.xp
    mid = k + alpha * window_sum(xp, x * x, n, (n - 1) // 2, _channel_axis(data_format))
    return (x * mid ** -beta).astype(x.dtype, copy=False), mid.astype(x.dtype, copy=False)


def _lrn_grad_kernel(ctx, x, out, mid, dout, *, n, k, alpha, beta, data_format):
    xp = ctx.xp
    axis = _channel_axis(data_format)
    # d out_j / d x_i = [i == j] mid_j^-beta - 2 alpha beta x_i out_j / mid_j  (i in window j)
    spread = window_sum(xp, dout * out / mid, n, n - 1 - (n - 1) // 2, axis)
    dx = dout * mid ** -beta - 2 * alpha * beta * x * spread
    return dx.astype(x.dtype, copy=False)


register(OpDef(
    "lrn", inputs=["X"], outputs=["Out", "MidOut"], attrs=LRN_ATTRS, infer=_lrn_infer,
    kernel=_lrn_kernel,
    grad=grad_op("lrn_grad", inputs=("X",), outputs=("Out", "MidOut")),
    doc="MidOut = k + alpha * (window sum of X^2 across n channels); Out = X * MidOut^-beta"))
register(OpDef(
    "lrn_grad", inputs=["X", "Out", "MidOut", "Out@GRAD"], outputs=["X@GRAD"], attrs=LRN_ATTRS,
    infer=lambda x, out, mid, dout, **_: x, kernel=_lrn_grad_kernel,
    doc="the gradient of lrn: X@GRAD from X, Out, MidOut and Out@GRAD"))
