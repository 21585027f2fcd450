"""Contract cases for paddle_nb/ops/sequence_mask.py, against masks written with loops."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case


def _ref(width, dtype):
    def ref(ins, attrs):
        x = ins["X"]
        out = np.zeros(x.shape + (width,), dtype)
        for index in np.ndindex(*x.shape):
            for j in range(width):
                out[index + (j,)] = j < x[index]
        return {"Y": out}
    return ref


LENGTHS = np.array([[3, 0], [1, 4]], np.int64)

CASES = {
    "sequence_mask": [
        Case(inputs={"X": LENGTHS}, ref=_ref(4, np.int64), name="the longest is the width"),
        Case(inputs={"X": LENGTHS[0].astype(np.int32)}, attrs={"maxlen": 5, "out_dtype": "float32"},
             ref=_ref(5, np.float32), name="maxlen 5, float32"),
        Case(inputs={"X": LENGTHS[1], "MaxLenTensor": np.array([2], np.int32)},
             ref=_ref(2, np.int64), name="MaxLenTensor"),
    ],
}

BAD = {
    "sequence_mask": [Bad(inputs={"X": Meta((3,), np.dtype(np.bool_))}, error=ShapeError,
                          match=r"lengths \(integers or floats\)")],
}
