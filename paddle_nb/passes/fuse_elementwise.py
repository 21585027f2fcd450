"""Fusing chains of elementwise and activation ops into one ``fused_elementwise_chain``.

After the convolutions took their bias and activation, what is left between them is often a
short chain of elementwise ops: ``elementwise_add -> relu`` at the end of every residual block,
``sigmoid -> elementwise_mul`` (SiLU written out), ``elementwise_add -> hard_sigmoid ->
elementwise_mul`` (a squeeze-excitation gate), ``scale -> sqrt`` (a norm). Run as written,
each op is one interpretation and one new array. This pass writes one
``fused_elementwise_chain`` op instead (``paddle_nb/ops/fused_elementwise.py``), which makes
one array and runs every later step on it with NumPy's ``out=``.

A chain grows from its first op along private links: the value an op makes must be read by
the next op only (one slot of it), be no fetch target and no persistable, be written once,
and every value in the chain must have the same floating-point dtype. PaddlePaddle Inference
has passes of the same kind (``fuse_elewise_add_act_pass``, ``fusion_group_pass`` writing
generated kernels).
"""

from paddle_nb.ops.fused_elementwise import BINARY, FUSABLE, RUNNING, chain_json
from paddle_nb.ops.machinery.registry import get
from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses

__all__ = ["fuse_elementwise", "FUSE_ELEMENTWISE", "eligible", "step_attrs"]

FLOATS = ("float16", "float32", "float64")


def _dtype(glob, name):
    """``name``'s declared dtype as text; None where it has none paddle_nb knows (not fused)."""
    var = glob.find_var(name) if glob.has_var(name) else None
    dtype = None if var is None else var.dtype_or_none()
    return None if dtype is None else str(dtype)


def eligible(glob, op, dtype=None):
    """True when ``op`` is one the fused op evaluates exactly, in ``dtype`` (its output's, when
    None) throughout: a float dtype for its inputs and its output, none of them a sequence."""
    if op.type not in FUSABLE or op.has_attr("sub_block") or op.output_arg_names != \
            op.output("Out"):
        return False
    slots = ("X", "Y") if op.type in BINARY else ("X",)
    if any(op.input(s) for s in op.inputs if s not in slots) or \
            any(len(op.input(s)) != 1 for s in slots) or len(op.output("Out")) != 1:
        return False          # scale's ScaleTensor, pow's FactorTensor: not fused
    names = [op.input(s)[0] for s in slots] + op.output("Out")
    want = dtype or _dtype(glob, names[-1])
    return want in FLOATS and all(_dtype(glob, n) == want and not _lod(glob, n) for n in names)


def _lod(glob, name):
    """True for a sequence (LoD) tensor: its ops pass the LoD on, the fused op would not."""
    return glob.has_var(name) and bool(glob.var(name).lod_level)


def step_attrs(op):
    return {name: op.attr(name) for name in get(op.type).attrs if op.has_attr(name)}


def _next_link(uses, glob, running, dtype):
    """(index, op, slot) of the op that continues the chain from ``running``, or None."""
    readers = uses.readers.get(running, [])
    if len(readers) != 1 or readers[0][0] != 0 or running in uses.fetched or \
            not uses.written_once(running) or uses.persistable(running):
        return None
    j = readers[0][1]
    op = glob.ops[j]
    if not eligible(glob, op, dtype):
        return None
    slots = [s for s in (("X", "Y") if op.type in BINARY else ("X",)) if op.input(s) == [running]]
    return (j, op, slots[0]) if len(slots) == 1 else None


def _grow(program, k, uses):
    """(op indices, steps, input names) of the longest chain starting at op ``k``."""
    glob = program.global_block()
    head = glob.ops[k]
    if not eligible(glob, head):
        return None
    names: list = []

    def ref(name):
        if name not in names:
            names.append(name)
        return names.index(name)
    slots = ("X", "Y") if head.type in BINARY else ("X",)
    steps = [{"type": head.type, **{s: ref(head.input(s)[0]) for s in slots},
              "attrs": step_attrs(head)}]
    chain, dtype, running = [k], _dtype(glob, head.output("Out")[0]), head.output("Out")[0]
    while (link := _next_link(uses, glob, running, dtype)) is not None:
        j, op, slot = link
        other = {s: ref(op.input(s)[0]) for s in ("X", "Y") if op.type in BINARY and s != slot}
        steps.append({"type": op.type, slot: RUNNING, **other, "attrs": step_attrs(op)})
        chain.append(j)
        running = op.output("Out")[0]
    return chain, steps, names


def _rewritten_between(glob, chain, names):
    """True when an op between the chain's first and last op writes a value the fused op
    reads (it reads them where the last op was)."""
    inside = set(chain)
    return any(set(names).intersection(glob.ops[j].output_arg_names)
               for j in range(chain[0] + 1, chain[-1]) if j not in inside)


def _fuse_from(program, k, result, uses):
    grown = _grow(program, k, uses)
    if grown is None or len(grown[0]) < 2:
        return False
    chain, steps, names = grown
    glob = program.global_block()
    if chain != sorted(chain) or _rewritten_between(glob, chain, names):
        return False
    out = glob.ops[chain[-1]].output("Out")[0]
    callstack = glob.ops[chain[0]].attr("op_callstack")
    types = [glob.ops[j].type for j in chain]
    for j in reversed(chain):
        glob.remove_op(j)
    glob.insert_op(chain[-1] - len(chain) + 1, "fused_elementwise_chain",
                   inputs={"X": names}, outputs={"Out": [out]},
                   attrs={"chain": chain_json(steps), "inplace": False,
                          "op_callstack": callstack})
    result.changes.append(("fused", " + ".join(types), f"-> fused_elementwise_chain {out}"))
    return True


def fuse_elementwise(program, scope, result):
    """Chains of elementwise / activation ops with private links as one op each."""
    glob, uses = program.global_block(), Uses(program, result.keep)
    k = 0
    while k < len(glob.ops):
        if _fuse_from(program, k, result, uses):
            uses = Uses(program, result.keep)     # who reads what, after the edit
        k += 1


FUSE_ELEMENTWISE = Pass("fuse_elementwise", fuse_elementwise)
