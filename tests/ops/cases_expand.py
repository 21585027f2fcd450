"""Contract cases for paddle_nb/ops/expand.py: expand_v2, expand_as_v2, tile.

The references write every output element from the X element it copies
(index modulo X's dim for tile, index 0 for a broadcast dim of size 1).
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(44)
F = np.float32
I64 = np.int64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _copy_from(x, out_shape, source):
    """out[pos] = x[source(pos)] for every position of out."""
    out = np.empty(out_shape, x.dtype)
    for pos in np.ndindex(*out_shape):
        out[pos] = x[source(pos)]
    return out


def _broadcast_ref(x, target):
    lead = len(target) - x.ndim
    shape = tuple(x.shape[i - lead] if t == -1 else t for i, t in enumerate(target))
    return _copy_from(x, shape, lambda pos: tuple(
        0 if x.shape[i] == 1 else pos[lead + i] for i in range(x.ndim)))


def _target(ins, attrs, attr, tensor, tensor_list):
    if ins.get(tensor) is not None:
        return [int(v) for v in ins[tensor]]
    if ins.get(tensor_list):
        return [int(t.reshape(-1)[0]) for t in ins[tensor_list]]
    return attrs[attr]


def _expand_ref(ins, attrs):
    return {"Out": _broadcast_ref(ins["X"], _target(ins, attrs, "shape", "Shape",
                                                    "expand_shapes_tensor"))}


def _expand_as_ref(ins, attrs):
    target = ins["Y"].shape if ins.get("Y") is not None else attrs["target_shape"]
    return {"Out": _broadcast_ref(ins["X"], target)}


def _tile_ref(ins, attrs):
    x = ins["X"]
    reps = _target(ins, attrs, "repeat_times", "RepeatTimes", "repeat_times_tensor")
    n = max(x.ndim, len(reps))
    dims = (1,) * (n - x.ndim) + x.shape
    reps = (1,) * (n - len(reps)) + tuple(reps)
    xx = x.reshape(dims)
    return {"Out": _copy_from(xx, tuple(d * r for d, r in zip(dims, reps)),
                              lambda pos: tuple(p % d for p, d in zip(pos, dims)))}


def _one(v, dtype=I64):
    return np.array([v], dtype)


CASES = {
    "expand_v2": [
        Case(inputs={"X": arr(3, 1)}, attrs={"shape": [2, -1, 4]}, ref=_expand_ref, grad=("X",)),
        Case(inputs={"X": arr(1, 2, 1)}, attrs={"shape": [3, 2, 2]}, ref=_expand_ref,
             grad=("X",), name="same rank"),
        Case(inputs={"X": arr(2, 1), "Shape": np.array([2, 2, 3], np.int32)},
             attrs={"shape": []}, ref=_expand_ref, grad=("X",), name="Shape tensor"),
        Case(inputs={"X": arr(1, 3), "expand_shapes_tensor": [_one(2), _one(-1, np.int32)]},
             attrs={"shape": [2, -1]}, ref=_expand_ref, grad=("X",),
             name="one tensor per dim"),
        Case(inputs={"X": np.array([1, 2], I64)}, attrs={"shape": [3, 2]}, ref=_expand_ref,
             name="int64"),
    ],
    "expand_as_v2": [
        Case(inputs={"X": arr(1, 3), "Y": arr(2, 4, 3)}, attrs={"target_shape": [2, 4, 3]},
             ref=_expand_as_ref, grad=("X",)),
        Case(inputs={"X": arr(2, 1)}, attrs={"target_shape": [2, 5]}, ref=_expand_as_ref,
             grad=("X",), name="target_shape alone"),
    ],
    "tile": [
        Case(inputs={"X": arr(2, 3)}, attrs={"repeat_times": [2, 1]}, ref=_tile_ref, grad=("X",)),
        Case(inputs={"X": arr(3)}, attrs={"repeat_times": [2, 2]}, ref=_tile_ref, grad=("X",),
             name="more repeats than dims"),
        Case(inputs={"X": arr(2, 1, 2)}, attrs={"repeat_times": [3]}, ref=_tile_ref,
             grad=("X",), name="fewer repeats than dims"),
        Case(inputs={"X": arr(2, 2), "RepeatTimes": np.array([1, 3], np.int32)}, ref=_tile_ref,
             grad=("X",), name="RepeatTimes tensor"),
        Case(inputs={"X": arr(1, 2), "repeat_times_tensor": [_one(2), _one(2)]},
             attrs={"repeat_times": [-1, 2]}, ref=_tile_ref, grad=("X",),
             name="one tensor per dim"),
    ],
}

M = Meta((3, 2), np.dtype(F))
BAD = {
    "expand_v2": [
        Bad(inputs={"X": M}, attrs={"shape": [3, 4]}, error=ShapeError,
            match=r"X of shape \(3, 2\) cannot be expanded to shape \[3, 4\]"),
        Bad(inputs={"X": M}, attrs={"shape": [2]}, error=ShapeError,
            match=r"shape \[2\] must have at least X's rank \(2\), got 1 entries"),
        Bad(inputs={"X": M}, attrs={"shape": [-1, 3, 2]}, error=ShapeError,
            match=r"-1 \(keep X's dim\) at 0, where X of shape \(3, 2\) has no dim"),
        Bad(inputs={"X": M, "Shape": Meta((2, 1), np.dtype(I64))}, error=ShapeError,
            match=r"Shape must be a 1-D tensor of known length, got shape \(2, 1\)"),
    ],
    "expand_as_v2": [
        Bad(inputs={"X": M, "Y": Meta((4, 3), np.dtype(F))}, error=ShapeError,
            match=r"cannot be expanded to Y's shape \[4, 3\]"),
        Bad(inputs={"X": M}, error=ShapeError, match="needs Y or target_shape, got neither"),
    ],
    "tile": [
        Bad(inputs={"X": M}, attrs={"repeat_times": [2, 0]}, error=ShapeError,
            match=r"repeat_times must hold counts >= 1, got \[2, 0\]"),
        Bad(inputs={"X": M, "repeat_times_tensor": [Meta((2,), np.dtype(I64))]},
            error=ShapeError, match=r"each tensor of repeat_times_tensor must hold one value"),
    ],
}


def test_tensor_decided_sizes_are_unknown_at_build():
    x = Meta((-1, 1), np.dtype(F))
    out = harness.infer("expand_v2",
                        {"X": x, "expand_shapes_tensor": [Meta((1,), np.dtype(I64))] * 2},
                        {"shape": [-1, 6]})
    assert out["Out"].shape == (-1, 6)
    out = harness.infer("tile", {"X": Meta((2, 3), np.dtype(F)),
                                 "RepeatTimes": Meta((2,), np.dtype(I64))})
    assert out["Out"].shape == (-1, -1)
    out = harness.infer("expand_as_v2", {"X": Meta((1, 3), np.dtype(F)),
                                         "Y": Meta((-1, 3), np.dtype(F))},
                        {"target_shape": [-1, 3]})
    assert out["Out"].shape == (-1, 3)
    assert harness.infer("expand_v2", {"X": x}, {"shape": [-1, 5]})["Out"].shape == (-1, 5)
