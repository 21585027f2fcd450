"""Optimizer ops: one update rule each, ``sgd``, ``momentum`` and ``adam`` (and ``sign``).

An optimizer op reads a parameter, its gradient, the learning rate (a
one-element tensor) and its own state (velocity, moments), and writes the
updated parameter and state. In a program its ``ParamOut`` names the
parameter itself, as PaddlePaddle does: the op "updates in place" as far as
the program is concerned. The kernels are nevertheless functional: they
return new arrays and never write into an input, so that an executor can put
every persistable back as it was when a run fails part-way.

These ops have no gradients: they run after the backward pass. ``sign``
(used by L1 decay) is an ordinary op whose gradient is zero.
"""

from paddle_nb.ops.grad import OpSpec
from paddle_nb.ops.registry import Attr, OpDef, Slot, fail, register

__all__ = []


# ---- shape rules shared by the update ops ------------------------------------------------------

def _same_shape(a, b):
    return len(a) == len(b) and all(x == y or x < 0 or y < 0 for x, y in zip(a, b))


def _like_param(param, other, slot):
    """``other`` (slot ``slot``) must have the parameter's shape and dtype."""
    if param.dtype.kind != "f":
        fail(f"Param must be a floating-point tensor, got {param.dtype}")
    if not _same_shape(param.shape, other.shape):
        fail(f"{slot} must have Param's shape {tuple(param.shape)}, got {tuple(other.shape)}")
    if other.dtype != param.dtype:
        fail(f"{slot} must have Param's dtype {param.dtype}, got {other.dtype}")


def _one_element(meta, slot):
    """``meta`` (slot ``slot``) must hold exactly one value (unknown dims are let through)."""
    n = 1
    for d in meta.shape:
        if d < 0:
            return
        n *= d
    if n != 1:
        fail(f"{slot} must hold one value, got shape {tuple(meta.shape)}")


def _scalar(xp, value, dtype):
    """A one-element tensor as a 0-d array of ``dtype`` (so it broadcasts over anything)."""
    return value.reshape(()).astype(dtype, copy=False)


# ---- sgd --------------------------------------------------------------------------------------

def _sgd_infer(param, lr, grad):
    _like_param(param, grad, "Grad")
    _one_element(lr, "LearningRate")
    return param


def _sgd_kernel(ctx, param, lr, grad):
    step = _scalar(ctx.xp, lr, param.dtype) * grad
    if not isinstance(step, ctx.xp.ndarray) or step.shape != param.shape or \
            step.dtype != param.dtype:        # (0-d operands make a scalar)
        return param - step
    return ctx.xp.subtract(param, step, out=step)   # the new value in the step's memory


register(OpDef(
    "sgd", inputs=["Param", Slot("LearningRate", comment="one value"), "Grad"],
    outputs=[Slot("ParamOut", comment="in a program, the parameter itself")],
    infer=_sgd_infer, kernel=_sgd_kernel,
    doc="ParamOut = Param - LearningRate * Grad\n"
        "Plain stochastic gradient descent."))

# ---- momentum ---------------------------------------------------------------------------------

MOMENTUM_ATTRS = {
    "mu": Attr("float", comment="the momentum factor"),
    "use_nesterov": Attr("bool", False, comment="Nesterov's look-ahead update"),
    "regularization_method": Attr("str", "", check=lambda v: None if v in ("", "l2_decay") else
                                  "expected '' or 'l2_decay'",
                                  comment="'l2_decay' adds regularization_coeff * Param to Grad"),
    "regularization_coeff": Attr("float", 0.0, comment="the L2 decay factor"),
}


def _momentum_infer(param, grad, velocity, lr, **attrs):
    _like_param(param, grad, "Grad")
    _like_param(param, velocity, "Velocity")
    _one_element(lr, "LearningRate")
    return param, velocity


def _momentum_kernel(ctx, param, grad, velocity, lr, *, mu, use_nesterov, regularization_method,
                     regularization_coeff):
    if regularization_method == "l2_decay":
        grad = grad + param.dtype.type(regularization_coeff) * param
    mu = param.dtype.type(mu)
    lr = _scalar(ctx.xp, lr, param.dtype)
    velocity_out = mu * velocity + grad
    if use_nesterov:
        param_out = param - (grad + mu * velocity_out) * lr
    else:
        param_out = param - lr * velocity_out
    return param_out, velocity_out


