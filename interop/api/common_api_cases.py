"""The 2.x programs compared with PaddlePaddle 2.6.2 for the common, recurrent and attention
layers and the linear-algebra functions: each case is written once, against a ``paddle``
module given to it, so the same lines build PaddlePaddle's program (``common_api_refs.py``,
with ``import paddle``) and paddle_nb's (``tests/api/test_common_api.py``, with
``import paddle_nb as paddle``). This module imports neither.

A case is ``(feeds, build)``: ``feeds`` maps a data name to an array (float feeds are
differentiable), ``build(paddle, v)`` gets the data variables in ``v`` and returns the outputs
to compare. ``RANDOM`` names the cases whose values are random (dropout while training):
only their programs and shapes are compared.
"""

import numpy as np

__all__ = ["CASES", "RANDOM", "feeds_of"]


def _arr(key, *shape):
    from interop.synth import synth_input
    return synth_input(key, shape)


def _ids(key, high, *shape):
    from interop.synth import synth_input
    return synth_input(key, shape, "int64", high=high)


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
    "cells": ({"x0": _arr("x0", 2, 3), "s0": _arr("s0", 2, 4)}, _cells),
}

RANDOM = {"dropout_train"}


def feeds_of(name):
    """The feeds of case ``name`` (arrays)."""
    return CASES[name][0]
