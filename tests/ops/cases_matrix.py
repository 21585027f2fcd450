"""Contract cases for paddle_nb/ops/matrix.py: trace, against sums written as loops."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(14)
F = np.float32


def _trace_ref(offset, a1, a2):
    def ref(ins, attrs):
        x = np.moveaxis(ins["Input"], (a1, a2), (-2, -1))
        out = np.zeros(x.shape[:-2], np.float64)
        for i in range(x.shape[-2]):
            j = i + offset
            if 0 <= j < x.shape[-1]:
                out += x[..., i, j]
        return {"Out": out.astype(F)}
    return ref


def _embed_ref(offset, d1, d2):
    """Loops: the output's (d1, d2) plane of each batch entry holds x on diagonal offset."""
    def ref(ins, attrs):
        x = ins["Input"]
        n, batch = x.shape[-1], x.shape[:-1]
        side = n + abs(offset)
        rank = x.ndim + 1
        out = np.zeros(_embed_shape(batch, side, d1 % rank, d2 % rank), F)
        for b in np.ndindex(*batch):
            for i in range(n):
                r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
                index, rest = [], iter(b)
                for k in range(rank):
                    index.append(r if k == d1 % rank else c if k == d2 % rank else next(rest))
                out[tuple(index)] = x[b + (i,)]
        return {"Out": out}
    return ref


def _embed_shape(batch, side, d1, d2):
    rest = iter(batch)
    return [side if k in (d1, d2) else next(rest) for k in range(len(batch) + 2)]


CASES = {
    "trace": [
        Case(inputs={"Input": rng.standard_normal((3, 3)).astype(F)}, ref=_trace_ref(0, 0, 1),
             grad=("Input",), name="matrix: 0-D"),
        Case(inputs={"Input": rng.standard_normal((2, 3, 4)).astype(F)},
             attrs={"offset": 1, "axis1": 1, "axis2": 2}, ref=_trace_ref(1, 1, 2),
             grad=("Input",), name="batch, offset 1"),
        Case(inputs={"Input": rng.standard_normal((3, 2, 3)).astype(F)},
             attrs={"offset": -1, "axis1": 2, "axis2": 0}, ref=_trace_ref(-1, 0, 2),
             grad=("Input",), name="axes named in reverse: taken in order"),
    ],
    "diag_embed": [
        Case(inputs={"Input": rng.standard_normal((2, 3)).astype(F)}, ref=_embed_ref(0, -2, -1),
             name="batch of vectors"),
        Case(inputs={"Input": rng.standard_normal((2, 3)).astype(F)},
             attrs={"offset": 1, "dim1": 0, "dim2": 2}, ref=_embed_ref(1, 0, 2),
             name="offset 1, planes (0, 2)"),
        Case(inputs={"Input": rng.standard_normal((3,)).astype(F)},
             attrs={"offset": -1, "dim1": 1, "dim2": 0}, ref=_embed_ref(-1, 1, 0),
             name="offset -1, dims reversed"),
    ],
}

BAD = {
    "diag_embed": [Bad(inputs={"Input": Meta((2, 3), np.dtype(F))}, attrs={"dim1": 1, "dim2": -2},
                       error=ShapeError, match=r"must differ")],
    "trace": [Bad(inputs={"Input": Meta((3,), np.dtype(F))}, error=ShapeError,
                  match=r"rank >= 2"),
              Bad(inputs={"Input": Meta((3, 3), np.dtype(F))}, attrs={"axis2": 0},
                  error=ShapeError, match=r"must differ")],
}
