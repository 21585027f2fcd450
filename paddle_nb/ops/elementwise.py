"""Elementwise binary ops with PaddlePaddle's ``axis`` broadcasting.

``elementwise_add / sub / mul / div / max / min / pow`` each take X and Y,
line Y up with X at ``axis`` (see :mod:`paddle_nb.ops.machinery.broadcast`) and write
Out. Each grad op reads X, Y and Out@GRAD and writes X@GRAD and Y@GRAD,
summed back over broadcast dimensions.
"""

import functools

from paddle_nb.ops.machinery.broadcast import align, align_shapes, broadcast_shape, sum_to
from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, prepared, register

__all__ = ["BINARY", "numpy_rule"]

AXIS = {"axis": Attr("int", -1, comment="the dimension of X where Y's first dimension lines up")}


# PaddlePaddle 2.6 registers kernels for bool operands only for these two
BOOL_OPS = ("elementwise_mul", "elementwise_div")


def _infer_for(name):
    def infer(x, y, *, axis):
        if x.dtype != y.dtype:
            fail(f"X and Y must have the same dtype, got {x.dtype} and {y.dtype}")
        if x.dtype.kind == "b" and name not in BOOL_OPS:
            fail(f"{name} has no kernel for bool operands (PaddlePaddle has none); cast X "
                 "and Y to an integer or float dtype")
        xs, ys = align_shapes(x.shape, y.shape, axis)
        return x.with_shape(broadcast_shape(xs, ys))
    return infer


def _divide(xp, x, y):
    """X / Y; integers (and bools) divide as C++ does, truncating toward zero, in their own
    dtype as PaddlePaddle does (7 / -2 = -3); an integer zero divisor is an error."""
    if x.dtype.kind == "f" or x.dtype.kind == "c":
        return x / y
    if not y.all():
        raise ZeroDivisionError("elementwise_div: integer division by zero")
    if x.dtype.kind == "b":
        return x & y              # True / True is True, False / True is False
    return (x - xp.fmod(x, y)) // y    # x - fmod(x, y) is a multiple of y: // is exact


def _grad_infer(x, y, dout, *, axis):
    return x, y


# name: (forward(xp, x, y), d/dx(xp, x, y, out_grad), d/dy(xp, x, y, out_grad), doc)
BINARY = {
    "elementwise_add": (lambda xp, x, y: x + y,
                        lambda xp, x, y, g: g, lambda xp, x, y, g: g, "Out = X + Y"),
    "elementwise_sub": (lambda xp, x, y: x - y,
                        lambda xp, x, y, g: g, lambda xp, x, y, g: -g, "Out = X - Y"),
    "elementwise_mul": (lambda xp, x, y: x * y,
                        lambda xp, x, y, g: g * y, lambda xp, x, y, g: g * x, "Out = X * Y"),
    "elementwise_div": (_divide,
                        lambda xp, x, y, g: g / y, lambda xp, x, y, g: -g * x / (y * y),
                        "Out = X / Y"),
    "elementwise_max": (lambda xp, x, y: xp.maximum(x, y),
                        lambda xp, x, y, g: g * (x >= y), lambda xp, x, y, g: g * (x < y),
                        "Out = max(X, Y); ties send the gradient to X"),
    "elementwise_min": (lambda xp, x, y: xp.minimum(x, y),
                        lambda xp, x, y, g: g * (x <= y), lambda xp, x, y, g: g * (x > y),
                        "Out = min(X, Y); ties send the gradient to X"),
    "elementwise_pow": (lambda xp, x, y: xp.power(x, y),
                        lambda xp, x, y, g: g * y * xp.power(x, y - 1),
                        lambda xp, x, y, g: g * xp.power(x, y) * xp.log(xp.where(x > 0, x, 1)),
                        "Out = X ** Y (dY uses log X, so X > 0 where Y's gradient matters)"),
}


UFUNCS = {"elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
          "elementwise_div": "divide", "elementwise_max": "maximum", "elementwise_min": "minimum"}


def numpy_rule(x_rank, y_rank, axis):
    """True when NumPy's broadcasting lines X and Y up as Paddle's ``axis`` does: equal
    ranks, or the smaller operand lined up with the larger one's last dimensions."""
    return x_rank == y_rank or axis == -1 or axis == abs(x_rank - y_rank)


