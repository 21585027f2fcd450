"""Activations: elementwise functions of one tensor, each with its grad op.

Each entry is the forward formula and the derivative written side by side,
so the chain rule can be checked at a glance. A derivative is written in
terms of the forward output ``out`` where that is cheaper (sigmoid, tanh,
exp, sqrt) and of the input ``x`` otherwise, as PaddlePaddle's grad ops do.
"""

import functools

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import OpDef, fail, prepared, register

__all__ = ["UNARY"]


def _float_like(x):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x


def _float_or_int(x):
    if x.dtype.kind not in "fi":
        fail(f"X must be a floating-point or integer tensor, got {x.dtype}")
    return x


# the activations PaddlePaddle 2.6 also runs on int32 / int64 (paddle.gcd takes abs of ints)
INTEGER_TOO = {"abs"}


# name: (forward(xp, x), reads "X" or "Out", derivative(xp, x_or_out, dout), doc)
UNARY = {
    "relu": (lambda xp, x: xp.maximum(x, 0), "Out",
             lambda xp, out, dout: dout * (out > 0), "Out = max(X, 0)"),
    "sigmoid": (lambda xp, x: 1 / (1 + xp.exp(-x)), "Out",
                lambda xp, out, dout: dout * out * (1 - out), "Out = 1 / (1 + exp(-X))"),
    "tanh": (lambda xp, x: xp.tanh(x), "Out",
             lambda xp, out, dout: dout * (1 - out * out), "Out = tanh(X)"),
    "exp": (lambda xp, x: xp.exp(x), "Out",
            lambda xp, out, dout: dout * out, "Out = exp(X)"),
    "log": (lambda xp, x: xp.log(x), "X",
            lambda xp, x, dout: dout / x, "Out = ln(X)"),
    "sqrt": (lambda xp, x: xp.sqrt(x), "Out",
             lambda xp, out, dout: dout * 0.5 / out, "Out = sqrt(X)"),
    "square": (lambda xp, x: x * x, "X",
               lambda xp, x, dout: dout * 2 * x, "Out = X * X"),
    "abs": (lambda xp, x: xp.abs(x), "X",
            lambda xp, x, dout: dout * xp.sign(x), "Out = |X|"),
}


def _register_unary(name, forward, reads, derivative, doc):
    def make(ctx, metas):
        xp = ctx.xp
        if metas and metas[0].dtype.kind == "f":     # floats keep their dtype: no cast to make
            return lambda x: forward(xp, x)
        return lambda x: forward(xp, x).astype(x.dtype, copy=False)

    def make_grad(ctx, metas):
        xp = ctx.xp
        if metas and metas[0].dtype.kind == "f" and metas[0].dtype == metas[1].dtype:
            return functools.partial(derivative, xp)     # (no Python call of its own)
        return lambda v, dout: derivative(xp, v, dout).astype(dout.dtype, copy=False)

    register(OpDef(
        name, inputs=["X"], outputs=["Out"],
        infer=_float_or_int if name in INTEGER_TOO else _float_like,
        kernel=prepared(make),
        grad=grad_op(f"{name}_grad", inputs=("X",) if reads == "X" else (),
                     outputs=("Out",) if reads == "Out" else ()),
        doc=doc))
    register(OpDef(
        f"{name}_grad", inputs=[reads, "Out@GRAD"], outputs=["X@GRAD"],
        infer=lambda v, dout: dout,
        kernel=prepared(make_grad),
        doc=f"the gradient of {name}: X@GRAD from {reads} and Out@GRAD"))


for _name, _spec in UNARY.items():
    _register_unary(_name, *_spec)
