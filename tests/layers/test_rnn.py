"""StaticRNN (the step net of "Design Doc: Block and Scope"): results, backward through time,
step scopes, bad input.

Every case is checked against a hand-written NumPy loop over time steps;
gradients against central differences of the program itself (float64).
StaticRNN has no ``reverse`` option (neither has PaddlePaddle 1.8's), so the
reversed cases set the ``recurrent`` op's ``reverse`` attribute on the
built op before ``append_backward``, which copies it to ``recurrent_grad``. The last test
runs backward through an IfElse nested in a step block.
"""

import gc

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core.memory import MEMORY
from paddle_nb.errors import OpBuildError, OpRunError
from tests.layers import central_difference, elman_rnn, row_ifelse

CPU = pd.CPUPlace()
T, B, FEATURES, H = 3, 2, 4, 5


def _reverse(prog):
    op, = [op for op in prog.global_block().ops if op.type == "recurrent"]
    op.set_attr("reverse", True)


def _elman(reverse=False):
    """h_t = tanh(x_t W + h_{t-1} U + b), h_{-1} = h0; W, U, b are global-block parameters."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x, h0, out = elman_rnn(T, B, FEATURES, H)
        if reverse:
            _reverse(prog)
        loss = pd.layers.reduce_sum(out * out)
        gx, gh0 = pd.gradients([loss], [x, h0])
        pairs = pd.append_backward(loss)
    return prog, out, loss, [gx, gh0] + [g for _, g in pairs]


def _elman_numpy(x, h0, w, u, b, reverse=False):
    h, outs = h0, [None] * len(x)
    for t in (reversed(range(len(x))) if reverse else range(len(x))):
        h = np.tanh(x[t] @ w + h @ u + b)
        outs[t] = h
    return np.stack(outs)


def _feed(seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((T, B, FEATURES)), "h0": rng.standard_normal((B, H))}


def _params(scope, *names):
    return [scope.find_var(n).get_tensor().numpy() for n in names]


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_one_memory_matches_a_numpy_loop(reverse):
    prog, out, _loss, _grads = _elman(reverse)
    feed = _feed()
    scope = pd.Scope()
    got, = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[out], scope=scope)
    want = _elman_numpy(feed["x"], feed["h0"], *_params(scope, "W", "U", "b"), reverse=reverse)
    assert got.shape == (T, B, H)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_backward_through_time_matches_central_differences(reverse):
    prog, _out, loss, grads = _elman(reverse)
    feed = _feed(1)
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    got = exe.run(prog, feed=feed, fetch_list=grads, scope=scope)
    for name, g in zip(["x", "h0", "W", "U", "b"], got):
        want = central_difference(exe, prog, feed, loss, scope, name)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8, err_msg=f"d loss/d {name}")


def _two_memories():
    """Two step inputs, two memories (one from shape + batch_ref), two step outputs:
    h_t = tanh(x_t W + h * c), c_t = c + y_t; h starts at 0, c at 1."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[T, B, FEATURES], dtype="float64", append_batch_size=False)
        y = pd.layers.data("y", shape=[T, B, H], dtype="float64", append_batch_size=False)
        x.stop_gradient = y.stop_gradient = False
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t, y_t = rnn.step_input(x), rnn.step_input(y)
            h = rnn.memory(shape=[-1, H], batch_ref=x_t)
            c = rnn.memory(shape=[-1, H], batch_ref=x_t, init_value=1.0)
            new_h = pd.layers.tanh(pd.layers.fc(x_t, H, param_attr="W", bias_attr=False) + h * c)
            new_c = c + y_t
            rnn.update_memory(h, new_h)
            rnn.update_memory(c, new_c)
            rnn.step_output(new_h)
            rnn.step_output(new_c)
        hs, cs = rnn()
        loss = pd.layers.reduce_sum(hs * hs) + pd.layers.reduce_mean(pd.layers.sigmoid(cs))
        grads = pd.gradients([loss], [x, y])
        pairs = pd.append_backward(loss)
    return prog, (hs, cs), loss, grads + [pairs[0][1]]


