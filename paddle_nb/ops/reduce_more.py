"""More reductions: ``reduce_prod``, ``reduce_amax / amin``, ``reduce_any / all``, ``logsumexp``,
``nanmedian``.

They take the attributes of reduce.py's ops (``dim``, ``keep_dim``, ``reduce_all``; logsumexp
spells them ``axis`` and ``keepdim``) and reduce the same dimensions. The gradients:
``reduce_prod`` gives each element the product of the others (computed without dividing,
so zeros are fine); ``reduce_amax`` and ``reduce_amin`` share Out@GRAD equally among the
elements tied for the extreme (``reduce_max`` gives each tied element all of it);
``logsumexp``'s is softmax(X) * Out@GRAD; ``nanmedian``'s goes half and half to the two
middle elements it recorded. ``reduce_any`` and ``reduce_all`` are boolean and have none.
"""

import numpy

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.reduce import ATTRS, reduced_axes, reduced_shape
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["other_product"]

_AXIS_TENSORS = [Slot("AxisTensor", dispensable=True, comment="not supported by paddle_nb"),
                 Slot("AxisTensorList", duplicable=True, dispensable=True,
                      comment="not supported by paddle_nb")]


def _no_axis_tensors(name, axis_tensor, axis_list):
    if axis_tensor is not None or axis_list:
        fail(f"{name}: dimensions given as tensors (AxisTensor / AxisTensorList) are not "
             "supported by paddle_nb; give them in the dim attribute")


