"""Contract cases for paddle_nb/ops/join.py: concat, split, stack, slice.

References build outputs element by element or from hand-written index
lists, not from the NumPy calls the kernels use.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(5)
F = np.float32


def arr(*shape, dtype=F):
    return rng.standard_normal(shape).astype(dtype)


def _concat_ref(ins, attrs):
    xs = ins["X"]
    axis = attrs.get("axis", 0) % xs[0].ndim
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    out = np.empty(shape, xs[0].dtype)
    offset = 0
    for x in xs:
        for idx in np.ndindex(*x.shape):
            at = list(idx)
            at[axis] += offset
            out[tuple(at)] = x[idx]
        offset += x.shape[axis]
    return {"Out": out}


def _split_ref(sizes):
    def ref(ins, attrs):
        x = ins["X"]
        axis = attrs.get("axis", 0) % x.ndim
        moved, outs, start = np.moveaxis(x, axis, 0), [], 0
        for n in sizes:
            outs.append(np.moveaxis(moved[start:start + n], 0, axis))
            start += n
        return {"Out": outs}
    return ref


def _stack_ref(ins, attrs):
    xs = ins["X"]
    axis = attrs.get("axis", 0) % (xs[0].ndim + 1)
    out = np.empty(xs[0].shape[:axis] + (len(xs),) + xs[0].shape[axis:], xs[0].dtype)
    for k, x in enumerate(xs):
        for idx in np.ndindex(*x.shape):
            out[idx[:axis] + (k,) + idx[axis:]] = x[idx]
    return {"Y": out}


def _slice_ref(index, shape):
    """``index``: one list of kept positions per dimension; ``shape``: the output shape."""
    def ref(ins, attrs):
        return {"Out": ins["Input"][np.ix_(*index)].reshape(shape)}
    return ref


X345 = arr(3, 4, 5)
CASES = {
    "concat": [
        Case(inputs={"X": [arr(2, 3), arr(1, 3), arr(3, 3)]}, ref=_concat_ref, grad=("X",)),
        Case(inputs={"X": [arr(2, 3), arr(2, 1)]}, attrs={"axis": 1}, ref=_concat_ref, grad=("X",),
             name="axis 1"),
        Case(inputs={"X": [arr(2, 2, 3), arr(2, 2, 2)]}, attrs={"axis": -1}, ref=_concat_ref,
             grad=("X",), name="negative axis"),
        Case(inputs={"X": [np.ones((2, 3), np.int64), np.arange(6).reshape(2, 3)]},
             ref=_concat_ref, name="int64"),
    ],
    "split": [
        Case(inputs={"X": arr(4, 3)}, attrs={"num": 2}, ref=_split_ref([2, 2]), grad=("X",)),
        Case(inputs={"X": arr(2, 6)}, attrs={"sections": [1, 2, 3], "axis": 1},
             ref=_split_ref([1, 2, 3]), grad=("X",), name="sections"),
        Case(inputs={"X": arr(2, 3, 5)}, attrs={"sections": [2, -1], "axis": -1},
             ref=_split_ref([2, 3]), grad=("X",), name="-1 section, negative axis"),
        Case(inputs={"X": arr(3, 2)}, attrs={"num": 3}, ref=_split_ref([1, 1, 1]), grad=("X",),
             name="three ones"),
    ],
    "stack": [
        Case(inputs={"X": [arr(2, 3), arr(2, 3)]}, ref=_stack_ref, grad=("X",)),
        Case(inputs={"X": [arr(2, 3), arr(2, 3), arr(2, 3)]}, attrs={"axis": 1}, ref=_stack_ref,
             grad=("X",), name="axis 1"),
        Case(inputs={"X": [arr(2, 3), arr(2, 3)]}, attrs={"axis": -1}, ref=_stack_ref, grad=("X",),
             name="axis -1: a new last axis"),
    ],
    "slice": [
        Case(inputs={"Input": X345}, attrs={"axes": [1], "starts": [1], "ends": [3]},
             ref=_slice_ref([[0, 1, 2], [1, 2], [0, 1, 2, 3, 4]], (3, 2, 5)), grad=("Input",)),
        Case(inputs={"Input": X345}, attrs={"axes": [0, 2], "starts": [-2, 1], "ends": [100, -1]},
             ref=_slice_ref([[1, 2], [0, 1, 2, 3], [1, 2, 3]], (2, 4, 3)), grad=("Input",),
             name="negative and out-of-range starts/ends"),
        Case(inputs={"Input": X345}, attrs={"axes": [-1], "starts": [-10], "ends": [2]},
             ref=_slice_ref([[0, 1, 2], [0, 1, 2, 3], [0, 1]], (3, 4, 2)), grad=("Input",),
             name="negative axis, start clamped to 0"),
        Case(inputs={"Input": X345}, attrs={"axes": [0, 1], "starts": [1, 2], "ends": [2, 3],
                                            "decrease_axis": [0]},
             ref=_slice_ref([[1], [2], [0, 1, 2, 3, 4]], (1, 5)), grad=("Input",),
             name="decrease_axis"),
        Case(inputs={"Input": X345}, attrs={"axes": [0, 1, 2], "starts": [0, 3, 4],
                                            "ends": [1, 4, 5], "decrease_axis": [0, 1, 2]},
             ref=_slice_ref([[0], [3], [4]], ()), grad=("Input",),
             name="every axis decreased: 0-D, as in 2.6"),
        Case(inputs={"Input": X345}, attrs={"axes": [1], "starts": [3], "ends": [1]},
             ref=_slice_ref([[0, 1, 2], [], [0, 1, 2, 3, 4]], (3, 0, 5)), name="empty"),
        Case(inputs={"Input": X345, "EndsTensorList": [np.array(3, np.int32),
                                                      np.array([2], np.int64)]},
             attrs={"axes": [1, 2], "starts": [1, 0], "ends": [-1, 2], "infer_flags": [-1, 1]},
             ref=_slice_ref([[0, 1, 2], [1, 2], [0, 1]], (3, 2, 2)), grad=("Input",),
             name="EndsTensorList wins (as paddle writes x[:, 1:n, :2])"),
        Case(inputs={"Input": X345, "StartsTensor": np.array([1, 2], np.int64),
                     "EndsTensor": np.array([2, 5], np.int64)},
             attrs={"axes": [0, 2], "starts": [0, 0], "ends": [1, 1], "decrease_axis": [0]},
             ref=_slice_ref([[1], [0, 1, 2, 3], [2, 3, 4]], (4, 3)), grad=("Input",),
             name="StartsTensor and EndsTensor, decrease_axis"),
    ],
}

M = np.dtype(F)
BAD = {
    "concat": [
        Bad(inputs={"X": [Meta((2, 3), M), Meta((2, 4), M)]}, error=ShapeError,
            match=r"shapes of X must match except on axis 0, got \[\(2, 3\), \(2, 4\)\]"),
        Bad(inputs={"X": [Meta((2, 3), M), Meta((2, 3, 1), M)]}, error=ShapeError,
            match=r"one rank and dtype, got shapes \[\(2, 3\), \(2, 3, 1\)\]"),
        Bad(inputs={"X": [Meta((2, 3), M), Meta((2, 3), np.dtype(np.float64))]}, error=ShapeError,
            match="dtypes"),
        Bad(inputs={"X": [Meta((2, 3), M)]}, attrs={"axis": 2}, error=ShapeError,
            match="axis 2 is out of range for X.0. of rank 2"),
    ],
    "split": [
        Bad(inputs={"X": Meta((5, 2), M)}, attrs={"num": 2}, error=ShapeError,
            match="size 5 does not split into 2 equal parts"),
        Bad(inputs={"X": Meta((5, 2), M)}, attrs={"sections": [2, 2]}, error=ShapeError,
            match=r"sections \[2, 2\] do not add up to X's dimension of size 5"),
        Bad(inputs={"X": Meta((5, 2), M)}, attrs={"sections": [-1, -1]}, error=ShapeError,
            match="one -1"),
        Bad(inputs={"X": Meta((5, 2), M)}, error=ShapeError, match="num > 0 or a list of sections"),
        Bad(inputs={"X": Meta((5, 2), M)}, attrs={"num": 1, "axis": -3}, error=ShapeError,
            match="axis -3 is out of range for X of rank 2"),
    ],
    "stack": [
        Bad(inputs={"X": [Meta((2, 3), M), Meta((3, 2), M)]}, error=ShapeError,
            match=r"shapes of X must match exactly, got \[\(2, 3\), \(3, 2\)\]"),
        Bad(inputs={"X": [Meta((2, 3), M)]}, attrs={"axis": 3}, error=ShapeError,
            match="axis 3 is out of range for Y of rank 3"),
    ],
    "slice": [
        Bad(inputs={"Input": Meta((3, 4), M)}, attrs={"axes": [2], "starts": [0], "ends": [1]},
            error=ShapeError, match=r"axes \[2\] are out of range for Input of shape \(3, 4\)"),
        Bad(inputs={"Input": Meta((3, 4), M)}, attrs={"axes": [0, 1], "starts": [0], "ends": [1]},
            error=ShapeError, match="one length"),
        Bad(inputs={"Input": Meta((3, 4), M)},
            attrs={"axes": [0], "starts": [0], "ends": [2], "decrease_axis": [0]},
            error=ShapeError,
            match=r"sliced axes of size 1.*Input of shape \(3, 4\) has shape \(2, 4\)"),
        Bad(inputs={"Input": Meta((3, 4), M), "StartsTensor": Meta((1, 1), np.dtype(np.int64))},
            attrs={"axes": [0], "starts": [0], "ends": [1]}, error=ShapeError,
            match=r"StartsTensor must be a 1-D tensor of known length, got shape \(1, 1\)"),
    ],
}


def test_join_ops_keep_an_unknown_batch_dim():
    b = Meta((-1, 3), M)

    def concat(*xs, axis=0):
        return harness.infer("concat", {"X": [b, *xs]}, {"axis": axis})["Out"].shape
    assert concat(Meta((-1, 2), M), axis=1) == (-1, 5)
    assert concat(Meta((2, 3), M)) == (-1, 3) and concat(Meta((2, -1), M)) == (-1, 3)
    outs = harness.infer("split", {"X": b}, {"num": 3, "axis": 1})["Out"]
    assert [o.shape for o in outs] == [(-1, 1)] * 3
    outs = harness.infer("split", {"X": b}, {"sections": [1, -1]})["Out"]
    assert [o.shape for o in outs] == [(1, 3), (-1, 3)]
    assert harness.infer("stack", {"X": [b, b]}, {"axis": 1})["Y"].shape == (-1, 2, 3)
    got = harness.infer("slice", {"Input": b}, {"axes": [0, 1], "starts": [0, 1], "ends": [1, 3]})
    assert got["Out"].shape == (-1, 2)
    one = Meta((), np.dtype(np.int32))
    got = harness.infer("slice", {"Input": Meta((4, 3), M), "EndsTensorList": [one]},
                        {"axes": [1], "starts": [0], "ends": [-1], "infer_flags": [-1]})
    assert got["Out"].shape == (4, -1)
    # x[:, 1:n, :2] as 2.6 writes it: axis 2's bounds are constants (infer flag 1)
    got = harness.infer("slice", {"Input": Meta((4, 6, 5), M), "EndsTensorList": [one, one]},
                        {"axes": [1, 2], "starts": [1, 0], "ends": [-1, 2],
                         "infer_flags": [-1, 1]})
    assert got["Out"].shape == (4, -1, 2)
    got = harness.infer("slice", {"Input": Meta((4, 6), M), "EndsTensor": Meta((1,), one.dtype)},
                        {"axes": [1], "starts": [1], "ends": [3], "infer_flags": [1]})
    assert got["Out"].shape == (4, -1)


def test_split_gradient_is_a_concat():
    from paddle_nb.ops.machinery import registry
    from paddle_nb.ops.machinery.grad import GradContext
    attrs = {"axis": 1, "num": 2, "sections": []}
    g = GradContext("split", {"X": ["x"]}, {"Out": ["a", "b"]}, attrs)
    (spec,) = registry.get("split").grad(g)
    assert (spec.type, spec.inputs, spec.outputs, spec.attrs) == (
        "concat", {"X": ["a@GRAD", "b@GRAD"]}, {"Out": ["x@GRAD"]}, {"axis": 1})
