"""Contract cases for paddle_nb/ops/bitwise.py.

References use Python's operators per element (``&``, ``|``, ``^``, ``~``), ``math.isnan``
and friends, and the closeness rule written out with Python floats.
"""

import math

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(71)
F = np.float32
A = rng.integers(-50, 50, (2, 3)).astype(np.int32)
B = rng.integers(-50, 50, (2, 3)).astype(np.int32)
P = rng.random((2, 3)) < 0.5
Q = rng.random((2, 3)) < 0.5


def per_pair(f):
    def ref(ins, attrs):
        x, y = np.broadcast_arrays(ins["X"], ins["Y"])
        out = np.array([f(a, b) for a, b in zip(x.ravel().tolist(), y.ravel().tolist())])
        return {"Out": out.reshape(x.shape).astype(np.result_type(ins["X"], ins["Y"]))}
    return ref


def per_element(f):
    return lambda ins, a: {"Out": np.array([f(v) for v in ins["X"].ravel().tolist()]).reshape(
        ins["X"].shape)}


CASES = {}
for _name, _f in (("bitwise_and", lambda a, b: a & b), ("bitwise_or", lambda a, b: a | b),
                  ("bitwise_xor", lambda a, b: a ^ b)):
    CASES[_name] = [Case(inputs={"X": A, "Y": B}, ref=per_pair(_f)),
                    Case(inputs={"X": P, "Y": Q}, ref=per_pair(_f), name="bool"),
                    Case(inputs={"X": A, "Y": B[:1]}, ref=per_pair(_f), name="broadcast")]
CASES["bitwise_not"] = [Case(inputs={"X": A}, ref=per_element(lambda v: ~v)),
                        Case(inputs={"X": P}, ref=per_element(lambda v: not v), name="bool")]

SPECIAL = np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.5]], F)
for _name, _f in (("isnan_v2", math.isnan), ("isinf_v2", math.isinf),
                  ("isfinite_v2", math.isfinite)):
    CASES[_name] = [Case(inputs={"X": SPECIAL}, ref=per_element(_f)),
                    Case(inputs={"X": A}, ref=per_element(_f), name="int32")]


def close_ref(reduce):
    def ref(ins, attrs):
        rtol = float(attrs.get("rtol", "1e-05") if ins.get("Rtol") is None else ins["Rtol"][0])
        atol = float(attrs.get("atol", "1e-08") if ins.get("Atol") is None else ins["Atol"][0])
        nan = attrs.get("equal_nan", False)
        x, y = np.broadcast_arrays(ins["Input"], ins["Other"])

        def one(a, b):
            if math.isnan(a) or math.isnan(b):
                return nan and math.isnan(a) and math.isnan(b)
            return a == b or abs(a - b) <= atol + rtol * abs(b)
        out = np.array([one(a, b) for a, b in zip(x.ravel().tolist(), y.ravel().tolist())])
        out = out.reshape(x.shape)
        return {"Out": np.array(out.all()) if reduce else out}
    return ref


X1 = np.array([1.0, 2.0, np.nan, np.inf, 1e-9], F)
Y1 = np.array([1.000001, 2.1, np.nan, np.inf, 0.0], F)
for _name, _reduce in (("isclose", False), ("allclose", True)):
    CASES[_name] = [
        Case(inputs={"Input": X1, "Other": Y1}, ref=close_ref(_reduce)),
        Case(inputs={"Input": X1, "Other": Y1}, attrs={"equal_nan": True, "rtol": "0.1"},
             ref=close_ref(_reduce), name="equal_nan, rtol 0.1"),
        Case(inputs={"Input": X1, "Other": Y1, "Rtol": np.array([0.1], np.float64),
                     "Atol": np.array([0.0], np.float64)}, ref=close_ref(_reduce),
             name="Rtol and Atol tensors"),
    ]
CASES["allclose"].append(Case(inputs={"Input": X1[:2], "Other": X1[:2]},
                              ref=lambda ins, a: {"Out": np.array(True)}, name="all close"))
CASES["equal_all"] = [
    Case(inputs={"X": A, "Y": A.copy()}, ref=lambda ins, a: {"Out": np.array(True)}),
    Case(inputs={"X": A, "Y": B}, ref=lambda ins, a: {"Out": np.array(False)}, name="differ"),
    Case(inputs={"X": A, "Y": A[:1]}, ref=lambda ins, a: {"Out": np.array(False)},
         name="shapes differ"),
]
CASES["is_empty"] = [
    Case(inputs={"X": A}, ref=lambda ins, a: {"Out": np.array(False)}),
    Case(inputs={"X": np.zeros((0, 3), F)}, ref=lambda ins, a: {"Out": np.array(True)},
         name="no elements"),
]

FLOATS = Meta((2, 3), np.dtype(F))
BAD = {name: [Bad(inputs={"X": FLOATS, "Y": FLOATS}, error=ShapeError,
                  match="X must be a bool or integer tensor, got float32")]
       for name in ("bitwise_and", "bitwise_or", "bitwise_xor")}
BAD["bitwise_and"].append(Bad(inputs={"X": Meta((2,), np.dtype(np.int32)),
                                      "Y": Meta((2,), np.dtype(np.int64))},
                              error=ShapeError, match="same dtype, got int32 and int64"))
BAD["bitwise_not"] = [Bad(inputs={"X": FLOATS}, error=ShapeError, match="bool or integer")]
for _name in ("isnan_v2", "isinf_v2", "isfinite_v2"):
    BAD[_name] = [Bad(inputs={"X": Meta((2,), np.dtype(bool))}, error=ShapeError,
                      match="X must be a number tensor, got bool")]
for _name in ("isclose", "allclose"):
    BAD[_name] = [Bad(inputs={"Input": FLOATS, "Other": Meta((2, 3), np.dtype(np.float64))},
                      error=ShapeError, match="Input and Other must have the same dtype"),
                  Bad(inputs={"Input": FLOATS, "Other": FLOATS}, attrs={"rtol": "abc"},
                      error=AttrError, match="rtol.*number written as a string")]
BAD["equal_all"] = [Bad(inputs={"X": FLOATS, "Y": Meta((2, 3), np.dtype(np.int32))},
                        error=ShapeError, match="same dtype")]
BAD["is_empty"] = []      # any tensor has an answer: nothing to refuse
