"""lookup_table: the Fluid-era embedding, the one ``paddle.static.nn.sparse_embedding`` writes.

Ids end in a dimension of 1 (one id per row, [..., 1]); Out is ``Ids.shape[:-1] + [D]``: row
``Ids[..., 0]`` of the table W [V, D] (zeros for ``padding_idx``). Its gradient adds each row
of Out@GRAD into the row of W it came from (dense here, where PaddlePaddle may make
SelectedRows). The other attributes (``table_class``, ``entry``, ``epmap``...) configure
PaddlePaddle's parameter server; paddle_nb keeps them and reads none.
"""

from paddle_nb.ops.machinery.grad import grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, fail, register

ATTRS = {
    "padding_idx": Attr("long", -1), "is_sparse": Attr("bool", False),
    "is_distributed": Attr("bool", False), "remote_prefetch": Attr("bool", False),
    "is_test": Attr("bool", False), "grad_inplace": Attr("bool", False),
    "trainer_id": Attr("int", 0), "slot": Attr("int", 0),
    "height_sections": Attr("longs", []), "epmap": Attr("strs", []),
    "table_names": Attr("strs", []), "entry_config": Attr("str", ""),
    "entry": Attr("str", "none"), "table_class": Attr("str", "none"),
}


def _infer(w, ids, **_):
    if len(w.shape) != 2:
        fail(f"W must be rank 2 (one row per id), got shape {list(w.shape)}")
    if ids.dtype.kind not in "iu":
        fail(f"Ids must be integers, got {ids.dtype}")
    if not ids.shape or ids.shape[-1] not in (1, -1):
        fail(f"Ids' last dimension must be 1 (one id per row), got shape {list(ids.shape)}")
    return Meta(tuple(ids.shape[:-1]) + (w.shape[1],), w.dtype, ids.lod_level)


def _kernel(ctx, w, ids, *, padding_idx, **_):
    flat = ids[..., 0]
    out = ctx.xp.take(w, flat, axis=0)
    if padding_idx != -1:
        out[flat == padding_idx] = 0
    return out


def _grad_kernel(ctx, w, ids, dout, *, padding_idx, **_):
    flat = ids.reshape(-1)
    rows = dout.reshape(flat.shape[0], w.shape[1])
    keep = flat != padding_idx
    dw = ctx.xp.zeros(w.shape, dtype=dout.dtype)
    ctx.xp.add.at(dw, flat[keep], rows[keep])
    return dw


register(OpDef(
    "lookup_table", inputs=["W", "Ids"], outputs=["Out"], attrs=ATTRS, infer=_infer,
    kernel=_kernel, grad=grad_op("lookup_table_grad", inputs=("W", "Ids"), in_grads=("W",)),
    doc="Out = W[Ids[..., 0]]: the Fluid embedding (Ids [..., 1])"))
register(OpDef(
    "lookup_table_grad", inputs=["W", "Ids", "Out@GRAD"], outputs=["W@GRAD"], attrs=ATTRS,
    infer=lambda w, ids, dout, **_: w.with_dtype(dout.dtype), kernel=_grad_kernel,
    doc="the gradient of lookup_table: Out@GRAD rows added into W's rows"))
