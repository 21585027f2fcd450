"""The common layers, containers and recurrent layers on their own: structured names as
PaddlePaddle 2.6.2 gives them (read from its ``named_parameters()``), container behaviour,
clear errors for what paddle_nb lacks, and values against NumPy references."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import nn
from paddle_nb.framework import unique_name
from paddle_nb.nn import functional as F



# the public names these tests check against PaddlePaddle 2.6.2's behaviour (structured names,
# containers): tools/api_coverage.py counts them
COVERED = ["paddle.nn.Layer", "paddle.nn.LayerDict", "paddle.nn.ParameterList"]

def _guard():
    main, startup = pd.Program(), pd.Program()
    return main, startup, unique_name.guard(), pd.program_guard(main, startup)


def _run(main, startup, feed, fetch):
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), scope


def test_recurrent_layers_name_their_parameters_as_paddle_does():
    main, startup, names, prog = _guard()
    with names, prog:
        lstm = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
        gru = nn.GRU(3, 4)
    suffixes = ["", "_reverse"]
    want = [f"{k}_l{layer}{s}" for layer in range(2) for s in suffixes
            for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert [n for n, _ in lstm.named_parameters()] == want
    assert [n for n, _ in gru.named_parameters()] == want[:4]
    assert lstm.weight_ih_l1_reverse.name == "lstm_cell_3.w_0"
    assert lstm.weight_ih_l1_reverse.shape == (16, 8)


def test_sequential_indexes_slices_and_names_its_layers():
    main, startup, names, prog = _guard()
    with names, prog:
        seq = nn.Sequential(nn.Linear(4, 3), nn.ReLU() if hasattr(nn, "ReLU") else nn.Identity(),
                            nn.Linear(3, 2))
        named = nn.Sequential(("first", nn.Linear(2, 2)), ("second", nn.Identity()))
    assert len(seq) == 3 and seq[-1] is seq[2] and len(seq[1:]) == 2
    assert [type(layer).__name__ for layer in seq][0] == "Linear"
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert named["first"] is named[0]
    assert [n for n, _ in named.named_parameters()] == ["first.weight", "first.bias"]
    with pytest.raises(IndexError, match="out of range"):
        seq[3]


def test_layer_list_dict_and_parameter_list():
    main, startup, names, prog = _guard()
    with names, prog:
        layers = nn.LayerList([nn.Linear(2, 2)])
        layers.append(nn.Linear(2, 3))
        layers.insert(0, nn.Identity())
        layers.extend([nn.Identity()])
        table = nn.LayerDict({"a": nn.Linear(2, 2)})
        table["b"] = nn.Identity()
        params = nn.ParameterList([layers[1].weight])
    assert len(layers) == 4 and isinstance(layers[0], nn.Identity)
    assert [n for n, _ in layers.named_parameters()] == ["1.weight", "1.bias", "2.weight", "2.bias"]
    del layers[0]
    assert [n for n, _ in layers.named_parameters()][0] == "0.weight"
    assert list(table.keys()) == ["a", "b"] and "a" in table
    assert [n for n, _ in table.named_parameters()] == ["a.weight", "a.bias"]
    assert [n for n, _ in params.named_parameters()] == ["0"] and len(params) == 1


def test_cell_runners_say_they_are_not_available():
    main, startup, names, prog = _guard()
    with names, prog:
        cell = nn.SimpleRNNCell(3, 4)
        with pytest.raises(NotImplementedError, match="nn.RNN .* not available"):
            nn.RNN(cell)
        with pytest.raises(NotImplementedError, match="direction='bidirect'"):
            nn.BiRNN(cell, cell)


def test_lstm_cell_against_numpy():
    main, startup, names, prog = _guard()
    with names, prog:
        x = pd.layers.data("x", [2, 3], append_batch_size=False)
        cell = nn.LSTMCell(3, 4)
        h, (_, c) = cell(x)
    xv = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    (hv, cv), scope = _run(main, startup, {"x": xv}, [h, c])
    w, b = (scope.find_var(cell.weight_ih.name).get_tensor().numpy(),
            scope.find_var(cell.bias_ih.name).get_tensor().numpy()
            + scope.find_var(cell.bias_hh.name).get_tensor().numpy())
    i, f, g, o = np.split(xv @ w.T + b, 4, axis=1)
    sig = lambda a: 1 / (1 + np.exp(-a))  # noqa: E731
    c_ref = sig(i) * np.tanh(g)           # c_prev is 0
    np.testing.assert_allclose(cv, c_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hv, sig(o) * np.tanh(c_ref), rtol=1e-5, atol=1e-6)


def test_linear_normalize_and_dropout_eval_against_numpy():
    main, startup, names, prog = _guard()
    with names, prog:
        x = pd.layers.data("x", [3, 4], append_batch_size=False)
        fc = nn.Linear(4, 2)
        drop = nn.Dropout(0.5, mode="downscale_in_infer")
        drop.eval()
        outs = [fc(x), F.normalize(x, p=3, axis=0), drop(x)]
    xv = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    (y, n, d), scope = _run(main, startup, {"x": xv}, outs)
    w = scope.find_var(fc.weight.name).get_tensor().numpy()
    np.testing.assert_allclose(y, xv @ w, rtol=1e-5, atol=1e-6)
    norm = (np.abs(xv) ** 3).sum(axis=0, keepdims=True) ** (1 / 3)
    np.testing.assert_allclose(n, xv / norm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, xv * 0.5, rtol=1e-6)


def test_bad_arguments_are_refused_clearly():
    main, startup, names, prog = _guard()
    with names, prog:
        x = pd.layers.data("x", [-1, 3, 4, 4], append_batch_size=False)
        with pytest.raises(ValueError, match="mode must be"):
            F.dropout(x, 0.5, mode="sideways")
        with pytest.raises(ValueError, match="must be 5-D"):
            F.dropout3d(x, 0.5)
        with pytest.raises(ValueError, match="direction must be") as error:
            nn.LSTM(3, 4, direction="both")
    assert "built at" in str(error.value) and "test_common_layers.py" in str(error.value)


def test_attention_layers_name_their_parameters_as_paddle_does():
    # the structured names and parameter names PaddlePaddle 2.6.2's named_parameters() gives
    main, startup, names, prog = _guard()
    with names, prog:
        mha = nn.MultiHeadAttention(8, 2, kdim=6, vdim=5)
        layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert [(n, p.name, p.shape) for n, p in mha.named_parameters()] == [
        ("q_proj.weight", "linear_0.w_0", (8, 8)), ("q_proj.bias", "linear_0.b_0", (8,)),
        ("k_proj.weight", "linear_1.w_0", (6, 8)), ("k_proj.bias", "linear_1.b_0", (8,)),
        ("v_proj.weight", "linear_2.w_0", (5, 8)), ("v_proj.bias", "linear_2.b_0", (8,)),
        ("out_proj.weight", "linear_3.w_0", (8, 8)), ("out_proj.bias", "linear_3.b_0", (8,))]
    assert [(n, p.name) for n, p in layer.named_parameters()][8:] == [
        ("linear1.weight", "linear_8.w_0"), ("linear1.bias", "linear_8.b_0"),
        ("linear2.weight", "linear_9.w_0"), ("linear2.bias", "linear_9.b_0"),
        ("norm1.weight", "layer_norm_0.w_0"), ("norm1.bias", "layer_norm_0.b_0"),
        ("norm2.weight", "layer_norm_1.w_0"), ("norm2.bias", "layer_norm_1.b_0")]


def test_eval_builds_the_inference_forms():
    main, startup, names, prog = _guard()
    with names, prog:
        x = pd.layers.data("x", [2, 5, 3], append_batch_size=False)
        lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
        attention = nn.MultiHeadAttention(4, 2, dropout=0.5)
        lstm.eval()
        attention.eval()
        out, _ = lstm(x)
        attention(out)
    ops = main.global_block().ops
    assert [op.attr("is_test") for op in ops if op.type in ("rnn", "dropout")] == [True, True]
    assert [op.attr("dropout_prob") for op in ops if op.type == "rnn"] == [0.5]


def test_attention_refuses_what_paddle_nb_lacks():
    main, startup, names, prog = _guard()
    with names, prog:
        q = pd.layers.data("q", [2, 3, 8], append_batch_size=False)
        with pytest.raises(ValueError, match="positive multiple of num_heads"):
            nn.MultiHeadAttention(8, 3)
        with pytest.raises(ValueError, match="'relu' or 'gelu'"):
            nn.TransformerEncoderLayer(8, 2, 16, activation="swish")(q)
        with pytest.raises(NotImplementedError, match="matrix norm"):
            pd.norm(q, p=1, axis=[0, 1])
        with pytest.raises(ValueError, match="rank 2 or less"):
            pd.t(q)


def test_dropout2d_drops_whole_channels():
    main, startup, names, prog = _guard()
    with names, prog:
        x = pd.layers.data("x", [-1, 6, 3, 3], append_batch_size=False)
        out = nn.Dropout2D(0.5)(x)
    (y,), _ = _run(main, startup, {"x": np.ones((4, 6, 3, 3), "float32")}, [out])
    planes = y.reshape(4, 6, 9)
    assert set(np.unique(planes)) <= {0.0, 2.0}
    assert (planes.min(axis=2) == planes.max(axis=2)).all()      # one draw per plane
    assert 0 < (planes[:, :, 0] == 0).sum() < 24


def test_embedding_stores_padding_idx_as_paddle_does():
    """The layer passes ``padding_idx`` on as given; the op's attribute is -1 for None (no
    padding row) and counts a negative index from the end (PaddlePaddle 2.6's programs)."""
    main, startup, names, prog = _guard()
    with names, prog:
        ids = pd.static.data("ids", [2], "int64")
        plain, last = nn.Embedding(5, 3), nn.Embedding(5, 3, padding_idx=-1)
        plain(ids), last(ids)
    ops = [op for op in main.global_block().ops if op.type == "lookup_table_v2"]
    assert [op.attr("padding_idx") for op in ops] == [-1, 4]
    assert repr(plain) == "Embedding(5, 3, sparse=False)"