def test_two_memories_two_inputs_two_outputs_match_numpy():
    prog, (hs, cs), _loss, _grads = _two_memories()
    rng = np.random.default_rng(2)
    feed = {"x": rng.standard_normal((T, B, FEATURES)), "y": rng.standard_normal((T, B, H))}
    scope = pd.Scope()
    got_h, got_c = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[hs, cs], scope=scope)
    w, = _params(scope, "W")
    h, c, want_h, want_c = np.zeros((B, H)), np.ones((B, H)), [], []
    for t in range(T):
        h, c = np.tanh(feed["x"][t] @ w + h * c), c + feed["y"][t]
        want_h.append(h)
        want_c.append(c)
    np.testing.assert_allclose(got_h, np.stack(want_h), rtol=1e-12)
    np.testing.assert_allclose(got_c, np.stack(want_c), rtol=1e-12)


def test_two_memories_gradients_match_central_differences():
    prog, _outs, loss, grads = _two_memories()
    rng = np.random.default_rng(3)
    feed = {"x": rng.standard_normal((T, B, FEATURES)), "y": rng.standard_normal((T, B, H))}
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    got = exe.run(prog, feed=feed, fetch_list=grads, scope=scope)
    for name, g in zip(["x", "y", "W"], got):
        want = central_difference(exe, prog, feed, loss, scope, name)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8, err_msg=f"d loss/d {name}")


# -- the scope hierarchy ---------------------------------------------------------------------------
def test_one_step_scope_per_time_step_under_the_run_scope():
    prog, out, _loss, grads = _elman()
    records = []
    exe = pd.Executor(CPU)
    exe.record_values = True
    exe.subscribe(records.append)
    scope = pd.Scope()
    feed = _feed(5)
    got, = exe.run(prog, feed=feed, fetch_list=[out], scope=scope)
    user = records[-1].scopes
    assert [v.name for v in user.vars] == ["W", "U", "b"]          # persistables stay up here
    run, = user.kids
    assert run.label == "run"
    assert [k.label for k in run.kids] == [f"step {t}" for t in range(T)]
    for t, step in enumerate(run.kids):
        shapes = {v.name: v.shape for v in step.vars}
        assert shapes["x"] == (B, FEATURES) and shapes["static_rnn_0@mem_0"] == (B, H)
        assert all(s == (B, H) for n, s in shapes.items() if n not in ("x",))
        values = {v.name: v.value for v in step.vars}
        np.testing.assert_array_equal(values["x"], feed["x"][t])
        previous = feed["h0"] if t == 0 else got[t - 1]
        np.testing.assert_array_equal(values["static_rnn_0@mem_0"], previous)
        # backward ran in a kid of each step scope: one for gradients(), one for append_backward
        assert [k.label for k in step.kids] == ["grad", "grad"]
        assert "static_rnn_0@mem_0@GRAD" in [v.name for v in step.kids[0].vars]
    assert scope.kids == []


def test_nothing_is_left_behind_after_the_run():
    prog, out, _loss, grads = _elman()
    exe = pd.Executor(CPU)
    scope = pd.Scope()
    gc.collect()
    base = MEMORY.in_use(CPU)
    for _ in range(2):                 # the first run also initializes W, U and b
        MEMORY.reset_peak()
        exe.run(prog, feed=_feed(), fetch_list=[out] + grads, scope=scope)
        gc.collect()
        # the parameters' bytes
        assert MEMORY.in_use(CPU) - base == (FEATURES * H + H * H + H) * 8
        assert MEMORY.peak(CPU) > base + T * B * H * 8    # the step scopes did hold memory
        assert scope.kids == [] and sorted(scope.local_var_names()) == ["U", "W", "b"]


def test_reversed_steps_run_last_time_step_first():
    prog, out, *_ = _elman(reverse=True)
    records = []
    exe = pd.Executor(CPU)
    exe.subscribe(records.append)
    exe.run(prog, feed=_feed(), fetch_list=[out], scope=pd.Scope())
    run, = records[-1].scopes.kids
    assert [k.label for k in run.kids] == [f"step {t}" for t in reversed(range(T))]


