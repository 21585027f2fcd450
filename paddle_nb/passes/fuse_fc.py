"""Fusing a matrix product with the bias add (and a relu) after it into one ``fc`` op.

``paddle.nn.Linear`` writes ``matmul_v2(x, W) -> elementwise_add(b)`` (Fluid's ``fc`` layer
``mul -> elementwise_add``): two ops and a temporary per layer. PaddlePaddle Inference's
``fc_fuse_pass`` writes its ``fc`` op instead (``paddle_nb/ops/fc.py``), with a following
``relu`` folded in too. The conditions: W a 2-D parameter used untransposed, the bias a
parameter of one value per output column added on the last axis, each intermediate read by
the next op only.
"""

from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses

__all__ = ["fuse_fc", "FUSE_FC"]


def _matmul(op, glob, uses):
    """(in_num_col_dims, W name) when ``op`` is a product ``fc`` can compute, else None."""
    if op.type == "matmul_v2" and not op.attr("trans_x") and not op.attr("trans_y"):
        w, rank = op.input("Y")[0], len(glob.var(op.input("X")[0]).shape)
        cols = rank - 1
    elif op.type == "mul" and op.attr("y_num_col_dims") == 1:
        w, cols = op.input("Y")[0], op.attr("x_num_col_dims")
    else:
        return None
    var = glob.find_var(w)
    if not uses.persistable(w) or var is None or len(var.shape) != 2 or cols < 1:
        return None
    return cols, w


def _bias(op, glob, uses, out, n_cols):
    if op is None or op.type != "elementwise_add" or op.input("X") != [out]:
        return None
    b = op.input("Y")[0]
    var, rank = glob.find_var(b), len(glob.var(out).shape)
    if var is None or not uses.persistable(b) or list(var.shape) not in ([n_cols], [1, n_cols]):
        return None
    return b if op.attr("axis") in (-1, rank - 1) else None


def _fuse_one(program, k, result):
    glob, uses = program.global_block(), Uses(program, result.keep)
    op = glob.ops[k]
    found = _matmul(op, glob, uses)
    if found is None:
        return
    cols, w = found
    out = op.output("Out")[0]
    k_add, add = uses.sole_reader(out)
    bias = _bias(add, glob, uses, out, glob.var(w).shape[1])
    if bias is None:
        return
    chain, last = [k, k_add], add.output("Out")[0]
    k_act, act = uses.sole_reader(last)
    if act is not None and act.type == "relu" and act.input("X") == [last]:
        chain, last = chain + [k_act], act.output("Out")[0]
    read = set(op.input_arg_names) | {bias}
    between = [j for j in range(k + 1, chain[-1]) if j not in chain]
    if chain != sorted(chain) or any(read.intersection(glob.ops[j].output_arg_names)
                                     for j in between):
        return
    types = [glob.ops[j].type for j in chain]
    for j in reversed(chain):
        glob.remove_op(j)
    glob.insert_op(chain[-1] - len(chain) + 1, "fc",
                   inputs={"Input": op.input("X"), "W": [w], "Bias": [bias]},
                   outputs={"Out": [last]},
                   attrs={"in_num_col_dims": cols, "op_callstack": op.attr("op_callstack"),
                          "activation_type": "relu" if len(chain) == 3 else ""})
    result.changes.append(("fused", " + ".join(types), f"-> fc {last}"))


def fuse_fc(program, scope, result):
    """matmul_v2 / mul -> elementwise_add(bias) [-> relu] as one ``fc``."""
    glob = program.global_block()
    k = 0
    while k < len(glob.ops):
        if glob.ops[k].type in ("matmul_v2", "mul"):
            _fuse_one(program, k, result)
        k += 1


FUSE_FC = Pass("fuse_fc", fuse_fc)
