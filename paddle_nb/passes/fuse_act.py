"""Fusing a convolution with the bias add and the activation after it.

After batch_norm folding a CNN block reads ``conv2d -> elementwise_add(bias) -> activation``:
three ops, two temporaries, three passes over the output. This pass writes one
``fused_conv2d_bias_act`` op instead (``paddle_nb/ops/fused_conv.py``), which adds the bias and
applies the activation in place on the convolution's output. Each link must be private: the
conv's output read only by the add, the add's only by the activation (else the fusion stops
before it). PaddlePaddle Inference does the same with oneDNN (``conv_activation_mkldnn_fuse_pass``
and friends, writing ``fused_conv2d``).
"""


from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses
from paddle_nb.passes.values import host_value, set_like

__all__ = ["fuse_conv_activation", "FUSE_CONV_ACTIVATION", "activation_of"]

CONVS = ("conv2d", "depthwise_conv2d")
CONV_ATTRS = ("strides", "paddings", "padding_algorithm", "data_format", "dilations", "groups")


def activation_of(op):
    """(fuse_activation, fuse_alpha, fuse_beta) for an activation op the fused op computes
    exactly as ``op`` does, or None."""
    a = op.attr
    if op.type in ("relu", "sigmoid", "silu", "swish"):
        return (op.type, 0.0, 0.0) if op.type != "swish" or a("beta", 1.0) == 1.0 else None
    if op.type == "relu6":
        return ("relu6", float(a("threshold", 6.0)), 0.0)
    if op.type == "leaky_relu":
        return ("leaky_relu", float(a("alpha", 0.02)), 0.0)
    if op.type == "hard_sigmoid":
        return ("hard_sigmoid", float(a("slope", 0.2)), float(a("offset", 0.5)))
    if op.type == "hard_swish":
        plain = (a("offset", 3.0), a("threshold", 6.0), a("scale", 6.0)) == (3.0, 6.0, 6.0)
        return ("hard_swish", 0.0, 0.0) if plain else None
    if op.type == "gelu":
        return ("gelu", 0.0, 1.0 if a("approximate", False) else 0.0)
    return None


def _bias_of(op, uses, scope, conv_out, channels):
    """(name, value) of the bias of ``elementwise_add(conv_out, b)`` on the channel axis: a 1-D
    b on axis 1, or a (1, C, 1, 1) b aligned with the output (a squeeze-excitation's conv, as
    PP-LCNet writes it); else None."""
    if op is None or op.type != "elementwise_add" or op.input("X") != [conv_out]:
        return None
    name = op.input("Y")[0]
    b = host_value(scope, name) if uses.persistable(name) else None
    if b is None:
        return None
    axis = op.attr("axis")
    if b.shape == (channels,) and axis == 1 or b.shape == (1, channels, 1, 1) and axis in (-1, 0):
        return name, b
    return None


def _channel_bias(glob, scope, name, b):
    """``name`` when its value is 1-D, else a new persistable ``<name>.chan`` of its values
    (on the place of ``name``'s: a GPU executor's scope holds device arrays)."""
    if b.ndim == 1:
        return name
    new = f"{name}.chan"
    if glob.find_var(new) is None:
        glob.create_var(new, shape=[b.size], dtype=glob.var(name).dtype, persistable=True)
        set_like(scope, new, b.reshape(-1), name)
    return new


def _rewritten_between(glob, conv, bias, chain):
    """True when an op between the chain's first and last writes what the fused op reads
    (it runs where the last op of the chain was)."""
    read = set(conv.input_arg_names) | ({bias} if bias else set())
    return any(read.intersection(glob.ops[j].output_arg_names)
               for j in range(chain[0] + 1, chain[-1]) if j not in chain)


def _fuse_one(program, scope, k, result):
    glob, uses = program.global_block(), Uses(program, result.keep)
    conv = glob.ops[k]
    if conv.attr("data_format") not in ("NCHW", "AnyLayout"):
        return False
    out = conv.output("Output")[0]
    channels = glob.var(conv.input("Filter")[0]).shape[0]
    k_add, add = uses.sole_reader(out)
    found = _bias_of(add, uses, scope, out, channels)
    bias, last, chain = None, out, [k]
    if found is not None:
        bias, last, chain = found[0], add.output("Out")[0], chain + [k_add]
    k_act, act = uses.sole_reader(last)
    act_spec = activation_of(act) if act is not None and act.input("X") == [last] else None
    if act_spec is not None:
        last, chain = act.output("Out")[0], chain + [k_act]
    if len(chain) == 1 or chain != sorted(chain) or _rewritten_between(glob, conv, bias, chain):
        return False
    attrs = {name: conv.attr(name) for name in CONV_ATTRS if conv.has_attr(name)}
    attrs.update(dict(zip(("fuse_activation", "fuse_alpha", "fuse_beta"), act_spec or ("", 0, 0))),
                 op_callstack=conv.attr("op_callstack"))
    inputs = {"Input": conv.input("Input"), "Filter": conv.input("Filter")}
    if found is not None:
        inputs["Bias"] = [_channel_bias(glob, scope, *found)]
    types = [glob.ops[j].type for j in chain]
    for j in reversed(chain):
        glob.remove_op(j)
    glob.insert_op(chain[-1] - len(chain) + 1, "fused_conv2d_bias_act", inputs=inputs,
                   outputs={"Output": [last]}, attrs=attrs)
    result.changes.append(("fused", " + ".join(types), f"-> fused_conv2d_bias_act {last}"))
    return True


def fuse_conv_activation(program, scope, result):
    """conv2d / depthwise_conv2d [-> elementwise_add(bias)] [-> activation] as one op."""
    glob = program.global_block()
    k = 0
    while k < len(glob.ops):
        if glob.ops[k].type in CONVS:
            _fuse_one(program, scope, k, result)
        k += 1


FUSE_CONV_ACTIVATION = Pass("fuse_conv_activation", fuse_conv_activation)
