"""Contract cases for paddle_nb/ops/shape.py: reshape2, transpose2, squeeze2, unsqueeze2.

References are plain NumPy with the target shape written out by hand; XShape is
checked to be the empty (0,) + X.shape tensor.
"""

import numpy as np
import pytest

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(3)
F = np.float32
X234 = rng.standard_normal((2, 3, 4)).astype(F)
X1315 = rng.standard_normal((1, 3, 1, 5)).astype(F)


def _to(shape):
    """Reference: X reshaped to a hand-computed shape, plus the empty XShape."""
    def ref(ins, attrs):
        x = ins["X"]
        return {"Out": np.reshape(x, shape), "XShape": np.empty((0,) + x.shape, x.dtype)}
    return ref


def _perm_ref(ins, attrs):
    x = ins["X"]
    perm = [a % x.ndim for a in attrs["axis"]]
    out = np.empty(tuple(x.shape[p] for p in perm), x.dtype)
    for idx in np.ndindex(*x.shape):
        out[tuple(idx[p] for p in perm)] = x[idx]
    return {"Out": out, "XShape": np.empty((0,) + x.shape, x.dtype)}


def _case(op, x, attrs, shape, name, grad=("X",)):
    return Case(inputs={"X": x}, attrs=attrs, ref=_to(shape), grad=grad, grad_outputs=("Out",),
                name=name)


CASES = {
    "reshape2": [
        _case("reshape2", X234, {"shape": [6, 4]}, (6, 4), "plain"),
        _case("reshape2", X234, {"shape": [-1, 2]}, (12, 2), "-1 inferred"),
        _case("reshape2", X234, {"shape": [0, -1]}, (2, 12), "0 copies"),
        _case("reshape2", X234, {"shape": [2, 0, 2, 2]}, (2, 3, 2, 2), "0 in the middle"),
        _case("reshape2", X234[0, 0], {"shape": [1, 4, 1]}, (1, 4, 1), "to rank 3"),
        _case("reshape2", X234.astype(np.int64), {"shape": [-1]}, (24,), "int64", grad=()),
        Case(inputs={"X": X234, "Shape": np.array([4, -1], np.int32)}, attrs={"shape": [1, 24]},
             ref=_to((4, 6)), grad=("X",), grad_outputs=("Out",), name="Shape tensor wins"),
        Case(inputs={"X": X234, "ShapeTensor": [np.array(2, np.int32), np.array([-1], np.int32)]},
             attrs={"shape": [-1, -1]}, ref=_to((2, 12)), grad=("X",), grad_outputs=("Out",),
             name="ShapeTensor: one tensor per dim"),
    ],
    "flatten_contiguous_range": [
        _case("flatten_contiguous_range", X234, {"start_axis": 1, "stop_axis": 2}, (2, 12),
              "the last two"),
        _case("flatten_contiguous_range", X234, {}, (2, 3, 4), "defaults: 1..1 changes nothing"),
        _case("flatten_contiguous_range", X1315, {"start_axis": 0, "stop_axis": -1}, (15,),
              "all, negative stop"),
        _case("flatten_contiguous_range", X1315, {"start_axis": -3, "stop_axis": 2}, (1, 3, 5),
              "the middle"),
        _case("flatten_contiguous_range", np.float32(2.5).reshape(()),
              {"start_axis": 0, "stop_axis": -1}, (1,), "0-D becomes (1,)"),
    ],
    "shape": [
        Case(inputs={"Input": X234}, ref=lambda ins, a: {"Out": np.array([2, 3, 4], np.int32)}),
        Case(inputs={"Input": np.zeros((0, 5), np.int64)},
             ref=lambda ins, a: {"Out": np.array([0, 5], np.int32)}, name="empty int64"),
        Case(inputs={"Input": np.float32(1.0).reshape(())},
             ref=lambda ins, a: {"Out": np.zeros((0,), np.int32)}, name="0-D: no dims"),
    ],
    "size": [
        Case(inputs={"Input": X234}, ref=lambda ins, a: {"Out": np.array(24, np.int64)}),
        Case(inputs={"Input": np.zeros((0, 5), np.int32)},
             ref=lambda ins, a: {"Out": np.array(0, np.int64)}, name="empty"),
    ],
    "transpose2": [
        Case(inputs={"X": X234}, attrs={"axis": [1, 2, 0]}, ref=_perm_ref, grad=("X",),
             grad_outputs=("Out",)),
        Case(inputs={"X": X234}, attrs={"axis": [-1, 0, -2]}, ref=_perm_ref, grad=("X",),
             grad_outputs=("Out",), name="negative axes"),
        Case(inputs={"X": X234[0]}, attrs={"axis": [1, 0]}, ref=_perm_ref, grad=("X",),
             grad_outputs=("Out",), name="matrix"),
    ],
    "squeeze2": [
        _case("squeeze2", X1315, {"axes": []}, (3, 5), "all"),
        _case("squeeze2", X1315, {"axes": [2]}, (1, 3, 5), "one axis"),
        _case("squeeze2", X1315, {"axes": [-2, 0]}, (3, 5), "negative axes"),
        _case("squeeze2", X1315, {"axes": [1]}, (1, 3, 1, 5), "size 3 is kept"),
    ],
    "unsqueeze2": [
        _case("unsqueeze2", X234, {"axes": [0]}, (1, 2, 3, 4), "front"),
        _case("unsqueeze2", X234, {"axes": [-1]}, (2, 3, 4, 1), "negative: the end"),
        _case("unsqueeze2", X234, {"axes": [1, 3]}, (2, 1, 3, 1, 4), "two, in order"),
        _case("unsqueeze2", X234[0, 0], {"axes": [0, -1]}, (1, 4, 1), "both ends"),
        Case(inputs={"X": X234, "AxesTensor": np.array([0, 2], np.int64)}, ref=_to((1, 2, 1, 3, 4)),
             grad=("X",), grad_outputs=("Out",), name="AxesTensor wins"),
        Case(inputs={"X": X234, "AxesTensorList": [np.array(-1, np.int32)]}, attrs={"axes": [0]},
             ref=_to((2, 3, 4, 1)), grad=("X",), grad_outputs=("Out",), name="AxesTensorList"),
    ],
}

