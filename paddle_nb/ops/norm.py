"""Normalization and regularization layers: ``batch_norm`` and ``dropout``, with grads.

batch_norm normalizes each channel by the batch's mean and variance while
training (and folds them into the running ``MeanOut``/``VarianceOut`` with
``momentum``), or by the running statistics at test time. ``SavedMean`` and
``SavedVariance`` keep what the grad needs: the mean and 1/sqrt(var + eps).
dropout zeroes each element with probability ``dropout_prob``; the kept ones
are scaled by 1/(1-p) in training ("upscale_in_train") or all are scaled by
(1-p) at inference ("downgrade_in_infer"). ``Mask`` (uint8) records the draw.
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []


# ---- batch_norm ----

BN_ATTRS = {
    "momentum": Attr("float", 0.9, comment="running = momentum * running + (1 - momentum) * batch"),
    "epsilon": Attr("float", 1e-5, lambda v: None if v >= 0 else "must be >= 0"),
    "is_test": Attr("bool", False, comment="use the running Mean and Variance"),
    "data_layout": Attr("str", "NCHW", lambda v: None if v in ("NCHW", "NHWC", "AnyLayout")
                        else "expected 'NCHW' or 'NHWC'"),
    "use_global_stats": Attr("bool", False, comment="use the running statistics, also in training"),
    "trainable_statistics": Attr("bool", False, comment="use batch statistics even when is_test"),
    "fuse_with_relu": Attr("bool", False, comment="accepted for compatibility; ignored"),
}


def _channel_axis(ndim, layout):
    return ndim - 1 if layout == "NHWC" else 1


def _uses_global_stats(is_test, use_global_stats, trainable_statistics):
    return (is_test and not trainable_statistics) or use_global_stats


def _check_vector(slot, meta, channels):
    if len(meta.shape) != 1 or (channels >= 0 and meta.shape[0] >= 0 and meta.shape[0] != channels):
        fail(f"{slot} must have shape ({channels},), one value per channel of X, "
             f"got {tuple(meta.shape)}")


def _no_empty_dims(shape):
    """PaddlePaddle 2.6 refuses an X with a 0 dimension (an empty batch), in training and
    in inference: its mean and variance would be 0/0, NaN in the running statistics."""
    if 0 in tuple(shape):
        fail(f"every dimension of X must be -1 or positive (batch_norm refuses an empty "
             f"batch, whose mean and variance are undefined), got shape {tuple(shape)}")


def _bn_infer(x, scale, bias, mean, var, momentum_tensor, *, data_layout, **attrs):
    if len(x.shape) < 2 or len(x.shape) > 5:
        fail(f"X must have rank 2 to 5 ([N, C] or [N, C, H, W]), got shape {tuple(x.shape)}")
    _no_empty_dims(x.shape)
    c = x.shape[_channel_axis(len(x.shape), data_layout)]
    for slot, meta in (("Scale", scale), ("Bias", bias), ("Mean", mean), ("Variance", var)):
        if meta is not None:      # Scale and Bias may be absent (weight_attr/bias_attr False)
            _check_vector(slot, meta, c)
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    stat = mean.with_shape((c,))
    return x, stat, stat, stat, stat, None


def _bn_shape(x, layout):
    """The shape a per-channel vector takes to broadcast against X, and X's reduce axes."""
    axis = _channel_axis(x.ndim, layout)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    return tuple(shape), tuple(i for i in range(x.ndim) if i != axis)


def _affine_or_identity(xp, scale, bias, like):
    """Scale and Bias, ones and zeros where the op has none."""
    scale = xp.ones_like(like) if scale is None else scale
    return scale, (xp.zeros_like(like) if bias is None else bias)


