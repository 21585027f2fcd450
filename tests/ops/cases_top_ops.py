"""Contract cases for the top-level functions' own ops: addmm (paddle_nb/ops/addmm.py),
renorm (ops/renorm.py) and fill_diagonal_tensor (ops/fill_diagonal_tensor.py). References
loop over entries and slices instead of using the kernels' broadcasting and fancy indexing."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(31)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def meta(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _addmm_ref(ins, attrs):
    x, y, inp = ins["X"], ins["Y"], np.broadcast_to(ins["Input"], (ins["X"].shape[0],
                                                                    ins["Y"].shape[1]))
    out = np.zeros(inp.shape, F)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            dot = sum(float(x[i, k]) * float(y[k, j]) for k in range(x.shape[1]))
            out[i, j] = attrs.get("Beta", 1.0) * inp[i, j] + attrs.get("Alpha", 1.0) * dot
    return {"Out": out}


def _renorm_ref(ins, attrs):
    x, p, axis, top = ins["X"], attrs["p"], attrs["axis"], attrs["max_norm"]
    out = np.moveaxis(x.copy(), axis, 0)
    for i in range(out.shape[0]):
        norm = float(np.sum(np.abs(out[i].astype(np.float64)) ** p)) ** (1.0 / p)
        if norm > top:
            out[i] = out[i] * (top / (norm + 1e-7))
    return {"Out": np.moveaxis(out, 0, axis)}


def _fdt_ref(ins, attrs):
    x, y, k = ins["X"], ins["Y"], attrs.get("offset", 0)
    d1, d2 = attrs.get("dim1", 0), attrs.get("dim2", 1)
    out = np.moveaxis(x.copy(), (d1, d2), (-2, -1))
    diag = y.reshape(out.shape[:-2] + (-1,))
    for batch in np.ndindex(*out.shape[:-2]):
        for t in range(diag.shape[-1]):
            row = t + max(-k, 0)
            out[batch + (row, row + k)] = diag[batch + (t,)]
    return {"Out": np.moveaxis(out, (-2, -1), (d1, d2))}


CASES = {
    "addmm": [
        Case(inputs={"Input": arr(2, 4), "X": arr(2, 3), "Y": arr(3, 4)},
             attrs={"Alpha": 2.0, "Beta": 0.5}, ref=_addmm_ref, grad=("Input", "X", "Y")),
        Case(inputs={"Input": arr(4), "X": arr(2, 3), "Y": arr(3, 4)}, ref=_addmm_ref,
             grad=("Input", "X", "Y"), name="Input [N] broadcast"),
    ],
    "renorm": [
        Case(inputs={"X": arr(3, 4)}, attrs={"p": 2.0, "axis": 0, "max_norm": 1.0},
             ref=_renorm_ref, grad=("X",)),
        Case(inputs={"X": arr(2, 3, 2)}, attrs={"p": 1.5, "axis": 1, "max_norm": 1.2},
             ref=_renorm_ref, grad=("X",), rtol=1e-4, name="p 1.5 along axis 1"),
    ],
    "fill_diagonal_tensor": [
        Case(inputs={"X": arr(3, 3), "Y": arr(1, 3)}, ref=_fdt_ref, grad=("X",)),
        Case(inputs={"X": arr(2, 3, 4), "Y": arr(2, 3)},
             attrs={"offset": 1, "dim1": 1, "dim2": 2}, ref=_fdt_ref, grad=("X",),
             name="batched, above the main diagonal"),
        Case(inputs={"X": arr(4, 3), "Y": arr(1, 2)}, attrs={"offset": -2}, ref=_fdt_ref,
             grad=("X",), name="below the main diagonal"),
    ],
}

BAD = {
    "addmm": [
        Bad(inputs={"Input": meta(2, 4), "X": meta(2, 3), "Y": meta(2, 4)}, error=ShapeError,
            match=r"agree on K"),
        Bad(inputs={"Input": meta(3, 4), "X": meta(2, 3), "Y": meta(3, 4)}, error=ShapeError,
            match=r"broadcast to the product's shape"),
    ],
    "renorm": [Bad(inputs={"X": meta(2, 3)}, attrs={"axis": 2}, error=ShapeError,
                   match=r"axis must be in")],
    "fill_diagonal_tensor": [
        Bad(inputs={"X": meta(3, 3), "Y": meta(1, 2)}, error=ShapeError,
            match=r"Y must hold the diagonal"),
        Bad(inputs={"X": meta(3, 3), "Y": meta(3)}, attrs={"dim2": 0}, error=ShapeError,
            match=r"two different dims"),
    ],
}
