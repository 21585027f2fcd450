"""The fused ``rnn`` op run through a Program: NumPy loops, central differences, step scopes.

The cases are in cases_rnn.py. Every input is a fed ``data`` variable (weights too),
so one program gives the forward outputs and, through ``pd.gradients`` seeded with
fixed weights, the gradient of ``sum(w_out * Out) + sum(w_h * h_n) (+ sum(w_c * c_n))``
with respect to every input, which central differences of the same sum check.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core.scope import StepScopes
from tests.ops.cases_rnn import BAD_ERROR, BAD_RNN, CASES_RNN, attrs_for, make_inputs, numpy_rnn

IDS = [f"{m}-L{layers}-D{dirs}-{'len' if lens else 'full'}" for m, layers, dirs, lens in CASES_RNN]


def _data(block, name, value):
    return block.create_var(name=name, shape=value.shape, dtype=value.dtype, stop_gradient=False)


def build(ins, attrs):
    """A program holding one rnn op over data variables named after the slots."""
    prog = pd.Program()
    block = prog.global_block()
    feed, slots = {}, {}
    for slot, value in ins.items():
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        names = [f"{slot}{k}" for k in range(len(values))]
        slots[slot] = [_data(block, n, v) for n, v in zip(names, values)]
        feed.update(zip(names, values))
    states = ["h_n", "c_n"][:len(ins["PreState"])]
    op = block.append_op("rnn", slots, {"Out": ["out"], "State": states, "Reserve": ["reserve"],
                                        "DropoutState": ["dropout_state"]}, attrs)
    return prog, feed, op


def run(prog, feed, fetch, scope=None):
    exe = pd.Executor(pd.CPUPlace())
    return exe.run(prog, feed=feed, fetch_list=fetch, scope=scope or pd.Scope())


def forward(ins, attrs):
    prog, feed, op = build(ins, attrs)
    block = prog.global_block()
    outs = [block.var(op.output("Out")[0])] + [block.var(n) for n in op.output("State")]
    return run(prog, feed, outs)


@pytest.mark.parametrize("case", CASES_RNN, ids=IDS)
def test_forward_matches_numpy_loops(case):
    mode, layers, dirs, lengths = case
    ins = make_inputs(mode, layers, dirs, lengths=lengths)
    got = forward(ins, attrs_for(mode, layers, dirs))
    out, states = numpy_rnn(mode, ins["Input"], ins["PreState"], ins["WeightList"], layers, dirs,
                            ins["SequenceLength"])
    assert len(got) == len(states) + 1
    for g, w, what in zip(got, [out] + states, ["Out", "h_n", "c_n"]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=what)
        assert g.dtype == np.float32


def _seeds(ins, attrs, rng):
    out, states = numpy_rnn(attrs["mode"], ins["Input"], ins["PreState"], ins["WeightList"],
                            attrs["num_layers"], 2 if attrs["is_bidirec"] else 1,
                            ins["SequenceLength"])
    return [rng.standard_normal(a.shape) for a in [out] + states]


def _loss(ins, attrs, seeds):
    got = forward(ins, attrs)
    return sum(float(np.sum(g.astype(np.float64) * s)) for g, s in zip(got, seeds))


def _grad_program(ins, attrs, seeds):
    """The rnn op and its gradients: (program, feed, [Out, states..., gradients...], names)."""
    prog, feed, op = build(ins, attrs)
    block = prog.global_block()
    targets = [block.var(op.output("Out")[0])] + [block.var(n) for n in op.output("State")]
    names = [n for slot in ("Input", "PreState", "WeightList") for n in op.input(slot)]
    seed_vars = []
    for k, s in enumerate(seeds):
        seed_vars.append(_data(block, f"seed{k}", s))
        feed[f"seed{k}"] = s
    grads = pd.gradients(targets, [block.var(n) for n in names], seed_vars)
    return prog, feed, targets + grads, names


def _analytic(ins, attrs, seeds):
    prog, feed, fetch, names = _grad_program(ins, attrs, seeds)
    return dict(zip(names, run(prog, feed, fetch[-len(names):])))


def _numeric(ins, attrs, seeds, slot, k, eps=1e-6):
    values = ins[slot] if isinstance(ins[slot], list) else [ins[slot]]
    x = values[k]
    grad = np.zeros_like(x)
    for i in range(x.size):
        old = x.flat[i]
        x.flat[i] = old + eps
        plus = _loss(ins, attrs, seeds)
        x.flat[i] = old - eps
        minus = _loss(ins, attrs, seeds)
        x.flat[i] = old
        grad.flat[i] = (plus - minus) / (2 * eps)
    return grad


@pytest.mark.parametrize("case", CASES_RNN, ids=IDS)
def test_gradients_match_central_differences(case):
    mode, layers, dirs, lengths = case
    ins = make_inputs(mode, layers, dirs, lengths=lengths, dtype=np.float64, seed=1)
    attrs = attrs_for(mode, layers, dirs)
    seeds = _seeds(ins, attrs, np.random.default_rng(2))
    got = _analytic(ins, attrs, seeds)
    for slot in ("Input", "PreState", "WeightList"):
        values = ins[slot] if isinstance(ins[slot], list) else [ins[slot]]
        for k in range(len(values)):
            want = _numeric(ins, attrs, seeds, slot, k)
            np.testing.assert_allclose(got[f"{slot}{k}"], want, rtol=1e-5, atol=1e-7,
                                       err_msg=f"{mode}: {slot}[{k}]")


DROPOUT = {"dropout_prob": 0.4, "seed": 5}


def test_dropout_between_layers_scales_kept_values_by_1_over_1_minus_p():
    ins = make_inputs("GRU", 2, 2, steps=3, lengths=[3, 2])
    attrs = {**attrs_for("GRU", 2, 2), **DROPOUT}
    prog, feed, op = build(ins, attrs)
    out_name = op.output("Out")[0]
    (drop_name,) = op.output("DropoutState")
    out, mask = run(prog, feed, [out_name, drop_name])
    assert mask.dtype == np.uint8 and mask.shape == (3, 2, 4) and 0 < mask.mean() < 1
    ws = ins["WeightList"]     # layer 0 alone, then layer 1 on its masked, upscaled outputs
    first, second = ws[0:4] + ws[8:12], ws[4:8] + ws[12:16]
    below, _ = numpy_rnn("GRU", ins["Input"], [ins["PreState"][0][:2]], first, 1, 2,
                         ins["SequenceLength"])
    want, _ = numpy_rnn("GRU", below * mask / 0.6, [ins["PreState"][0][2:]], second, 1, 2,
                        ins["SequenceLength"])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    attrs["is_test"] = True           # inference: no dropout, no scaling
    want, _ = numpy_rnn("GRU", ins["Input"], ins["PreState"], ws, 2, 2, ins["SequenceLength"])
    np.testing.assert_allclose(forward(ins, attrs)[0], want, rtol=1e-5, atol=1e-6)


def test_gradients_through_dropout_match_central_differences():
    ins = make_inputs("LSTM", 2, 2, lengths=[3, 2], dtype=np.float64, seed=4)
    attrs = {**attrs_for("LSTM", 2, 2), **DROPOUT}     # a fixed seed: the same mask each run
    seeds = _seeds(ins, attrs, np.random.default_rng(6))
    got = _analytic(ins, attrs, seeds)
    for slot, k in (("Input", 0), ("WeightList", 0), ("WeightList", 4), ("PreState", 1)):
        np.testing.assert_allclose(got[f"{slot}{k}"], _numeric(ins, attrs, seeds, slot, k),
                                   rtol=1e-5, atol=1e-7, err_msg=f"{slot}[{k}]")


@pytest.mark.parametrize("mode, lengths", [("LSTM", [3, 2]), ("GRU", [3, 2]), ("LSTM", [2])])
def test_forward_and_gradients_on_the_gpu_equal_the_cpu(mode, lengths, device):
    # (a batch of one: W_hh stacked per direction, rnn.py's _stacked)
    ins = make_inputs(mode, 2, 2, batch=len(lengths), lengths=lengths)
    attrs = attrs_for(mode, 2, 2)
    seeds = [s.astype(np.float32) for s in _seeds(ins, attrs, np.random.default_rng(3))]
    prog, feed, fetch, _ = _grad_program(ins, attrs, seeds)
    on_cpu = pd.Executor(pd.CPUPlace()).run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())
    on_gpu = pd.Executor(pd.GPUPlace(0)).run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())
    for c, g in zip(on_cpu, on_gpu):
        assert isinstance(g, np.ndarray)
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad", range(len(BAD_RNN)))
def test_bad_shapes_are_refused_when_the_op_is_appended(bad):
    ins, change, match = BAD_RNN[bad]
    attrs = {**attrs_for("LSTM", 1, 1), **change}
    with pytest.raises(BAD_ERROR, match=match):
        build(ins, attrs)


def test_each_layer_direction_and_step_has_a_scope_kept_in_reserve_until_the_run_ends():
    ins = make_inputs("LSTM", 2, 2, steps=3, lengths=[3, 1])
    prog, feed, op = build(ins, attrs_for("LSTM", 2, 2))
    records = []
    exe = pd.Executor(pd.CPUPlace())
    exe.record_values = True
    exe.subscribe(records.append)
    scope = pd.Scope()
    exe.run(prog, feed=feed, fetch_list=[op.output("Out")[0]], scope=scope)
    (run_scope,) = records[-1].scopes.kids
    (reserve,) = [v for v in run_scope.vars if v.name == op.output("Reserve")[0]]
    assert reserve.holder == StepScopes.__name__
    labels = [k.label for k in run_scope.kids]
    assert labels[:3] == ["layer 0 fwd step 0", "layer 0 fwd step 1", "layer 0 fwd step 2"]
    assert labels[3:6] == ["layer 0 bwd step 2", "layer 0 bwd step 1", "layer 0 bwd step 0"]
    assert len(labels) == 12 and labels[-1] == "layer 1 bwd step 0"
    step = run_scope.kids[1]
    names = [v.name for v in step.vars]
    assert names == ["x", "h_prev", "c_prev", "i", "f", "c~", "o", "c", "h", "mask"]
    values = {v.name: v.value for v in step.vars}
    # sequence 1 has length 1: at step 1 it keeps its state
    np.testing.assert_array_equal(values["h"][1], values["h_prev"][1])
    assert values["mask"].reshape(-1).tolist() == [True, False]
    assert scope.kids == []          # the run's scope, and with it every step scope, is gone


def test_the_reference_evaluator_runs_it_alike():
    from paddle_nb.executor.reference import evaluate
    ins = make_inputs("LSTM", 2, 2, lengths=[3, 2])
    prog, feed, op = build(ins, attrs_for("LSTM", 2, 2))
    scope = pd.Scope()
    for name, value in feed.items():
        scope.var(name).get_tensor().set(value, pd.CPUPlace())
    evaluate(prog, scope)
    np.testing.assert_array_equal(scope.find_var("out").get_tensor().numpy(),
                                  forward(ins, attrs_for("LSTM", 2, 2))[0])
    assert len(scope.kids) == 2 * 2 * 3        # the step scopes, in the scope it ran in


@pytest.mark.parametrize("mode, dirs, batch, hidden", [
    ("LSTM", 1, 4, 48), ("GRU", 2, 4, 64), ("RNN_TANH", 2, 3, 40),
    ("LSTM", 2, 1, 160), ("GRU", 1, 1, 200), ("RNN_RELU", 2, 1, 8)])
def test_forward_at_sizes_where_the_sigmoid_is_four_ufuncs(mode, dirs, batch, hidden):
    # from 512 values a step the sweep takes exp's chain, not SciPy's expit (rnn_cells.py);
    # batch 1 takes the stacked W_hh (rnn.py's _stacked)
    # (float64: float32 would differ in the last bits, its sums of 64 products in another order)
    ins = make_inputs(mode, 2, dirs, steps=3, batch=batch, width=5, hidden=hidden,
                      lengths=[3, 1, 2, 3][:batch], dtype=np.float64)
    ins["Input"][:, 0] *= 5000             # saturated gates: exp(-x) overflows to inf
    with np.errstate(over="ignore"):       # (the reference's exp overflows too)
        out, states = numpy_rnn(mode, ins["Input"], ins["PreState"], ins["WeightList"], 2,
                                dirs, ins["SequenceLength"])
    got = forward(ins, {**attrs_for(mode, 2, dirs, width=5, hidden=hidden)})
    for g, w in zip(got, [out] + states):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def _scopes_made(run_it):
    """(the result of ``run_it()``, how many scopes were made meanwhile)."""
    first = pd.Scope().id
    result = run_it()
    return result, pd.Scope().id - first - 1


def test_a_test_mode_run_nobody_watches_keeps_no_step_scopes_a_watched_one_all():
    ins = make_inputs("LSTM", 2, 2, steps=3, lengths=[3, 1])
    prog, feed, op = build(ins, {**attrs_for("LSTM", 2, 2), "is_test": True})
    fetch = [op.output("Out")[0]] + op.output("State")
    exe = pd.Executor(pd.CPUPlace())
    plain, made = _scopes_made(lambda: exe.run(prog, feed=feed, fetch_list=fetch,
                                               scope=pd.Scope()))
    assert made <= 2                       # the run's scope, no step scope
    records = []
    exe.record_values = True
    exe.subscribe(records.append)
    watched = exe.run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())
    labels = [k.label for k in records[-1].scopes.kids[0].kids]
    assert len(labels) == 12 and labels[3] == "layer 0 bwd step 2"
    for a, b in zip(plain, watched):
        np.testing.assert_array_equal(a, b)
    out, states = numpy_rnn("LSTM", ins["Input"], ins["PreState"], ins["WeightList"], 2, 2,
                            ins["SequenceLength"])
    np.testing.assert_allclose(plain[0], out, rtol=1e-5, atol=1e-6)


def test_rnn_grad_after_a_test_mode_rnn_says_why_it_has_nothing_to_read():
    ins = make_inputs("GRU", 1, 1)
    attrs = {**attrs_for("GRU", 1, 1), "is_test": True}
    seeds = _seeds(ins, attrs, np.random.default_rng(0))
    prog, feed, fetch, _ = _grad_program(ins, attrs, [s.astype(np.float32) for s in seeds])
    with pytest.raises(pd.errors.OpRunError, match="ran with is_test=True"):
        run(prog, feed, fetch)


def test_new_weight_arrays_are_laid_out_anew():
    # the layout is cached per set of weight arrays: a new array (a new value) is seen
    ins = make_inputs("LSTM", 1, 2)
    prog, feed, op = build(ins, attrs_for("LSTM", 1, 2))
    scope = pd.Scope()
    first = run(prog, feed, [op.output("Out")[0]], scope)[0]
    ws = [w * 0.5 for w in ins["WeightList"]]
    feed.update({f"WeightList{k}": w for k, w in enumerate(ws)})
    second = run(prog, feed, [op.output("Out")[0]], scope)[0]
    want, _ = numpy_rnn("LSTM", ins["Input"], ins["PreState"], ws, 1, 2)
    np.testing.assert_allclose(second, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(first, second)


def _lstm_program():
    """(main, out, exe, scope, feed): an LSTM layer initialized in ``scope``."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.static.data("x", [2, 3, 4], "float32")
        out, _ = pd.nn.LSTM(4, 5)(x)
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")}
    return main, out, exe, scope, feed


