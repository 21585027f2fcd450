"""Contract cases for paddle_nb/ops/optimizer_ops.py: sgd, momentum, adam, sign.

The references update one element at a time in plain Python floats (float64),
a different route from the kernels' whole-array float32 arithmetic.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(11)
F = np.float32
M = lambda *shape: Meta(tuple(shape), np.dtype(F))      # noqa: E731


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def one(value):
    return np.array([value], dtype=F)


def _elementwise(rule, *arrays):
    """Apply ``rule`` (floats in, a tuple of floats out) to each element of same-shape arrays."""
    flat = [np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays]
    rows = [rule(*(f[i] for f in flat)) for i in range(flat[0].size)]
    return [np.array(col, dtype=np.float64).reshape(arrays[0].shape) for col in zip(*rows)]


# ---- sgd --------------------------------------------------------------------------------------

def sgd_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0])
    (out,) = _elementwise(lambda p, g: (p - lr * g,), ins["Param"], ins["Grad"])
    return {"ParamOut": out}


# ---- momentum ---------------------------------------------------------------------------------

def momentum_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0])
    mu = attrs["mu"]
    nesterov = attrs.get("use_nesterov", False)
    decay = attrs.get("regularization_coeff", 0.0) \
        if attrs.get("regularization_method", "") == "l2_decay" else 0.0

    def rule(p, g, v):
        g = g + decay * p
        v_new = mu * v + g
        step = (g + mu * v_new) if nesterov else v_new
        return p - lr * step, v_new
    p_out, v_out = _elementwise(rule, ins["Param"], ins["Grad"], ins["Velocity"])
    return {"ParamOut": p_out, "VelocityOut": v_out}


def momentum_inputs(*shape, lr=0.1):
    return {"Param": arr(*shape), "Grad": arr(*shape), "Velocity": arr(*shape),
            "LearningRate": one(lr)}


# ---- adam -------------------------------------------------------------------------------------

def adam_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0])
    b1, b2 = attrs.get("beta1", 0.9), attrs.get("beta2", 0.999)
    eps = attrs.get("epsilon", 1e-8)
    b1pow = float(ins["Beta1Pow"].reshape(-1)[0])
    b2pow = float(ins["Beta2Pow"].reshape(-1)[0])

    def rule(p, g, m, v):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        # the bias-corrected moments of the paper, with PaddlePaddle's epsilon placement
        m_hat = m / (1 - b1pow)
        v_hat = v / (1 - b2pow)
        return p - lr * m_hat / (math.sqrt(v_hat) + eps), m, v
    p, m, v = _elementwise(rule, ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"])
    return {"ParamOut": p, "Moment1Out": m, "Moment2Out": v,
            "Beta1PowOut": np.array([b1pow * b1]), "Beta2PowOut": np.array([b2pow * b2])}


def adam_inputs(*shape, step=1, b1=0.9, b2=0.999, lr=0.01):
    return {"Param": arr(*shape), "Grad": arr(*shape), "LearningRate": one(lr),
            "Moment1": arr(*shape) * F(0.1), "Moment2": np.abs(arr(*shape)) * F(0.1),
            "Beta1Pow": one(b1 ** step), "Beta2Pow": one(b2 ** step)}


# ---- sign -------------------------------------------------------------------------------------

def sign_ref(ins, attrs):
    (out,) = _elementwise(lambda x: (1.0 if x > 0 else -1.0 if x < 0 else 0.0,), ins["X"])
    return {"Out": out}


def _away_from_zero(*shape):
    a = arr(*shape)
    return np.where(np.abs(a) < 0.2, a + np.sign(a) * 0.3 + (a == 0) * 0.3, a).astype(F)


CASES = {
    "sgd": [
        Case(inputs={"Param": arr(3, 4), "LearningRate": one(0.1), "Grad": arr(3, 4)},
             ref=sgd_ref, name="matrix"),
        Case(inputs={"Param": arr(5), "LearningRate": np.array([[0.5]], F), "Grad": arr(5)},
             ref=sgd_ref, name="vector, lr of shape [1, 1]"),
    ],
    "momentum": [
        Case(inputs=momentum_inputs(3, 4), attrs={"mu": 0.9}, ref=momentum_ref, name="plain"),
        Case(inputs=momentum_inputs(6), attrs={"mu": 0.8, "use_nesterov": True},
             ref=momentum_ref, name="nesterov"),
        Case(inputs=momentum_inputs(2, 3), attrs={"mu": 0.9, "regularization_method": "l2_decay",
                                                  "regularization_coeff": 0.05},
             ref=momentum_ref, name="l2 decay"),
    ],
    "adam": [
        Case(inputs=adam_inputs(3, 4), ref=adam_ref, rtol=1e-5, atol=1e-6, name="first step"),
        Case(inputs=adam_inputs(5, step=7), attrs={"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6},
             ref=adam_ref, rtol=1e-5, atol=1e-6, name="step 7, other betas"),
    ],
    "sign": [
        Case(inputs={"X": _away_from_zero(3, 4)}, ref=sign_ref, grad=("X",), name="matrix"),
        Case(inputs={"X": np.array([-2.0, 0.0, 3.0], F)}, ref=sign_ref, name="with a zero"),
    ],
}

BAD = {
    "sgd": [
        Bad(inputs={"Param": M(3, 4), "LearningRate": M(1), "Grad": M(4, 3)}, error=ShapeError,
            match="Grad must have Param's shape"),
        Bad(inputs={"Param": M(3, 4), "LearningRate": M(2), "Grad": M(3, 4)}, error=ShapeError,
            match="LearningRate must hold one value"),
        Bad(inputs={"Param": M(3), "LearningRate": M(1), "Grad": Meta((3,), np.dtype(np.float64))},
            error=ShapeError, match="Grad must have Param's dtype"),
    ],
    "momentum": [
        Bad(inputs={"Param": M(3), "Grad": M(4), "Velocity": M(3), "LearningRate": M(1)},
            attrs={"mu": 0.9}, error=ShapeError, match="Grad must have Param's shape"),
        Bad(inputs={"Param": M(3), "Grad": M(3), "Velocity": M(3), "LearningRate": M(3)},
            attrs={"mu": 0.9}, error=ShapeError, match="LearningRate must hold one value"),
        Bad(inputs={"Param": M(3), "Grad": M(3), "Velocity": M(2), "LearningRate": M(1)},
            attrs={"mu": 0.9}, error=ShapeError, match="Velocity must have Param's shape"),
        Bad(inputs={"Param": M(3), "Grad": M(3), "Velocity": M(3), "LearningRate": M(1)},
            attrs={"mu": 0.9, "regularization_method": "l3"}, error=AttrError,
            match="l2_decay"),
    ],
    "adam": [
        Bad(inputs={"Param": M(2, 3), "Grad": M(3, 2), "LearningRate": M(1), "Moment1": M(2, 3),
                    "Moment2": M(2, 3), "Beta1Pow": M(1), "Beta2Pow": M(1)},
            error=ShapeError, match="Grad must have Param's shape"),
        Bad(inputs={"Param": M(2, 3), "Grad": M(2, 3), "LearningRate": M(2, 2),
                    "Moment1": M(2, 3), "Moment2": M(2, 3), "Beta1Pow": M(1), "Beta2Pow": M(1)},
            error=ShapeError, match="LearningRate must hold one value"),
        Bad(inputs={"Param": M(2, 3), "Grad": M(2, 3), "LearningRate": M(1), "Moment1": M(2, 3),
                    "Moment2": M(2, 3), "Beta1Pow": M(3), "Beta2Pow": M(1)},
            error=ShapeError, match="Beta1Pow must hold one value"),
    ],
    "sign": [
        Bad(inputs={"X": Meta((3,), np.dtype(np.int64))}, error=ShapeError,
            match="floating-point"),
    ],
}
