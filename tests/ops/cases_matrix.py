"""Contract cases for paddle_nb/ops/matrix.py: trace, against sums written as loops."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.registry import Meta
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
}

BAD = {
    "trace": [Bad(inputs={"Input": Meta((3,), np.dtype(F))}, error=ShapeError,
                  match=r"rank >= 2"),
              Bad(inputs={"Input": Meta((3, 3), np.dtype(F))}, attrs={"axis2": 0},
                  error=ShapeError, match=r"must differ")],
}
