"""Per-sample normalizations: ``layer_norm``, ``group_norm``, ``instance_norm``, with grads.

Unlike batch_norm, these take their statistics inside each sample, so they
behave the same in training and at test time. All three are one computation
on a view of X: reshape X so that each normalization set (a sample's trailing
dims; a group of channels; one channel) lies along some ``axes``, take the
mean and the variance (the mean of squared deviations) over those axes, then
scale and shift with per-feature (layer_norm) or per-channel (the others)
Scale and Bias. A layout says, for one op, the view, the axes and the shape
Scale takes in the view. What the ops save differs, as in PaddlePaddle:
layer_norm and group_norm keep the variance; instance_norm keeps 1/sqrt(var + eps).
"""

import math
from typing import NamedTuple

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []


class Layout(NamedTuple):
    """How one op sees X: ``view`` (X reshaped), the reduced ``axes``, the shape of Scale in the
    view (``affine``) and the shape of the saved statistics (``stats``). Each set of values
    normalized together is one index of the view's other axes.

    group_norm with 3 groups of 2 channels on X [2, 6, 4, 4]: 32 values per (sample, group)

    >>> _gn_layout((2, 6, 4, 4), 3, "NCHW")
    Layout(view=(2, 3, 2, 16), axes=(2, 3), affine=(1, 3, 2, 1), stats=(2, 3))
    """

    view: tuple
    axes: tuple
    affine: tuple
    stats: tuple

    def keep(self):
        """The statistics' shape inside the view (the reduced axes kept as 1)."""
        return tuple(1 if i in self.axes else d for i, d in enumerate(self.view))

    def shared(self):
        """The axes along which one Scale value is shared: its gradient sums over them."""
        return tuple(i for i, d in enumerate(self.affine) if d == 1)


def _stat_dtype(dtype):
    # half-precision inputs keep their statistics in float32, as PaddlePaddle does
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


# ---- the shared computation ----

def _mean(x, axes):
    """x.mean(axes, keepdims=True), the same numbers: a sum divided by the count, without
    ``mean``'s Python wrapper (a few us a call: layer_norm runs two per op in transformers).
    Half precision keeps ``mean``, which sums in float32."""
    if x.dtype.itemsize < 4:
        return x.mean(axis=axes, keepdims=True)
    out = x.sum(axis=axes, keepdims=True)
    out /= math.prod(x.shape[a] for a in axes)
    return out


def _forward(xp, x, scale, bias, lay, epsilon):
    """Y, mean and variance (in the view's keep() shape) and 1/sqrt(var + eps)."""
    xv = x.reshape(lay.view)
    mean = _mean(xv, lay.axes)
    diff = xv - mean
    var = _mean(diff * diff, lay.axes)
    inv_std = 1 / xp.sqrt(var + epsilon)
    y = diff
    # in place: y is this function's own array, and large inputs make every pass count
    y *= inv_std
    if scale is not None:
        y *= scale.reshape(lay.affine)
    if bias is not None:
        y += bias.reshape(lay.affine)
    return y.reshape(x.shape).astype(x.dtype, copy=False), mean, var, inv_std


def _outputs(xp, x, scale, bias, lay, epsilon, keep_inv_std=False):
    """The forward op's outputs: Y, the mean and the variance (or, for instance_norm,
    1/sqrt(var + eps)), the statistics in the shape and dtype the op saves them in."""
    y, mean, var, inv_std = _forward(xp, x, scale, bias, lay, epsilon)
    st = _stat_dtype(x.dtype)
    kept = inv_std if keep_inv_std else var
    return (y, mean.reshape(lay.stats).astype(st, copy=False),
            kept.reshape(lay.stats).astype(st, copy=False))


