"""Contract cases for paddle_nb/ops/products.py: bmm, dot, mv, cross, kron and
bilinear_tensor_product. References are written with loops or with NumPy's own functions
(numpy.kron, numpy.cross) rather than the kernels' einsum and broadcasting."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(11)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def meta(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _bmm_ref(ins, attrs):
    return {"Out": np.stack([a @ b for a, b in zip(ins["X"], ins["Y"])])}


def _dot_ref(ins, attrs):
    x, y = ins["X"], ins["Y"]
    if x.ndim == 1:
        return {"Out": np.array(sum(a * b for a, b in zip(x, y)), F)}
    return {"Out": np.array([np.vdot(a, b) for a, b in zip(x, y)], F)}


def _cross_ref(axis):
    def ref(ins, attrs):
        return {"Out": np.cross(ins["X"], ins["Y"], axis=axis)}
    return ref


def _bilinear_ref(ins, attrs):
    x, y, w = ins["X"], ins["Y"], ins["Weight"]
    out = np.zeros((x.shape[0], w.shape[0]), F)
    for b in range(x.shape[0]):
        for k in range(w.shape[0]):
            out[b, k] = x[b] @ w[k] @ y[b]
    if ins.get("Bias") is not None:
        out += ins["Bias"]
    return {"Out": out}


XY = ("X", "Y")

CASES = {
    "bmm": [Case(inputs={"X": arr(2, 3, 4), "Y": arr(2, 4, 2)}, ref=_bmm_ref, grad=XY)],
    "dot": [
        Case(inputs={"X": arr(4), "Y": arr(4)}, ref=_dot_ref, grad=XY, name="vectors: 0-D"),
        Case(inputs={"X": arr(3, 4), "Y": arr(3, 4)}, ref=_dot_ref, grad=XY, name="rows"),
    ],
    "mv": [Case(inputs={"X": arr(3, 4), "Vec": arr(4)},
                ref=lambda ins, a: {"Out": np.array([row @ ins["Vec"] for row in ins["X"]])},
                grad=("X", "Vec"))],
    "cross": [
        Case(inputs={"X": arr(2, 3), "Y": arr(2, 3)}, ref=_cross_ref(1), grad=XY,
             name="first axis of size 3"),
        Case(inputs={"X": arr(3, 2), "Y": arr(3, 2)}, attrs={"dim": 0}, ref=_cross_ref(0),
             grad=XY, name="dim=0"),
    ],
    "kron": [
        Case(inputs={"X": arr(2, 2), "Y": arr(2, 3)},
             ref=lambda ins, a: {"Out": np.kron(ins["X"], ins["Y"])}, grad=XY),
        Case(inputs={"X": arr(3), "Y": arr(2, 2)},
             ref=lambda ins, a: {"Out": np.kron(ins["X"], ins["Y"])}, grad=XY,
             name="ranks differ"),
    ],
    "bilinear_tensor_product": [
        Case(inputs={"X": arr(2, 3), "Y": arr(2, 4), "Weight": arr(5, 3, 4), "Bias": arr(1, 5)},
             ref=_bilinear_ref, grad=("X", "Y", "Weight", "Bias"), rtol=1e-4, atol=1e-5),
        Case(inputs={"X": arr(2, 3), "Y": arr(2, 2), "Weight": arr(2, 3, 2)},
             ref=_bilinear_ref, grad=("X", "Y", "Weight"), name="no bias"),
    ],
}

def _chain_ref(ins, attrs):
    ops = ins["X"]
    first = ops[0].reshape(1, -1) if ops[0].ndim == 1 else ops[0]
    out = first
    for m in ops[1:]:
        m = m.reshape(-1, 1) if m.ndim == 1 else m
        out = np.einsum("ij,jk->ik", out, m)
    shape = (() if ops[0].ndim == 1 else (out.shape[0],)) + \
        (() if ops[-1].ndim == 1 else (out.shape[1],))
    return {"Out": out.reshape(shape)}


CASES["multi_dot"] = [
    Case(inputs={"X": [arr(2, 3), arr(3, 4), arr(4, 2)]}, ref=_chain_ref, grad=("X",)),
    Case(inputs={"X": [arr(3), arr(3, 4), arr(4)]}, ref=_chain_ref, grad=("X",),
         name="vector, matrix, vector: 0-D"),
    Case(inputs={"X": [arr(3), arr(3, 2)]}, ref=_chain_ref, grad=("X",), name="vector first"),
]

BAD = {
    "multi_dot": [Bad(inputs={"X": [meta(2, 3), meta(4, 2)]}, error=ShapeError,
                      match=r"do not chain")],
    "bmm": [Bad(inputs={"X": meta(2, 3, 4), "Y": meta(2, 3, 4)}, error=ShapeError,
                match=r"agree on B and K")],
    "dot": [Bad(inputs={"X": meta(3), "Y": meta(4)}, error=ShapeError, match=r"one shape")],
    "mv": [Bad(inputs={"X": meta(3, 4), "Vec": meta(3)}, error=ShapeError, match=r"\[N\]")],
    "cross": [Bad(inputs={"X": meta(2, 4), "Y": meta(2, 4)}, error=ShapeError,
                  match=r"no axis of size 3")],
    "kron": [Bad(inputs={"X": meta(2), "Y": meta(2, dtype=np.float64)}, error=ShapeError,
                 match=r"same dtype")],
    "bilinear_tensor_product": [
        Bad(inputs={"X": meta(2, 3), "Y": meta(2, 4), "Weight": meta(5, 4, 4)},
            error=ShapeError, match=r"must fit Weight")],
}
