"""Contract cases for paddle_nb/ops/layout.py: unbind, unstack, meshgrid, diag_v2, diagonal,
repeat_interleave, crop_tensor.

References copy element by element through explicit index arithmetic.
"""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(61)
F = np.float32
I64 = np.int64


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _pieces_ref(slot):
    def ref(ins, attrs):
        x, axis = ins["X"], attrs.get("axis", 0) % ins["X"].ndim
        return {slot: [np.array([[x[p[:axis] + (i,) + p[axis:]]] for p in np.ndindex(
            *(x.shape[:axis] + x.shape[axis + 1:]))], x.dtype).reshape(
            x.shape[:axis] + x.shape[axis + 1:]) for i in range(x.shape[axis])]}
    return ref


def _meshgrid_ref(ins, attrs):
    xs = [x.reshape(-1) for x in ins["X"]]
    shape = tuple(len(x) for x in xs)
    outs = []
    for k, x in enumerate(xs):
        out = np.empty(shape, x.dtype)
        for p in np.ndindex(*shape):
            out[p] = x[p[k]]
        outs.append(out)
    return {"Out": outs}


def _diag_v2_ref(ins, attrs):
    x, off = ins["X"], attrs.get("offset", 0)
    if x.ndim == 2:
        return {"Out": np.array([x[i, j] for i in range(x.shape[0]) for j in range(x.shape[1])
                                 if j - i == off], x.dtype)}
    v = x.reshape(-1)
    n = len(v) + abs(off)
    out = np.full((n, n), attrs.get("padding_value", 0.0), x.dtype)
    for k, val in enumerate(v):
        out[k + max(-off, 0), k + max(off, 0)] = val
    return {"Out": out}


def _diagonal_ref(ins, attrs):
    x, off = ins["Input"], attrs.get("offset", 0)
    a1, a2 = attrs.get("axis1", 0) % x.ndim, attrs.get("axis2", 1) % x.ndim
    rest = [i for i in range(x.ndim) if i not in (a1, a2)]
    pairs = [(i, j) for i in range(x.shape[a1]) for j in range(x.shape[a2]) if j - i == off]
    out = np.empty(tuple(x.shape[r] for r in rest) + (len(pairs),), x.dtype)
    for p in np.ndindex(*out.shape):
        src = [0] * x.ndim
        for r, v in zip(rest, p[:-1]):
            src[r] = v
        src[a1], src[a2] = pairs[p[-1]]
        out[p] = x[tuple(src)]
    return {"Out": out}


def _repeat_ref(ins, attrs):
    x, dim = ins["X"], attrs.get("dim", 0) % ins["X"].ndim
    reps = ins.get("RepeatsTensor")
    reps = [attrs.get("Repeats", 0)] * x.shape[dim] if reps is None else list(reps)
    rows = [i for i, r in enumerate(reps) for _ in range(r)]
    return {"Out": np.stack([np.take(x, i, axis=dim) for i in rows], axis=dim)}


def _crop_ref(ins, attrs):
    x = ins["X"]
    off = attrs.get("offsets") or [0] * x.ndim
    shape = [d - o if s == -1 else s for d, s, o in zip(x.shape, attrs["shape"], off)]
    out = np.empty(shape, x.dtype)
    for p in np.ndindex(*shape):
        out[p] = x[tuple(a + b for a, b in zip(p, off))]
    return {"Out": out}


X = arr(3, 4)
CASES = {
    "unbind": [Case(inputs={"X": X}, attrs={"axis": 1}, ref=_pieces_ref("Out"), grad=("X",)),
               Case(inputs={"X": arr(2, 3, 2)}, ref=_pieces_ref("Out"), grad=("X",),
                    name="axis 0")],
    "unstack": [Case(inputs={"X": X}, attrs={"axis": -1, "num": 4}, ref=_pieces_ref("Y"),
                     grad=("X",))],
    "meshgrid": [Case(inputs={"X": [arr(3), arr(2), arr(4)]}, ref=_meshgrid_ref, grad=("X",))],
    "diag_v2": [
        Case(inputs={"X": arr(3)}, attrs={"offset": 1, "padding_value": 9.0}, ref=_diag_v2_ref,
             name="a vector onto a diagonal"),
        Case(inputs={"X": X}, attrs={"offset": -1}, ref=_diag_v2_ref, name="a matrix's diagonal"),
    ],
    "diagonal": [
        Case(inputs={"Input": X}, attrs={"offset": 1}, ref=_diagonal_ref, grad=("Input",)),
        Case(inputs={"Input": arr(2, 3, 3)}, attrs={"axis1": 1, "axis2": -1, "offset": -1},
             ref=_diagonal_ref, grad=("Input",), name="rank 3"),
    ],
    "repeat_interleave": [
        Case(inputs={"X": X}, attrs={"Repeats": 2, "dim": 1}, ref=_repeat_ref, grad=("X",)),
        Case(inputs={"X": X, "RepeatsTensor": np.array([1, 0, 3], I64)}, ref=_repeat_ref,
             grad=("X",), name="RepeatsTensor"),
    ],
    "crop_tensor": [
        Case(inputs={"X": X}, attrs={"shape": [2, 2], "offsets": [1, 1]}, ref=_crop_ref,
             grad=("X",)),
        Case(inputs={"X": X}, attrs={"shape": [-1, 3], "offsets": [1, 0]}, ref=_crop_ref,
             grad=("X",), name="-1: the rest"),
    ],
}

CASES["broadcast_tensors"] = [
    Case(inputs={"X": [arr(2, 3, 1), arr(4), arr(1, 1)]},
         ref=lambda ins, attrs: {"Out": [np.array(np.broadcast_to(x, (2, 3, 4)))
                                         for x in ins["X"]]}, grad=("X",))]

XM = Meta((3, 4), np.dtype(F))
BAD = {
    "unbind": [Bad(inputs={"X": Meta((-1, 4), np.dtype(F))}, error=ShapeError,
                   match=r"X's dim 0 must be known to cut X into pieces")],
    "unstack": [Bad(inputs={"X": XM}, attrs={"num": 2}, error=ShapeError,
                    match=r"num \(2\) must equal X's dim 0 \(3\)")],
    "meshgrid": [Bad(inputs={"X": [XM]}, error=ShapeError, match=r"each X must be 0-D or 1-D")],
    "diag_v2": [Bad(inputs={"X": Meta((2, 2, 2), np.dtype(F))}, error=ShapeError,
                    match=r"X must be 0-D, 1-D or 2-D")],
    "diagonal": [Bad(inputs={"Input": XM}, attrs={"axis1": 1, "axis2": -1}, error=ShapeError,
                     match=r"axis1 and axis2 must differ")],
    "repeat_interleave": [Bad(inputs={"X": XM}, attrs={"dim": 2}, error=ShapeError,
                              match=r"axis 2 is out of range")],
    "broadcast_tensors": [Bad(inputs={"X": [XM, Meta((2,), np.dtype(F))]}, error=ShapeError,
                              match=r"do not broadcast together")],
    "crop_tensor": [Bad(inputs={"X": XM}, attrs={"shape": [3, 3], "offsets": [1, 0]},
                        error=ShapeError, match=r"does not fit in X of shape \(3, 4\)")],
}
