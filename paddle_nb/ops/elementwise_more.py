"""More binary elementwise ops: floordiv, mod, heaviside, fmax, fmin, atan2 and nextafter.

``elementwise_floordiv`` and ``elementwise_mod`` divide as Python does (the quotient
rounded toward minus infinity, the remainder taking the divisor's sign) and take
PaddlePaddle's ``axis`` line-up; they have no gradient. ``elementwise_heaviside``,
``elementwise_fmax`` and ``elementwise_fmin`` broadcast as NumPy does (PaddlePaddle 2.6
writes no ``axis`` for them); fmax and fmin ignore a NaN when the other side is a number.
``atan2`` reads X1 and X2 (the angle of the point (X2, X1)). ``nextafter`` (slots ``x``,
``y``, ``out``, lower case as in 2.6) is the next representable number after x toward y.
"""

from paddle_nb.ops.machinery.broadcast import align, align_shapes, broadcast_shape, sum_to
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["AXIS_BINARY", "PLAIN_BINARY"]

AXIS = {"axis": Attr("int", -1, comment="the dimension of X where Y's first dimension lines up")}


def _check_dtypes(a, b, names=("X", "Y")):
    if a.dtype != b.dtype:
        fail(f"{names[0]} and {names[1]} must have the same dtype, got {a.dtype} and {b.dtype}")
    if a.dtype.kind == "b":
        fail(f"{names[0]} must be a number tensor (int or float), got bool")


def _no_zero_divisor(name, y):
    if y.dtype.kind in "iu" and not y.all():
        raise ZeroDivisionError(f"{name}: integer division by zero")


def _floordiv(xp, x, y):
    _no_zero_divisor("elementwise_floordiv", y)
    return xp.floor_divide(x, y)


def _mod(xp, x, y):
    _no_zero_divisor("elementwise_mod", y)
    return xp.mod(x, y)


# name: (forward(xp, x, y), doc); no gradients
AXIS_BINARY = {
    "elementwise_floordiv": (_floordiv, "Out = floor(X / Y) (Python's //)"),
    "elementwise_mod": (_mod, "Out = X mod Y, with Y's sign (Python's %)"),
}


def _register_axis(name, forward, doc):
    def infer(x, y, *, axis):
        _check_dtypes(x, y)
        return x.with_shape(broadcast_shape(*align_shapes(x.shape, y.shape, axis)))

    def kernel(ctx, x, y, *, axis):
        a, b = align(x, y, axis)
        return forward(ctx.xp, a, b).astype(x.dtype, copy=False)

    register(OpDef(name, inputs=["X", "Y"], outputs=["Out"], attrs=AXIS, infer=infer,
                   kernel=kernel, doc=doc))


for _name, (_forward, _doc) in AXIS_BINARY.items():
    _register_axis(_name, _forward, _doc)


def _x_wins_max(xp, x, y):
    return (x >= y) | xp.isnan(y)


def _x_wins_min(xp, x, y):
    return (x <= y) | xp.isnan(y)


# name: (forward(xp, x, y), d/dx(xp, x, y, g), d/dy(xp, x, y, g), doc)
PLAIN_BINARY = {
    "elementwise_heaviside": (
        lambda xp, x, y: xp.where(x > 0, 1, xp.where(x < 0, 0, y)).astype(x.dtype),
        lambda xp, x, y, g: xp.zeros_like(g), lambda xp, x, y, g: g * (x == 0),
        "Out = 0 where X < 0, Y where X == 0, 1 where X > 0"),
    "elementwise_fmax": (
        lambda xp, x, y: xp.fmax(x, y),
        lambda xp, x, y, g: g * _x_wins_max(xp, x, y),
        lambda xp, x, y, g: g * ~_x_wins_max(xp, x, y),
        "Out = max(X, Y), the number where one side is NaN; ties send the gradient to X"),
    "elementwise_fmin": (
        lambda xp, x, y: xp.fmin(x, y),
        lambda xp, x, y, g: g * _x_wins_min(xp, x, y),
        lambda xp, x, y, g: g * ~_x_wins_min(xp, x, y),
        "Out = min(X, Y), the number where one side is NaN; ties send the gradient to X"),
}


def _binary_infer(x, y, names=("X", "Y")):
    _check_dtypes(x, y, names)
    return x.with_shape(broadcast_shape(x.shape, y.shape))


def _grads(xp, ctx, dx, dy, x, y, dout):
    """Each input's gradient, summed back to its own shape (None where not wanted)."""
    gx = sum_to(dx(xp, x, y, dout), x.shape).astype(x.dtype, copy=False) if ctx.want(0) else None
    gy = sum_to(dy(xp, x, y, dout), y.shape).astype(y.dtype, copy=False) if ctx.want(1) else None
    return gx, gy


def _register_plain(name, forward, dx, dy, doc, slots=("X", "Y")):
    a, b = slots

    def grad_kernel(ctx, x, y, dout):
        return _grads(ctx.xp, ctx, dx, dy, x, y, dout)

    register(OpDef(name, inputs=[a, b], outputs=["Out"],
                   infer=lambda x, y: _binary_infer(x, y, slots),
                   kernel=lambda ctx, x, y: forward(ctx.xp, x, y).astype(x.dtype, copy=False),
                   grad=grad_op(f"{name}_grad", inputs=slots, in_grads=slots), doc=doc))
    register(OpDef(f"{name}_grad", inputs=[a, b, "Out@GRAD"],
                   outputs=[Slot(f"{a}@GRAD", dispensable=True),
                            Slot(f"{b}@GRAD", dispensable=True)],
                   infer=lambda x, y, dout: (x, y), kernel=grad_kernel,
                   doc=f"the gradients of {name}: {a}@GRAD and {b}@GRAD"))


for _name, _spec in PLAIN_BINARY.items():
    _register_plain(_name, *_spec)


def _atan2_dx(xp, x1, x2, g):
    return g * x2 / (x1 * x1 + x2 * x2)


def _atan2_dy(xp, x1, x2, g):
    return -g * x1 / (x1 * x1 + x2 * x2)


_register_plain("atan2", lambda xp, x1, x2: xp.arctan2(x1, x2), _atan2_dx, _atan2_dy,
                "Out = atan2(X1, X2), the angle of the point (X2, X1) in (-pi, pi]",
                slots=("X1", "X2"))


def _nextafter_infer(x, y):
    if x.dtype.kind != "f":
        fail(f"x must be a floating-point tensor, got {x.dtype}")
    return _binary_infer(x, y, ("x", "y"))


register(OpDef("nextafter", inputs=["x", "y"], outputs=["out"], infer=_nextafter_infer,
               kernel=lambda ctx, x, y: ctx.xp.nextafter(x, y),
               doc="out = the next float after x in the direction of y (no gradient)"))