def _kept(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def other_product(xp, x, axes):
    """For each element of X, the product of the other elements of its reduced group.

    The reduced axes are moved to the end and flattened; the product before an element
    (an exclusive running product) times the product after it leaves the element out.
    """
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = xp.transpose(x, rest + list(axes))
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = xp.ones(flat.shape[:-1] + (1,), dtype=x.dtype)
    before = xp.cumprod(xp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = xp.cumprod(xp.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (before * after).reshape(moved.shape)
    return xp.transpose(others, numpy.argsort(rest + list(axes)))


# ---- reduce_prod ----------------------------------------------------------------------------

def _infer(x, *, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    axes = reduced_axes(x.shape, dim, reduce_all)
    return x.with_shape(reduced_shape(x.shape, axes, keep_dim))


def _prod(ctx, x, *, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    axes = reduced_axes(x.shape, dim, reduce_all)
    return ctx.xp.prod(x, axis=axes).reshape(reduced_shape(x.shape, axes, keep_dim)).astype(
        x.dtype, copy=False)


def _prod_grad(ctx, x, out, dout, *, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    axes = reduced_axes(x.shape, dim, reduce_all)
    g = dout.reshape(_kept(x.shape, axes))
    return (g * other_product(ctx.xp, x, axes)).astype(x.dtype, copy=False)


register(OpDef("reduce_prod", inputs=["X"], outputs=["Out"], attrs=ATTRS, infer=_infer,
               kernel=_prod, grad=grad_op("reduce_prod_grad", inputs=("X",), outputs=("Out",)),
               doc="Out = the product of X over dim"))
register(OpDef("reduce_prod_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
               attrs=ATTRS, infer=lambda x, out, dout, **a: x, kernel=_prod_grad,
               doc="the gradient of reduce_prod: Out@GRAD times the product of the others"))

# ---- reduce_amax / reduce_amin ----------------------------------------------------------------


def _register_extreme(name, pick):
    def infer(x, axis_tensor, axis_list, **attrs):
        _no_axis_tensors(name, axis_tensor, axis_list)
        return _infer(x, **attrs)

    def kernel(ctx, x, axis_tensor, axis_list, *, dim, keep_dim, reduce_all, **_):
        axes = reduced_axes(x.shape, dim, reduce_all)
        return getattr(ctx.xp, pick)(x, axis=axes).reshape(reduced_shape(x.shape, axes,
                                                                          keep_dim))

    def grad_kernel(ctx, x, out, dout, axis_tensor, axis_list, *, dim, reduce_all, **_):
        axes = reduced_axes(x.shape, dim, reduce_all)
        kept = _kept(x.shape, axes)
        tied = x == out.reshape(kept)
        count = tied.sum(axis=axes, keepdims=True)
        return (dout.reshape(kept) * tied / count).astype(x.dtype, copy=False)

    register(OpDef(name, inputs=["X", *_AXIS_TENSORS], outputs=["Out"], attrs=ATTRS,
                   infer=infer, kernel=kernel,
                   grad=grad_op(f"{name}_grad", inputs=("X", "AxisTensor", "AxisTensorList"),
                                outputs=("Out",)),
                   doc=f"Out = the {pick}imum of X over dim; its gradient is shared equally "
                       "among tied elements"))
    register(OpDef(f"{name}_grad", inputs=["X", "Out", "Out@GRAD", *_AXIS_TENSORS],
                   outputs=["X@GRAD"], attrs=ATTRS,
                   infer=lambda x, out, dout, *tensors, **a: x, kernel=grad_kernel,
                   doc=f"the gradient of {name}: Out@GRAD split among the tied extremes"))


_register_extreme("reduce_amax", "max")
_register_extreme("reduce_amin", "min")

# ---- reduce_any / reduce_all ------------------------------------------------------------------

BOOL = numpy.dtype(numpy.bool_)


def _register_boolean(name, func):
    def infer(x, axis_tensor, axis_list, **attrs):
        _no_axis_tensors(name, axis_tensor, axis_list)
        if x.dtype != BOOL:
            fail(f"X must be a bool tensor, got {x.dtype}")
        return _infer(x, **attrs)

    def kernel(ctx, x, axis_tensor, axis_list, *, dim, keep_dim, reduce_all, **_):
        axes = reduced_axes(x.shape, dim, reduce_all)
        return getattr(ctx.xp, func)(x, axis=axes).reshape(reduced_shape(x.shape, axes,
                                                                          keep_dim))

    register(OpDef(name, inputs=["X", *_AXIS_TENSORS], outputs=["Out"], attrs=ATTRS,
                   infer=infer, kernel=kernel,
                   doc=f"Out = {func}(X) over dim (a bool tensor; no gradient)"))


_register_boolean("reduce_any", "any")
_register_boolean("reduce_all", "all")

# ---- logsumexp --------------------------------------------------------------------------------

LSE_ATTRS = {
    "axis": Attr("ints", [0], comment="the dimensions reduced; [] with reduce_all: every one"),
    "keepdim": Attr("bool", False),
    "reduce_all": Attr("bool", False),
}


def _lse_infer(x, *, axis, keepdim, reduce_all):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    axes = reduced_axes(x.shape, axis, reduce_all)
    return x.with_shape(reduced_shape(x.shape, axes, keepdim))


def _lse(ctx, x, *, axis, keepdim, reduce_all):
    xp = ctx.xp
    axes = reduced_axes(x.shape, axis, reduce_all)
    top = x.max(axis=axes, keepdims=True) if x.size else xp.zeros(_kept(x.shape, axes), x.dtype)
    top = xp.where(xp.isfinite(top), top, 0)         # all -inf (or inf) rows: no shift
    out = xp.log(xp.exp(x - top).sum(axis=axes, keepdims=True)) + top
    return out.reshape(reduced_shape(x.shape, axes, keepdim)).astype(x.dtype, copy=False)


def _lse_grad(ctx, x, out, dout, *, axis, keepdim, reduce_all):
    axes = reduced_axes(x.shape, axis, reduce_all)
    kept = _kept(x.shape, axes)
    return (dout.reshape(kept) * ctx.xp.exp(x - out.reshape(kept))).astype(x.dtype, copy=False)


register(OpDef("logsumexp", inputs=["X"], outputs=["Out"], attrs=LSE_ATTRS, infer=_lse_infer,
               kernel=_lse, grad=grad_op("logsumexp_grad", inputs=("X",), outputs=("Out",)),
               doc="Out = log(sum(exp(X))) over axis, shifted by the maximum so nothing "
                   "overflows"))
register(OpDef("logsumexp_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
               attrs=LSE_ATTRS, infer=lambda x, out, dout, **a: x, kernel=_lse_grad,
               doc="the gradient of logsumexp: Out@GRAD * exp(X - Out) (softmax of X)"))

# ---- nanmedian --------------------------------------------------------------------------------

NANMEDIAN_ATTRS = {"axis": Attr("ints", [], comment="the dimensions reduced; [] every one"),
                   "keepdim": Attr("bool", False)}


def _nanmedian_infer(x, *, axis, keepdim):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    axes = reduced_axes(x.shape, axis, not axis)
    n = 1
    for d in x.shape:
        n = -1 if d < 0 or n < 0 else n * d
    index = x.with_shape((2 * n if n >= 0 else -1,)).with_dtype(numpy.int64)
    return x.with_shape(reduced_shape(x.shape, axes, keepdim)), index


def _groups(xp, x, axes):
    """X with the reduced axes moved last and flattened: [kept..., group]."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = xp.transpose(x, rest + list(axes))
    return moved.reshape(moved.shape[:len(rest)] + (-1,)), rest


def _nanmedian(ctx, x, *, axis, keepdim):
    """The median of each group's numbers (NaN where a group has none) and, per group, the
    two middle positions in the group (equal for an odd count; -1 for none), as PaddlePaddle
    lays them out: 2 * numel(X) entries, the unused ones 0."""
    xp = ctx.xp
    axes = reduced_axes(x.shape, axis, not axis)
    flat, _ = _groups(xp, x, axes)
    rows = flat.reshape(-1, flat.shape[-1])
    order = xp.argsort(rows, axis=-1, kind="stable")      # NaNs sort last
    count = (~xp.isnan(rows)).sum(axis=-1)
    low, high = xp.maximum(count - 1, 0) // 2, count // 2
    pick = xp.stack([low, xp.minimum(high, rows.shape[-1] - 1)], axis=-1)
    where = xp.take_along_axis(order, pick, axis=-1)
    values = xp.take_along_axis(rows, where, axis=-1)
    out = xp.where(count > 0, values.mean(axis=-1), xp.nan).astype(x.dtype)
    where = xp.where((count > 0)[:, None], where, -1)
    index = xp.zeros(2 * x.size, dtype=numpy.int64)
    index[:where.size] = where.reshape(-1)
    return out.reshape(reduced_shape(x.shape, axes, keepdim)), index


def _nanmedian_grad(ctx, x, index, dout, *, axis, keepdim):
    xp = ctx.xp
    axes = reduced_axes(x.shape, axis, not axis)
    flat, rest = _groups(xp, x, axes)
    rows = flat.reshape(-1, flat.shape[-1])
    where = index[:2 * rows.shape[0]].reshape(-1, 2)
    grad = xp.zeros(rows.shape, dtype=dout.dtype)
    g = dout.reshape(-1)
    for k in range(2):                 # half of Out@GRAD to each middle position
        hit = where[:, k] >= 0
        r = xp.arange(rows.shape[0])[hit]
        grad[r, where[hit, k]] += g[hit] / 2
    moved = grad.reshape(flat.shape[:-1] + tuple(x.shape[a] for a in axes))
    return xp.transpose(moved, numpy.argsort(rest + list(axes)))


register(OpDef(
    "nanmedian", inputs=["X"], outputs=["Out", "MedianIndex"], attrs=NANMEDIAN_ATTRS,
    infer=_nanmedian_infer, kernel=_nanmedian,
    grad=grad_op("nanmedian_grad", inputs=("X",), outputs=("MedianIndex",)),
    doc="Out = the median over axis of the elements that are not NaN (the mean of the two "
        "middle ones for an even count); MedianIndex: where they were"))
register(OpDef(
    "nanmedian_grad", inputs=["X", "MedianIndex", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=NANMEDIAN_ATTRS, infer=lambda x, idx, dout, **a: x, kernel=_nanmedian_grad,
    doc="the gradient of nanmedian: half of Out@GRAD to each of the two middle elements"))
