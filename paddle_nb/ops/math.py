"""Scalar arithmetic on whole tensors: ``scale``, ``sum`` and ``mean``.

``scale`` is the affine map the backward pass leans on: the gradient of
``scale`` is itself a ``scale`` (same factor, no bias), and the gradient of
``sum`` hands each input the output gradient through a ``scale`` by 1.0, as
PaddlePaddle does. ``sum`` adds a list of same-shape tensors (backward uses it
to add the gradients of a variable read twice). ``mean`` averages every
element into a 0-D tensor (shape (), as PaddlePaddle 2.5+; fluid 1.x gave shape (1,)).
``cumsum`` gives running totals along an axis: its gradient is the running total
of Out@GRAD taken the other way. ``tril_triu`` keeps the lower (or upper)
triangle of the last two dims; its gradient keeps the same triangle of Out@GRAD.
"""

import functools

import numpy

from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import (Attr, OpDef, Slot, fail, known_product, prepared,
                                              register)


# ---- scale ------------------------------------------------------------------------------------

SCALE_ATTRS = {
    "scale": Attr("float", 1.0, comment="the factor (ScaleTensor, when given, overrides it)"),
    "bias": Attr("float", 0.0, comment="the added constant"),
    "bias_after_scale": Attr("bool", True, comment="add bias after scaling (else before)"),
}


def _scale_infer(x, scale_tensor, *, scale, bias, bias_after_scale):
    if scale_tensor is not None and known_product(scale_tensor.shape) not in (1, -1):
        fail(f"ScaleTensor must hold one value, got shape {tuple(scale_tensor.shape)}")
    return x


def _scale_kernel(ctx, x, scale_tensor, *, scale, bias, bias_after_scale):
    s = scale if scale_tensor is None else scale_tensor.reshape(()).astype(x.dtype)
    if x.dtype.kind in "iu":
        # as PaddlePaddle: the factor and the bias become X's integer type first (2.5 -> 2,
        # 1.7 -> 1), and the integer arithmetic wraps around on overflow. (A factor out of the
        # type's range becomes what the C++ cast gives on x86, the type's minimum.)
        with numpy.errstate(invalid="ignore"):
            bias = numpy.asarray(bias).astype(x.dtype)[()]
            if scale_tensor is None:
                s = numpy.asarray(s).astype(x.dtype)[()]
    if bias_after_scale:        # one new array, the bias added in place (and only if any)
        out = x * s
        if bias != 0:
            out += bias
    else:
        out = x + bias
        out *= s
    return out.astype(x.dtype, copy=False)


def _scale_grad(g):
    ins = {"X": g.output_grad("Out")}
    if g.inputs.get("ScaleTensor"):
        ins["ScaleTensor"] = g.input("ScaleTensor")
    attrs = {"scale": g.attrs["scale"], "bias": 0.0, "bias_after_scale": True}
    return [OpSpec("scale", ins, {"Out": g.input_grad("X")}, attrs)]


register(OpDef(
    "scale", inputs=["X", Slot("ScaleTensor", dispensable=True, comment="a one-element factor")],
    outputs=["Out"], attrs=SCALE_ATTRS, infer=_scale_infer, kernel=_scale_kernel,
    grad=_scale_grad,
    doc="Out = scale * X + bias (or scale * (X + bias) when bias_after_scale is False)\n"
        "Its gradient is a scale op with the same factor and bias 0."))

# ---- sum --------------------------------------------------------------------------------------


def _sum_infer(xs):
    if not xs:
        fail("X must list at least one tensor, got none")
    shape = list(xs[0].shape)
    for i, m in enumerate(xs[1:], 1):
        if m.dtype != xs[0].dtype:
            fail(f"every X must have the same dtype: X[0] is {xs[0].dtype}, X[{i}] is {m.dtype}")
        if len(m.shape) != len(shape) or any(a != b and a >= 0 and b >= 0
                                             for a, b in zip(shape, m.shape)):
            fail(f"every X must have the same shape: X[0] has shape {tuple(xs[0].shape)}, "
                 f"X[{i}] has shape {tuple(m.shape)}")
        shape = [b if a < 0 else a for a, b in zip(shape, m.shape)]
    return xs[0].with_shape(shape)


def _sum_kernel(ctx, xs):
    out = xs[0].copy()
    for x in xs[1:]:
        if x.shape != out.shape and x.size == out.size == 1:
            # one value, 0-D and [1]: a 1.x program's [1] gradients meet 0-D ones
            out, x = out.reshape(1), x.reshape(1)
        out += x
    return out


def _sum_grad(g):
    return [OpSpec("scale", {"X": g.output_grad("Out")}, {"Out": [name]}, {"scale": 1.0})
            for name in g.input_grad("X")]


def _make_sum(ctx, metas):
    """Two tensors of one rank and dtype: ``X[0] + X[1]`` when their shapes agree."""
    xs = metas[0] if metas else None
    if xs and len(xs) == 2 and xs[0].dtype == xs[1].dtype and \
            len(xs[0].shape) == len(xs[1].shape):
        def add(xs):
            a, b = xs
            return a + b if a.shape == b.shape and a.dtype == b.dtype else _sum_kernel(ctx, xs)
        return add
    return functools.partial(_sum_kernel, ctx)


register(OpDef(
    "sum", inputs=[Slot("X", duplicable=True, comment="same-shape tensors")], outputs=["Out"],
    infer=_sum_infer, kernel=prepared(_make_sum), grad=_sum_grad,
    doc="Out = X[0] + X[1] + ... (the tensors of X, all of one shape)\n"
        "Its gradient gives every input Out@GRAD through a scale op by 1.0."))

# ---- mean -------------------------------------------------------------------------------------


