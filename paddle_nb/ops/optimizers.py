"""Optimizer ops, part one: ``sgd``, ``momentum``, ``adagrad``, ``rmsprop``, ``adadelta``
(and ``sign``).

An optimizer op reads a parameter, its gradient, the learning rate (a
one-element tensor) and its own state (velocity, moments), and writes the
updated parameter and state. In a program its ``ParamOut`` names the
parameter itself, as PaddlePaddle does: the op "updates in place" as far as
the program is concerned. The kernels are nevertheless functional: they
return new arrays and never write into an input, so that an executor can put
every persistable back as it was when a run fails part-way.

``multi_precision`` with a ``MasterParam`` (a float32 copy of a float16
parameter) runs the update on the master copy and writes it back rounded to
the parameter's dtype. Without one, a float16 parameter's update is still
computed in float32 (as PaddlePaddle's GPU kernels compute it) and rounded
once at the end: in float16, Adam's epsilon 1e-8 is 0, and a zero gradient
would give 0 / 0. Each state output keeps its input's dtype (float32 moments
for a float16 parameter, as PaddlePaddle 2.6 declares them for Adam); the
Adam family lives in ``adam.py``.

These ops have no gradients: they run after the backward pass. ``sign``
(used by L1 decay) is an ordinary op whose gradient is zero.
"""

import functools

import numpy

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, prepared, register

__all__ = ["like_param", "like_state", "one_element", "scalar", "master_slots", "master_meta",
           "working_copy", "write_back", "state_dtype", "MULTI_PRECISION"]

FLOAT16, FLOAT32 = numpy.dtype("float16"), numpy.dtype("float32")


# ---- shape rules and helpers shared by the update ops ------------------------------------------

def _same_shape(a, b):
    return len(a) == len(b) and all(x == y or x < 0 or y < 0 for x, y in zip(a, b))


def like_param(param, other, slot, dtype=True):
    """``other`` (slot ``slot``) must have the parameter's shape (and dtype, unless told)."""
    if param.dtype.kind != "f":
        fail(f"Param must be a floating-point tensor, got {param.dtype}")
    if not _same_shape(param.shape, other.shape):
        fail(f"{slot} must have Param's shape {tuple(param.shape)}, got {tuple(other.shape)}")
    if dtype and other.dtype != param.dtype:
        fail(f"{slot} must have Param's dtype {param.dtype}, got {other.dtype}")


def state_dtype(dtype):
    """The dtype an update computes in for a parameter of ``dtype``: float32 for float16."""
    return FLOAT32 if dtype == FLOAT16 else dtype


def like_state(state, other, slot):
    """``other`` (an optimizer state, slot ``slot``) must have the shape of ``state`` (the
    parameter, or its master copy) and its dtype, or float32 where ``state`` is float16 (the
    moments PaddlePaddle 2.6 declares for a float16 parameter)."""
    like_param(state, other, slot, dtype=False)
    if other.dtype not in (state.dtype, state_dtype(state.dtype)):
        allowed = " or float32" if state.dtype == FLOAT16 else ""
        fail(f"{slot} must have Param's dtype {state.dtype}{allowed}, got {other.dtype}")


def one_element(meta, slot):
    """``meta`` (slot ``slot``) must hold exactly one value (unknown dims are let through)."""
    n = 1
    for d in meta.shape:
        if d < 0:
            return
        n *= d
    if n != 1:
        fail(f"{slot} must hold one value, got shape {tuple(meta.shape)}")


def scalar(value, dtype):
    """A one-element tensor as a 0-d array of ``dtype`` (so it broadcasts over anything)."""
    return value.reshape(()).astype(dtype, copy=False)


MULTI_PRECISION = Attr("bool", False, comment="update the float32 MasterParam of a float16 Param")


def master_slots():
    """The input and output slots of the float32 master copy (absent unless multi_precision)."""
    return (Slot("MasterParam", dispensable=True, comment="float32 copy of a float16 Param"),
            Slot("MasterParamOut", dispensable=True, comment="in a program, MasterParam itself"))


def master_meta(param, master, multi_precision):
    """The meta the update state must match: the master copy's when it is used."""
    if master is None or not multi_precision:
        return param, None
    like_param(param, master, "MasterParam", dtype=False)
    return master, master


