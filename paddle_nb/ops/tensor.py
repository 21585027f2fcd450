"""Tensor ops that look values up or copy them: lookup_table_v2, assign, cast, fill_zeros_like.

``lookup_table_v2`` is the embedding: row ``Ids[i]`` of the table ``W`` for
every id, so Out has shape ``Ids.shape + (W.shape[1],)``; its gradient adds
each row of Out@GRAD into the row of W it came from (a dense W@GRAD, even
when ``is_sparse`` asks PaddlePaddle for SelectedRows). ``assign`` copies,
``cast`` converts the dtype (each is its own gradient's op: an assign, and a
cast back), ``fill_zeros_like`` makes zeros with X's shape and dtype, and
``fill_any_like`` (paddle.full_like) fills X's shape with a value, in X's dtype
unless its ``dtype`` attribute (a VarType number; -1: X's) says otherwise.
"""

from paddle_nb.core.dtypes import convert_dtype
from paddle_nb.ops.machinery.grad import OpSpec, grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, fail, register

__all__ = []


def _given(x, slot="X"):
    if x is None:
        fail(f"{slot} must be given")
    return x


def _lookup_infer(w, ids, **_):
    if len(w.shape) != 2:
        fail(f"W must be rank 2 (one row per id), got shape {tuple(w.shape)}")
    if ids.dtype.kind not in "iu":
        fail(f"Ids must be an integer tensor (int64 or int32), got {ids.dtype} with shape "
             f"{tuple(ids.shape)}")
    return Meta(tuple(ids.shape) + (w.shape[1],), w.dtype, ids.lod_level)


def _lookup(ctx, w, ids, *, padding_idx, **_):
    out = ctx.xp.take(w, ids, axis=0)
    if padding_idx != -1:
        out[ids == padding_idx] = 0
    return out


def _lookup_grad(ctx, w, ids, dout, *, padding_idx, **_):
    xp = ctx.xp
    flat = ids.reshape(-1)
    rows = dout.reshape(flat.shape[0], w.shape[1])
    if padding_idx != -1:
        keep = flat != padding_idx
        flat, rows = flat[keep], rows[keep]
    dw = xp.zeros(w.shape, dtype=dout.dtype)
    xp.add.at(dw, flat, rows)
    return dw


LOOKUP_ATTRS = {
    "padding_idx": Attr("long", -1, check=lambda v: None if v >= -1 else "expected -1 or a row",
                        comment="the id whose rows are zeros with no gradient; -1: none"),
    "is_sparse": Attr("bool", False, comment="PaddlePaddle's SelectedRows gradient; dense here"),
    "is_distributed": Attr("bool", False), "remote_prefetch": Attr("bool", False),
}

register(OpDef(
    "lookup_table_v2", inputs=["W", "Ids"], outputs=["Out"], attrs=LOOKUP_ATTRS,
    infer=_lookup_infer, kernel=_lookup,
    grad=grad_op("lookup_table_v2_grad", inputs=("W", "Ids"), in_grads=("W",)),
    doc="Out = W[Ids]: one row of the table W per id (zeros for padding_idx)"))
register(OpDef(
    "lookup_table_v2_grad", inputs=["W", "Ids", "Out@GRAD"], outputs=["W@GRAD"],
    attrs=LOOKUP_ATTRS, infer=lambda w, ids, dout, **_: w.with_dtype(dout.dtype),
    kernel=_lookup_grad, doc="the gradient of lookup_table_v2: Out@GRAD rows added into W's rows"))


def _assign_grad(g):
    return [OpSpec("assign", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")})]


register(OpDef(
    "assign", inputs=["X"], outputs=["Out"], infer=_given,
    kernel=lambda ctx, x: x.copy(), grad=_assign_grad, doc="Out = a copy of X"))


def _cast_grad(g):
    back = {"in_dtype": g.attrs["out_dtype"], "out_dtype": g.attrs["in_dtype"]}
    return [OpSpec("cast", {"X": g.output_grad("Out")}, {"Out": g.input_grad("X")}, back)]


register(OpDef(
    "cast", inputs=["X"], outputs=["Out"],
    attrs={"in_dtype": Attr("dtype", comment="X's dtype"), "out_dtype": Attr("dtype")},
    infer=lambda x, *, in_dtype, out_dtype: _given(x).with_dtype(out_dtype),
    kernel=lambda ctx, x, *, in_dtype, out_dtype: x.astype(out_dtype, copy=False),
    grad=_cast_grad, doc="Out = X converted to out_dtype"))

register(OpDef(
    "fill_zeros_like", inputs=["X"], outputs=["Out"], infer=_given,
    kernel=lambda ctx, x: ctx.xp.zeros_like(x), doc="Out = zeros with X's shape and dtype"))


def _like_dtype(x, dtype):
    return x.dtype if dtype == -1 else convert_dtype(dtype)


def _known_var_type(v):
    if v == -1:
        return None
    try:
        convert_dtype(v)
    except (TypeError, ValueError, KeyError):
        return "expected -1 (X's dtype) or a VarType number"
    return None


register(OpDef(
    "fill_any_like", inputs=["X"], outputs=["Out"],
    attrs={"value": Attr("float", 0.0),
           "dtype": Attr("int", -1, check=_known_var_type, comment="a VarType number; -1: X's")},
    infer=lambda x, *, value, dtype: _given(x).with_dtype(_like_dtype(x, dtype)),
    kernel=lambda ctx, x, *, value, dtype: ctx.xp.full(x.shape, value, dtype=_like_dtype(x, dtype)),
    no_need_buffer=("X",), doc="Out = a tensor shaped like X filled with value (paddle.full_like)"))