M = Meta((2, 3, 4), np.dtype(F))
B = Meta((-1, 4), np.dtype(F))
BAD = {
    "reshape2": [
        Bad(inputs={"X": M}, attrs={"shape": [5, 5]}, error=ShapeError,
            match=r"shape \[5, 5\] asks for 25 elements but X of shape \(2, 3, 4\) holds 24"),
        Bad(inputs={"X": M}, attrs={"shape": [-1, 5]}, error=ShapeError,
            match=r"X of shape \(2, 3, 4\) \(24 elements\) does not fit shape \[-1, 5\]"),
        Bad(inputs={"X": M}, attrs={"shape": [-1, -1]}, error=ShapeError, match="only one -1"),
        Bad(inputs={"X": B}, attrs={"shape": [2, 0, 0]}, error=ShapeError,
            match=r"shape\[2\] = 0 copies X's dimension 2, but X of shape \(-1, 4\) has rank 2"),
        Bad(inputs={"X": B}, attrs={"shape": [0, 0, 2]}, error=ShapeError,
            match=r"shape \[0, 0, 2\] asks for 8 elements but X of shape \(-1, 4\) holds 4"),
        Bad(inputs={"X": M}, attrs={"shape": [-2, 12]}, error=ShapeError, match="one -1"),
        Bad(inputs={"X": M, "ShapeTensor": [Meta((2,), np.dtype(np.int32))]}, error=ShapeError,
            match=r"each tensor of ShapeTensor must hold one value, got shape \(2,\) at 0"),
    ],
    "transpose2": [
        Bad(inputs={"X": M}, attrs={"axis": [0, 1, 1]}, error=ShapeError,
            match=r"axis must be a permutation of 0..2 for X of rank 3, got \[0, 1, 1\]"),
        Bad(inputs={"X": M}, attrs={"axis": [1, 0]}, error=ShapeError, match="permutation"),
        Bad(inputs={"X": M}, attrs={}, error=AttrError, match="'axis'.*required"),
    ],
    "flatten_contiguous_range": [
        Bad(inputs={"X": M}, attrs={"start_axis": 2, "stop_axis": 1}, error=ShapeError,
            match=r"start_axis 2 must not come after stop_axis 1 for X of shape \(2, 3, 4\)"),
        Bad(inputs={"X": M}, attrs={"start_axis": 0, "stop_axis": 3}, error=ShapeError,
            match=r"start_axis 0 and stop_axis 3 must be dims of X of shape \(2, 3, 4\)"),
    ],
    "shape": [Bad(inputs={"Input": M}, attrs={"axis": 1}, error=AttrError,
                  match="'shape' has no attribute 'axis'")],
    "size": [Bad(inputs={"Input": M}, attrs={"dim": 1}, error=AttrError,
                 match="'size' has no attribute 'dim'")],
    "squeeze2": [Bad(inputs={"X": M}, attrs={"axes": [3]}, error=ShapeError,
                     match=r"axes \[3\] are out of range for X of shape \(2, 3, 4\)")],
    "unsqueeze2": [Bad(inputs={"X": M}, attrs={"axes": [5]}, error=ShapeError,
                       match=r"axes \[5\] are out of range for X of shape \(2, 3, 4\)")],
}


