"""Contract cases for paddle_nb/ops/choose.py (multiplex): the reference picks rows in a loop."""

import numpy as np

from paddle_nb.errors import ShapeError
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(101)
F = np.float32
XS = [rng.standard_normal((3, 2)).astype(F) for _ in range(3)]
IDS = np.array([[2], [0], [2]], np.int32)


def multiplex_ref(ins, attrs):
    return {"Out": np.stack([ins["X"][int(k)][i] for i, k in enumerate(ins["Ids"].ravel())])}


CASES = {
    "multiplex": [Case(inputs={"Ids": IDS, "X": XS}, ref=multiplex_ref, grad=("X",))],
}
BAD = {
    "multiplex": [Bad(inputs={"Ids": IDS.astype(F), "X": XS}, error=ShapeError,
                      match="Ids must be an integer tensor, got float32"),
                  Bad(inputs={"Ids": IDS, "X": [XS[0], XS[1][:2]]}, error=ShapeError,
                      match=r"X\[1\] has \(2, 2\)")],
}