def _backward(ctx, x, scale, mean, inv_std, dy, lay):
    """X@GRAD, Scale@GRAD, Bias@GRAD of _forward, from the saved mean and 1/std; only the
    gradients the op writes (``ctx.want``) are computed.

    With x_hat = (x - mean) * inv_std over a set of n values, the gradient through
    the statistics is inv_std * (g - mean(g) - x_hat * mean(g * x_hat)), g = dL/dx_hat.
    """
    xv, dyv = x.reshape(lay.view), dy.reshape(lay.view)
    inv_std = inv_std.reshape(lay.keep())
    x_hat = (xv - mean.reshape(lay.keep())) * inv_std
    want_scale = scale is not None and ctx.want(1)
    dscale = (dyv * x_hat).sum(axis=lay.shared()).reshape(-1) if want_scale else None
    dbias = dyv.sum(axis=lay.shared()).reshape(-1) if ctx.want(2) else None
    dx = None
    if ctx.want(0):
        g = dyv if scale is None else dyv * scale.reshape(lay.affine)
        dx = g - g.mean(axis=lay.axes, keepdims=True)
        dx -= x_hat * (g * x_hat).mean(axis=lay.axes, keepdims=True)
        dx *= inv_std
        dx = dx.reshape(x.shape).astype(x.dtype, copy=False)
    return (dx,
            None if dscale is None else dscale.astype(scale.dtype, copy=False),
            None if dbias is None else dbias.astype(x.dtype, copy=False))


def _check_float(x):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")


def _check_affine(slot, meta, size, what):
    """Scale and Bias are vectors of ``size`` (-1: unknown, not checked)."""
    if meta is None:
        return
    if len(meta.shape) != 1 or (size >= 0 and meta.shape[0] >= 0 and meta.shape[0] != size):
        fail(f"{slot} must have shape ({size},), one value per {what}, got {tuple(meta.shape)}")


def _product(dims):
    """The product of dims, or -1 when one is unknown."""
    return -1 if any(d < 0 for d in dims) else math.prod(dims)


# ---- layer_norm ----

LN_ATTRS = {
    "epsilon": Attr("float", 1e-5, lambda v: None if v >= 0 else "must be >= 0"),
    "begin_norm_axis": Attr("int", 1, lambda v: None if v > 0 else "must be > 0",
                            comment="X's dims from here on form one normalized set"),
}


def _ln_layout(shape, begin_norm_axis):
    left, right = math.prod(shape[:begin_norm_axis]), math.prod(shape[begin_norm_axis:])
    return Layout((left, right), (1,), (1, right), tuple(shape[:begin_norm_axis]))


def _ln_infer(x, scale, bias, *, epsilon, begin_norm_axis):
    _check_float(x)
    if begin_norm_axis >= len(x.shape):
        fail(f"begin_norm_axis must be less than X's rank {len(x.shape)}, got {begin_norm_axis} "
             f"(X has shape {tuple(x.shape)})")
    right = _product(x.shape[begin_norm_axis:])
    for slot, meta in (("Scale", scale), ("Bias", bias)):
        _check_affine(slot, meta, right, "element of X's dims from begin_norm_axis on")
    stat = x.with_dtype(_stat_dtype(x.dtype)).with_shape(x.shape[:begin_norm_axis])
    return x, stat, stat


def _ln_kernel(ctx, x, scale, bias, *, epsilon, begin_norm_axis):
    return _outputs(ctx.xp, x, scale, bias, _ln_layout(x.shape, begin_norm_axis), epsilon)


def _ln_grad_infer(x, scale, bias, mean, var, dy, **attrs):
    return x, scale, bias


def _ln_grad_kernel(ctx, x, scale, bias, mean, var, dy, *, epsilon, begin_norm_axis):
    lay = _ln_layout(x.shape, begin_norm_axis)
    inv_std = 1 / ctx.xp.sqrt(var + epsilon)
    # Mean and Variance may come flattened (older PaddlePaddle programs): _backward reshapes
    return _backward(ctx, x, scale, mean, inv_std, dy, lay)


