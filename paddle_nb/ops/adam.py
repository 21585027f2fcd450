"""Optimizer ops, part two: the Adam family, ``adam``, ``adamw``, ``adamax`` and ``lamb``.

All four keep running means of the gradient (``Moment1``, "m") and of its
square or its size (``Moment2``, "v"; ``InfNorm``) and divide one by the
other, so that each element's step is about ``LearningRate`` whatever the
gradient's scale. ``Beta1Pow`` / ``Beta2Pow`` hold ``beta ** step`` and undo
the moments' bias toward their zero start. ``adamw`` first shrinks the
parameter (decoupled weight decay); ``lamb`` scales the whole layer's step by
``||Param|| / ||step||`` (its trust ratio).

As in ``optimizers.py`` the kernels are functional, and ``MasterParam``
(``multi_precision``) makes the update run on a float32 copy. A true
``SkipUpdate`` (a one-element bool tensor) leaves everything as it was.
"""

from paddle_nb.ops.optimizers import (MULTI_PRECISION, like_param, like_state, master_meta,
                                         master_slots, one_element, scalar, working_copy,
                                         write_back)
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

_MOMENTS = [Slot("Moment1", comment="running mean of Grad"),
            Slot("Moment2", comment="running mean of Grad * Grad"),
            Slot("Beta1Pow", comment="beta1 ** step, one value"),
            Slot("Beta2Pow", comment="beta2 ** step, one value")]
_SKIP = Slot("SkipUpdate", dispensable=True, comment="one bool: true leaves everything as it was")
_BETAS = {
    "beta1": Attr("float", 0.9, comment="decay of the first moment (the mean of Grad)"),
    "beta2": Attr("float", 0.999, comment="decay of the second moment (the mean of Grad^2)"),
}


def _skipped(skip):
    return skip is not None and bool(skip.reshape(-1)[0])


def _moments_infer(param, grad, lr, m1, m2, b1pow, b2pow, master, skip, multi_precision):
    """The checks Adam and Lamb share; (state meta, MasterParamOut meta)."""
    like_param(param, grad, "Grad")
    state, master_out = master_meta(param, master, multi_precision)
    like_state(state, m1, "Moment1")
    like_state(state, m2, "Moment2")
    for meta, slot in ((lr, "LearningRate"), (b1pow, "Beta1Pow"), (b2pow, "Beta2Pow")):
        one_element(meta, slot)
    if skip is not None:
        one_element(skip, "SkipUpdate")
        if skip.dtype.kind != "b":
            fail(f"SkipUpdate must be a bool tensor, got {skip.dtype}")
    return state, master_out


def _moments(grad, m1, m2, b1, b2):
    """The running means of Grad and Grad^2."""
    return b1 * m1 + (1 - b1) * grad, b2 * m2 + (1 - b2) * grad * grad


# ---- adam -------------------------------------------------------------------------------------

ADAM_ATTRS = dict(_BETAS, **{
    "epsilon": Attr("float", 1e-8, comment="keeps the division finite"),
    "lazy_mode": Attr("bool", False, comment="update only the rows of a sparse gradient; "
                                             "dense gradients update everything either way"),
    "min_row_size_to_use_multithread": Attr("long", 1000, comment="a CPU threading hint"),
    "multi_precision": MULTI_PRECISION,
    "use_global_beta_pow": Attr("bool", False, comment="leave Beta1Pow/Beta2Pow to other ops"),
})
_ADAM_TENSORS = [Slot(f"{n}Tensor", dispensable=True, comment=f"one value, overrides {n.lower()}")
                 for n in ("Beta1", "Beta2", "Epsilon")]


def _adam_infer(param, grad, lr, m1, m2, b1pow, b2pow, master, skip, beta1_t, beta2_t, eps_t,
                *, multi_precision, **attrs):
    _, master_out = _moments_infer(param, grad, lr, m1, m2, b1pow, b2pow, master, skip,
                                   multi_precision)
    for meta, slot in ((beta1_t, "Beta1Tensor"), (beta2_t, "Beta2Tensor"),
                       (eps_t, "EpsilonTensor")):
        if meta is not None:
            one_element(meta, slot)
    return param, m1, m2, b1pow, b2pow, master_out


def _unchanged(param, m1, m2, b1pow, b2pow, master):
    return param, m1, m2, b1pow, b2pow, master


def _adam_step(xp, p, grad, lr, m1, m2, b1pow, b2pow, b1, b2, eps):
    """One Adam step on the working copy ``p``: (new p, new Moment1, new Moment2)."""
    dtype = p.dtype
    p1, p2 = scalar(b1pow, dtype), scalar(b2pow, dtype)      # beta ** step, step counted from 1
    m1_out, m2_out = _moments(grad.astype(dtype, copy=False), m1, m2, b1, b2)
    # the bias corrections folded into the step size, as PaddlePaddle's kernel does:
    lr_t = scalar(lr, dtype) * xp.sqrt(1 - p2) / (1 - p1)
    p_out = p - lr_t * (m1_out / (xp.sqrt(m2_out) + eps * xp.sqrt(1 - p2)))
    return p_out.astype(dtype, copy=False), m1_out, m2_out


