"""Comparisons and boolean logic: ops whose Out is a bool tensor (no gradients).

``less_than``, ``less_equal``, ``greater_than``, ``greater_equal``, ``equal``
and ``not_equal`` compare X and Y (same dtype) elementwise, lining Y up with
X at ``axis`` exactly as the elementwise ops do (:mod:`paddle_nb.ops.machinery.broadcast`).
``logical_and``, ``logical_or`` and ``logical_xor`` combine two tensors by
NumPy broadcasting, reading nonzero as True; ``logical_not`` negates one.
"""

import numpy

from paddle_nb.ops.machinery.broadcast import align, align_shapes, broadcast_shape
from paddle_nb.ops.machinery.registry import Attr, OpDef, fail, register

__all__ = ["COMPARE", "LOGICAL"]

BOOL = numpy.dtype(numpy.bool_)

COMPARE = {
    "less_than": ("less", "Out = X < Y"),
    "less_equal": ("less_equal", "Out = X <= Y"),
    "greater_than": ("greater", "Out = X > Y"),
    "greater_equal": ("greater_equal", "Out = X >= Y"),
    "equal": ("equal", "Out = X == Y"),
    "not_equal": ("not_equal", "Out = X != Y"),
}
LOGICAL = {
    "logical_and": ("logical_and", "Out = X and Y"),
    "logical_or": ("logical_or", "Out = X or Y"),
    "logical_xor": ("logical_xor", "Out = X xor Y"),
}
COMPARE_ATTRS = {
    "axis": Attr("int", -1, comment="the dimension of X where Y's first dimension lines up"),
    "force_cpu": Attr("bool", False, comment="accepted for compatibility; Out stays on X's place"),
}


def _infer_binary(x, y, axis):
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got X {x.dtype} {tuple(x.shape)} and "
             f"Y {y.dtype} {tuple(y.shape)}")
    xs, ys = align_shapes(x.shape, y.shape, axis)
    return x.with_shape(broadcast_shape(xs, ys)).with_dtype(BOOL)


def _register_compare(name, func, doc):
    def kernel(ctx, x, y, *, axis, force_cpu):
        a, b = align(x, y, axis)
        return getattr(ctx.xp, func)(a, b)

    register(OpDef(name, inputs=["X", "Y"], outputs=["Out"], attrs=COMPARE_ATTRS,
                   infer=lambda x, y, *, axis, force_cpu: _infer_binary(x, y, axis),
                   kernel=kernel, doc=doc))


def _register_logical(name, func, doc):
    def kernel(ctx, x, y):
        a, b = align(x, y, -1)
        return getattr(ctx.xp, func)(a, b)

    register(OpDef(name, inputs=["X", "Y"], outputs=["Out"],
                   infer=lambda x, y: _infer_binary(x, y, -1), kernel=kernel, doc=doc))


for _name, (_func, _doc) in COMPARE.items():
    _register_compare(_name, _func, _doc)
for _name, (_func, _doc) in LOGICAL.items():
    _register_logical(_name, _func, _doc)

register(OpDef("logical_not", inputs=["X"], outputs=["Out"],
               infer=lambda x: x.with_dtype(BOOL),
               kernel=lambda ctx, x: ctx.xp.logical_not(x), doc="Out = not X"))