register(OpDef(
    "layer_norm",
    inputs=["X", Slot("Scale", dispensable=True, comment="one value per normalized element"),
            Slot("Bias", dispensable=True)],
    outputs=["Y", Slot("Mean", comment="shape X.shape[:begin_norm_axis]"),
             Slot("Variance", comment="the variance itself (not 1/std)")],
    attrs=LN_ATTRS, infer=_ln_infer, kernel=_ln_kernel,
    grad=grad_op("layer_norm_grad", inputs=("X", "Scale", "Bias"),
                 outputs=("Mean", "Variance"), out_grads=("Y",),
                 in_grads=("X", "Scale", "Bias")),
    doc="Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias over X's dims from begin_norm_axis"))
register(OpDef(
    "layer_norm_grad",
    inputs=["X", Slot("Scale", dispensable=True), Slot("Bias", dispensable=True),
            "Mean", "Variance", "Y@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Scale@GRAD", dispensable=True),
             Slot("Bias@GRAD", dispensable=True)],
    attrs=LN_ATTRS, infer=_ln_grad_infer, kernel=_ln_grad_kernel, no_need_buffer=("Bias",),
    doc="the gradients of layer_norm: X@GRAD, Scale@GRAD, Bias@GRAD from Y@GRAD"))


# ---- group_norm ----

GN_ATTRS = {
    "epsilon": Attr("float", 1e-5, lambda v: None if v >= 0 else "must be >= 0"),
    "groups": Attr("int", -1, comment="the channels split into this many groups (required: >= 1)"),
    "data_layout": Attr("str", "NCHW", lambda v: None if v in ("NCHW", "NHWC")
                        else "expected 'NCHW' or 'NHWC'"),
}


def _gn_layout(shape, groups, data_layout):
    n = shape[0]
    if data_layout == "NHWC":
        per = shape[-1] // groups
        view = (n, math.prod(shape[1:-1]), groups, per)
        return Layout(view, (1, 3), (1, 1, groups, per), (n, groups))
    per = shape[1] // groups
    view = (n, groups, per, math.prod(shape[2:]))
    return Layout(view, (2, 3), (1, groups, per, 1), (n, groups))


def _gn_infer(x, scale, bias, *, epsilon, groups, data_layout):
    _check_float(x)
    if len(x.shape) < 2:
        fail(f"X must have rank 2 or more ([N, C, ...]), got shape {tuple(x.shape)}")
    if groups < 1:
        fail(f"groups must be >= 1, got {groups}")
    c = x.shape[-1] if data_layout == "NHWC" else x.shape[1]
    if c >= 0 and c % groups:
        fail(f"X's {c} channels ({data_layout}) must be divisible by groups = {groups}")
    for slot, meta in (("Scale", scale), ("Bias", bias)):
        _check_affine(slot, meta, c, f"channel of X ({data_layout})")
    return x, *[x.with_dtype(_stat_dtype(x.dtype)).with_shape((x.shape[0], groups))] * 2


def _gn_kernel(ctx, x, scale, bias, *, epsilon, groups, data_layout):
    return _outputs(ctx.xp, x, scale, bias, _gn_layout(x.shape, groups, data_layout), epsilon)


def _gn_grad_infer(x, scale, bias, y, mean, var, dy, **attrs):
    return x, scale, bias


def _gn_grad_kernel(ctx, x, scale, bias, y, mean, var, dy, *, epsilon, groups, data_layout):
    # PaddlePaddle's grad also reads Y; X and the saved statistics are enough here (and stay
    # exact where a Scale value is 0, which would make recovering x_hat from Y impossible)
    lay = _gn_layout(x.shape, groups, data_layout)
    inv_std = 1 / ctx.xp.sqrt(var + epsilon)
    return _backward(ctx, x, scale, mean, inv_std, dy, lay)


