"""The ``rnn`` op against PaddlePaddle 2.6.2's own files (tests/fixtures/paddle26/ops/rnn_*).

interop/ops/rnn_refs.py wrote them with PaddlePaddle: inference models of 2-layer
bidirectional LSTM, GRU and SimpleRNN (relu) with ``sequence_length``, the gradients
``rnn_grad`` gives for Input, PreState and WeightList, and a small LSTM classifier's
training programs (1 layer with lengths and SGD; 2 bidirectional layers with Adam) with
their losses and parameters over three steps. PaddlePaddle 2.6.2's CPU rnn_grad is wrong for
bidirectional nets with lengths; there paddle_nb is checked against central differences.
"""

import json

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.machinery import registry
from tests.ops import paddle26
from tests.ops.cases_rnn import numpy_rnn
from tests.ops.test_rnn_op import build, run

RTOL, ATOL = 1e-5, 1e-6


def fixture(name):
    return paddle26.fixture(name, "interop/ops/rnn_refs.py")


@pytest.fixture(scope="module")
def manifest():
    return json.loads(fixture("rnn_manifest.json").read_text())


def _run_inference(kind, entry):
    values = dict(np.load(fixture(f"rnn_{kind}_io.npz")))
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    program, feeds, fetches = pd.io.load_inference_model(
        str(paddle26.FIXTURES / f"rnn_{kind}"), exe, scope=scope)
    assert feeds == entry["feeds"] and [v.name for v in fetches] == entry["fetches"]
    got = exe.run(program, feed={f: values[f"feed/{f}"] for f in feeds}, fetch_list=fetches,
                  scope=scope)
    for var, value in zip(fetches, got):
        np.testing.assert_allclose(value, values[f"fetch/{var.name}"], rtol=RTOL, atol=ATOL,
                                   err_msg=f"{kind}: {var.name}")
    return program


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn"])
def test_paddles_inference_model_gives_paddles_outputs(kind, manifest):
    program = _run_inference(kind, manifest[kind])
    (op,) = [op for op in program.global_block().ops if op.type == "rnn"]
    assert op.attr("num_layers") == 2 and op.attr("is_bidirec") is True
    assert op.attr("mode") == {"lstm": "LSTM", "gru": "GRU", "rnn": "RNN_RELU"}[kind]
    assert program.serialize() == fixture(f"rnn_{kind}.pdmodel").read_bytes()


def test_paddles_lstm_with_zero_initial_states_made_in_the_program(manifest):
    """PaddlePaddle makes the zero states with shape, slice and fill_constant(ShapeTensorList)."""
    entry = manifest["lstm_zero"]
    assert [t for t in entry["ops"] if not registry.exists(t)] == []
    program = _run_inference("lstm_zero", entry)
    assert [op.type for op in program.global_block().ops] == entry["ops"]


GRAD_CASES = [f"{m}-{c}" for m in ("LSTM", "GRU", "RNN_TANH")
              for c in ("D2-full", "D1-len", "D2-len")]
# PaddlePaddle 2.6.2's CPU rnn_grad is wrong (against central differences of its own forward)
# for a bidirectional net with SequenceLength: W_hh of every backward direction, and for GRU
# most gradients. paddle_nb gives the true gradients there; these are the arrays that differ.
PADDLE_WRONG = {"LSTM-D2-len": ["WeightList3", "WeightList7"],
                "RNN_TANH-D2-len": ["WeightList3", "WeightList7"], "GRU-D2-len": None}


def _grad_case(key):
    data = np.load(fixture("rnn_grads.npz"))
    v = {k.split("/", 1)[1]: data[k] for k in data.files if k.startswith(key + "/")}
    mode, dirs = key.split("-")[0], int(key.split("-")[1][1])
    states = [v["h0"]] + ([v["c0"]] if mode == "LSTM" else [])
    weights = [v[f"w{j}"] for j in range(sum(k[0] == "w" and k[1:].isdigit() for k in v))]
    ins = {"Input": v["x"], "PreState": states, "WeightList": weights,
           "SequenceLength": v.get("lengths")}
    attrs = {"mode": mode, "num_layers": 2, "is_bidirec": dirs == 2, "hidden_size": 2,
             "input_size": 3, "is_test": False}
    return v, ins, attrs


def _central_difference(ins, attrs, seeds, name, eps=1e-6):
    """d(sum(seed * output))/d(input ``name``) through numpy_rnn in float64."""
    ins = {k: ([a.astype(np.float64) for a in x] if isinstance(x, list) else
               x.astype(np.float64) if x is not None and x.dtype == np.float32 else x)
           for k, x in ins.items()}
    slot, k = name.rstrip("0123456789"), int(name[len(name.rstrip("0123456789")):])
    target = ins[slot][k] if isinstance(ins[slot], list) else ins[slot]
    dirs = 2 if attrs["is_bidirec"] else 1

    def loss():
        out, states = numpy_rnn(attrs["mode"], ins["Input"], ins["PreState"],
                                ins["WeightList"], 2, dirs, ins["SequenceLength"])
        return sum(float(np.sum(o * s)) for o, s in zip([out] + states, seeds))
    grad = np.zeros_like(target)
    for i in range(target.size):
        old = target.flat[i]
        target.flat[i] = old + eps
        plus = loss()
        target.flat[i] = old - eps
        grad.flat[i] = (plus - loss()) / (2 * eps)
        target.flat[i] = old
    return grad