def _bn_kernel(ctx, x, scale, bias, mean, var, momentum_tensor, *, momentum, epsilon, is_test,
               data_layout, use_global_stats, trainable_statistics, fuse_with_relu):
    _no_empty_dims(x.shape)     # before anything is computed: nothing is written
    xp = ctx.xp
    shape, axes = _bn_shape(x, data_layout)
    if momentum_tensor is not None:
        momentum = float(momentum_tensor.reshape(-1)[0])
    scale, bias = _affine_or_identity(xp, scale, bias, mean)
    if _uses_global_stats(is_test, use_global_stats, trainable_statistics):
        use_mean, use_var = mean, var
        mean_out, var_out = mean, var
    else:
        use_mean, use_var = x.mean(axis=axes), x.var(axis=axes)
        mean_out = momentum * mean + (1 - momentum) * use_mean.astype(mean.dtype, copy=False)
        var_out = momentum * var + (1 - momentum) * use_var.astype(var.dtype, copy=False)
    inv_std = 1 / xp.sqrt(use_var + epsilon)
    # (x - mean) * inv_std * scale + bias folded per channel into x * a + b: two passes
    # over X (the second in place) instead of three, and one temporary fewer
    a = inv_std * scale
    y = x * a.reshape(shape).astype(x.dtype, copy=False)
    y += (bias - use_mean * a).reshape(shape).astype(x.dtype, copy=False)
    st = mean.dtype
    return (y.astype(x.dtype, copy=False), mean_out.astype(st, copy=False),
            var_out.astype(st, copy=False), use_mean.astype(st, copy=False),
            inv_std.astype(st, copy=False), None)


def _bn_grad_infer(x, scale, bias, mean, var, saved_mean, saved_inv_std, dy, *running, **attrs):
    return x, scale, bias


def _bn_grad_kernel(ctx, x, scale, bias, mean, var, saved_mean, saved_inv_std, dy, mean_out,
                    var_out, reserve, *, momentum, epsilon, is_test, data_layout, use_global_stats,
                    trainable_statistics, fuse_with_relu):
    # PaddlePaddle 2.6 hands the grad the running statistics as MeanOut / VarianceOut
    mean = mean if mean is not None else mean_out
    var = var if var is not None else var_out
    xp = ctx.xp
    has_scale, has_bias = scale is not None, bias is not None
    scale, bias = _affine_or_identity(xp, scale, bias, saved_mean)
    shape, axes = _bn_shape(x, data_layout)
    global_stats = _uses_global_stats(is_test, use_global_stats, trainable_statistics)
    if global_stats and mean is not None and var is not None:
        saved_mean, saved_inv_std = mean, 1 / xp.sqrt(var + epsilon)
    inv_std = saved_inv_std.reshape(shape)
    x_hat = (x - saved_mean.reshape(shape)) * inv_std
    dbias = dy.sum(axis=axes)
    dscale = (dy * x_hat).sum(axis=axes)
    if global_stats:
        dx = dy * scale.reshape(shape) * inv_std
    else:
        count = x.size // x.shape[_channel_axis(x.ndim, data_layout)]
        dx = (scale.reshape(shape) * inv_std) * (
            dy - (dbias / count).reshape(shape) - x_hat * (dscale / count).reshape(shape))
    return (dx.astype(x.dtype, copy=False),
            dscale.astype(scale.dtype, copy=False) if has_scale else None,
            dbias.astype(bias.dtype, copy=False) if has_bias else None)


register(OpDef(
    "batch_norm",
    inputs=["X", Slot("Scale", dispensable=True), Slot("Bias", dispensable=True), "Mean",
            "Variance", Slot("MomentumTensor", dispensable=True,
                             comment="overrides the momentum attribute")],
    outputs=["Y", "MeanOut", "VarianceOut", "SavedMean",
             Slot("SavedVariance", comment="1 / sqrt(variance + epsilon) of the statistics used"),
             Slot("ReserveSpace", dispensable=True, comment="cuDNN's; never produced here")],
    attrs=BN_ATTRS, infer=_bn_infer, kernel=_bn_kernel,
    grad=grad_op("batch_norm_grad", inputs=("X", "Scale", "Bias", "Mean", "Variance"),
                 outputs=("SavedMean", "SavedVariance"), out_grads=("Y",),
                 in_grads=("X", "Scale", "Bias")),
    doc="Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias per channel (batch or running stats)"))
