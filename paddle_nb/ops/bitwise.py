"""Bitwise ops and the tests of values: bitwise_and/or/xor/not, isnan/isinf/isfinite,
isclose, allclose, equal_all, is_empty. None of them has a gradient.

``bitwise_*`` work on bools and integers (a bool is one bit: on bools they are the logical
ops; Paddle's ``x & y`` on two bool Variables writes ``bitwise_and``), broadcasting as NumPy
does. ``isclose`` compares ``|X - Y| <= atol + rtol * |Y|`` elementwise; PaddlePaddle keeps
its tolerances as *strings* (``rtol: "1e-05"``) so that a float64 tolerance survives the
float32 attribute; ``Rtol`` / ``Atol`` tensors, when given, replace them. ``allclose``
reduces that to one 0-D bool; so does ``equal_all`` for exact equality (False when the
shapes differ). ``is_empty`` says whether X has no elements.
"""

import numpy

from paddle_nb.ops.machinery.broadcast import broadcast_shape
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["BITWISE"]

BOOL = numpy.dtype(numpy.bool_)

BITWISE = {
    "bitwise_and": ("bitwise_and", "Out = X & Y"),
    "bitwise_or": ("bitwise_or", "Out = X | Y"),
    "bitwise_xor": ("bitwise_xor", "Out = X ^ Y"),
}


def _int_or_bool(m, slot):
    if m.dtype.kind not in "biu":
        fail(f"{slot} must be a bool or integer tensor, got {m.dtype}")


def _bitwise_infer(x, y):
    _int_or_bool(x, "X")
    _int_or_bool(y, "Y")
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
    return x.with_shape(broadcast_shape(x.shape, y.shape))


def _register_bitwise(name, func, doc):
    register(OpDef(name, inputs=["X", "Y"], outputs=["Out"], infer=_bitwise_infer,
                   kernel=lambda ctx, x, y: getattr(ctx.xp, func)(x, y), doc=doc))


for _name, (_func, _doc) in BITWISE.items():
    _register_bitwise(_name, _func, _doc)


def _bitwise_not_infer(x):
    _int_or_bool(x, "X")
    return x


register(OpDef("bitwise_not", inputs=["X"], outputs=["Out"], infer=_bitwise_not_infer,
               kernel=lambda ctx, x: ctx.xp.invert(x), doc="Out = ~X (not, on bools)"))

# ---- isnan / isinf / isfinite -----------------------------------------------------------------


def _test_infer(x):
    if x.dtype.kind not in "fiu":
        fail(f"X must be a number tensor, got {x.dtype}")
    return x.with_dtype(BOOL)


for _name, _func in (("isnan_v2", "isnan"), ("isinf_v2", "isinf"), ("isfinite_v2", "isfinite")):
    register(OpDef(_name, inputs=["X"], outputs=["Out"], infer=_test_infer,
                   kernel=lambda ctx, x, f=_func: getattr(ctx.xp, f)(x),
                   doc=f"Out = {_func}(X) elementwise (a bool tensor)"))

# ---- isclose / allclose -----------------------------------------------------------------------


def _tolerance(v):
    try:
        float(v)
    except ValueError:
        return "must be a number written as a string, such as '1e-05'"
    return None


CLOSE_ATTRS = {
    "rtol": Attr("str", "1e-05", _tolerance, "the relative tolerance, as a string"),
    "atol": Attr("str", "1e-08", _tolerance, "the absolute tolerance, as a string"),
    "equal_nan": Attr("bool", False, comment="two NaNs count as close"),
}
_CLOSE_INPUTS = ["Input", "Other", Slot("Rtol", dispensable=True, comment="replaces rtol"),
                 Slot("Atol", dispensable=True, comment="replaces atol")]


def _close_check(x, y):
    if x.dtype != y.dtype:
        fail(f"Input and Other must have the same dtype, got {x.dtype} and {y.dtype}")
    if x.dtype.kind != "f":
        fail(f"Input must be a floating-point tensor, got {x.dtype}")
    return broadcast_shape(x.shape, y.shape, "Input and Other")


def _close(xp, x, y, rtol_t, atol_t, rtol, atol, equal_nan):
    rtol = float(rtol) if rtol_t is None else rtol_t.reshape(()).item()
    atol = float(atol) if atol_t is None else atol_t.reshape(()).item()
    # compared in float64, as PaddlePaddle's kernel does
    a, b = x.astype(numpy.float64), y.astype(numpy.float64)
    with numpy.errstate(invalid="ignore"):          # inf - inf is NaN: not close, as wanted
        close = xp.abs(a - b) <= atol + rtol * xp.abs(b)
    close = close | (a == b)                  # equal infinities
    if equal_nan:
        close = close | (xp.isnan(a) & xp.isnan(b))
    return close


register(OpDef(
    "isclose", inputs=_CLOSE_INPUTS, outputs=["Out"], attrs=CLOSE_ATTRS,
    infer=lambda x, y, r, a, **_: x.with_shape(_close_check(x, y)).with_dtype(BOOL),
    kernel=lambda ctx, x, y, r, a, **attrs: _close(ctx.xp, x, y, r, a, **attrs),
    doc="Out = |Input - Other| <= atol + rtol * |Other|, elementwise"))


def _allclose_infer(x, y, rtol_t, atol_t, **attrs):
    _close_check(x, y)
    return x.with_shape(()).with_dtype(BOOL)


register(OpDef(
    "allclose", inputs=_CLOSE_INPUTS, outputs=["Out"], attrs=CLOSE_ATTRS, infer=_allclose_infer,
    kernel=lambda ctx, x, y, r, a, **attrs: _close(ctx.xp, x, y, r, a, **attrs).all().reshape(()),
    doc="Out = every element of Input is close to Other's (a 0-D bool)"))

# ---- equal_all / is_empty ---------------------------------------------------------------------


def _equal_all_infer(x, y):
    if x.dtype != y.dtype:
        fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
    return x.with_shape(()).with_dtype(BOOL)


def _equal_all(ctx, x, y):
    same = x.shape == y.shape and bool((x == y).all())
    return ctx.xp.asarray(same).reshape(())


register(OpDef("equal_all", inputs=["X", "Y"], outputs=["Out"], infer=_equal_all_infer,
               kernel=_equal_all,
               doc="Out = X and Y have one shape and equal elements (a 0-D bool)"))
register(OpDef("is_empty", inputs=["X"], outputs=["Out"],
               infer=lambda x: x.with_shape(()).with_dtype(BOOL),
               kernel=lambda ctx, x: ctx.xp.asarray(x.size == 0).reshape(()),
               doc="Out = X has no elements (a 0-D bool)"))