def working_copy(param, master, multi_precision):
    """The array the update works on: the float32 master copy when there is one, else the
    parameter, in float32 when it is float16."""
    if multi_precision and master is not None:
        return master
    return param.astype(state_dtype(param.dtype), copy=False)


def write_back(param, master, multi_precision, new):
    """(ParamOut, MasterParamOut) from the updated working copy ``new``."""
    if multi_precision and master is not None:
        return new.astype(param.dtype), new
    return new.astype(param.dtype, copy=False), None


# ---- sgd --------------------------------------------------------------------------------------

def _sgd_infer(param, lr, grad, master, *, multi_precision):
    like_param(param, grad, "Grad")
    one_element(lr, "LearningRate")
    return param, master_meta(param, master, multi_precision)[1]


def _sgd_kernel(ctx, param, lr, grad, master, *, multi_precision):
    if (multi_precision and master is not None) or param.dtype == FLOAT16:
        p = working_copy(param, master, multi_precision)      # float32
        new = p - scalar(lr, p.dtype) * grad.astype(p.dtype)
        return write_back(param, master, multi_precision, new)
    step = scalar(lr, param.dtype) * grad
    if not isinstance(step, ctx.xp.ndarray) or step.shape != param.shape or \
            step.dtype != param.dtype:        # (0-d operands make a scalar)
        return param - step, None
    return ctx.xp.subtract(param, step, out=step), None   # the new value in the step's memory


def _make_sgd(ctx, metas, *, multi_precision):
    """The kernel, and its usual case without its checks: a float Param and a Grad of the
    same known shape and dtype (rank 1 or more, so the step is an array), no master copy,
    not float16 (whose update the kernel computes in float32)."""
    kernel = functools.partial(_sgd_kernel, ctx, multi_precision=multi_precision)
    if not metas:
        return kernel
    param, lr, grad, master = metas
    if multi_precision or master is not None or param.dtype.kind != "f" or \
            param.dtype == FLOAT16 or \
            grad.dtype != param.dtype or tuple(grad.shape) != tuple(param.shape) or \
            not param.shape or min(param.shape) < 0:
        return kernel
    subtract, dtype = ctx.xp.subtract, param.dtype

    def sgd(param, lr, grad, master):
        step = lr.reshape(()).astype(dtype, copy=False) * grad
        return subtract(param, step, out=step), None
    return sgd


