"""The 2.x programs compared with PaddlePaddle 2.6.2 for the common, recurrent and attention
layers and the linear-algebra functions: each case is written once, against a ``paddle``
module given to it, so the same lines build PaddlePaddle's program (``common_api_refs.py``,
with ``import paddle``) and paddle_nb's (``tests/api/test_common_api.py``, with
``import paddle_nb as paddle``). This module imports neither.

A case is ``(feeds, build)``: ``feeds`` maps a data name to an array (float feeds are
differentiable), ``build(paddle, v)`` gets the data variables in ``v`` and returns the outputs
to compare. ``RANDOM`` names the cases whose values are random (dropout while training):
only their programs and shapes are compared. ``UNKNOWN_BATCH`` names the cases whose data
variables are declared [-1, ...], so that sizes are read when the program runs.
"""

import numpy as np

__all__ = ["CASES", "RANDOM", "UNKNOWN_BATCH", "fixture_file"]


def _arr(key, *shape):
    from interop.synth import synth_input
    return synth_input(key, shape)


def _ids(key, high, *shape):
    from interop.synth import synth_input
    return synth_input(key, shape, "int64", high=high)


def _symmetric(key, n):
    """A symmetric positive-definite matrix (near 2 I)."""
    m = _arr(key, n, n) * np.float32(0.15)
    return m + m.T + np.eye(n, dtype="float32") * 2


def _dropout_train(paddle, v):
    nn, F = paddle.nn, paddle.nn.functional
    return [nn.Dropout(0.3)(v["x"]), F.dropout(v["x"], 0.2, mode="downscale_in_infer"),
            nn.AlphaDropout(0.2)(v["x"])]


def _dropout_eval(paddle, v):
    nn, F = paddle.nn, paddle.nn.functional
    layer = nn.Dropout(0.3)
    layer.eval()
    return [layer(v["x"]), F.dropout(v["x"], 0.2, training=False, mode="downscale_in_infer"),
            F.dropout(v["x"], 0.0), F.dropout(v["x"], 0.4, axis=1, training=False,
                                              mode="downscale_in_infer")]


def _functional(paddle, v):
    """The functions called with a layer's parameters (their names come from the layers)."""
    nn, F = paddle.nn, paddle.nn.functional
    fc, emb, bil = nn.Linear(4, 3), nn.Embedding(10, 3), nn.Bilinear(4, 4, 2)
    return [F.linear(v["x"], fc.weight, fc.bias), F.linear(v["x"], fc.weight),
            F.embedding(v["ids"], emb.weight, padding_idx=1),
            F.bilinear(v["x"], v["x"], bil.weight, bil.bias), F.one_hot(v["ids"], 10)]


def _containers(paddle, v):
    nn = paddle.nn
    seq = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    named = nn.Sequential(("first", nn.Linear(4, 4)), ("second", nn.Linear(4, 2)))
    layers = nn.LayerList([nn.Linear(4, 4)])
    layers.append(nn.Linear(4, 2))
    return [seq(v["x"]), named(v["x"]), layers[1](layers[0](v["x"])), seq[0](v["x"])]


def _lstm(paddle, v):
    lstm = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    out, (h, c) = lstm(v["x"], sequence_length=v["len"])
    return [out, h, c]


def _gru(paddle, v):
    out, h = paddle.nn.GRU(3, 4, time_major=True)(v["xt"], v["h0"])
    return [out, h]


def _simple_rnn(paddle, v):
    out, h = paddle.nn.SimpleRNN(3, 4, num_layers=2, activation="relu")(v["x"])
    return [out, h]


def _cells(paddle, v):
    nn = paddle.nn
    h, (h2, c) = nn.LSTMCell(3, 4)(v["x0"])
    g, _ = nn.GRUCell(3, 4)(v["x0"], v["s0"])
    r, _ = nn.SimpleRNNCell(3, 4)(v["x0"])
    return [h, c, g, r]


