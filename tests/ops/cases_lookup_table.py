"""Contract cases for lookup_table (paddle_nb/ops/lookup_table.py): rows picked id by id."""

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(13)


def lookup_ref(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    pad = attrs.get("padding_idx", -1)
    out = np.zeros(ids.shape[:-1] + (w.shape[1],))
    for index in np.ndindex(*ids.shape[:-1]):
        row = ids[index + (0,)]
        out[index] = 0.0 if row == pad else w[row]
    return {"Out": out}


TABLE = rng.standard_normal((5, 3)).astype(np.float32)
CASES = {
    "lookup_table": [
        Case({"W": TABLE, "Ids": np.array([[1], [4], [1]], np.int64)}, ref=lookup_ref,
             grad=("W",)),
        Case({"W": TABLE, "Ids": np.array([[[0], [2]], [[2], [3]]], np.int64)},
             {"padding_idx": 2, "is_sparse": True}, ref=lookup_ref, grad=("W",),
             name="padding"),
    ],
}
BAD = {
    "lookup_table": [Bad({"W": Meta((5, 3), np.dtype("float32"), 0),
                          "Ids": Meta((3, 2), np.dtype("int64"), 0)},
                         {}, ShapeError, "last dimension must be 1")],
}
