"""Contract cases for paddle_nb/ops/adam.py: adam, adamw, adamax, lamb.

The references follow the papers' formulas element by element in Python
floats (bias-corrected moments m_hat, v_hat), not the kernels' folded step
size; lamb's norms are plain Python sums.
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.cases_optimizers import (HALF, F, M, _elementwise, arr, half_inputs,
                                           half_param, one, rounded, through_master)
from tests.ops.harness import Bad, Case


def _value(ins, slot, default):
    v = ins.get(slot)
    return default if v is None else float(v.reshape(-1)[0])


def _skipped(ins):
    skip = ins.get("SkipUpdate")
    return skip is not None and bool(skip.reshape(-1)[0])


def _unchanged(ins):
    return {f"{k}Out": ins[k] for k in ("Param", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")}


# ---- adam / adamw -----------------------------------------------------------------------------

def adam_ref(ins, attrs, decay=0.0):
    if _skipped(ins):
        return _unchanged(ins)
    lr = float(ins["LearningRate"].reshape(-1)[0])
    b1 = _value(ins, "Beta1Tensor", attrs.get("beta1", 0.9))
    b2 = _value(ins, "Beta2Tensor", attrs.get("beta2", 0.999))
    eps = _value(ins, "EpsilonTensor", attrs.get("epsilon", 1e-8))
    b1pow = float(ins["Beta1Pow"].reshape(-1)[0])
    b2pow = float(ins["Beta2Pow"].reshape(-1)[0])

    def rule(p, g, m, v):
        p = p - lr * decay * p          # adamw's decoupled decay (0 for adam)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        # the bias-corrected moments of the paper, with PaddlePaddle's epsilon placement
        m_hat = m / (1 - b1pow)
        v_hat = v / (1 - b2pow)
        return p - lr * m_hat / (math.sqrt(v_hat) + eps), m, v
    p, m, v = _elementwise(rule, ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"])
    global_pow = attrs.get("use_global_beta_pow", False)
    return {"ParamOut": p, "Moment1Out": m, "Moment2Out": v,
            "Beta1PowOut": np.array([b1pow * (1 if global_pow else b1)]),
            "Beta2PowOut": np.array([b2pow * (1 if global_pow else b2)])}


def adamw_ref(ins, attrs):
    decay = attrs.get("lr_ratio", 1.0) * attrs.get("coeff", 0.01) \
        if attrs.get("with_decay", False) else 0.0
    return adam_ref(ins, attrs, decay)


def adam_inputs(*shape, step=1, b1=0.9, b2=0.999, lr=0.01):
    return {"Param": arr(*shape), "Grad": arr(*shape), "LearningRate": one(lr),
            "Moment1": arr(*shape) * F(0.1), "Moment2": np.abs(arr(*shape)) * F(0.1),
            "Beta1Pow": one(b1 ** step), "Beta2Pow": one(b2 ** step)}


# ---- adamax -----------------------------------------------------------------------------------

def adamax_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0])
    b1, b2 = attrs.get("beta1", 0.9), attrs.get("beta2", 0.999)
    eps = attrs.get("epsilon", 1e-8)
    b1pow = float(ins["Beta1Pow"].reshape(-1)[0])

    def rule(p, g, m, u):
        m = b1 * m + (1 - b1) * g
        u = max(b2 * u + eps, abs(g))
        return p - (lr / (1 - b1pow)) * m / u, m, u
    p, m, u = _elementwise(rule, ins["Param"], ins["Grad"], ins["Moment"], ins["InfNorm"])
    return {"ParamOut": p, "MomentOut": m, "InfNormOut": u}


def adamax_inputs(*shape, step=2):
    return {"Param": arr(*shape), "Grad": arr(*shape), "LearningRate": one(0.02),
            "Moment": arr(*shape) * F(0.1), "InfNorm": np.abs(arr(*shape)),
            "Beta1Pow": one(0.9 ** step)}


# ---- lamb -------------------------------------------------------------------------------------

def lamb_ref(ins, attrs):
    if _skipped(ins):
        return _unchanged(ins)
    lr = float(ins["LearningRate"].reshape(-1)[0])
    wd = attrs["weight_decay"]
    b1, b2 = attrs.get("beta1", 0.9), attrs.get("beta2", 0.999)
    eps = attrs.get("epsilon", 1e-6)
    b1pow = float(ins["Beta1Pow"].reshape(-1)[0])
    b2pow = float(ins["Beta2Pow"].reshape(-1)[0])

    def rule(p, g, m, v):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        return (m / (1 - b1pow)) / (math.sqrt(v / (1 - b2pow)) + eps) + wd * p, m, v
    step, m, v = _elementwise(rule, ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"])
    p = np.asarray(ins["Param"], np.float64)
    p_norm = math.sqrt(sum(x * x for x in p.reshape(-1)))
    s_norm = math.sqrt(sum(x * x for x in step.reshape(-1)))
    adapt = (wd > 0 or attrs.get("always_adapt", False)) and p_norm > 0 and s_norm > 0
    ratio = p_norm / s_norm if adapt else 1.0
    return {"ParamOut": p - lr * ratio * step, "Moment1Out": m, "Moment2Out": v,
            "Beta1PowOut": np.array([b1pow * b1]), "Beta2PowOut": np.array([b2pow * b2])}


CASES = {
    "adam": [
        Case(inputs=adam_inputs(3, 4), ref=adam_ref, rtol=1e-5, atol=1e-6, name="first step"),
        Case(inputs=adam_inputs(5, step=7), attrs={"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6},
             ref=adam_ref, rtol=1e-5, atol=1e-6, name="step 7, other betas"),
        Case(inputs=dict(adam_inputs(2, 3, step=3), Beta1Tensor=one(0.7), Beta2Tensor=one(0.95),
                         EpsilonTensor=one(1e-3)),
             ref=adam_ref, rtol=1e-5, atol=1e-6, name="betas and epsilon from tensors"),
        Case(inputs=dict(adam_inputs(4), SkipUpdate=np.array([True])), ref=adam_ref,
             name="skipped"),
        Case(inputs=dict(adam_inputs(4), SkipUpdate=np.array([False])),
             attrs={"use_global_beta_pow": True}, ref=adam_ref, rtol=1e-5, atol=1e-6,
             name="not skipped, global beta pows"),
        Case(inputs=half_inputs(adam_inputs(6, step=2)), attrs={"multi_precision": True},
             ref=through_master(adam_ref), rtol=1e-3, atol=1e-3, name="float16 + master"),
        # float16 Param, float32 moments (as PaddlePaddle 2.6 declares them), no master:
        # computed in float32, where epsilon 1e-8 is not 0
        Case(inputs=half_param(adam_inputs(6, step=2)), ref=rounded(adam_ref), **HALF,
             name="float16, no master: in float32"),
        Case(inputs=half_param(dict(adam_inputs(4), Grad=np.zeros(4, F),
                                    Moment1=np.zeros(4, F), Moment2=np.zeros(4, F))),
             ref=rounded(adam_ref), name="float16, zero gradient: Param unchanged"),
    ],
    "adamw": [
        Case(inputs=adam_inputs(3, 4, step=2), attrs={"with_decay": True, "coeff": 0.1},
             ref=adamw_ref, rtol=1e-5, atol=1e-6, name="decay"),
        Case(inputs=adam_inputs(5, step=4), attrs={"with_decay": True, "coeff": 0.2,
                                                   "lr_ratio": 0.5},
             ref=adamw_ref, rtol=1e-5, atol=1e-6, name="decay with lr_ratio"),
        Case(inputs=adam_inputs(2, 2), attrs={"with_decay": False, "coeff": 0.2},
             ref=adamw_ref, rtol=1e-5, atol=1e-6, name="no decay: adam"),
        Case(inputs=half_param(adam_inputs(5, step=3)), attrs={"with_decay": True, "coeff": 0.1},
             ref=rounded(adamw_ref), **HALF, name="float16, no master: in float32"),
    ],
    "adamax": [
        Case(inputs=adamax_inputs(3, 4), ref=adamax_ref, name="matrix"),
        Case(inputs=dict(adamax_inputs(6), InfNorm=np.zeros(6, F)),
             attrs={"beta1": 0.8, "epsilon": 1e-3}, ref=adamax_ref, name="zero norm start"),
        # as PaddlePaddle 2.6: float32 Moment and InfNorm, a float16 Beta1Pow
        Case(inputs=half_param(adamax_inputs(5), "Beta1Pow"), ref=rounded(adamax_ref), **HALF,
             name="float16, no master: in float32"),
    ],
    "lamb": [
        Case(inputs=adam_inputs(3, 4, step=3), attrs={"weight_decay": 0.1}, ref=lamb_ref,
             rtol=1e-5, atol=1e-6, name="decay: trust ratio"),
        Case(inputs=adam_inputs(5, step=2), attrs={"weight_decay": 0.0}, ref=lamb_ref,
             rtol=1e-5, atol=1e-6, name="no decay: no ratio"),
        Case(inputs=adam_inputs(5, step=2), attrs={"weight_decay": 0.0, "always_adapt": True},
             ref=lamb_ref, rtol=1e-5, atol=1e-6, name="always_adapt"),
        Case(inputs=dict(adam_inputs(3), Param=np.zeros(3, F)), attrs={"weight_decay": 0.1},
             ref=lamb_ref, rtol=1e-5, atol=1e-6, name="zero Param: ratio 1"),
        Case(inputs=dict(adam_inputs(3), SkipUpdate=np.array([True])),
             attrs={"weight_decay": 0.1}, ref=lamb_ref, name="skipped"),
        Case(inputs=half_param(adam_inputs(4, step=2)), attrs={"weight_decay": 0.1},
             ref=rounded(lamb_ref), **HALF, name="float16, no master: in float32"),
    ],
}


def _adam_metas(**changes):
    metas = {"Param": M(2, 3), "Grad": M(2, 3), "LearningRate": M(1), "Moment1": M(2, 3),
             "Moment2": M(2, 3), "Beta1Pow": M(1), "Beta2Pow": M(1)}
    metas.update(changes)
    return metas


BAD = {
    "adam": [
        Bad(inputs=_adam_metas(Grad=M(3, 2)), error=ShapeError,
            match="Grad must have Param's shape"),
        Bad(inputs=_adam_metas(LearningRate=M(2, 2)), error=ShapeError,
            match="LearningRate must hold one value"),
        Bad(inputs=_adam_metas(Beta1Pow=M(3)), error=ShapeError,
            match="Beta1Pow must hold one value"),
        Bad(inputs=_adam_metas(Moment2=M(2, 2)), error=ShapeError,
            match="Moment2 must have Param's shape"),
        Bad(inputs=_adam_metas(SkipUpdate=M(1)), error=ShapeError,
            match="SkipUpdate must be a bool tensor"),
        Bad(inputs=_adam_metas(Beta1Tensor=M(2)), error=ShapeError,
            match="Beta1Tensor must hold one value"),
        # a float16 parameter's moments may be float32 or float16, nothing else
        Bad(inputs=_adam_metas(Param=Meta((2, 3), np.dtype(np.float16)),
                               Grad=Meta((2, 3), np.dtype(np.float16)),
                               Moment1=Meta((2, 3), np.dtype(np.float64))), error=ShapeError,
            match="Moment1 must have Param's dtype float16 or float32, got float64"),
    ],
    "adamw": [
        Bad(inputs=_adam_metas(Moment1=M(3)), attrs={"with_decay": True}, error=ShapeError,
            match="Moment1 must have Param's shape"),
        Bad(inputs=_adam_metas(Grad=Meta((2, 3), np.dtype(np.float64))), error=ShapeError,
            match="Grad must have Param's dtype"),
    ],
    "adamax": [
        Bad(inputs={"Param": M(3), "Grad": M(3), "LearningRate": M(1), "Moment": M(3),
                    "InfNorm": M(4), "Beta1Pow": M(1)}, error=ShapeError,
            match="InfNorm must have Param's shape"),
        Bad(inputs={"Param": M(3), "Grad": M(3), "LearningRate": M(1), "Moment": M(3),
                    "InfNorm": M(3), "Beta1Pow": M(2)}, error=ShapeError,
            match="Beta1Pow must hold one value"),
    ],
    "lamb": [
        Bad(inputs=_adam_metas(Grad=M(6)), attrs={"weight_decay": 0.01}, error=ShapeError,
            match="Grad must have Param's shape"),
        Bad(inputs=_adam_metas(Beta2Pow=M(1, 2)), attrs={"weight_decay": 0.01},
            error=ShapeError, match="Beta2Pow must hold one value"),
    ],
}