def _mha(paddle, v):
    mha = paddle.nn.MultiHeadAttention(8, 2, kdim=6, vdim=5, need_weights=True)
    out, weights = mha(v["q"], v["k"], v["v"], attn_mask=v["mask"])
    return [out, weights, paddle.nn.MultiHeadAttention(8, 2)(v["q"], attn_mask=v["fmask"])]


def _encoder(paddle, v):
    nn = paddle.nn
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                       normalize_before=True)
    stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    return [layer(v["q"]), stack(v["q"], v["fmask"])]


def _decoder(paddle, v):
    nn = paddle.nn
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=True)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    mask = model.generate_square_subsequent_mask(3)
    # (the mask itself, -inf above the diagonal, is seen through the model's output)
    return [layer(v["q"], v["m"], memory_mask=v["mask"]),
            model(v["m"], v["q"], tgt_mask=mask)]


def _attention_cache(paddle, v):
    """Decoding one step with caches: an incremental Cache grows by the step's keys and
    values, a StaticCache holds the memory's."""
    nn = paddle.nn
    mha = nn.MultiHeadAttention(8, 2)
    out, cache = mha(v["q"], v["q"], v["q"], cache=mha.gen_cache(v["q"]))
    again, cache = mha(v["q"], v["q"], v["q"], cache=cache)
    static = mha.gen_cache(v["m"], v["m"], type=mha.StaticCache)
    cross, _ = mha(v["q"], v["m"], v["m"], cache=static)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 4, dropout=0.0), 1)
    encoded, _ = encoder(v["q"], cache=encoder.gen_cache(v["q"]))
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 4, dropout=0.0), 2)
    zipped = decoder.gen_cache(v["m"], do_zip=True)
    decoded, caches = decoder(v["q"], v["m"], cache=list(zip(*zipped)))
    return [out, again, cache.k, cache.v, cross, encoded, decoded, caches[1][0].k]


def _encoder_dropout(paddle, v):
    return [paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1)(v["q"])]


def _products(paddle, v):
    x, y, a, b = v["x"], v["y"], v["a"], v["b"]
    return [paddle.matmul(x, y, transpose_y=True), paddle.mm(x, v["w"]),
            paddle.bmm(v["p"], v["q"]), paddle.dot(a, b), paddle.dot(x, y),
            paddle.mv(x, v["vec"]), paddle.cross(x, y), paddle.cross(v["p3"], v["q3"], axis=0),
            paddle.kron(a, b), paddle.t(x), x.matmul(v["w"]), x.t(), a.dot(b)]


def _norms(paddle, v):
    x = v["x"]
    return [paddle.norm(x), paddle.norm(x, p="fro", axis=[0, 1]),
            paddle.norm(x, p=1, axis=1, keepdim=True), paddle.norm(x, p=float("inf"), axis=0),
            paddle.norm(x, p="fro", axis=1), paddle.linalg.norm(x, p=3), x.norm(p=2, axis=-1),
            paddle.dist(x, v["y"], p=3), paddle.dist(x, v["y"]),
            paddle.trace(v["sq"]), paddle.trace(v["cube"], offset=1, axis1=1, axis2=2)]


def _einsum(paddle, v):
    return [paddle.einsum("ij,jk->ik", v["x"], v["w"]), paddle.einsum("bij->bji", v["p"]),
            paddle.einsum("ij,ij", v["x"], v["y"]), paddle.einsum("ii->i", v["sq"]),
            paddle.einsum("...ij,...jk->...ik", v["p"], v["q"]),
            paddle.outer(v["a"], v["b"]), paddle.inner(v["x"], v["y"])]


