"""Contract cases for paddle_nb/ops/elementwise.py: Paddle's ``axis`` broadcasting."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(1)
F = np.float32
FWD = {
    "elementwise_add": np.add, "elementwise_sub": np.subtract, "elementwise_mul": np.multiply,
    "elementwise_div": np.divide, "elementwise_max": np.maximum, "elementwise_min": np.minimum,
    "elementwise_pow": np.power,
}


def _ref(f):
    def ref(ins, attrs):
        x, y, axis = ins["X"], ins["Y"], attrs.get("axis", -1)
        if y.ndim < x.ndim:
            a = x.ndim - y.ndim if axis == -1 else axis
            y = y.reshape((1,) * a + y.shape + (1,) * (x.ndim - a - y.ndim))
        return {"Out": f(x, y)}
    return ref


def _cases(name, f):
    pos = name in ("elementwise_pow", "elementwise_div")
    def arr(*shape):
        a = rng.standard_normal(shape)
        return (np.abs(a) + 0.5 if pos else a).astype(F)
    x = arr(2, 3, 4)
    y_same = arr(2, 3, 4) + (0.3 if name in ("elementwise_max", "elementwise_min") else 0)
    return [
        Case(inputs={"X": x, "Y": y_same}, ref=_ref(f), grad=("X", "Y"), name="same shape"),
        Case(inputs={"X": x, "Y": arr(3)}, attrs={"axis": 1}, ref=_ref(f), grad=("X", "Y"),
             name="axis=1"),
        Case(inputs={"X": x, "Y": arr(4)}, ref=_ref(f), grad=("X", "Y"), name="trailing"),
        Case(inputs={"X": x, "Y": arr(2, 1, 4)}, ref=_ref(f), grad=("X", "Y"), name="numpy-style"),
    ]


CASES = {name: _cases(name, f) for name, f in FWD.items()}
BAD = {name: [
    Bad(inputs={"X": Meta((2, 3), np.dtype(F)), "Y": Meta((4,), np.dtype(F))}, error=ShapeError,
        match="do not broadcast"),
    Bad(inputs={"X": Meta((2, 3), np.dtype(F)), "Y": Meta((3,), np.dtype(np.float64))},
        error=ShapeError, match="same dtype"),
    Bad(inputs={"X": Meta((2, 3), np.dtype(F)), "Y": Meta((3,), np.dtype(F))}, attrs={"axis": 5},
        error=ShapeError, match="axis 5"),
] + ([] if name in ("elementwise_mul", "elementwise_div") else [   # PaddlePaddle 2.6.2 has
    Bad(inputs={"X": Meta((2, 3), np.dtype(bool)), "Y": Meta((3,), np.dtype(bool))},  # no
        error=ShapeError, match="no kernel for bool"),                          # bool kernel
]) for name in FWD}