# -- bad input -------------------------------------------------------------------------------------
def test_step_inputs_must_share_their_time_steps_at_build_time():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[3, B, FEATURES], append_batch_size=False)
        y = pd.layers.data("y", shape=[4, B, FEATURES], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with pytest.raises(OpBuildError, match="'y' has 4 time steps but 'x' has 3"):
            with rnn.step():
                rnn.step_input(x)
                rnn.step_input(y)


def test_step_inputs_must_share_their_time_steps_at_run_time():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[-1, B, FEATURES], append_batch_size=False)
        y = pd.layers.data("y", shape=[-1, B, FEATURES], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            rnn.step_output(rnn.step_input(x) + rnn.step_input(y))
        out = rnn()
    feed = {"x": np.zeros((3, B, FEATURES), "float32"), "y": np.zeros((4, B, FEATURES), "float32")}
    with pytest.raises(OpRunError, match="share their first .time. dimension, got x: 3, y: 4"):
        pd.Executor(CPU).run(prog, feed=feed, fetch_list=[out], scope=pd.Scope())


def test_memory_and_update_must_agree_at_build_time():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[T, B, FEATURES], append_batch_size=False)
        h0 = pd.layers.data("h0", shape=[B, H], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with pytest.raises(OpBuildError, match=r"is float32\[2, 5\] but its update 'x' is "
                                               r"float32\[2, 4\]"):
            with rnn.step():
                x_t = rnn.step_input(x)
                rnn.update_memory(rnn.memory(init=h0), x_t)


def test_memory_and_update_must_agree_at_run_time():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[T, -1, FEATURES], append_batch_size=False)
        h0 = pd.layers.data("h0", shape=[-1, FEATURES], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            h = rnn.memory(init=h0)
            new_h = rnn.step_input(x) + h
            rnn.update_memory(h, new_h)
            rnn.step_output(new_h)
        out = rnn()
    feed = {"x": np.zeros((T, 2, FEATURES), "float32"),
            "h0": np.zeros((1, FEATURES), "float32")}
    with pytest.raises(OpRunError,
                       match=r"has shape \(1, 4\) but its update .* has shape \(2, 4\)"):
        pd.Executor(CPU).run(prog, feed=feed, fetch_list=[out], scope=pd.Scope())


def test_a_memory_must_be_updated():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[T, B, FEATURES], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with pytest.raises(OpBuildError, match="is never updated"):
            with rnn.step():
                x_t = rnn.step_input(x)
                rnn.memory(shape=[-1, FEATURES], batch_ref=x_t)
                rnn.step_output(x_t)


def test_step_net_calls_belong_inside_the_step_block():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[T, B, FEATURES], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with pytest.raises(OpBuildError, match=r"must be called inside `with rnn.step\(\):`"):
            rnn.step_input(x)
        with pytest.raises(OpBuildError, match="after the `with rnn.step"):
            rnn()
        with pytest.raises(OpBuildError, match="give init, or shape and batch_ref"):
            with rnn.step():
                rnn.memory()


def test_ifelse_inside_a_step_net_has_a_backward():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[T, B, FEATURES], dtype="float64", append_batch_size=False)
        c = pd.layers.data("c", shape=[B, 1], dtype="bool", append_batch_size=False)
        x.stop_gradient = False
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(x)
            rnn.step_output(row_ifelse(c, [x_t], lambda r: r * 2.0, lambda r: r * 3.0)[0])
        out = rnn()
        gx, = pd.gradients([pd.layers.reduce_sum(out)], [x])
    feed = {"x": np.ones((T, B, FEATURES)), "c": np.array([[True], [False]])}
    got, = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[gx], scope=pd.Scope())
    np.testing.assert_array_equal(got[:, 0], 2.0)
    np.testing.assert_array_equal(got[:, 1], 3.0)