register(OpDef(
    "momentum", inputs=["Param", "Grad", Slot("Velocity", comment="the running step"),
                        Slot("LearningRate", comment="one value")],
    outputs=["ParamOut", "VelocityOut"], attrs=MOMENTUM_ATTRS,
    infer=_momentum_infer, kernel=_momentum_kernel,
    doc="VelocityOut = mu * Velocity + Grad; ParamOut = Param - LearningRate * VelocityOut\n"
        "With use_nesterov: ParamOut = Param - (Grad + mu * VelocityOut) * LearningRate.\n"
        "With regularization_method 'l2_decay', Grad is first Grad + regularization_coeff * Param."))

# ---- adam -------------------------------------------------------------------------------------

ADAM_ATTRS = {
    "beta1": Attr("float", 0.9, comment="decay of the first moment (the mean of Grad)"),
    "beta2": Attr("float", 0.999, comment="decay of the second moment (the mean of Grad^2)"),
    "epsilon": Attr("float", 1e-8, comment="keeps the division finite"),
    "lazy_mode": Attr("bool", False, comment="update only the rows of a sparse gradient; "
                                             "dense gradients update everything either way"),
}


def _adam_infer(param, grad, lr, m1, m2, b1pow, b2pow, **attrs):
    _like_param(param, grad, "Grad")
    _like_param(param, m1, "Moment1")
    _like_param(param, m2, "Moment2")
    _one_element(lr, "LearningRate")
    _one_element(b1pow, "Beta1Pow")
    _one_element(b2pow, "Beta2Pow")
    return param, m1, m2, b1pow, b2pow


def _adam_kernel(ctx, param, grad, lr, m1, m2, b1pow, b2pow, *, beta1, beta2, epsilon,
                 lazy_mode):
    xp = ctx.xp
    t = param.dtype.type
    b1, b2, eps = t(beta1), t(beta2), t(epsilon)
    p1 = _scalar(xp, b1pow, param.dtype)      # beta1 ** step, step counted from 1
    p2 = _scalar(xp, b2pow, param.dtype)
    m1_out = b1 * m1 + (1 - b1) * grad
    m2_out = b2 * m2 + (1 - b2) * grad * grad
    # The bias corrections folded into the step size, as PaddlePaddle's kernel does:
    lr_t = _scalar(xp, lr, param.dtype) * xp.sqrt(1 - p2) / (1 - p1)
    param_out = param - lr_t * (m1_out / (xp.sqrt(m2_out) + eps * xp.sqrt(1 - p2)))
    return (param_out.astype(param.dtype, copy=False), m1_out, m2_out,
            (b1pow * b1).astype(b1pow.dtype, copy=False), (b2pow * b2).astype(b2pow.dtype, copy=False))


register(OpDef(
    "adam", inputs=["Param", "Grad", Slot("LearningRate", comment="one value"),
                    Slot("Moment1", comment="running mean of Grad"),
                    Slot("Moment2", comment="running mean of Grad * Grad"),
                    Slot("Beta1Pow", comment="beta1 ** step, one value"),
                    Slot("Beta2Pow", comment="beta2 ** step, one value")],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut"],
    attrs=ADAM_ATTRS, infer=_adam_infer, kernel=_adam_kernel,
    doc="Adam: m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g;\n"
        "lr_t = lr * sqrt(1 - Beta2Pow) / (1 - Beta1Pow);\n"
        "ParamOut = Param - lr_t * m / (sqrt(v) + epsilon * sqrt(1 - Beta2Pow));\n"
        "Beta1PowOut = Beta1Pow * beta1, Beta2PowOut = Beta2Pow * beta2."))

# ---- sign (for L1 decay) ----------------------------------------------------------------------


def _sign_infer(x):
    if x.dtype.kind != "f":
        fail(f"X must be a floating-point tensor, got {x.dtype}")
    return x


def _sign_grad(g):
    # sign is flat almost everywhere: its gradient is Out@GRAD times zero, as in PaddlePaddle.
    return [OpSpec("scale", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")},
                   {"scale": 0.0})]


register(OpDef(
    "sign", inputs=["X"], outputs=["Out"], infer=_sign_infer,
    kernel=lambda ctx, x: ctx.xp.sign(x).astype(x.dtype, copy=False), grad=_sign_grad,
    doc="Out = sign(X): -1, 0 or 1 per element\nIts gradient is zero (a scale op by 0)."))