def _as_if_set_anew(main, out, exe, scope, feed):
    """The output with ``scope``'s weights copied into a fresh scope (no cached layout)."""
    fresh = pd.Scope()
    for param in main.global_block().all_parameters():
        fresh.var(param.name).get_tensor().set(scope.find_var(param.name).get_tensor().numpy())
    want, = exe.run(main, feed=feed, fetch_list=[out], scope=fresh)
    return want


def test_weights_written_in_place_through_mutable_data_are_seen():
    # mutable_data is the one way to write a tensor's array in place: the cached layout of
    # the same array objects must not outlive such a write (core.tensor.written_in_place)
    main, out, exe, scope, feed = _lstm_program()
    first, = exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    for param in main.global_block().all_parameters():
        tensor = scope.find_var(param.name).get_tensor()
        before = tensor.array()
        written = tensor.mutable_data(pd.CPUPlace(), "float32", param.shape)
        assert written is before                  # the same array, written in place
        written *= 0.5
    second, = exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    np.testing.assert_array_equal(second, _as_if_set_anew(main, out, exe, scope, feed))
    assert not np.allclose(first, second)


def test_weights_written_in_place_after_their_mutable_data_call_are_seen():
    # the array mutable_data handed out may be written at any time after the call (here
    # between two runs, with no mutable_data call before the second): no cached layout of it
    main, out, exe, scope, feed = _lstm_program()
    handed = [scope.find_var(p.name).get_tensor().mutable_data(pd.CPUPlace(), "float32", p.shape)
              for p in main.global_block().all_parameters()]
    first, = exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    for array in handed:
        array *= 0.5
    second, = exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    np.testing.assert_array_equal(second, _as_if_set_anew(main, out, exe, scope, feed))
    assert not np.allclose(first, second)
