"""Buffer reuse: elementwise ops write their result over an input nothing needs any more.

PaddlePaddle saves memory at inference in two ways. Its ``memory_optimize_pass`` computes the
lifetime of every temporary and lets a later one take the name (and so the allocation) of one
that died, when they have the same size; its ``buffer_shared_inplace_op_pass`` lets an op whose
kernel can work in place (activations, elementwise ops, reshape) write its output into its
input's buffer when nothing reads that input later. paddle_nb's executor already does the first
one's work: it drops every temporary right after its last reader (``executor/plan.py``,
PaddlePaddle's eager deletion), and NumPy's allocator hands the freed memory to the next array;
renaming would add nothing. This pass does the second: it marks ``fused_elementwise_chain``
ops (``inplace``) whose first input ``X[0]`` may be written over, and turns a lone elementwise
or activation op that could write over its input into a one-step chain marked so. The op then
makes no array at all: the result lives in the input's buffer. As in PaddlePaddle's in-place
programs, the input and the output then have one name: the op that made the input writes the
output's name, and the in-place op reads and writes it (``relu(X=t, Out=t)``), so the old name
is gone from the program (fetching it fails loudly instead of giving the result).

An input may be written over when the liveness plan (:func:`lifetimes`) says this op is its last
reader and nothing can see it afterwards or share its memory: it is a temporary of the global
block (not persistable, not fed, not fetched, not read by a sub-block), written once by an op
that makes new arrays (:data:`FRESH`: not ``reshape2`` or ``slice``, whose outputs are views of
their inputs), and every other reader is such an op too (no view of it lives on). Programs with
sub-blocks are left alone (their control-flow ops read values through the scope).
"""

from paddle_nb.ops.fused_elementwise import BINARY, FUSABLE, chain_json, parse_chain
from paddle_nb.passes.base import Pass
from paddle_nb.passes.fuse_elementwise import eligible, step_attrs
from paddle_nb.passes.graph import Uses, rename_input, rename_output

__all__ = ["reuse_buffers", "REUSE_BUFFERS", "FRESH", "lifetimes"]

# ops whose kernels always return new arrays, never a view of (or the very array of) an input
FRESH = FUSABLE | frozenset({
    "conv2d", "depthwise_conv2d", "conv2d_transpose", "fused_conv2d_bias_act",
    "fused_elementwise_chain", "matmul", "matmul_v2", "mul", "fc", "batch_norm", "layer_norm",
    "softmax", "concat"})


def lifetimes(program):
    """{temporary name: (first writer, last reader)} over the global block's op indices: the
    liveness plan (a name nothing reads ends where it is written)."""
    glob = program.global_block()
    span: dict[str, tuple[int, int]] = {}
    for k, op in enumerate(glob.ops):
        for name in op.output_arg_names:
            span.setdefault(name, (k, k))
        for name in op.input_arg_names:
            if name in span:
                span[name] = (span[name][0], k)
    return {name: s for name, s in span.items()
            if not (glob.has_var(name) and glob.var(name).persistable)}


def _free_after(uses, glob, k, name):
    """True when op ``k`` may write over the buffer of ``name`` (see the module's doc)."""
    if name in uses.fetched or uses.persistable(name) or not uses.written_once(name):
        return False
    writer = uses.writers[name][0]
    readers = uses.readers.get(name, [])
    if writer[0] != 0 or writer[1] > k or glob.ops[writer[1]].type not in FRESH or \
            any(b != 0 for b, _ in readers) or max(j for _, j in readers) != k:
        return False
    return all(glob.ops[j].type in FRESH for _, j in readers if j != k)


def _same_shape(glob, a, b):
    return glob.has_var(a) and glob.has_var(b) and list(glob.var(a).shape) == \
        list(glob.var(b).shape)


def _reindexed(steps, first):
    """``steps`` with input ``first`` moved to index 0 (the others after it, in order)."""
    def move(ref):
        if not isinstance(ref, int):
            return ref
        return 0 if ref == first else ref + 1 if ref < first else ref
    return [{**s, **{slot: move(s[slot]) for slot in ("X", "Y") if slot in s}} for s in steps]


def _candidate(glob, op):
    """(steps, input names) of ``op`` as a chain: itself if it is one, else one step."""
    if op.type == "fused_elementwise_chain":
        return parse_chain(op.attr("chain")), list(op.input("X"))
    slots = ("X", "Y") if op.type in BINARY else ("X",)
    names = list(dict.fromkeys(op.input(s)[0] for s in slots))
    step = {"type": op.type, **{s: names.index(op.input(s)[0]) for s in slots},
            "attrs": step_attrs(op)}
    return [step], names


def _target(glob, uses, k, op, steps, names):
    """The index in ``names`` of the input op ``k`` may write over, or None."""
    head = [steps[0].get(s) for s in ("X", "Y") if isinstance(steps[0].get(s), int)]
    later = {steps[j].get(s) for j in range(1, len(steps)) for s in ("X", "Y")}
    out = op.output("Out")[0]
    if not uses.written_once(out) or uses.persistable(out) or \
            any(b != 0 or j <= k for b, j in uses.readers.get(out, [])):
        return None
    for i in head:
        if i not in later and _same_shape(glob, names[i], out) and \
                _free_after(uses, glob, k, names[i]):
            return i
    return None


def _share(glob, uses, old, new):
    """Every op that wrote or read ``old`` writes or reads ``new``: one buffer, one name."""
    for b, j in uses.writers[old]:
        rename_output(glob.ops[j], old, new)
    for b, j in uses.readers[old]:
        rename_input(glob.ops[j], old, new)
    glob.remove_var(old)


def _mark(program, k, result, uses):
    """Op ``k`` written over its input where it may be; True when the program changed."""
    glob = program.global_block()
    op = glob.ops[k]
    if op.type == "fused_elementwise_chain":
        if op.attr("inplace"):
            return False
    elif not eligible(glob, op):
        return False
    steps, names = _candidate(glob, op)
    i = _target(glob, uses, k, op, steps, names)
    if i is None:
        return False
    steps = _reindexed(steps, i)
    names = [names[i]] + names[:i] + names[i + 1:]
    out, was = op.output("Out")[0], op.type
    attrs = {"chain": chain_json(steps), "inplace": True, "op_callstack": op.attr("op_callstack")}
    glob.remove_op(k)
    glob.insert_op(k, "fused_elementwise_chain", inputs={"X": names}, outputs={"Out": [out]},
                   attrs=attrs)
    _share(glob, Uses(program, result.keep), names[0], out)
    result.changes.append(("inplace", was, f"{out} written over {names[0]} (now {out})"))
    return True


def reuse_buffers(program, scope, result):
    """Elementwise ops write over an input whose last reader they are (see the module's doc)."""
    if len(program.blocks) > 1:
        return
    uses = Uses(program, result.keep)
    for k in range(len(program.global_block().ops)):
        if _mark(program, k, result, uses):
            uses = Uses(program, result.keep)     # who reads what, after the edit


REUSE_BUFFERS = Pass("reuse_buffers", reuse_buffers)