@pytest.mark.parametrize("attrs,want", [
    ({"shape": [0, 2, 2]}, (-1, 2, 2)), ({"shape": [-1, 8]}, (-1, 8)),
    ({"shape": [-1, 2]}, (-1, 2)), ({"shape": [0, -1]}, (-1, 4)),
    ({"shape": [2, 0, 1]}, (2, 4, 1)), ({"shape": [8]}, (8,))])
def test_reshape_keeps_an_unknown_batch_dim(attrs, want):
    out = harness.infer("reshape2", {"X": B}, attrs)
    assert out["Out"].shape == want
    assert out["XShape"].shape == (0, -1, 4)


def test_shape_ops_keep_an_unknown_batch_dim():
    assert harness.infer("transpose2", {"X": B}, {"axis": [1, 0]})["Out"].shape == (4, -1)
    x = Meta((-1, 1, 3), np.dtype(F))
    assert harness.infer("squeeze2", {"X": x}, {"axes": [1]})["Out"].shape == (-1, 3)
    assert harness.infer("unsqueeze2", {"X": B}, {"axes": [1]})["Out"].shape == (-1, 1, 4)


def test_reshape_grad_reads_only_xshape():
    x = X234.astype(np.float64)
    outs = harness.forward("reshape2", {"X": x}, {"shape": [4, 6]})
    assert outs["XShape"].size == 0
    dx = harness.forward("reshape2_grad", {"XShape": outs["XShape"], "Out@GRAD": outs["Out"]},
                         {"shape": [4, 6]})["X@GRAD"]
    np.testing.assert_array_equal(dx, x)


def test_shape_tensors_leave_their_dims_unknown():
    b3 = Meta((-1, 3, 4), np.dtype(F))
    one = Meta((), np.dtype(np.int32))
    out = harness.infer("reshape2", {"X": b3, "ShapeTensor": [one, one]}, {"shape": [-1, 12]})
    assert out["Out"].shape == (-1, 12) and out["XShape"].shape == (0, -1, 3, 4)
    out = harness.infer("reshape2", {"X": b3, "Shape": Meta((3,), np.dtype(np.int32))})
    assert out["Out"].shape == (-1, -1, -1)
    assert harness.infer("shape", {"Input": b3})["Out"] == Meta((3,), np.dtype(np.int32))
    out = harness.infer("unsqueeze2", {"X": b3, "AxesTensor": Meta((2,), np.dtype(np.int64))})
    assert out["Out"].shape == (-1,) * 5
    out = harness.infer("flatten_contiguous_range", {"X": b3}, {"start_axis": 0, "stop_axis": 1})
    assert out["Out"].shape == (-1, 4)