def _adam_kernel(ctx, param, grad, lr, m1, m2, b1pow, b2pow, master, skip, beta1_t, beta2_t,
                 eps_t, *, beta1, beta2, epsilon, lazy_mode, min_row_size_to_use_multithread,
                 multi_precision, use_global_beta_pow, decay=None):
    if _skipped(skip):
        return _unchanged(param, m1, m2, b1pow, b2pow, master)
    p = working_copy(param, master, multi_precision)
    t = p.dtype.type
    # a tensor given for beta1, beta2 or epsilon overrides the attribute
    b1, b2, eps = (t(v) if tensor is None else scalar(tensor, p.dtype)
                   for v, tensor in ((beta1, beta1_t), (beta2, beta2_t), (epsilon, eps_t)))
    if decay is not None:                 # adamw: shrink Param before the step
        p = p - (scalar(lr, p.dtype) * t(decay)) * p
    p_out, m1_out, m2_out = _adam_step(ctx.xp, p, grad, lr, m1, m2, b1pow, b2pow, b1, b2, eps)
    param_out, master_out = write_back(param, master, multi_precision, p_out)
    if not use_global_beta_pow:
        b1pow, b2pow = (b1pow * b1).astype(b1pow.dtype), (b2pow * b2).astype(b2pow.dtype)
    return (param_out, m1_out.astype(m1.dtype, copy=False), m2_out.astype(m2.dtype, copy=False),
            b1pow, b2pow, master_out)


_ADAM_DOC = (
    "m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g;\n"
    "lr_t = lr * sqrt(1 - Beta2Pow) / (1 - Beta1Pow);\n"
    "ParamOut = Param - lr_t * m / (sqrt(v) + epsilon * sqrt(1 - Beta2Pow));\n"
    "Beta1PowOut = Beta1Pow * beta1, Beta2PowOut = Beta2Pow * beta2 (unless\n"
    "use_global_beta_pow). Beta1Tensor/Beta2Tensor/EpsilonTensor override the attributes.")
_ADAM_INPUTS = (["Param", "Grad", Slot("LearningRate", comment="one value")] + _MOMENTS +
                [master_slots()[0], _SKIP] + _ADAM_TENSORS)
_ADAM_OUTPUTS = ["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut",
                 master_slots()[1]]

register(OpDef(
    "adam", inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS, attrs=ADAM_ATTRS,
    infer=_adam_infer, kernel=_adam_kernel, doc="Adam: " + _ADAM_DOC))

# ---- adamw ------------------------------------------------------------------------------------

ADAMW_ATTRS = dict(ADAM_ATTRS, **{
    "lr_ratio": Attr("float", 1.0, comment="scales the learning rate of the decay"),
    "coeff": Attr("float", 0.01, comment="the weight decay factor"),
    "with_decay": Attr("bool", False, comment="false: exactly adam"),
})


def _adamw_infer(*args, lr_ratio, coeff, with_decay, **attrs):
    return _adam_infer(*args, **attrs)


def _adamw_kernel(ctx, *args, lr_ratio, coeff, with_decay, **attrs):
    # Decoupled decay: Param shrinks by lr * lr_ratio * coeff of itself, apart from the
    # gradient's moments. PaddlePaddle's CPU kernel applies lr_ratio to this decay only.
    decay = lr_ratio * coeff if with_decay else None
    return _adam_kernel(ctx, *args, decay=decay, **attrs)


register(OpDef(
    "adamw", inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS, attrs=ADAMW_ATTRS,
    infer=_adamw_infer, kernel=_adamw_kernel,
    doc="AdamW: with with_decay, Param = Param - LearningRate * lr_ratio * coeff * Param,\n"
        "then the Adam step: " + _ADAM_DOC))

# ---- adamax -----------------------------------------------------------------------------------


def _adamax_infer(param, grad, lr, moment, inf_norm, b1pow, master, *, multi_precision,
                  **attrs):
    like_param(param, grad, "Grad")
    state, master_out = master_meta(param, master, multi_precision)
    like_state(state, moment, "Moment")
    like_state(state, inf_norm, "InfNorm")
    one_element(lr, "LearningRate")
    one_element(b1pow, "Beta1Pow")
    return param, moment, inf_norm, master_out


