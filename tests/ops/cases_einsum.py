"""Contract cases for paddle_nb/ops/einsum.py. References are explicit loops over the
letters' index ranges (itertools.product), not numpy.einsum."""

import itertools

import numpy as np

from paddle_nb.errors import ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case

rng = np.random.default_rng(13)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


def _loops(subs, out):
    """A reference for explicit subscripts: sum over every assignment of the letters."""
    def ref(ins, attrs):
        ops = ins["Operands"]
        sizes = {}
        for s, a in zip(subs, ops):
            sizes.update({c: max(sizes.get(c, 1), d) for c, d in zip(s, a.shape)})
        letters = sorted(sizes)
        result = np.zeros(tuple(sizes[c] for c in out), np.float64)
        for values in itertools.product(*(range(sizes[c]) for c in letters)):
            at = dict(zip(letters, values))
            term = 1.0
            for s, a in zip(subs, ops):
                term *= a[tuple(min(at[c], a.shape[i] - 1) for i, c in enumerate(s))]
            result[tuple(at[c] for c in out)] += term
        return {"Out": result.astype(F)}
    return ref


def case(equation, subs, out, *operands, name=""):
    return Case(inputs={"Operands": list(operands)}, attrs={"equation": equation},
                ref=_loops(subs, out), grad=("Operands",), grad_outputs=("Out",),
                name=name or equation, rtol=1e-4, atol=1e-5)


CASES = {
    "einsum": [
        case("ij,jk->ik", ["ij", "jk"], "ik", arr(2, 3), arr(3, 4)),
        case("bij->bji", ["bij"], "bji", arr(2, 3, 2)),
        case("ij,ij", ["ij", "ij"], "", arr(2, 3), arr(2, 3), name="implicit: all summed"),
        case("ii->i", ["ii"], "i", arr(3, 3), name="a diagonal"),
        case("i,j->ij", ["i", "j"], "ij", arr(3), arr(2), name="outer"),
        case("ij->j", ["ij"], "j", arr(2, 3), name="a letter only one operand has"),
        case("...ij,...jk->...ik", ["Zij", "Zjk"], "Zik", arr(2, 2, 3), arr(1, 3, 2),
             name="ellipsis broadcast"),
        case("ba,b", ["ba", "b"], "a", arr(3, 2), arr(3), name="implicit output"),
    ],
}

BAD = {
    "einsum": [
        Bad(inputs={"Operands": [Meta((2, 3), np.dtype(F)), Meta((4, 5), np.dtype(F))]},
            attrs={"equation": "ij,jk->ik"}, error=ShapeError, match=r"letter 'j' has size"),
        Bad(inputs={"Operands": [Meta((2, 3), np.dtype(F))]},
            attrs={"equation": "ij,jk->ik"}, error=ShapeError, match=r"names 2 operand"),
        Bad(inputs={"Operands": [Meta((2, 3), np.dtype(F))]},
            attrs={"equation": "ijk->i"}, error=ShapeError, match=r"does not fit"),
    ],
}