def _register_binary(name, forward, dx, dy, doc):
    ufunc = UFUNCS.get(name)

    def make(ctx, metas, *, axis):
        xp = ctx.xp
        if metas and metas[0].dtype == metas[1].dtype and \
                numpy_rule(len(metas[0].shape), len(metas[1].shape), axis):
            if ufunc == "divide" and metas[0].dtype.kind not in "fc":  # C++'s integer division
                return functools.partial(_divide, xp)
            if ufunc:                     # one dtype, NumPy's broadcasting is Paddle's
                return getattr(xp, ufunc)

        def binary(x, y):
            if x.ndim == y.ndim:          # equal ranks: NumPy's broadcasting is Paddle's
                return forward(xp, x, y)
            a, b = align(x, y, axis)
            return forward(xp, a, b).astype(x.dtype, copy=False)
        return binary

    def make_grad(ctx, metas, *, axis):
        xp, want_x, want_y = ctx.xp, ctx.want(0), ctx.want(1)
        if metas and metas[0].dtype == metas[1].dtype == metas[2].dtype and \
                metas[0].dtype.kind == "f" and \
                numpy_rule(len(metas[0].shape), len(metas[1].shape), axis):
            if name == "elementwise_add":
                return _add_grads(xp, want_x, want_y)

            def grads(x, y, g):   # each gradient summed back to its operand's shape (nothing
                return (sum_to(dx(xp, x, y, g), x.shape) if want_x else None,   # to sum when
                        sum_to(dy(xp, x, y, g), y.shape) if want_y else None)   # shapes agree)
            return grads

        def grads_aligned(x, y, dout):
            a, b = (x, y) if numpy_rule(x.ndim, y.ndim, axis) else align(x, y, axis)
            gx = _back(dx(xp, a, b, dout), a.shape, x) if want_x else None
            gy = _back(dy(xp, a, b, dout), b.shape, y) if want_y else None
            return gx, gy
        return grads_aligned

    register(OpDef(name, inputs=["X", "Y"], outputs=["Out"], attrs=AXIS, infer=_infer_for(name),
                   kernel=prepared(make), grad=grad_op(f"{name}_grad", inputs=("X", "Y"),
                                               in_grads=("X", "Y")), doc=doc))
    inputs: list[str | Slot] = ["X", "Y", "Out@GRAD"]
    infer = _grad_infer
    if name in READS_OUT:     # PaddlePaddle 2.6 also passes Out (unused here): accept it
        inputs = ["X", "Y", Slot("Out", dispensable=True), "Out@GRAD"]
        infer, make_grad = _skip_out(infer, make_grad)
    register(OpDef(f"{name}_grad", inputs=inputs,
                   outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
                   attrs=AXIS, infer=infer, kernel=prepared(make_grad),
                   doc=f"the gradients of {name}: X@GRAD and Y@GRAD from X, Y and Out@GRAD"))


def _add_grads(xp, want_x, want_y):
    """elementwise_add_grad's kernel where NumPy's broadcasting is Paddle's: both gradients
    are Out@GRAD itself, summed back over the dimensions an operand was broadcast along
    (none when its shape is Out's: the common case, an RNN's step, checked first)."""
    reduce = getattr(xp.add, "reduce", None)    # (NumPy's; CuPy's where it has one)

    def summed(g, shape):
        # a bias's gradient: the rows summed by one reduce, not through ndarray.sum's Python
        if reduce is not None and g.ndim == len(shape) + 1 and g.shape[1:] == shape:
            return reduce(g, 0)
        return sum_to(g, shape)

    def grads(x, y, g):
        shape = g.shape
        return ((g if x.shape == shape else summed(g, x.shape)) if want_x else None,
                (g if y.shape == shape else summed(g, y.shape)) if want_y else None)
    return grads


# grad ops to which PaddlePaddle 2.6 also passes the forward output Out
READS_OUT = {"elementwise_div"}


def _skip_out(infer, make):
    """The grad op's infer and kernel maker, taking (and ignoring) an Out argument."""
    def infer_(x, y, out, dout, **attrs):
        return infer(x, y, dout, **attrs)

    def make_(ctx, metas, **attrs):
        found = make(ctx, metas and [metas[0], metas[1], metas[3]], **attrs)
        return lambda x, y, out, dout: found(x, y, dout)
    return infer_, make_


def _back(grad, aligned, like):
    """A gradient computed on the lined-up operand, summed and shaped back to ``like``."""
    grad = sum_to(grad, aligned)
    if grad.shape != like.shape:
        grad = grad.reshape(like.shape)
    return grad if grad.dtype == like.dtype else grad.astype(like.dtype)


for _name, _spec in BINARY.items():
    _register_binary(_name, *_spec)
