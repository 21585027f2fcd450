"""Contract cases for paddle_nb/ops/vector_norm.py: p_norm, frobenius_norm and dist.
References use numpy.linalg.norm or plain sums, not the kernels' helper."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(12)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def distinct(*shape):
    """Entries with distinct magnitudes away from 0 (the inf-norm is smooth there)."""
    a = (np.arange(int(np.prod(shape))) * 0.37 + 0.5) * rng.choice([-1, 1], int(np.prod(shape)))
    return rng.permutation(a).reshape(shape).astype(F)


def _p_ref(p, axis, keepdim=False):
    def ref(ins, attrs):
        x = ins["X"].astype(np.float64)
        if axis is None:
            out = np.linalg.norm(x.reshape(-1), ord=p)
            out = out.reshape((1,) * x.ndim) if keepdim else np.array(out)
        else:
            out = np.linalg.norm(x, ord=p, axis=axis, keepdims=keepdim)
        return {"Out": out.astype(F)}
    return ref


CASES = {
    "p_norm": [
        Case(inputs={"X": arr(3, 4)}, attrs={"axis": 1}, ref=_p_ref(2, 1), grad=("X",)),
        Case(inputs={"X": arr(3, 4)}, attrs={"axis": 0, "porder": 3.0, "keepdim": True},
             ref=_p_ref(3, 0, True), grad=("X",), name="p=3 keepdim"),
        Case(inputs={"X": distinct(3, 4)}, attrs={"axis": -1, "porder": float("inf")},
             ref=_p_ref(np.inf, -1), grad=("X",), name="inf"),
        Case(inputs={"X": distinct(3, 4)}, attrs={"axis": 0, "porder": float("-inf")},
             ref=_p_ref(-np.inf, 0), grad=("X",), name="-inf"),
        Case(inputs={"X": arr(2, 3)}, attrs={"asvector": True, "porder": 1.0},
             ref=_p_ref(1, None), grad=("X",), name="asvector: 0-D"),
        Case(inputs={"X": np.array([[0.0, 1.5], [2.0, 0.0]], F)},
             attrs={"asvector": True, "porder": 0.0}, ref=_p_ref(0, None), name="p=0 counts"),
    ],
    "frobenius_norm": [
        Case(inputs={"X": arr(2, 3, 4)}, attrs={"dim": [1, 2]},
             ref=lambda ins, a: {"Out": np.sqrt((ins["X"] ** 2).sum(axis=(1, 2)))}, grad=("X",)),
        Case(inputs={"X": arr(2, 3)}, attrs={"reduce_all": True},
             ref=lambda ins, a: {"Out": np.array(np.sqrt((ins["X"] ** 2).sum()), F)},
             grad=("X",), name="reduce_all: 0-D"),
        Case(inputs={"X": arr(2, 3)}, attrs={"dim": [0], "keep_dim": True},
             ref=lambda ins, a: {"Out": np.sqrt((ins["X"] ** 2).sum(axis=0, keepdims=True))},
             grad=("X",), name="keep_dim"),
    ],
    "dist": [
        Case(inputs={"X": arr(2, 3), "Y": arr(2, 3)}, attrs={"p": 3.0},
             ref=lambda ins, a: {"Out": np.array(
                 (np.abs(ins["X"] - ins["Y"]) ** 3).sum() ** (1 / 3), F)}, grad=("X", "Y")),
        Case(inputs={"X": arr(2, 3), "Y": arr(3)},
             ref=lambda ins, a: {"Out": np.array(np.sqrt(((ins["X"] - ins["Y"]) ** 2).sum()), F)},
             grad=("X", "Y"), name="broadcast"),
    ],
}

BAD = {
    "p_norm": [Bad(inputs={"X": Meta((2, 3), np.dtype(F))},
                   attrs={"axis": 2}, error=ShapeError, match=r"axis must name")],
    "frobenius_norm": [Bad(inputs={"X": Meta((2, 3), np.dtype(F))}, attrs={"dim": [3]},
                           error=ShapeError, match=r"dim must name")],
    "dist": [Bad(inputs={"X": Meta((2, 3), np.dtype(F)), "Y": Meta((4,), np.dtype(F))},
                 error=ShapeError, match=r"X \(shape \(2, 3\)\) and Y")],
}
