"""Contract cases for paddle_nb/ops/tensor.py: lookup_table_v2, assign, cast, fill_zeros_like,
fill_any_like.

The lookup reference loops over the ids; the gradient check covers W only
(Ids are integers), including a padding_idx whose rows get no gradient.
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(9)
F = np.float32
W = rng.standard_normal((5, 3)).astype(F)


def _lookup_ref(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    pad = attrs.get("padding_idx", -1)
    out = np.zeros(ids.shape + (w.shape[1],), w.dtype)
    for idx in np.ndindex(*ids.shape):
        if ids[idx] != pad:
            out[idx] = w[ids[idx]]
    return {"Out": out}


def _ids(*values):
    return np.array(values, dtype=np.int64)


def _same(ins, attrs):
    return {"Out": np.array(ins["X"], copy=True)}


NAMES = {3: "int64", 5: "float32"}


def _cast_ref(ins, attrs):
    to = np.dtype(NAMES.get(attrs["out_dtype"], attrs["out_dtype"]))
    values = [to.type(v) for v in ins["X"].ravel()]
    return {"Out": np.array(values, dtype=to).reshape(ins["X"].shape)}


X = rng.standard_normal((2, 3)).astype(F)
CASES = {
    "lookup_table_v2": [
        Case(inputs={"W": W, "Ids": _ids(0, 3, 3, 4)}, ref=_lookup_ref, grad=("W",)),
        Case(inputs={"W": W, "Ids": _ids([1, 2], [2, 0], [4, 4])}, ref=_lookup_ref, grad=("W",),
             name="2-D ids"),
        Case(inputs={"W": W, "Ids": _ids([[1], [0]], [[0], [2]])}, attrs={"padding_idx": 0},
             ref=_lookup_ref, grad=("W",), name="padding_idx: zeros, no gradient"),
        Case(inputs={"W": W, "Ids": np.array([[4, 1]], np.int32)}, attrs={"is_sparse": True},
             ref=_lookup_ref, grad=("W",), name="int32 ids, is_sparse (dense here)"),
    ],
    "assign": [
        Case(inputs={"X": X}, ref=_same, grad=("X",)),
        Case(inputs={"X": np.arange(4, dtype=np.int64)}, ref=_same, name="int64"),
    ],
    "cast": [
        Case(inputs={"X": X}, attrs={"in_dtype": "float32", "out_dtype": "float64"}, ref=_cast_ref,
             grad=("X",)),
        Case(inputs={"X": X * 3}, attrs={"in_dtype": 5, "out_dtype": 3}, ref=_cast_ref,
             name="VarType numbers: FP32 -> INT64 truncates"),
        Case(inputs={"X": np.array([0, 2, -1], np.int32)}, attrs={"in_dtype": "int32",
                                                                  "out_dtype": "bool"},
             ref=_cast_ref, name="int32 -> bool"),
    ],
    "fill_any_like": [
        Case(inputs={"X": X}, attrs={"value": 2.5},
             ref=lambda ins, a: {"Out": np.full((2, 3), 2.5, F)}),
        Case(inputs={"X": X}, attrs={"value": 3.0, "dtype": 3},
             ref=lambda ins, a: {"Out": np.full((2, 3), 3, np.int64)}, name="dtype INT64"),
        Case(inputs={"X": np.ones((4,), np.int32)}, attrs={"value": -1.0},
             ref=lambda ins, a: {"Out": np.full((4,), -1, np.int32)}, name="X's int32"),
    ],
    "fill_zeros_like": [
        Case(inputs={"X": X}, ref=lambda ins, attrs: {"Out": np.zeros((2, 3), F)}),
        Case(inputs={"X": np.ones((3,), np.int64)},
             ref=lambda ins, attrs: {"Out": np.zeros((3,), np.int64)}, name="int64"),
    ],
}

WM = Meta((5, 3), np.dtype(F))
BAD = {
    "lookup_table_v2": [
        Bad(inputs={"W": WM, "Ids": Meta((4,), np.dtype(F))}, error=ShapeError,
            match=r"Ids must be an integer tensor \(int64 or int32\), got float32 "
                  r"with shape \(4,\)"),
        Bad(inputs={"W": Meta((5,), np.dtype(F)), "Ids": Meta((4,), np.dtype(np.int64))},
            error=ShapeError, match=r"W must be rank 2 \(one row per id\), got shape \(5,\)"),
        Bad(inputs={"W": WM, "Ids": Meta((4,), np.dtype(np.int64))}, attrs={"padding_idx": -3},
            error=AttrError, match="padding_idx"),
    ],
    "assign": [Bad(inputs={"X": None}, error=ShapeError, match="X must be given")],
    "cast": [
        Bad(inputs={"X": Meta((2,), np.dtype(F))}, attrs={"in_dtype": 5, "out_dtype": 99},
            error=AttrError, match="'out_dtype' expects dtype"),
        Bad(inputs={"X": Meta((2,), np.dtype(F))}, attrs={"in_dtype": 5}, error=AttrError,
            match="'out_dtype'.*required"),
    ],
    "fill_any_like": [
        Bad(inputs={"X": Meta((2,), np.dtype(F))}, attrs={"dtype": 99}, error=AttrError,
            match=r"'dtype' = 99: expected -1 \(X's dtype\) or a VarType number"),
        Bad(inputs={"X": None}, error=ShapeError, match="X must be given"),
    ],
    "fill_zeros_like": [Bad(inputs={"X": None}, error=ShapeError, match="X must be given")],
}


def test_lookup_keeps_an_unknown_batch_dim():
    out = harness.infer("lookup_table_v2", {"W": WM, "Ids": Meta((-1, 7), np.dtype(np.int64))})
    assert out["Out"].shape == (-1, 7, 3) and out["Out"].dtype == np.dtype(F)


def test_cast_gradient_casts_back():
    from paddle_nb.ops.machinery import registry
    from paddle_nb.ops.machinery.grad import GradContext
    attrs = registry.get("cast").complete_attrs({"in_dtype": "float32", "out_dtype": "float16"})
    (spec,) = registry.get("cast").grad(GradContext("cast", {"X": ["x"]}, {"Out": ["y"]}, attrs))
    assert (spec.type, spec.inputs) == ("cast", {"X": ["y@GRAD"]})
    assert spec.outputs == {"Out": ["x@GRAD"]}
    assert (spec.attrs["in_dtype"], spec.attrs["out_dtype"]) == (np.float16, np.float32)
    dx = harness.forward("cast", {"X": np.ones(2, np.float16)}, spec.attrs)["Out"]
    assert dx.dtype == np.float32