@pytest.mark.parametrize("key", GRAD_CASES)
def test_rnn_grad_gives_paddles_gradients_where_paddles_are_right(key):
    v, ins, attrs = _grad_case(key)
    prog, feed, op = build(ins, attrs)
    block = prog.global_block()
    outs = [block.var(op.output("Out")[0])] + [block.var(n) for n in op.output("State")]
    seeds = [v[f"seed{k}"] for k in range(len(outs))]
    seed_vars = [block.create_var(name=f"seed{k}", shape=s.shape) for k, s in enumerate(seeds)]
    feed.update({f"seed{k}": s for k, s in enumerate(seeds)})
    names = [n for slot in ("Input", "PreState", "WeightList") for n in op.input(slot)]
    grads = pd.gradients(outs, [block.var(n) for n in names], seed_vars)
    got = run(prog, feed, outs + grads)
    for k, value in enumerate(got[:len(outs)]):
        np.testing.assert_allclose(value, v[f"out{k}"], rtol=RTOL, atol=ATOL, err_msg=f"out{k}")
    differ = []
    for name, value in zip(names, got[len(outs):]):
        want = v["grad:Input" if name == "Input0" else f"grad:{name}"]
        if np.allclose(value, want, rtol=1e-4, atol=1e-6):
            continue
        differ.append(name)
        true = _central_difference(ins, attrs, seeds, name)
        np.testing.assert_allclose(value, true, rtol=1e-4, atol=1e-5, err_msg=f"{key}: {name}")
        assert not np.allclose(want, true, rtol=1e-3, atol=1e-4), f"{key}: {name}"
    expected = PADDLE_WRONG.get(key, [])
    assert differ == expected if expected is not None else differ, differ


def _train(name, entry, values):
    main = pd.Program.parse(fixture(f"{name}.main.pb").read_bytes())
    startup = pd.Program.parse(fixture(f"{name}.startup.pb").read_bytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for p in entry["params"]:          # paddle_nb's random initializers draw other numbers
        scope.find_var(p).get_tensor().set(values[f"init:{p}"], pd.CPUPlace())
    history = []
    for k in range(len(values["loss"])):
        (loss,) = exe.run(main, feed={f: values[f"step{k}/{f}"] for f in entry["feeds"]},
                          fetch_list=[entry["loss"]], scope=scope)
        params = {p: scope.find_var(p).get_tensor().numpy().copy() for p in entry["params"]}
        history.append((float(np.asarray(loss).reshape(-1)[0]), params))
    return main, history


@pytest.mark.parametrize("key,name", [("train", "rnn_train"), ("train_bi", "rnn_train_bi")])
def test_paddles_lstm_classifier_trains_to_paddles_losses_and_parameters(key, name, manifest):
    """1 layer with lengths and SGD; 2 bidirectional layers without lengths and Adam."""
    entry, values = manifest[key], dict(np.load(fixture(f"{name}_io.npz")))
    main, history = _train(name, entry, values)
    read = {n for op in main.global_block().ops for n in op.input_arg_names}
    # the coalesced buffer (lstm_0.w_0): PaddlePaddle's cell weights are views of it, so it
    # moves with them there; no op of the program reads it
    used = [p for p in entry["params"] if p in read]
    assert [p for p in entry["params"] if p not in read] == ["lstm_0.w_0"]
    for k, (loss, params) in enumerate(history):
        np.testing.assert_allclose(loss, values["loss"][k], rtol=1e-5, err_msg=f"step {k}")
        for p in used:
            np.testing.assert_allclose(params[p], values[f"step{k}:{p}"], rtol=1e-4, atol=1e-6,
                                       err_msg=f"step {k}: {p}")
    assert main.serialize() == fixture(f"{name}.main.pb").read_bytes()


def test_paddles_startup_packs_the_weights_with_coalesce_tensor_which_runs_here():
    startup = pd.Program.parse(fixture("rnn_train.startup.pb").read_bytes())
    assert "coalesce_tensor" in [op.type for op in startup.global_block().ops]
    pd.Executor(pd.CPUPlace()).run(startup, scope=pd.Scope())      # the whole startup, as saved


def test_paddles_rnn_grad_desc_has_the_slots_paddle_nb_declares():
    main = pd.Program.parse(fixture("rnn_train.main.pb").read_bytes())
    (grad,) = [op for op in main.global_block().ops if op.type == "rnn_grad"]
    declared = registry.get("rnn_grad")
    assert set(grad.inputs) <= set(declared.input_index)
    assert set(grad.outputs) <= set(declared.output_index)
    (fwd,) = [op for op in main.global_block().ops if op.type == "rnn"]
    assert grad.input("Reserve") == fwd.output("Reserve")
    assert grad.input("WeightList") == fwd.input("WeightList")
