"""Contract cases for paddle_nb/ops/optimizers.py: sgd, momentum, adagrad, rmsprop,
adadelta, sign.

The references update one element at a time in plain Python floats (float64),
a different route from the kernels' whole-array float32 arithmetic. The Adam
family's cases (cases_adam.py) share the helpers at the top.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
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
        g = g + decay * p           # rescale_grad is not read (PaddlePaddle's CPU kernel)
        v_new = mu * v + g
        step = (g + mu * v_new) if nesterov else v_new
        return p - lr * step, v_new
    p_out, v_out = _elementwise(rule, ins["Param"], ins["Grad"], ins["Velocity"])
    return {"ParamOut": p_out, "VelocityOut": v_out}


def momentum_inputs(*shape, lr=0.1):
    return {"Param": arr(*shape), "Grad": arr(*shape), "Velocity": arr(*shape),
            "LearningRate": one(lr)}


# ---- adagrad ----------------------------------------------------------------------------------

def adagrad_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0])
    eps = attrs.get("epsilon", 1e-6)

    def rule(p, g, m):
        m = m + g * g
        return p - lr * g / (math.sqrt(m) + eps), m
    p_out, m_out = _elementwise(rule, ins["Param"], ins["Grad"], ins["Moment"])
    return {"ParamOut": p_out, "MomentOut": m_out}


# ---- rmsprop ----------------------------------------------------------------------------------

def rmsprop_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0])
    rho, eps = attrs.get("decay", 0.9), attrs.get("epsilon", 1e-10)
    mu, centered = attrs.get("momentum", 0.0), attrs.get("centered", False)
    mean_grad = ins.get("MeanGrad")
    mean_grad = np.zeros_like(ins["Param"]) if mean_grad is None else mean_grad

    def rule(p, ms, g, mom, mg):
        ms = rho * ms + (1 - rho) * g * g
        mg_new = rho * mg + (1 - rho) * g if centered else mg
        var = ms - mg_new * mg_new if centered else ms
        mom = mu * mom + lr * g / math.sqrt(var + eps)
        return p - mom, mom, ms, mg_new
    p, mom, ms, mg = _elementwise(rule, ins["Param"], ins["MeanSquare"], ins["Grad"],
                                  ins["Moment"], mean_grad)
    out = {"ParamOut": p, "MomentOut": mom, "MeanSquareOut": ms}
    if centered:
        out["MeanGradOut"] = mg
    return out


def rmsprop_inputs(*shape, centered=False):
    ins = {"Param": arr(*shape), "MeanSquare": np.abs(arr(*shape)) + F(0.5), "Grad": arr(*shape),
           "Moment": arr(*shape) * F(0.1), "LearningRate": one(0.01)}
    if centered:
        ins["MeanGrad"] = arr(*shape) * F(0.1)
    return ins


# ---- adadelta ---------------------------------------------------------------------------------

def adadelta_ref(ins, attrs):
    lr = float(ins["LearningRate"].reshape(-1)[0]) if "LearningRate" in ins else 1.0
    rho, eps = attrs.get("rho", 0.95), attrs.get("epsilon", 1e-6)

    def rule(p, g, g2, u2):
        g2 = rho * g2 + (1 - rho) * g * g
        step = -math.sqrt((u2 + eps) / (g2 + eps)) * g
        return p + lr * step, g2, rho * u2 + (1 - rho) * step * step
    p, g2, u2 = _elementwise(rule, ins["Param"], ins["Grad"], ins["AvgSquaredGrad"],
                             ins["AvgSquaredUpdate"])
    return {"ParamOut": p, "AvgSquaredGradOut": g2, "AvgSquaredUpdateOut": u2}


def adadelta_inputs(*shape, lr=0.5):
    ins = {"Param": arr(*shape), "Grad": arr(*shape), "AvgSquaredGrad": np.abs(arr(*shape)),
           "AvgSquaredUpdate": np.abs(arr(*shape)) * F(0.1)}
    if lr is not None:
        ins["LearningRate"] = one(lr)
    return ins


# ---- multi_precision: a float16 Param updated through its float32 MasterParam ----------------

def half_inputs(inputs):
    """``inputs`` with a float16 Param and Grad and the float32 Param as MasterParam."""
    out = dict(inputs, Param=inputs["Param"].astype(np.float16),
               Grad=inputs["Grad"].astype(np.float16), MasterParam=inputs["Param"])
    return out


def through_master(ref):
    """A reference for a multi_precision case: ``ref`` on the master copy, rounded back."""
    def run(ins, attrs):
        plain = dict(ins, Param=ins["MasterParam"], Grad=ins["Grad"].astype(F))
        out = ref(plain, attrs)
        out["MasterParamOut"] = out["ParamOut"]
        out["ParamOut"] = out["ParamOut"].astype(np.float16)
        return out
    return run


# ---- a float16 Param without a master copy: updated in float32, rounded once ----------------

def half_param(inputs, *half_states):
    """``inputs`` with a float16 Param and Grad and the states named in ``half_states`` float16;
    the other states stay float32 (Adam's moments for a float16 parameter, as PaddlePaddle
    2.6 declares them)."""
    halves = ("Param", "Grad", *half_states)
    return dict(inputs, **{k: inputs[k].astype(np.float16) for k in halves})


def rounded(ref):
    """A reference for a float16 Param: ``ref`` on the float16 values, in float64, ParamOut
    rounded back to float16 (the kernel computes in float32 and rounds once)."""
    def run(ins, attrs):
        out = ref(ins, attrs)
        out["ParamOut"] = np.asarray(out["ParamOut"]).astype(np.float16)
        return out
    return run


HALF = {"rtol": 2e-3, "atol": 1e-3}      # float16 outputs: about 3 decimal digits


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
        Case(inputs=half_inputs({"Param": arr(4), "LearningRate": one(0.1), "Grad": arr(4)}),
             attrs={"multi_precision": True}, ref=through_master(sgd_ref), rtol=1e-3,
             atol=1e-3, name="float16 + master"),
    ],
    "momentum": [
        Case(inputs=momentum_inputs(3, 4), attrs={"mu": 0.9}, ref=momentum_ref, name="plain"),
        Case(inputs=momentum_inputs(6), attrs={"mu": 0.8, "use_nesterov": True},
             ref=momentum_ref, name="nesterov"),
        Case(inputs=momentum_inputs(2, 3), attrs={"mu": 0.9, "regularization_method": "l2_decay",
                                                  "regularization_coeff": 0.05},
             ref=momentum_ref, name="l2 decay"),
        Case(inputs=momentum_inputs(5), attrs={"mu": 0.9, "rescale_grad": 0.5},
             ref=momentum_ref, name="rescale_grad is not read"),
        Case(inputs=half_inputs(momentum_inputs(2, 2)),
             attrs={"mu": 0.9, "multi_precision": True, "use_nesterov": True},
             ref=through_master(momentum_ref), rtol=1e-3, atol=1e-3, name="float16 + master"),
        # PaddlePaddle 2.6 declares a float16 parameter's VelocityOut float32
        Case(inputs=half_param(momentum_inputs(2, 3), "Velocity"), attrs={"mu": 0.9},
             ref=rounded(momentum_ref), **HALF, name="float16 velocity in, float32 out"),
    ],
    "adagrad": [
        Case(inputs={"Param": arr(3, 4), "Grad": arr(3, 4), "Moment": np.abs(arr(3, 4)),
                     "LearningRate": one(0.1)}, ref=adagrad_ref, name="matrix"),
        Case(inputs={"Param": arr(5), "Grad": arr(5), "Moment": np.zeros(5, F),
                     "LearningRate": one(0.5)}, attrs={"epsilon": 1e-3}, ref=adagrad_ref,
             name="first step, other epsilon"),
        Case(inputs=half_param({"Param": arr(5), "Grad": arr(5), "Moment": np.abs(arr(5)),
                                "LearningRate": one(0.1)}, "Moment"),
             ref=rounded(adagrad_ref), **HALF, name="float16 state, no master"),
    ],
    "rmsprop": [
        Case(inputs=rmsprop_inputs(3, 4), ref=rmsprop_ref, name="plain"),
        Case(inputs=rmsprop_inputs(2, 5, centered=True),
             attrs={"centered": True, "momentum": 0.5, "decay": 0.8, "epsilon": 1e-6},
             ref=rmsprop_ref, name="centered, with momentum"),
        Case(inputs=half_inputs(rmsprop_inputs(6)), attrs={"multi_precision": True},
             ref=through_master(rmsprop_ref), rtol=1e-3, atol=1e-3, name="float16 + master"),
        Case(inputs=half_param(rmsprop_inputs(5, centered=True), "MeanSquare", "Moment",
                               "MeanGrad"), attrs={"centered": True, "momentum": 0.5},
             ref=rounded(rmsprop_ref), **HALF, name="float16 state, no master"),
    ],
    "adadelta": [
        Case(inputs=adadelta_inputs(3, 4), ref=adadelta_ref, name="matrix"),
        Case(inputs=adadelta_inputs(5, lr=None), attrs={"rho": 0.9, "epsilon": 1e-3},
             ref=adadelta_ref, name="no learning rate, other rho"),
        Case(inputs=half_inputs(adadelta_inputs(4)), attrs={"multi_precision": True},
             ref=through_master(adadelta_ref), rtol=1e-3, atol=1e-3, name="float16 + master"),
        Case(inputs=half_param(adadelta_inputs(4), "AvgSquaredGrad", "AvgSquaredUpdate"),
             ref=rounded(adadelta_ref), **HALF, name="float16 state, no master"),
    ],
    "sign": [
        Case(inputs={"X": _away_from_zero(3, 4)}, ref=sign_ref, grad=("X",), name="matrix"),
        Case(inputs={"X": np.array([-2.0, 0.0, 3.0], F)}, ref=sign_ref, name="with a zero"),
    ],
}

BAD = {
    "sgd": [
        Bad(inputs={"Param": M(3), "LearningRate": M(1), "Grad": M(3), "MasterParam": M(4)},
            attrs={"multi_precision": True}, error=ShapeError,
            match="MasterParam must have Param's shape"),
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
    "adagrad": [
        Bad(inputs={"Param": M(3), "Grad": M(3), "Moment": M(4), "LearningRate": M(1)},
            error=ShapeError, match="Moment must have Param's shape"),
        Bad(inputs={"Param": M(3), "Grad": M(2), "Moment": M(3), "LearningRate": M(1)},
            error=ShapeError, match="Grad must have Param's shape"),
    ],
    "rmsprop": [
        Bad(inputs={"Param": M(3), "MeanSquare": M(3), "Grad": M(3), "Moment": M(3),
                    "LearningRate": M(1)}, attrs={"centered": True}, error=ShapeError,
            match="MeanGrad is required"),
        Bad(inputs={"Param": M(3), "MeanSquare": M(2), "Grad": M(3), "Moment": M(3),
                    "LearningRate": M(1)}, error=ShapeError,
            match="MeanSquare must have Param's shape"),
        Bad(inputs={"Param": M(3), "MeanSquare": M(3), "Grad": M(3), "Moment": M(3),
                    "LearningRate": M(2)}, error=ShapeError,
            match="LearningRate must hold one value"),
    ],
    "adadelta": [
        Bad(inputs={"Param": M(3), "Grad": M(3), "AvgSquaredGrad": M(4),
                    "AvgSquaredUpdate": M(3)}, error=ShapeError,
            match="AvgSquaredGrad must have Param's shape"),
        Bad(inputs={"Param": M(3), "Grad": M(3), "AvgSquaredGrad": M(3),
                    "AvgSquaredUpdate": M(3), "LearningRate": M(2)}, error=ShapeError,
            match="LearningRate must hold one value"),
    ],
    "sign": [
        Bad(inputs={"X": Meta((3,), np.dtype(np.int64))}, error=ShapeError,
            match="floating-point"),
    ],
}
