"""``fc``: a fully connected layer as one op, as PaddlePaddle Inference's ``fc_fuse_pass``
writes it (``mul`` / ``matmul_v2`` + ``elementwise_add`` [+ ``relu``] become one ``fc``).
PaddlePaddle has no grad op for it: it exists for inference.

    Out = act(flatten(Input, in_num_col_dims) @ W + Bias)

Input's first ``in_num_col_dims`` axes are kept (the rows), the rest flattened into the K
columns W [K, N] multiplies; Out has Input's kept axes and N. ``activation_type`` is "" or
"relu", applied in place on the product. Bias is [N] or [1, N].
"""

from paddle_nb.ops.machinery.registry import Attr, OpDef, Slot, fail, known_product, register

__all__ = []


def _infer(x, w, bias=None, *, in_num_col_dims, activation_type, padding_weights):
    if not 1 <= in_num_col_dims < len(x.shape):
        fail(f"in_num_col_dims must be in [1, {len(x.shape) - 1}] for Input of shape "
             f"{list(x.shape)}, got {in_num_col_dims}")
    if len(w.shape) != 2:
        fail(f"W must be 2-D [K, N], got shape {list(w.shape)}")
    k = known_product(x.shape[in_num_col_dims:])
    if k >= 0 and w.shape[0] >= 0 and k != w.shape[0]:
        fail(f"Input of shape {list(x.shape)} flattened after axis {in_num_col_dims} has {k} "
             f"columns but W of shape {list(w.shape)} has {w.shape[0]} rows")
    if bias is not None and (known_product(bias.shape) not in (w.shape[1], -1)
                             or len(bias.shape) > 2):
        fail(f"Bias must hold one value per output column ({w.shape[1]}), got shape "
             f"{list(bias.shape)}")
    if activation_type not in ("", "relu"):
        fail(f"activation_type must be '' or 'relu', got '{activation_type}'")
    if padding_weights:
        fail("padding_weights=True (oneDNN's padded W) is not available in paddle_nb")
    return x.with_shape(tuple(x.shape[:in_num_col_dims]) + (w.shape[1],))


def _kernel(ctx, x, w, bias=None, *, in_num_col_dims, activation_type, padding_weights):
    xp = ctx.xp
    rows = x.shape[:in_num_col_dims]
    y = xp.matmul(x.reshape((-1, w.shape[0])), w)
    if bias is not None:
        y += bias.reshape(-1)
    if activation_type == "relu":
        xp.maximum(y, 0, out=y)
    return y.reshape(tuple(rows) + (w.shape[1],))


register(OpDef(
    "fc", inputs=["Input", "W", Slot("Bias", dispensable=True)], outputs=["Out"],
    attrs={"in_num_col_dims": Attr("int", 1), "activation_type": Attr("str", ""),
           "padding_weights": Attr("bool", False)},
    infer=_infer, kernel=_kernel,
    doc="Out = act(flatten(Input, in_num_col_dims) @ W + Bias) (inference only, no grad op)"))