LINALG_FEEDS = {"x": _arr("x", 2, 3), "y": _arr("y", 2, 3), "w": _arr("w", 3, 4),
                "a": _arr("a", 3), "b": _arr("b", 3), "vec": _arr("vec", 3),
                "p": _arr("p", 2, 2, 3), "q": _arr("q", 2, 3, 2),
                "p3": _arr("p3", 3, 2), "q3": _arr("q3", 3, 2),
                "sq": _arr("sq", 3, 3), "cube": _arr("cube", 2, 3, 4)}


def _only(*names):
    return {k: LINALG_FEEDS[k] for k in names}


def _unknown_batch(paddle, v):
    """The batch size read when it runs (a case of UNKNOWN_BATCH)."""
    nn = paddle.nn
    out, (h, c) = nn.LSTM(3, 4, direction="bidirect")(v["x"])
    g, _ = nn.GRUCell(3, 4)(v["x0"])
    return [out, h, c, g]


CASES = {
    "linear": ({"x": _arr("x", 2, 4)}, lambda paddle, v: [
        paddle.nn.Linear(4, 3)(v["x"]),
        paddle.nn.Linear(4, 2, bias_attr=False)(v["x"])]),
    "embedding_one_hot": ({"ids": _ids("ids", 10, 2, 3)}, lambda paddle, v: [
        paddle.nn.Embedding(10, 3, padding_idx=2)(v["ids"]),
        paddle.nn.Embedding(10, 2, padding_idx=-1)(v["ids"]),
        paddle.nn.functional.one_hot(v["ids"], 10)]),
    "flatten_identity": ({"x": _arr("x", 2, 3, 4)}, lambda paddle, v: [
        paddle.nn.Flatten()(v["x"]), paddle.nn.Flatten(0, 1)(v["x"]),
        paddle.nn.Identity()(v["x"])]),
    "dropout_slices": ({"x": _arr("x", 2, 3), "im": _arr("im", 2, 3, 2, 2),
                        "vol": _arr("vol", 2, 3, 2, 2, 2)}, lambda paddle, v: [
        paddle.nn.functional.dropout(v["x"], 0.3, axis=1),
        paddle.nn.functional.dropout(v["x"], 0.3, axis=[0, 1], mode="downscale_in_infer"),
        paddle.nn.Dropout2D(0.4)(v["im"]), paddle.nn.Dropout3D(0.2)(v["vol"]),
        paddle.nn.functional.dropout2d(v["im"], 0.5, data_format="NHWC")]),
    "functional": ({"x": _arr("x", 2, 4), "ids": _ids("ids", 10, 2)}, _functional),
    "dropout_train": ({"x": _arr("x", 2, 3)}, _dropout_train),
    "dropout_eval": ({"x": _arr("x", 2, 3)}, _dropout_eval),
    "bilinear": ({"x": _arr("x", 2, 3), "y": _arr("y", 2, 4)}, lambda paddle, v: [
        paddle.nn.Bilinear(3, 4, 5)(v["x"], v["y"])]),
    "similarity": ({"x": _arr("x", 2, 3), "y": _arr("y", 2, 3)}, lambda paddle, v: [
        paddle.nn.functional.cosine_similarity(v["x"], v["y"]),
        paddle.nn.CosineSimilarity(axis=0)(v["x"], v["y"]),
        paddle.nn.functional.normalize(v["x"]),
        paddle.nn.functional.normalize(v["x"], p=1, axis=0),
        paddle.nn.PairwiseDistance()(v["x"], v["y"]),
        paddle.nn.PairwiseDistance(p=3.0, keepdim=True)(v["x"], v["y"])]),
    "containers": ({"x": _arr("x", 2, 4)}, _containers),
    "lstm_bidirect_2_layers": ({"x": _arr("x", 2, 5, 3),
                                "len": np.array([5, 3], "int64")}, _lstm),
    "gru_time_major": ({"xt": _arr("xt", 5, 2, 3), "h0": _arr("h0", 1, 2, 4)}, _gru),
    "simple_rnn_relu": ({"x": _arr("x", 2, 4, 3)}, _simple_rnn),
    "multi_head_attention": ({"q": _arr("q", 2, 3, 8), "k": _arr("k", 2, 4, 6),
                              "v": _arr("v", 2, 4, 5), "mask": _ids("mask", 2, 2, 2, 3, 4) > 0,
                              "fmask": _arr("fmask", 2, 2, 3, 3)}, _mha),
    "transformer_encoder": ({"q": _arr("q", 2, 3, 8), "fmask": _arr("fmask", 2, 1, 3, 3)},
                            _encoder),
    "transformer_decoder": ({"q": _arr("q", 2, 3, 8), "m": _arr("m", 2, 3, 8),
                             "mask": _ids("mask", 2, 2, 1, 3, 3) > 0}, _decoder),
    "lstm_dropout": ({"x": _arr("x", 2, 4, 3)}, lambda paddle, v: list(
        paddle.nn.LSTM(3, 4, num_layers=2, dropout=0.5)(v["x"])[1])),
    "attention_cache": ({"q": _arr("q", 2, 1, 8), "m": _arr("m", 2, 3, 8)}, _attention_cache),
    "transformer_encoder_dropout": ({"q": _arr("q", 2, 3, 8)}, _encoder_dropout),
    "linalg_products": (_only("x", "y", "w", "a", "b", "vec", "p", "q", "p3", "q3"),
                        _products),
    "linalg_norms": (_only("x", "y", "sq", "cube"), _norms),
    "linalg_einsum": (_only("x", "y", "w", "p", "q", "sq", "a", "b"), _einsum),
    # (det and slogdet: 2.6 declares their outputs with the input's shape; their numbers are
    # compared in tests/ops/test_common_paddle.py)
    "linalg_square": ({"a": (_arr("a", 3, 3) * 0.3 + np.eye(3, dtype="float32") * 2),
                       "y": _arr("y", 3, 2),
                       "s": _symmetric("s", 3)},
                      lambda paddle, v: [
        paddle.linalg.inv(v["a"]), paddle.inverse(v["a"]), v["a"].inverse(),
        paddle.linalg.solve(v["a"], v["y"]), paddle.linalg.cholesky(v["s"]),
        paddle.cholesky(v["s"], upper=True), paddle.linalg.matrix_power(v["a"], 2),
        paddle.linalg.multi_dot([v["a"], v["s"], v["y"]]),
        paddle.linalg.triangular_solve(v["a"], v["y"], upper=False),
        paddle.linalg.eigvalsh(v["s"]), *paddle.linalg.eigh(v["s"], UPLO="U")]),
    "masks": ({"n": np.array([3, 0, 2], "int64")}, lambda paddle, v: [
        paddle.nn.functional.sequence_mask(v["n"], maxlen=4, dtype="float32"),
        paddle.nn.functional.sequence_mask(v["n"])]),
    "diag_embed": ({"x": _arr("x", 2, 3)}, lambda paddle, v: [
        paddle.diag_embed(v["x"]), paddle.nn.functional.diag_embed(v["x"], 1, 0, 2)]),
    "unknown_batch": ({"x": _arr("x", 2, 4, 3), "x0": _arr("x0", 2, 3)}, _unknown_batch),
    "cells": ({"x0": _arr("x0", 2, 3), "s0": _arr("s0", 2, 4)}, _cells),
}

# cases whose data variables are declared with an unknown first dimension (-1)
UNKNOWN_BATCH = {"unknown_batch", "dropout_slices"}

RANDOM = {"dropout_train", "dropout_slices", "transformer_encoder_dropout", "lstm_dropout"}


def fixture_file(name):
    """The fixture file that holds case ``name``: the attention cases (many parameters, so
    many gradients) in their own, to keep each file small."""
    attention = name.startswith(("transformer", "attention")) or name == "multi_head_attention"
    return "attention_api.npz" if attention else "common_api.npz"
