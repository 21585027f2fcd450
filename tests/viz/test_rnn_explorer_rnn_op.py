"""The RNN explorer on PaddlePaddle's fused ``rnn`` op: its step scopes, gates and links.

A 2-layer bidirectional LSTM with sequence lengths, built here and also loaded as
PaddlePaddle 2.6.2 saved it (tests/fixtures/paddle26/ops/rnn_lstm.pdmodel): the explorer
lists one execution per layer and direction, steps in time order, each step's scope
with x, h_prev, c_prev, the gates i, f, c~, o, and c, h; h_prev at step t equals h of
the step that ran before it, or the initial state.
"""

import json
import pathlib

import numpy as np
import pytest

pytest.importorskip("anywidget")

import paddle_nb as pd                                     # noqa: E402
from paddle_nb.viz import rnn_explorer                     # noqa: E402
from tests.ops.cases_rnn import make_inputs                # noqa: E402
from tests.ops.test_rnn_op import build                    # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops"


def state(widget):
    return json.loads(json.dumps(widget.state()))


@pytest.fixture
def lstm_run():
    """A 2-layer bidirectional LSTM over 3 steps; sequence 1 has length 2."""
    ins = make_inputs("LSTM", 2, 2, steps=3, batch=2, lengths=[3, 2])
    attrs = {"mode": "LSTM", "num_layers": 2, "is_bidirec": True, "hidden_size": 2,
             "input_size": 3}
    prog, feed, op = build(ins, attrs)
    exe = pd.Executor(pd.CPUPlace())
    widget = rnn_explorer(exe)
    exe.run(prog, feed=feed, fetch_list=[op.output("Out")[0]], scope=pd.Scope())
    return widget, ins


def test_one_execution_per_layer_and_direction_with_steps_in_time_order(lstm_run):
    w, _ = lstm_run
    s = state(w)
    titles = [r["title"] for r in s["rnns"]]
    assert len(titles) == 4 and all(t.startswith("rnn op #0 (LSTM) of block 0") for t in titles)
    assert ["layer 0 fwd" in titles[0], "layer 0 bwd" in titles[1],
            "layer 1 fwd" in titles[2], "layer 1 bwd" in titles[3]] == [True] * 4
    assert "t = 2 down to 0" in titles[1]
    for r in s["rnns"]:
        assert [st["t"] for st in r["steps"]] == [0, 1, 2]
    assert [st["label"] for st in s["rnns"][1]["steps"]] == \
        ["layer 0 bwd step 0", "layer 0 bwd step 1", "layer 0 bwd step 2"]


def test_a_step_scope_holds_the_gates_cell_and_hidden_state(lstm_run):
    w, ins = lstm_run
    step = state(w)["shown"]
    roles = {v["name"]: v["role"] for v in step["vars"]}
    assert roles == {"x": "input", "h_prev": "memory-pre", "c_prev": "memory-pre", "i": "gate",
                     "f": "gate", "c~": "gate", "o": "gate", "c": "memory-state",
                     "h": "memory-state", "mask": "mask"}
    values = {v["name"]: np.array(v["value"]["rows"]) for v in step["vars"]}
    # c = f * c_prev + i * c~ and h = o * tanh(c), to the 4 digits the preview keeps
    np.testing.assert_allclose(values["c"], values["f"] * values["c_prev"] +
                               values["i"] * values["c~"], atol=2e-4)
    np.testing.assert_allclose(values["h"], values["o"] * np.tanh(values["c"]), atol=2e-4)
    x_link = next(each for each in step["links"] if each["kind"] == "input")
    assert x_link["source"] == "Input0[0]" and x_link["equal"] is True


def test_h_prev_is_h_of_the_step_before_or_the_initial_state(lstm_run):
    w, ins = lstm_run
    s = state(w)
    forward, backward = s["rnns"][0]["steps"], s["rnns"][1]["steps"]
    first = {each["name"]: each for each in forward[0]["links"]}
    assert first["h_prev"]["source"] == "PreState0[0]" and first["h_prev"]["source_step"] is None
    assert first["c_prev"]["source"] == "PreState1[0]" and first["h_prev"]["equal"] is True
    np.testing.assert_allclose(first["h_prev"]["value"]["rows"], ins["PreState"][0][0], atol=1e-4)
    for t in (1, 2):
        link = next(each for each in forward[t]["links"] if each["name"] == "h_prev")
        assert link["source"] == "h" and link["source_step"] == t - 1 and link["equal"] is True
    # the backward direction ran from t = 2: its step 2 starts from PreState0[1]
    last = next(each for each in backward[2]["links"] if each["name"] == "h_prev")
    assert last["source"] == "PreState0[1]" and last["equal"] is True
    link = next(each for each in backward[0]["links"] if each["name"] == "h_prev")
    assert link["source_step"] == 1 and link["equal"] is True


def test_layer_1_reads_layer_0s_outputs_zero_past_a_sequences_end(lstm_run):
    w, _ = lstm_run
    steps = state(w)["rnns"][2]["steps"]
    for t, step in enumerate(steps):
        link = next(each for each in step["links"] if each["kind"] == "input")
        assert link["source"] == f"layer 0 outputs[{t}]" and link["equal"] is True
    x = next(v for v in steps[2]["vars"] if v["name"] == "x")
    assert x["value"]["rows"][1] == [0.0] * 4        # sequence 1 ended after 2 steps


def test_the_slider_moves_through_a_paddle_saved_lstm():
    prefix = FIXTURES / "rnn_lstm"
    if not (FIXTURES / "rnn_lstm.pdmodel").is_file():
        pytest.fail("the PaddlePaddle LSTM fixture is absent (interop/ops/rnn_refs.py)")
    values = np.load(FIXTURES / "rnn_lstm_io.npz")
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    program, feeds, fetches = pd.io.load_inference_model(str(prefix), exe, scope=scope)
    w = rnn_explorer(exe)
    exe.run(program, feed={f: values[f"feed/{f}"] for f in feeds}, fetch_list=fetches,
            scope=scope)
    s = state(w)
    assert len(s["rnns"]) == 4 and s["has_values"]
    w.set_state({"rnn": 3, "step": 1})
    shown = state(w)["shown"]
    assert shown["label"] == "layer 1 bwd step 1"
    assert all(each["equal"] is True for each in shown["links"])


def test_with_dropout_x_is_the_layer_below_times_the_steps_dropout_scale():
    ins = make_inputs("GRU", 2, 1, steps=3, batch=2)
    attrs = {"mode": "GRU", "num_layers": 2, "is_bidirec": False, "hidden_size": 2,
             "input_size": 3, "dropout_prob": 0.5, "seed": 3}
    prog, feed, op = build(ins, attrs)
    exe = pd.Executor(pd.CPUPlace())
    w = rnn_explorer(exe)
    exe.run(prog, feed=feed, fetch_list=[op.output("Out")[0]], scope=pd.Scope())
    upper = state(w)["rnns"][1]["steps"]
    roles = {v["name"]: v["role"] for v in upper[0]["vars"]}
    assert roles["dropout"] == "mask" and roles["r"] == roles["z"] == "gate"
    for step in upper:
        link = next(each for each in step["links"] if each["kind"] == "input")
        assert link["equal"] is True
        scale = next(v for v in step["vars"] if v["name"] == "dropout")["value"]["rows"]
        assert {x for row in scale for x in row} <= {0.0, 2.0}
