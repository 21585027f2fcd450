"""Contract cases for paddle_nb/ops/reduce.py: reduce_sum / mean / max / min.

Each case states the output shape PaddlePaddle 2.5+ gives (reducing everything without
keep_dim gives a 0-D tensor, shape ()). Max and min inputs have distinct values, so no ties.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(11)
F = np.float32
X = rng.standard_normal((2, 3, 4)).astype(F)
DISTINCT = (rng.permutation(24).reshape(2, 3, 4) * 0.1 - 1.2).astype(F)
FN = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max, "reduce_min": np.min}


def _ref(f, shape, dtype=None):
    """Reduce with an explicit loop over the kept positions, then check against ``shape``."""
    def ref(ins, attrs):
        x = ins["X"]
        dims = attrs.get("dim", [0])
        axes = range(x.ndim) if attrs.get("reduce_all") else sorted(d % x.ndim for d in dims)
        kept = [i for i in range(x.ndim) if i not in axes]
        moved = np.moveaxis(x, kept, list(range(len(kept))))
        flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
        out = np.empty(flat.shape[:-1], dtype=dtype or x.dtype)
        for idx in np.ndindex(*out.shape):
            out[idx] = f(flat[idx].astype(np.float64))
        return {"Out": out.reshape(shape)}
    return ref


def _cases(name, f):
    x = DISTINCT if name in ("reduce_max", "reduce_min") else X
    one = [
        ({"dim": [1]}, (2, 4)),
        ({"dim": [-1], "keep_dim": True}, (2, 3, 1)),
        ({"dim": [0, 2]}, (3,)),
        ({"dim": [-3, 1], "keep_dim": True}, (1, 1, 4)),
        ({"reduce_all": True}, ()),
        ({"reduce_all": True, "keep_dim": True}, (1, 1, 1)),
        ({"dim": [0, 1, 2]}, ()),
        ({}, (3, 4)),
        ({"dim": [1], "in_dtype": -1, "out_dtype": -1}, (2, 4)),
    ]
    cases = [Case(inputs={"X": x}, attrs=attrs, ref=_ref(f, shape), grad=("X",),
                  name=str(attrs)) for attrs, shape in one]
    cases.append(Case(inputs={"X": x[0, :, 0]}, attrs={"dim": [0]}, ref=_ref(f, ()),
                      grad=("X",), name="rank 1 to 0-D"))
    return cases


CASES = {name: _cases(name, f) for name, f in FN.items()}
CASES["reduce_sum"].append(
    Case(inputs={"X": np.arange(12, dtype=np.int32).reshape(3, 4)},
         attrs={"dim": [1], "out_dtype": 3}, ref=_ref(np.sum, (3,), np.int64),
         name="int32 summed into out_dtype int64 (VarType 3)"))
for _dtype in (np.int32, np.bool_):     # paddle.sum of int32 or bool is int64 in 2.6
    CASES["reduce_sum"].append(
        Case(inputs={"X": (np.arange(12).reshape(3, 4) % 3).astype(_dtype)}, attrs={"dim": [1]},
             ref=_ref(np.sum, (3,), np.int64), name=f"{np.dtype(_dtype)} sums to int64"))
CASES["reduce_max"].append(
    Case(inputs={"X": np.arange(12, dtype=np.int32).reshape(3, 4)}, attrs={"dim": [1]},
         ref=_ref(np.max, (3,), np.int32), name="int32 stays int32"))

BAD = {name: [
    Bad(inputs={"X": Meta((2, 3, 4), np.dtype(F))}, attrs={"dim": [3]}, error=ShapeError,
        match=r"dim 3 is out of range for X of shape \(2, 3, 4\): expected -3 <= dim < 3"),
    Bad(inputs={"X": Meta((2, 3), np.dtype(F))}, attrs={"dim": [0, -3]}, error=ShapeError,
        match=r"dim -3 is out of range for X of shape \(2, 3\)"),
] for name in FN}