register(OpDef(
    "batch_norm_grad",
    inputs=["X", Slot("Scale", dispensable=True), Slot("Bias", dispensable=True),
            Slot("Mean", dispensable=True),
            Slot("Variance", dispensable=True), "SavedMean", "SavedVariance", "Y@GRAD",
            Slot("MeanOut", dispensable=True, comment="the running mean (PaddlePaddle 2.6)"),
            Slot("VarianceOut", dispensable=True, comment="the running variance (2.6)"),
            Slot("ReserveSpace", dispensable=True, comment="cuDNN's; not read")],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Scale@GRAD", dispensable=True),
             Slot("Bias@GRAD", dispensable=True)],
    attrs=BN_ATTRS, infer=_bn_grad_infer, kernel=_bn_grad_kernel,
    doc="the gradients of batch_norm: X@GRAD, Scale@GRAD, Bias@GRAD from Y@GRAD"))


# ---- dropout ----

DROPOUT_ATTRS = {
    "dropout_prob": Attr("float", 0.5, lambda v: None if 0 <= v <= 1 else "must be in [0, 1]"),
    "is_test": Attr("bool", False, comment="inference: no dropping"),
    "fix_seed": Attr("bool", False, comment="draw the mask from `seed` (the same mask every run)"),
    "seed": Attr("int", 0),
    "dropout_implementation": Attr(
        "str", "downgrade_in_infer",
        lambda v: None if v in ("downgrade_in_infer", "upscale_in_train")
        else "expected 'downgrade_in_infer' or 'upscale_in_train'"),
}


def _dropout_infer(x, seed_tensor, **attrs):
    return x, x.with_dtype("uint8")


def _keep_scale(dropout_prob, is_test, dropout_implementation):
    """The factor the kept elements are multiplied by."""
    upscale = dropout_implementation == "upscale_in_train"
    if is_test:
        return 1.0 if upscale else 1.0 - dropout_prob
    return 1.0 / (1.0 - dropout_prob) if upscale and dropout_prob < 1 else 1.0


def _dropout_kernel(ctx, x, seed_tensor, *, dropout_prob, is_test, fix_seed, seed,
                    dropout_implementation):
    xp = ctx.xp
    scale = _keep_scale(dropout_prob, is_test, dropout_implementation)
    if is_test:
        return (x * scale).astype(x.dtype, copy=False), xp.ones(x.shape, dtype=numpy.uint8)
    if seed_tensor is not None:
        seed, fix_seed = int(seed_tensor.reshape(-1)[0]), True
    gen = ctx.generator(seed if fix_seed else 0)
    mask = ctx.to_device((gen.random(tuple(x.shape)) >= dropout_prob).astype(numpy.uint8))
    return (x * mask * scale).astype(x.dtype, copy=False), mask


def _dropout_grad_kernel(ctx, mask, dout, *, dropout_prob, is_test, fix_seed, seed,
                         dropout_implementation):
    scale = _keep_scale(dropout_prob, is_test, dropout_implementation)
    dx = dout * scale if is_test else dout * mask * scale
    return dx.astype(dout.dtype, copy=False)


register(OpDef(
    "dropout",
    inputs=["X", Slot("Seed", dispensable=True, comment="a tensor seed; fixes the mask")],
    outputs=["Out", Slot("Mask", comment="uint8: 1 where X was kept")],
    attrs=DROPOUT_ATTRS, infer=_dropout_infer, kernel=_dropout_kernel,
    grad=grad_op("dropout_grad", inputs=(), outputs=("Mask",)),
    doc="Out = X * Mask (scaled by the dropout_implementation rule); Mask ~ Bernoulli(1 - p)"))
register(OpDef(
    "dropout_grad", inputs=["Mask", "Out@GRAD"], outputs=["X@GRAD"], attrs=DROPOUT_ATTRS,
    infer=lambda mask, dout, **attrs: dout, kernel=_dropout_grad_kernel,
    doc="the gradient of dropout: X@GRAD = Out@GRAD * Mask, scaled as the forward was"))
