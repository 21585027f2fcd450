"""Contract cases for paddle_nb/ops/choose.py (multiplex, gumbel_softmax).

multiplex's reference picks rows in a loop; gumbel_softmax is random, so its cases check
what any draw must satisfy (rows sum to 1; a hard sample is one-hot); with the noise fixed
by the harness's seed its gradient is checked against central differences (and in test_choose.py by hand against
softmax's formula).
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(101)
F = np.float32
XS = [rng.standard_normal((3, 2)).astype(F) for _ in range(3)]
IDS = np.array([[2], [0], [2]], np.int32)


def multiplex_ref(ins, attrs):
    return {"Out": np.stack([ins["X"][int(k)][i] for i, k in enumerate(ins["Ids"].ravel())])}


def soft_check(out):
    assert np.all(out >= 0) and np.allclose(out.sum(axis=-1), 1, atol=1e-5)


def hard_check(out):
    assert set(np.unique(out)) <= {0.0, 1.0} and np.all(out.sum(axis=0) == 1)


CASES = {
    "multiplex": [Case(inputs={"Ids": IDS, "X": XS}, ref=multiplex_ref, grad=("X",))],
    "gumbel_softmax": [
        # each run draws the same noise (the harness's seed), so X -> Out is a smooth
        # function there and central differences apply
        Case(inputs={"X": rng.standard_normal((2, 4)).astype(F)}, seeded=True, grad=("X",),
             ref=lambda ins, a: {"Out": soft_check}),
        Case(inputs={"X": rng.standard_normal((3, 2)).astype(F)}, seeded=True,
             attrs={"hard": True, "axis": 0, "temperature": 0.5},
             ref=lambda ins, a: {"Out": hard_check}, name="hard, axis 0"),
    ],
}
BAD = {
    "multiplex": [Bad(inputs={"Ids": IDS.astype(F), "X": XS}, error=ShapeError,
                      match="Ids must be an integer tensor, got float32"),
                  Bad(inputs={"Ids": IDS, "X": [XS[0], XS[1][:2]]}, error=ShapeError,
                      match=r"X\[1\] has \(2, 2\)")],
    "gumbel_softmax": [Bad(inputs={"X": XS[0]}, attrs={"temperature": 0.0}, error=AttrError,
                           match="temperature.*must be > 0"),
                       Bad(inputs={"X": XS[0]}, attrs={"axis": 2}, error=ShapeError,
                           match="axis 2 is out of range")],
}

