"""``einsum``: Einstein summation over any number of operands, and its grad op.

The equation names each operand's dimensions with letters (``"ij,jk->ik"``); letters shared
between operands are multiplied together, letters missing from the output are summed over,
``...`` stands for dimensions broadcast between operands, and without ``->`` the output is
the letters used once, in alphabetical order, after the broadcast dimensions (NumPy's rule).

The gradient of one operand is again an einsum: the output gradient and every other operand,
summed to that operand's letters. A letter only that operand has comes back by broadcasting;
a letter it repeats (a diagonal, ``"ii->i"``) comes back through identity matrices.

PaddlePaddle's op keeps what its grad op needs in ``InnerCache`` (the operands, here as they
are) and ``XShape``; ``einsum_grad`` reads those and ``Out@GRAD``, not the operands.
"""

import string

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = ["explicit_equation"]


def _split(equation, count):
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        fail(f"equation '{equation}' names {len(inputs)} operand(s), Operands holds {count}")
    for sub in inputs + ([rhs] if arrow else []):
        letters = sub.replace("...", "")
        if "." in letters or not all(c in string.ascii_letters for c in letters):
            fail(f"equation '{equation}': a subscript takes letters and one '...', got '{sub}'")
    return inputs, (rhs if arrow else None)


def explicit_equation(equation, ranks):
    """(input subscripts, output subscript) with ``...`` replaced by letters and the implicit
    output made explicit, for operands of ``ranks``.

    >>> explicit_equation("...ij,jk", [3, 2])
    (['Zij', 'jk'], 'Zik')
    """
    inputs, output = _split(equation, len(ranks))
    spare = [c for c in reversed(string.ascii_uppercase) if c not in equation]
    widest = 0
    for sub, rank in zip(inputs, ranks):
        named = len(sub.replace("...", ""))
        if ("..." in sub and rank < named) or ("..." not in sub and rank != named):
            fail(f"equation '{equation}': subscript '{sub}' does not fit an operand of rank {rank}")
        widest = max(widest, rank - named if "..." in sub else 0)
    broadcast = "".join(spare[:widest][::-1])
    full = [sub.replace("...", broadcast[widest - (rank - len(sub.replace("...", ""))):])
            for sub, rank in zip(inputs, ranks)]
    if output is None:
        counts = "".join(s.replace("...", "") for s in inputs)
        output = broadcast + "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    else:
        output = output.replace("...", broadcast)
    return full, output


def _sizes(subs, shapes):
    """letter -> size (the largest: size-1 dimensions broadcast), or a ShapeError."""
    sizes: dict[str, int] = {}
    for sub, shape in zip(subs, shapes):
        for c, d in zip(sub, shape):
            old = sizes.get(c, 1)
            if d != old and 1 not in (d, old) and -1 not in (d, old):
                fail(f"letter '{c}' has size {old} in one place and {d} in another "
                     f"(subscripts {subs}, shapes {[tuple(s) for s in shapes]})")
            sizes[c] = d if old in (1,) or d == -1 else old
    return sizes


def _infer(operands, *, equation):
    if not operands:
        fail("Operands must hold at least one tensor")
    subs, out = explicit_equation(equation, [len(m.shape) for m in operands])
    sizes = _sizes(subs, [m.shape for m in operands])
    for c in out:
        if c not in sizes:
            fail(f"equation '{equation}': output letter '{c}' names no operand's dimension")
    first = operands[0]
    return first.with_shape(tuple(sizes[c] for c in out)), list(operands), list(operands)


def _kernel(ctx, operands, *, equation):
    subs, out = explicit_equation(equation, [a.ndim for a in operands])
    sizes = _sizes(subs, [a.shape for a in operands])
    full = [ctx.xp.broadcast_to(a, tuple(sizes[c] for c in s)) for a, s in zip(operands, subs)]
    result = ctx.xp.einsum(",".join(subs) + "->" + out, *full)
    return (ctx.xp.asarray(result).astype(operands[0].dtype, copy=False), list(operands),
            list(operands))


def _operand_grad(xp, k, subs, out, operands, dout, sizes):
    """The gradient of operand ``k``: an einsum of dout and the other operands, broadcast over
    the letters only it has, placed on its diagonals, summed back over broadcast dimensions."""
    spare = [c for c in string.ascii_letters if c not in sizes]
    target, eyes, origin = "", [], {}
    for c in subs[k]:
        if c in target:                        # a repeated letter: a diagonal
            fresh = spare.pop()
            origin[fresh] = c
            eyes.append((c + fresh, xp.eye(sizes[c], dtype=dout.dtype)))
            target += fresh
        else:
            target += c
    terms = [(out, dout)] + [(s, a) for j, (s, a) in enumerate(zip(subs, operands)) if j != k]
    terms = [(s, xp.broadcast_to(a, tuple(sizes[c] for c in s))) for s, a in terms] + eyes
    present = "".join(c for c in target if any(c in s for s, _ in terms))
    reduced = xp.einsum(",".join(s for s, _ in terms) + "->" + present, *(a for _, a in terms))
    shape = tuple(sizes[origin.get(c, c)] for c in target)
    reduced = reduced.reshape(tuple(d if c in present else 1 for c, d in zip(target, shape)))
    grad = xp.broadcast_to(reduced, shape)
    keep = operands[k].shape
    axes = tuple(i for i, (g, d) in enumerate(zip(grad.shape, keep)) if d == 1 and g != 1)
    return grad.sum(axis=axes, keepdims=True).astype(dout.dtype, copy=False) if axes else \
        xp.ascontiguousarray(grad).astype(dout.dtype, copy=False)


def _grad_kernel(ctx, caches, xshapes, dout, *, equation):
    subs, out = explicit_equation(equation, [a.ndim for a in caches])
    sizes = _sizes(subs, [a.shape for a in caches])
    return [_operand_grad(ctx.xp, k, subs, out, caches, dout, sizes)
            for k in range(len(caches))]


def _grad_maker(g):
    return [OpSpec("einsum_grad",
                   {"InnerCache": g.output("InnerCache"), "x_shape": g.output("XShape"),
                    "Out@GRAD": g.output_grad("Out")},
                   {"Operands@GRAD": g.input_grad("Operands")}, dict(g.attrs))]


ATTRS = {"equation": Attr("str", "", comment="the subscripts, e.g. 'ij,jk->ik'")}

register(OpDef("einsum", inputs=[Slot("Operands", duplicable=True)],
               outputs=["Out", Slot("InnerCache", duplicable=True, dispensable=True),
                        Slot("XShape", duplicable=True, dispensable=True)],
               attrs=ATTRS, infer=_infer, kernel=_kernel, grad=_grad_maker,
               doc="Out = Einstein summation of Operands by equation (numpy.einsum's rules)"))
register(OpDef("einsum_grad",
               inputs=[Slot("InnerCache", duplicable=True), Slot("x_shape", duplicable=True),
                       "Out@GRAD"],
               outputs=[Slot("Operands@GRAD", duplicable=True, dispensable=True)],
               attrs=ATTRS, infer=lambda caches, shapes, dout, **_: list(caches),
               kernel=_grad_kernel,
               doc="the gradients of einsum's Operands from InnerCache (the operands) and "
                   "Out@GRAD"))