def _adamax_kernel(ctx, param, grad, lr, moment, inf_norm, b1pow, master, *, beta1, beta2,
                   epsilon, multi_precision):
    p = working_copy(param, master, multi_precision)
    t = p.dtype.type
    grad = grad.astype(p.dtype, copy=False)
    b1 = t(beta1)
    moment_out = b1 * moment + (1 - b1) * grad
    # the infinity norm: a decaying running maximum of |Grad|
    inf_out = ctx.xp.maximum(t(beta2) * inf_norm + t(epsilon), ctx.xp.abs(grad))
    lr_t = scalar(lr, p.dtype) / (1 - scalar(b1pow, p.dtype))
    param_out, master_out = write_back(param, master, multi_precision,
                                       p - lr_t * (moment_out / inf_out))
    return (param_out, moment_out.astype(moment.dtype, copy=False),
            inf_out.astype(inf_norm.dtype, copy=False), master_out)


register(OpDef(
    "adamax", inputs=["Param", "Grad", Slot("LearningRate", comment="one value"),
                      Slot("Moment", comment="running mean of Grad"),
                      Slot("InfNorm", comment="running maximum of |Grad|"),
                      Slot("Beta1Pow", comment="beta1 ** step, one value; a scale op after "
                                               "the update advances it"), master_slots()[0]],
    outputs=["ParamOut", "MomentOut", "InfNormOut", master_slots()[1]],
    attrs=dict(_BETAS, epsilon=Attr("float", 1e-8, comment="added to the decayed norm"),
               multi_precision=MULTI_PRECISION),
    infer=_adamax_infer, kernel=_adamax_kernel,
    doc="MomentOut = beta1 * Moment + (1 - beta1) * Grad;\n"
        "InfNormOut = max(beta2 * InfNorm + epsilon, |Grad|);\n"
        "ParamOut = Param - LearningRate / (1 - Beta1Pow) * MomentOut / InfNormOut"))

# ---- lamb -------------------------------------------------------------------------------------


def _lamb_infer(param, grad, lr, m1, m2, b1pow, b2pow, master, skip, *, multi_precision,
                **attrs):
    _, master_out = _moments_infer(param, grad, lr, m1, m2, b1pow, b2pow, master, skip,
                                   multi_precision)
    return param, m1, m2, b1pow, b2pow, master_out


def _trust_ratio(xp, p, step):
    """||p|| / ||step||, or 1 where either norm is zero."""
    p_norm, s_norm = xp.sqrt((p * p).sum()), xp.sqrt((step * step).sum())
    usable = (p_norm > 0) & (s_norm > 0)
    return xp.where(usable, p_norm / xp.where(usable, s_norm, 1), 1).astype(p.dtype)


def _lamb_kernel(ctx, param, grad, lr, m1, m2, b1pow, b2pow, master, skip, *, weight_decay,
                 beta1, beta2, epsilon, always_adapt, multi_precision):
    if _skipped(skip):
        return _unchanged(param, m1, m2, b1pow, b2pow, master)
    xp = ctx.xp
    p = working_copy(param, master, multi_precision)
    t = p.dtype.type
    b1, b2 = t(beta1), t(beta2)
    m1_out, m2_out = _moments(grad.astype(p.dtype, copy=False), m1, m2, b1, b2)
    m1_hat = m1_out / (1 - scalar(b1pow, p.dtype))
    m2_hat = m2_out / (1 - scalar(b2pow, p.dtype))
    step = m1_hat / (xp.sqrt(m2_hat) + t(epsilon)) + t(weight_decay) * p
    # a parameter without decay keeps the plain step, unless always_adapt
    ratio = _trust_ratio(xp, p, step) if weight_decay > 0 or always_adapt else t(1)
    p_out = p - scalar(lr, p.dtype) * ratio * step
    param_out, master_out = write_back(param, master, multi_precision, p_out)
    return (param_out, m1_out.astype(m1.dtype, copy=False), m2_out.astype(m2.dtype, copy=False),
            (b1pow * b1).astype(b1pow.dtype), (b2pow * b2).astype(b2pow.dtype), master_out)


register(OpDef(
    "lamb", inputs=["Param", "Grad", Slot("LearningRate", comment="one value")] + _MOMENTS +
    [master_slots()[0], _SKIP],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", Slot("Beta1PowOut", dispensable=True),
             Slot("Beta2PowOut", dispensable=True), master_slots()[1]],
    attrs=dict(weight_decay=Attr("float", comment="decay added to the step, times Param"),
               **_BETAS, epsilon=Attr("float", 1e-6, comment="keeps the division finite"),
               always_adapt=Attr("bool", False, comment="trust ratio even without decay"),
               multi_precision=MULTI_PRECISION),
    infer=_lamb_infer, kernel=_lamb_kernel,
    doc="m, v as in adam; step = (m / (1 - Beta1Pow)) / (sqrt(v / (1 - Beta2Pow)) + epsilon)\n"
        "+ weight_decay * Param; r = ||Param|| / ||step|| (1 if either is 0; 1 when\n"
        "weight_decay is 0, unless always_adapt); ParamOut = Param - LearningRate * r * step."))
