"""Splitting rows by a mask and merging them back: how IfElse routes instances.

IfElse ("Design Doc: Block and Scope") runs each branch on the instances whose
condition is true (false): ``split_lod_tensor`` picks the rows of X where Mask is true
(OutTrue) and false (OutFalse), each branch works on its rows, and
``merge_lod_tensor`` puts the branch results back in the original row
order. Each is the other's gradient. ``select_input`` / ``select_output``
pick one of two values by a scalar mask (``cond``'s merge).
"""

from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, register

__all__ = []

LEVEL = {"level": Attr("int", 0)}


def _mask(xp, mask):
    return mask.reshape(-1).astype(bool)


def _split_infer(x, mask, *, level):
    if mask.dtype.kind != "b":
        fail(f"Mask must be bool, got {mask.dtype}")
    if x.shape[0] >= 0 and mask.shape[0] >= 0 and x.shape[0] != mask.shape[0]:
        fail(f"Mask has {mask.shape[0]} rows but X has {x.shape[0]}: expected one condition "
             "per row")
    rows = x.with_shape((-1,) + tuple(x.shape[1:]))
    return rows, rows


def _split(ctx, x, mask, *, level):
    m = _mask(ctx.xp, mask)
    if m.shape[0] != x.shape[0]:
        raise ValueError(f"Mask has {m.shape[0]} rows, X has {x.shape[0]}: expected one "
                         "condition per row")
    return x[m], x[~m]


def _merge_infer(x, mask, in_true, in_false, *, level):
    if mask.dtype.kind != "b":
        fail(f"Mask must be bool, got {mask.dtype}")
    if in_true is None and in_false is None:
        fail("expected InTrue or InFalse (or both), got neither")
    if in_true is not None and in_false is not None and (
            in_true.dtype != in_false.dtype or not _same_rows(in_true.shape, in_false.shape)):
        fail(f"InTrue and InFalse must hold rows of the same kind, got "
             f"{in_true.dtype}{list(in_true.shape)} and {in_false.dtype}{list(in_false.shape)}")
    ref = in_true or in_false
    return ref.with_shape((x.shape[0],) + tuple(ref.shape[1:]))


def _same_rows(a, b):
    """Same rank and the same known sizes after the row dimension."""
    return len(a) == len(b) and all(p == q or p < 0 or q < 0 for p, q in zip(a[1:], b[1:]))


def _merge(ctx, x, mask, in_true, in_false, *, level):
    xp = ctx.xp
    m = _mask(xp, mask)
    ref = in_true if in_true is not None else in_false
    if ref is None:     # (an IfElse gives an empty branch [0, ...] rows when it knows the shape)
        raise ValueError(f"merge_lod_tensor: neither InTrue nor InFalse has a value (Mask has "
                         f"{m.shape[0]} rows); expected the branches to have run, or their "
                         "outputs to be declared [-1, known sizes...] so that an empty branch "
                         "yields 0 rows")
    out = xp.zeros((m.shape[0],) + tuple(ref.shape[1:]), dtype=ref.dtype)
    if in_true is not None and in_true.shape[0]:
        out[m] = in_true
    if in_false is not None and in_false.shape[0]:
        out[~m] = in_false
    return out


def _split_grad(g):
    return [OpSpec("merge_lod_tensor",
                   {"X": g.input("X"), "Mask": g.input("Mask"),
                    "InTrue": g.output_grad("OutTrue"), "InFalse": g.output_grad("OutFalse")},
                   {"Out": g.input_grad("X")}, dict(g.attrs))]


def _merge_grad(g):
    return [OpSpec("split_lod_tensor", {"X": g.output_grad("Out"), "Mask": g.input("Mask")},
                   {"OutTrue": g.input_grad("InTrue"), "OutFalse": g.input_grad("InFalse")},
                   dict(g.attrs))]


register(OpDef("split_lod_tensor", inputs=["X", "Mask"], outputs=["OutTrue", "OutFalse"],
               attrs=LEVEL, infer=_split_infer, kernel=_split, grad=_split_grad,
               doc="OutTrue, OutFalse = the rows of X where Mask is true, false"))
register(OpDef("merge_lod_tensor",
               inputs=["X", "Mask", Slot("InTrue", dispensable=True),
                       Slot("InFalse", dispensable=True)],
               outputs=["Out"], attrs=LEVEL, infer=_merge_infer, kernel=_merge, grad=_merge_grad,
               doc="Out = InTrue's rows where Mask is true and InFalse's where false, in order"))


def _check_int_mask(mask):
    if mask.dtype.kind not in "iu":
        fail(f"Mask must be an integer scalar (int32), got {mask.dtype}")
    if all(d >= 0 for d in mask.shape) and _size(mask.shape) != 1:
        fail(f"Mask must hold one value, got shape {list(mask.shape)}")


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _select_input_infer(xs, mask):
    _check_int_mask(mask)
    given = [x for x in xs if x is not None]
    if not given:
        fail("expected at least one X, got none")
    ref = given[0]
    for x in given[1:]:
        if x.dtype != ref.dtype or len(x.shape) != len(ref.shape):
            fail(f"every X must have the same dtype and rank, got {ref.dtype}{list(ref.shape)} "
                 f"and {x.dtype}{list(x.shape)}")
    return ref


def _select_input(ctx, xs, mask):
    k = int(mask.reshape(-1)[0])
    if not 0 <= k < len(xs) or xs[k] is None:
        raise ValueError(f"select_input: Mask is {k}, and input {k} has no value")
    return xs[k]


def _select_output_infer(x, mask):
    _check_int_mask(mask)
    return [x, x]


def _select_output(ctx, x, mask):
    k = int(mask.reshape(-1)[0])
    return [x if i == k else None for i in range(2)]


def _select_input_grad(g):
    return [OpSpec("select_output", {"X": g.output_grad("Out"), "Mask": g.input("Mask")},
                   {"Out": g.input_grad("X")})]


def _select_output_grad(g):
    return [OpSpec("select_input", {"X": g.output_grad("Out"), "Mask": g.input("Mask")},
                   {"Out": g.input_grad("X")})]


register(OpDef("select_input", inputs=[Slot("X", duplicable=True), "Mask"], outputs=["Out"],
               infer=_select_input_infer, kernel=_select_input, grad=_select_input_grad,
               doc="Out = X[Mask]: one of several values, chosen by an int32 scalar"))
register(OpDef("select_output", inputs=["X", "Mask"], outputs=[Slot("Out", duplicable=True)],
               infer=_select_output_infer, kernel=_select_output, grad=_select_output_grad,
               doc="Out[Mask] = X: send a value to one of several outputs"))