register(OpDef(
    "sgd", inputs=["Param", Slot("LearningRate", comment="one value"), "Grad", master_slots()[0]],
    outputs=[Slot("ParamOut", comment="in a program, the parameter itself"), master_slots()[1]],
    attrs={"multi_precision": MULTI_PRECISION},
    infer=_sgd_infer, kernel=prepared(_make_sgd),
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
    "multi_precision": MULTI_PRECISION,
    "rescale_grad": Attr("float", 1.0, comment="read by PaddlePaddle's GPU kernel only"),
}


def _momentum_infer(param, grad, velocity, lr, master, *, multi_precision, **attrs):
    like_param(param, grad, "Grad")
    state, master_out = master_meta(param, master, multi_precision)
    like_state(state, velocity, "Velocity")
    one_element(lr, "LearningRate")
    # PaddlePaddle 2.6 declares a float16 parameter's VelocityOut float32
    return param, velocity.with_dtype(state_dtype(velocity.dtype)), master_out


def _momentum_kernel(ctx, param, grad, velocity, lr, master, *, mu, use_nesterov,
                     regularization_method, regularization_coeff, multi_precision, rescale_grad):
    p = working_copy(param, master, multi_precision)
    t = p.dtype.type
    # rescale_grad is left alone, as PaddlePaddle 2.6's CPU kernel (the reference) leaves it;
    # its GPU kernel first multiplies Grad by it
    grad = grad.astype(p.dtype, copy=False)
    if regularization_method == "l2_decay":
        grad = grad + t(regularization_coeff) * p
    mu = t(mu)
    lr = scalar(lr, p.dtype)
    velocity_out = mu * velocity + grad
    if use_nesterov:
        p_out = p - (grad + mu * velocity_out) * lr
    else:
        p_out = p - lr * velocity_out
    param_out, master_out = write_back(param, master, multi_precision, p_out)
    return param_out, velocity_out.astype(state_dtype(velocity.dtype), copy=False), master_out


register(OpDef(
    "momentum", inputs=["Param", "Grad", Slot("Velocity", comment="the running step"),
                        Slot("LearningRate", comment="one value"), master_slots()[0]],
    outputs=["ParamOut", "VelocityOut", master_slots()[1]], attrs=MOMENTUM_ATTRS,
    infer=_momentum_infer, kernel=_momentum_kernel,
    doc="VelocityOut = mu * Velocity + Grad; ParamOut = Param - LearningRate * VelocityOut\n"
        "With use_nesterov: ParamOut = Param - (Grad + mu * VelocityOut) * LearningRate.\n"
        "With regularization_method 'l2_decay', Grad is first Grad + regularization_coeff *\n"
        "Param (how paddle.regularizer.L2Decay reaches Momentum). rescale_grad is not read,\n"
        "as in PaddlePaddle's CPU kernel."))

# ---- adagrad ----------------------------------------------------------------------------------


def _adagrad_infer(param, grad, moment, lr, master, *, epsilon, multi_precision):
    like_param(param, grad, "Grad")
    state, master_out = master_meta(param, master, multi_precision)
    like_state(state, moment, "Moment")
    one_element(lr, "LearningRate")
    return param, moment, master_out


def _adagrad_kernel(ctx, param, grad, moment, lr, master, *, epsilon, multi_precision):
    p = working_copy(param, master, multi_precision)
    grad = grad.astype(p.dtype, copy=False)
    moment_out = moment + grad * grad
    # each element's step shrinks with the sum of all its squared gradients so far
    p_out = p - scalar(lr, p.dtype) * grad / (ctx.xp.sqrt(moment_out) + p.dtype.type(epsilon))
    param_out, master_out = write_back(param, master, multi_precision, p_out)
    return param_out, moment_out.astype(moment.dtype, copy=False), master_out


register(OpDef(
    "adagrad", inputs=["Param", "Grad", Slot("Moment", comment="sum of Grad * Grad so far"),
                       Slot("LearningRate", comment="one value"), master_slots()[0]],
    outputs=["ParamOut", "MomentOut", master_slots()[1]],
    attrs={"epsilon": Attr("float", 1e-6, comment="keeps the division finite"),
           "multi_precision": MULTI_PRECISION},
    infer=_adagrad_infer, kernel=_adagrad_kernel,
    doc="MomentOut = Moment + Grad * Grad;\n"
        "ParamOut = Param - LearningRate * Grad / (sqrt(MomentOut) + epsilon)"))

# ---- rmsprop ----------------------------------------------------------------------------------

RMSPROP_ATTRS = {
    "epsilon": Attr("float", 1e-10, comment="added under the square root"),
    "decay": Attr("float", 0.9, comment="decay of the running means (rho)"),
    "momentum": Attr("float", 0.0, comment="decay of the running step"),
    "centered": Attr("bool", False, comment="divide by the variance, not the mean square"),
    "multi_precision": MULTI_PRECISION,
}


def _rmsprop_infer(param, mean_square, grad, moment, lr, mean_grad, master, *, centered,
                   multi_precision, **attrs):
    like_param(param, grad, "Grad")
    state, master_out = master_meta(param, master, multi_precision)
    like_state(state, mean_square, "MeanSquare")
    like_state(state, moment, "Moment")
    if centered and mean_grad is None:
        fail("MeanGrad is required when centered is True")
    if mean_grad is not None:
        like_state(state, mean_grad, "MeanGrad")
    one_element(lr, "LearningRate")
    return param, moment, mean_square, mean_grad, master_out


def _rmsprop_kernel(ctx, param, mean_square, grad, moment, lr, mean_grad, master, *, epsilon,
                    decay, momentum, centered, multi_precision):
    p = working_copy(param, master, multi_precision)
    t = p.dtype.type
    rho, eps = t(decay), t(epsilon)
    grad = grad.astype(p.dtype, copy=False)
    ms_out = rho * mean_square + (1 - rho) * grad * grad
    mg_out = mean_grad                  # untouched when not centered
    if centered:
        mg_out = rho * mean_grad + (1 - rho) * grad
        spread = ms_out - mg_out * mg_out     # the running variance of Grad
    else:
        spread = ms_out
    moment_out = t(momentum) * moment + scalar(lr, p.dtype) * grad / ctx.xp.sqrt(spread + eps)
    param_out, master_out = write_back(param, master, multi_precision, p - moment_out)
    if mg_out is not None:
        mg_out = mg_out.astype(mean_grad.dtype, copy=False)
    return (param_out, moment_out.astype(moment.dtype, copy=False),
            ms_out.astype(mean_square.dtype, copy=False), mg_out, master_out)


register(OpDef(
    "rmsprop", inputs=["Param", Slot("MeanSquare", comment="running mean of Grad * Grad"),
                       "Grad", Slot("Moment", comment="the running step"),
                       Slot("LearningRate", comment="one value"),
                       Slot("MeanGrad", dispensable=True, comment="running mean of Grad"),
                       master_slots()[0]],
    outputs=["ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut", master_slots()[1]],
    attrs=RMSPROP_ATTRS, infer=_rmsprop_infer, kernel=_rmsprop_kernel,
    doc="MeanSquareOut = decay * MeanSquare + (1 - decay) * Grad * Grad;\n"
        "MomentOut = momentum * Moment + LearningRate * Grad / sqrt(MeanSquareOut + epsilon);\n"
        "ParamOut = Param - MomentOut. With centered, MeanGradOut = decay * MeanGrad +\n"
        "(1 - decay) * Grad and the root is of MeanSquareOut - MeanGradOut^2 + epsilon."))

# ---- adadelta ---------------------------------------------------------------------------------


def _adadelta_infer(param, grad, g2, u2, lr, master, *, multi_precision, **attrs):
    like_param(param, grad, "Grad")
    state, master_out = master_meta(param, master, multi_precision)
    like_state(state, g2, "AvgSquaredGrad")
    like_state(state, u2, "AvgSquaredUpdate")
    if lr is not None:
        one_element(lr, "LearningRate")
    return param, g2, u2, master_out


def _adadelta_kernel(ctx, param, grad, g2, u2, lr, master, *, rho, epsilon, multi_precision):
    p = working_copy(param, master, multi_precision)
    t = p.dtype.type
    rho, eps = t(rho), t(epsilon)
    grad = grad.astype(p.dtype, copy=False)
    g2_out = rho * g2 + (1 - rho) * grad * grad
    # the step has the units of the parameter: root mean of past steps over root mean of grads
    step = -ctx.xp.sqrt((u2 + eps) / (g2_out + eps)) * grad
    u2_out = rho * u2 + (1 - rho) * step * step
    rate = t(1) if lr is None else scalar(lr, p.dtype)
    param_out, master_out = write_back(param, master, multi_precision, p + rate * step)
    return (param_out, g2_out.astype(g2.dtype, copy=False), u2_out.astype(u2.dtype, copy=False),
            master_out)


register(OpDef(
    "adadelta", inputs=["Param", "Grad",
                        Slot("AvgSquaredGrad", comment="running mean of Grad * Grad"),
                        Slot("AvgSquaredUpdate", comment="running mean of the squared steps"),
                        Slot("LearningRate", dispensable=True, comment="one value (1 if absent)"),
                        master_slots()[0]],
    outputs=["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut", master_slots()[1]],
    attrs={"rho": Attr("float", 0.95, comment="decay of the running means"),
           "epsilon": Attr("float", 1e-6, comment="keeps the roots finite"),
           "multi_precision": MULTI_PRECISION},
    infer=_adadelta_infer, kernel=_adadelta_kernel,
    doc="AvgSquaredGradOut = rho * AvgSquaredGrad + (1 - rho) * Grad^2;\n"
        "step = -sqrt((AvgSquaredUpdate + epsilon) / (AvgSquaredGradOut + epsilon)) * Grad;\n"
        "AvgSquaredUpdateOut = rho * AvgSquaredUpdate + (1 - rho) * step^2;\n"
        "ParamOut = Param + LearningRate * step."))

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
