"""Contract cases for paddle_nb/ops/reduce_more.py.

The references loop over the kept positions and reduce each group with Python's own
``math.prod``, ``max``, ``any``, ... (not the NumPy reductions the kernels use).
"""

import math

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(41)
F = np.float32
X = (rng.uniform(0.5, 1.5, (2, 3, 4)).astype(F)
     * np.where(rng.random((2, 3, 4)) < 0.3, -1, 1).astype(F))
DISTINCT = (rng.permutation(24).reshape(2, 3, 4) * 0.1 - 1.2).astype(F)
TIED = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], F)
BOOLS = rng.random((2, 3, 4)) < 0.5


def looped(f, dtype=None, dim_key="dim", keep_key="keep_dim"):
    def ref(ins, attrs):
        x = ins["X"]
        dims = attrs.get(dim_key, [0])
        axes = list(range(x.ndim)) if attrs.get("reduce_all") or not dims else \
            sorted(d % x.ndim for d in dims)
        kept = [i for i in range(x.ndim) if i not in axes]
        moved = np.moveaxis(x, kept, list(range(len(kept))))
        flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
        out = np.empty(flat.shape[:-1], dtype=dtype or x.dtype)
        for idx in np.ndindex(*out.shape):
            out[idx] = f(list(flat[idx].tolist()))
        if attrs.get(keep_key):
            out = out.reshape([1 if i in axes else s for i, s in enumerate(x.shape)])
        return {"Out": out}
    return ref


def lse(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


SHAPES = [{"dim": [1]}, {"dim": [0, 2], "keep_dim": True}, {"reduce_all": True, "dim": []}]
CASES = {
    "reduce_prod": [Case(inputs={"X": X}, attrs=a, ref=looped(math.prod), grad=("X",),
                         name=str(a)) for a in SHAPES],
    "reduce_amax": [Case(inputs={"X": DISTINCT}, attrs=a, ref=looped(max), grad=("X",),
                         name=str(a)) for a in SHAPES],
    "reduce_amin": [Case(inputs={"X": DISTINCT}, attrs=a, ref=looped(min), grad=("X",),
                         name=str(a)) for a in SHAPES],
    "reduce_any": [Case(inputs={"X": BOOLS}, attrs=a, ref=looped(any), name=str(a))
                   for a in SHAPES],
    "reduce_all": [Case(inputs={"X": BOOLS}, attrs=a, ref=looped(all), name=str(a))
                   for a in SHAPES],
    "logsumexp": [Case(inputs={"X": X * 3}, attrs={"axis": [1]}, grad=("X",),
                       ref=looped(lse, dim_key="axis", keep_key="keepdim")),
                  Case(inputs={"X": X * 3}, attrs={"axis": [0, 2], "keepdim": True},
                       grad=("X",), ref=looped(lse, dim_key="axis", keep_key="keepdim")),
                  Case(inputs={"X": X * 40}, attrs={"axis": [], "reduce_all": True},
                       grad=("X",), ref=looped(lse, dim_key="axis", keep_key="keepdim"),
                       name="large values do not overflow")],
}
CASES["reduce_prod"].append(Case(
    inputs={"X": np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0]], F)}, attrs={"dim": [1]},
    ref=looped(math.prod), grad=("X",), name="zeros: the gradient is the others' product"))
CASES["reduce_prod"].append(Case(
    inputs={"X": np.arange(1, 7, dtype=np.int32).reshape(2, 3)}, attrs={"dim": [1]},
    ref=looped(math.prod), name="int32 stays int32"))


def tied_grad_ref(ins, attrs):
    return {"Out": np.array([3.0, 2.0], F)}


CASES["reduce_amax"].append(Case(inputs={"X": TIED}, attrs={"dim": [1]}, ref=tied_grad_ref,
                                 name="ties (the shared gradient: test_math_paddle.py)"))

BAD = {
    "reduce_prod": [Bad(inputs={"X": X}, attrs={"dim": [3]}, error=ShapeError,
                        match=r"dim 3 is out of range for X of shape \(2, 3, 4\)")],
    "reduce_amax": [Bad(inputs={"X": X}, attrs={"dim": [-4]}, error=ShapeError,
                        match="dim -4 is out of range")],
    "reduce_amin": [Bad(inputs={"X": X, "AxisTensor": Meta((1,), np.dtype(np.int64))},
                        error=ShapeError, match="AxisTensor.*not supported")],
    "reduce_any": [Bad(inputs={"X": X}, error=ShapeError,
                       match="X must be a bool tensor, got float32")],
    "reduce_all": [Bad(inputs={"X": X}, error=ShapeError, match="X must be a bool tensor")],
    "logsumexp": [Bad(inputs={"X": Meta((2, 3), np.dtype(np.int32))}, error=ShapeError,
                      match="floating-point")],
}

# ---- nanmedian: the reference sorts each group's numbers with Python's sorted ----------------


def nanmedian_values(values):
    numbers = sorted(v for v in values if not math.isnan(v))
    if not numbers:
        return math.nan
    return (numbers[(len(numbers) - 1) // 2] + numbers[len(numbers) // 2]) / 2


def nanmedian_ref(ins, attrs):
    out = looped(nanmedian_values, dim_key="axis", keep_key="keepdim")(ins, attrs)["Out"]
    return {"Out": out}


NANS = DISTINCT.copy()
NANS[0, 1, :3] = np.nan
NANS[1, 2, :] = np.nan
CASES["nanmedian"] = [
    Case(inputs={"X": DISTINCT}, attrs={"axis": [2]}, ref=nanmedian_ref, grad=("X",),
         grad_outputs=("Out",)),
    Case(inputs={"X": DISTINCT}, attrs={"axis": [0, 2], "keepdim": True}, ref=nanmedian_ref,
         grad=("X",), grad_outputs=("Out",), name="two axes, even count"),
    Case(inputs={"X": NANS}, attrs={"axis": [2]}, ref=nanmedian_ref, name="NaNs, an all-NaN row"),
    Case(inputs={"X": NANS}, attrs={"axis": []}, ref=nanmedian_ref, name="every element"),
]
BAD["nanmedian"] = [Bad(inputs={"X": Meta((2, 3), np.dtype(np.int32))}, error=ShapeError,
                        match="floating-point")]