def _float_like(x):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")


def _mean_infer(x):
    _float_like(x)
    return x.with_shape(())


def _mean_kernel(ctx, x):
    if x.dtype.kind == "f" and x.dtype.itemsize >= 4 and x.size:
        # what numpy's mean computes (the sum divided, then in X's dtype), without its dispatch
        return (x.sum() / x.size).astype(x.dtype).reshape(())
    return ctx.xp.mean(x).reshape(()).astype(x.dtype, copy=False)


def _mean_grad_infer(x, dout):
    if known_product(dout.shape) not in (1, -1):
        fail(f"Out@GRAD must hold one value, got shape {tuple(dout.shape)}")
    return x


def _mean_grad_kernel(ctx, x, dout):
    grad = ctx.xp.empty(x.shape, dtype=x.dtype)
    grad[...] = dout.reshape(()) / max(x.size, 1)
    return grad


register(OpDef(
    "mean", inputs=["X"], outputs=["Out"], infer=_mean_infer, kernel=_mean_kernel,
    grad=grad_op("mean_grad", inputs=("X",)),
    doc="Out = mean of every element of X, as a 0-D tensor (shape (), as PaddlePaddle 2.5+)"))
register(OpDef(
    "mean_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], infer=_mean_grad_infer,
    kernel=_mean_grad_kernel, no_need_buffer=("X",),
    doc="the gradient of mean: X@GRAD = Out@GRAD / numel(X) everywhere (reads X's shape only)"))

# ---- cumsum -----------------------------------------------------------------------------------

CUMSUM_ATTRS = {
    "axis": Attr("int", -1, comment="the axis summed along"),
    "flatten": Attr("bool", False, comment="sum over X flattened to 1-D (axis ignored)"),
    "exclusive": Attr("bool", False, comment="Out[i] leaves X[i] out (Out[0] = 0)"),
    "reverse": Attr("bool", False, comment="sum from the end of the axis"),
}


def _cumsum_infer(x, *, axis, flatten, exclusive, reverse):
    if flatten:
        return x.with_shape((known_product(x.shape),))
    rank = max(len(x.shape), 1)         # a 0-D X is one element: axis 0 or -1
    if not -rank <= axis < rank:
        fail(f"axis {axis} is out of range for X of shape {tuple(x.shape)}")
    return x


def _running_total(xp, x, *, axis, flatten, exclusive, reverse):
    """cumsum's computation: along the last axis after moving ``axis`` there."""
    if flatten:
        x, axis = x.reshape(-1), 0
    if x.ndim == 0:
        return xp.zeros_like(x) if exclusive else x.copy()
    y = xp.moveaxis(x, axis, -1)
    if reverse:
        y = y[..., ::-1]
    total = xp.cumsum(y, axis=-1, dtype=x.dtype)
    if exclusive:                        # shift by one: each total leaves its own element out
        total = xp.concatenate([xp.zeros_like(total[..., :1]), total[..., :-1]], axis=-1)
    if reverse:
        total = total[..., ::-1]
    return xp.ascontiguousarray(xp.moveaxis(total, -1, axis))


def _cumsum_grad(ctx, x, dout, *, axis, flatten, exclusive, reverse):
    # d(sum_j<=i x_j)/dx_k = 1 for every i >= k: the total of dout from the other end
    dx = _running_total(ctx.xp, dout, axis=axis, flatten=flatten, exclusive=exclusive,
                        reverse=not reverse)
    return dx.reshape(x.shape)


register(OpDef(
    "cumsum", inputs=["X"], outputs=["Out"], attrs=CUMSUM_ATTRS, infer=_cumsum_infer,
    kernel=lambda ctx, x, **a: _running_total(ctx.xp, x, **a),
    grad=grad_op("cumsum_grad", inputs=("X",)),
    doc="Out[..., i, ...] = X[..., 0, ...] + ... + X[..., i, ...] along axis"))
register(OpDef(
    "cumsum_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=CUMSUM_ATTRS,
    infer=lambda x, dout, **_: x.with_dtype(dout.dtype), kernel=_cumsum_grad,
    no_need_buffer=("X",), doc="the gradient of cumsum: Out@GRAD summed the other way"))

# ---- tril_triu --------------------------------------------------------------------------------

TRIANGLE_ATTRS = {
    "diagonal": Attr("int", 0, comment="0: the main diagonal; > 0 above it, < 0 below"),
    "lower": Attr("bool", False, comment="keep the lower triangle (tril), else the upper"),
}


def _triangle_infer(x, *, diagonal, lower):
    if len(x.shape) < 2:
        fail(f"X must have rank >= 2 (matrices in its last two dims), got shape "
             f"{tuple(x.shape)}")
    return x


def _triangle(ctx, x, *, diagonal, lower):
    rows, cols = x.shape[-2:]
    # tri(k) marks j <= i + k: the lower triangle; the upper one is what tri(k - 1) leaves
    below = ctx.xp.tri(rows, cols, k=diagonal if lower else diagonal - 1, dtype=bool)
    keep = below if lower else ~below
    return ctx.xp.where(keep, x, ctx.xp.zeros((), dtype=x.dtype))


register(OpDef(
    "tril_triu", inputs=["X"], outputs=["Out"], attrs=TRIANGLE_ATTRS, infer=_triangle_infer,
    kernel=_triangle, grad=grad_op("tril_triu_grad", inputs=()),
    doc="Out = X with the elements outside the lower (or upper) triangle set to 0"))
register(OpDef(
    "tril_triu_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=TRIANGLE_ATTRS,
    infer=lambda dout, **a: _triangle_infer(dout, **a), kernel=_triangle,
    doc="the gradient of tril_triu: the same triangle of Out@GRAD"))