register(OpDef(
    "group_norm",
    inputs=["X", Slot("Scale", dispensable=True, comment="one value per channel"),
            Slot("Bias", dispensable=True)],
    outputs=["Y", Slot("Mean", comment="shape [N, groups]"),
             Slot("Variance", comment="the variance itself (not 1/std), [N, groups]")],
    attrs=GN_ATTRS, infer=_gn_infer, kernel=_gn_kernel,
    grad=grad_op("group_norm_grad", inputs=("X", "Scale", "Bias"),
                 outputs=("Y", "Mean", "Variance"), out_grads=("Y",),
                 in_grads=("X", "Scale", "Bias")),
    doc="Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias, statistics per sample and "
        "group of channels"))
register(OpDef(
    "group_norm_grad",
    inputs=["X", Slot("Scale", dispensable=True), Slot("Bias", dispensable=True), "Y",
            "Mean", "Variance", "Y@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Scale@GRAD", dispensable=True),
             Slot("Bias@GRAD", dispensable=True)],
    attrs=GN_ATTRS, infer=_gn_grad_infer, kernel=_gn_grad_kernel, no_need_buffer=("Bias", "Y"),
    doc="the gradients of group_norm: X@GRAD, Scale@GRAD, Bias@GRAD from Y@GRAD"))


# ---- instance_norm ----

IN_ATTRS = {"epsilon": Attr("float", 1e-5, lambda v: None if v >= 0 else "must be >= 0")}


def _in_layout(shape):
    n, c = shape[0], shape[1]
    return Layout((n, c, math.prod(shape[2:])), (2,), (1, c, 1), (n * c,))


def _in_infer(x, scale, bias, *, epsilon):
    _check_float(x)
    if not 2 <= len(x.shape) <= 5:
        fail(f"X must have rank 2 to 5 ([N, C, ...]), got shape {tuple(x.shape)}")
    for slot, meta in (("Scale", scale), ("Bias", bias)):
        _check_affine(slot, meta, x.shape[1], "channel of X (axis 1)")
    stat = x.with_dtype(_stat_dtype(x.dtype)).with_shape((_product(x.shape[:2]),))
    return x, stat, stat


def _in_kernel(ctx, x, scale, bias, *, epsilon):
    return _outputs(ctx.xp, x, scale, bias, _in_layout(x.shape), epsilon, keep_inv_std=True)


def _in_grad_infer(x, scale, mean, inv_std, dy, **attrs):
    c = x.shape[1]
    vec = scale if scale is not None else x.with_dtype(_stat_dtype(x.dtype)).with_shape((c,))
    return x, scale, vec


def _in_grad_kernel(ctx, x, scale, mean, inv_std, dy, *, epsilon):
    # SavedVariance already holds 1/sqrt(var + eps); Bias is not read, but its gradient is
    # written (the sum of Y@GRAD per channel) whenever the forward op had one
    lay = _in_layout(x.shape)
    return _backward(ctx, x, scale, mean, inv_std, dy, lay)


register(OpDef(
    "instance_norm",
    inputs=["X", Slot("Scale", dispensable=True, comment="one value per channel"),
            Slot("Bias", dispensable=True)],
    outputs=["Y", Slot("SavedMean", comment="shape [N * C]"),
             Slot("SavedVariance", comment="1 / sqrt(variance + epsilon), [N * C]")],
    attrs=IN_ATTRS, infer=_in_infer, kernel=_in_kernel,
    grad=grad_op("instance_norm_grad", inputs=("X", "Scale"),
                 outputs=("SavedMean", "SavedVariance"), out_grads=("Y",),
                 in_grads=("X", "Scale", "Bias")),
    doc="Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias, statistics per sample and channel"))
register(OpDef(
    "instance_norm_grad",
    inputs=["X", Slot("Scale", dispensable=True), "SavedMean", "SavedVariance", "Y@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Scale@GRAD", dispensable=True),
             Slot("Bias@GRAD", dispensable=True)],
    attrs=IN_ATTRS, infer=_in_grad_infer, kernel=_in_grad_kernel,
    doc="the gradients of instance_norm: X@GRAD, Scale@GRAD, Bias@GRAD from Y@GRAD"))
