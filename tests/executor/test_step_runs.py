"""An RNN's steps through ``ctx.step_runner`` (executor/step_runs.py): array moves, same answers.

In a run nobody watches, ``recurrent`` runs its step block through a FramedSteps (each
step's env gathered from a template, the step scope holding it as a frame) and
``recurrent_grad`` runs its grad block on an env alone (``read_once``: no grad kid scope
that nobody could see). A watched run goes through the plain StepRunner, Variables and a
"grad" kid per step. These tests check the scopes each way makes, that both give the same
values bit for bit, that the frames' bytes are given back, and that a raw op's slot names
are read once per op run but handed out as the caller's own lists.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.framework import unique_name
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.scope import Scope
from paddle_nb.executor import step_runs
from paddle_nb.executor.frames import FrameScope
from paddle_nb.ops.machinery.context import KernelContext, RawContext, StepRunner
from tests.executor.training import train
from tests.layers import elman_rnn

CPU = pd.CPUPlace()
T, B, W, H = 4, 2, 3, 5


def _program():
    prog = pd.Program()
    with pd.program_guard(prog):
        x, _, out = elman_rnn(T, B, W, H)
        loss = pd.layers.reduce_mean(out * out)
        gx, = pd.gradients([loss], [x])
        pd.optimizer.SGD(0.1).minimize(loss)
    rng = np.random.default_rng(3)
    feed = {"x": rng.standard_normal((T, B, W)), "h0": rng.standard_normal((B, H))}
    return prog, feed, [out, loss, gx]


def _labels_made(monkeypatch):
    """The labels of the scopes made from now on, in order."""
    made = []
    original, many = Scope.new_scope, Scope.new_scopes

    def spy(self, label=None, kind=None):
        made.append(label)
        return original(self, label, kind)

    def spy_many(self, labels):          # (an RNN's step scopes, made at once)
        labels = list(labels)
        made.extend(labels)
        return many(self, labels)
    monkeypatch.setattr(Scope, "new_scope", spy)
    monkeypatch.setattr(Scope, "new_scopes", spy_many)
    return made


def _train(observed, steps=2):
    with unique_name.guard():        # the same names both times
        prog, feed, fetch = _program()
    return train(prog, feed, fetch, observed, steps, seed=4)


def test_unwatched_steps_make_step_scopes_and_no_grad_kids(monkeypatch):
    labels = _labels_made(monkeypatch)
    _, _, scope = _train(observed=False, steps=1)
    steps = [f"step {t}" for t in range(T)]
    # the forward's step scopes (for each of gradients() and minimize()'s backward), no kid
    # scope for the grad block: its values are read at once and nobody could see it
    assert [n for n in labels if n != "run"] == steps
    assert "grad" not in labels and scope.kids == []


def test_watched_steps_keep_a_grad_kid_per_step(monkeypatch):
    labels = _labels_made(monkeypatch)
    _train(observed=True, steps=1)
    assert labels.count("grad") == 2 * T          # gradients() and minimize()'s backward
    assert [n for n in labels if n.startswith("step")] == [f"step {t}" for t in range(T)]


def _same_bits(got, want, params, want_params):
    """Two runs' outputs and parameters equal bit for bit, dtypes and shapes too."""
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    for name, value in want_params.items():
        np.testing.assert_array_equal(params[name], value, err_msg=name)


def test_framed_steps_and_plain_steps_agree_bit_for_bit():
    got, params, _ = _train(observed=False)
    want, want_params, _ = _train(observed=True)
    _same_bits(got, want, params, want_params)


def test_the_steps_went_through_framed_steps(monkeypatch):
    kinds = []
    original = step_runs.FramedContext.step_runner

    def spy(self, *args, **kwargs):
        runner = original(self, *args, **kwargs)
        kinds.append((type(runner).__name__, getattr(runner, "fast", None)))
        return runner
    monkeypatch.setattr(step_runs.FramedContext, "step_runner", spy)
    _train(observed=False, steps=1)
    assert kinds and all(k == ("FramedSteps", True) for k in kinds)
    kinds.clear()
    _train(observed=True, steps=1)
    assert kinds and all(name == StepRunner.__name__ for name, _ in kinds)


def test_frames_bytes_are_given_back():
    prog, feed, fetch = _program()
    exe = pd.Executor(CPU)
    scope = pd.Scope()
    exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)     # parameters made
    base = MEMORY.in_use(CPU)
    for _ in range(2):
        exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)
        assert MEMORY.in_use(CPU) == base


def test_a_raw_ops_slot_names_are_read_once_and_are_the_callers_own_lists():
    class Op:                      # counts how often its slots are read from its desc
        type, reads = "some_op", 0

        @property
        def inputs(self):
            Op.reads += 1
            return {"X": ["a", "b"]}

        outputs = {"Out": ["c"]}
    ctx = RawContext(KernelContext(CPU), pd.Scope(), Op(), {}, lambda *a, **k: None)
    names = ctx.input_names("X")
    names.append("not an input")              # the caller's list: nothing else changes
    assert ctx.input_names("X") == ["a", "b"] and ctx.input_names("Y") == []
    assert ctx.output_names("Out") == ["c"] and Op.reads == 1


def test_an_ops_slots_are_read_once_per_program_version(monkeypatch):
    from paddle_nb.framework.operator import Operator
    reads = []
    original = Operator.inputs.fget

    def counted(self):
        reads.append(self.type)
        return original(self)
    monkeypatch.setattr(Operator, "inputs", property(counted))
    prog, feed, fetch = _program()
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)      # (planning reads them too)
    first = reads.count("recurrent"), reads.count("recurrent_grad")
    exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)
    assert (reads.count("recurrent"), reads.count("recurrent_grad")) == first
    prog.bump_version()                   # an edit: the slots are read again
    exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)
    assert reads.count("recurrent") > first[0]


# -- the written-out loops (executor/step_loops.py) ------------------------------------------------
def _two_memory_program():
    """Two step inputs, two memories (one from an initial state, one filled with 0.5), two
    outputs (one of them a memory's update too), gradients of the inputs, the initial state
    and the parameters: every kind of slot the written loops place."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[T, B, W], dtype="float64", append_batch_size=False)
        y = pd.layers.data("y", shape=[T, B, H], dtype="float64", append_batch_size=False)
        h0 = pd.layers.data("h0", shape=[B, H], dtype="float64", append_batch_size=False)
        for v in (x, y, h0):
            v.stop_gradient = False
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t, y_t = rnn.step_input(x), rnn.step_input(y)
            h_pre = rnn.memory(init=h0)
            c_pre = rnn.memory(shape=[-1, H], batch_ref=x_t, init_value=0.5)
            h = pd.layers.tanh(pd.layers.fc(x_t, H, param_attr="W", bias_attr=False)
                               + pd.layers.fc(h_pre, H, param_attr="U", bias_attr="b"))
            c = c_pre * y_t + h
            rnn.update_memory(h_pre, h)
            rnn.update_memory(c_pre, c)
            rnn.step_output(h)
            rnn.step_output(c * 2.0)
        out_h, out_c = rnn()
        loss = pd.layers.reduce_mean(out_h * out_c)
        grads = pd.gradients([loss], [x, y, h0])
        pd.optimizer.SGD(0.1).minimize(loss)
    rng = np.random.default_rng(5)
    feed = {"x": rng.standard_normal((T, B, W)), "y": rng.standard_normal((T, B, H)),
            "h0": rng.standard_normal((B, H))}
    return prog, feed, [out_h, out_c, loss] + grads


def test_written_loops_and_plain_steps_agree_on_two_memories_bit_for_bit(monkeypatch):
    prog, feed, fetch = _two_memory_program()
    written = []
    for name in ("forward_loop", "backward_loop"):
        original = getattr(step_runs, name)
        monkeypatch.setattr(step_runs, name,
                            lambda *args, original=original: written.append(args) or
                            original(*args))
    results = []
    for observed in (False, True):
        exe = pd.Executor(CPU, seed=2)
        if observed:
            exe.subscribe(lambda record: None)
        scope = pd.Scope()
        got = [exe.run(prog, feed=feed, fetch_list=fetch, scope=scope) for _ in range(2)]
        results.append((got, {n: scope.find_var(n).get_tensor().numpy()
                              for n in ("W", "U", "b")}))
    (got, params), (want, want_params) = results
    # the unwatched run went through written loops: 2 inputs and 2 memories in, 2 outputs
    # and 2 updates out; a backward loop per grad block layout
    assert [len(args[0]) for args in written if len(args) == 3] == [4]
    assert any(len(args) == 8 for args in written)
    _same_bits(got, want, params, want_params)


def test_the_loops_are_written_once_per_block_and_layout(monkeypatch):
    written = []
    for name in ("forward_loop", "backward_loop"):
        original = getattr(step_runs, name)

        def spy(*args, original=original, name=name):
            written.append(name)
            return original(*args)
        monkeypatch.setattr(step_runs, name, spy)
    _train(observed=False, steps=3)
    # one forward loop, one backward loop (gradients() and minimize() share the grad block's
    # layout, or each has its own): never one per run
    assert written.count("forward_loop") == 1
    assert 1 <= written.count("backward_loop") <= 2


def test_written_loops_hold_only_positions():
    from paddle_nb.executor.step_loops import backward_loop, forward_loop
    forward = forward_loop((2, 7, 5), 2, (10, 11))
    backward = backward_loop(2, (0,), (0, 1), (3, 4, 9, 12), 1, 1, ((5, 2), (6, 0)), (7, 8))
    assert forward.__name__ == "forward" and backward.__name__ == "backward"
    with pytest.raises(ValueError):
        forward_loop(("2]; import os; x = [0",), 1, ())


def test_the_written_backward_loop_seeds_as_back_ins_does():
    """Slot 1 gets both a row and a carried value (added), slot 2 a carried value only
    (zeros where none came); outs: one kept per step, one summed, two carried."""
    from paddle_nb.executor.step_loops import backward_loop
    from paddle_nb.ops.machinery.context import back_ins
    steps, rng = 4, np.random.default_rng(1)
    rows = [rng.standard_normal((steps, 2)), rng.standard_normal((steps, 2))]
    # what each step's run gives back (the last step first): some carried values missing
    outs = {k: [np.full(2, k), np.full(2, 10.0 * k), None if k == 2 else np.full(2, k + .5),
                np.full(2, -k) if k % 2 else None] for k in range(steps)}
    seen, want = [], []

    def fallback(parent, label, arrays):
        seen.append(arrays)
        return None, outs[parent]

    def zero(k, j):
        return np.zeros(2) - 100 * k - j
    loop = backward_loop(3, (0, 1), (1, 2), (0, 1, 2, 3), 1, 1, (), (0, 1, 2))
    each = [[None] * steps]
    sums, carried = loop(list(range(steps)), list(range(steps)), rows, zero, None, None,
                         fallback, FrameScope, each, lambda peak: None, None)
    last = [None, None]
    for k in reversed(range(steps)):
        want.append(back_ins(3, [(0, rows[0]), (1, rows[1])], [1, 2], zero, k, k, last))
        last = outs[k][2:]
    assert len(seen) == len(want) == steps
    for got, expected in zip(seen, want):
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a, b)
    assert [e[0] for e in each[0]] == [0, 1, 2, 3]
    np.testing.assert_array_equal(sums[0], np.full(2, 60.0))
    assert carried[0][0] == 0.5 and carried[1] is None       # step 0's


def _dividing_rnn():
    """out_t = x_t / x_t + h_{t-1} on int64 rows: a step whose row holds a zero fails."""
    prog = pd.Program()
    with pd.program_guard(prog):
        xs = pd.layers.data("x", shape=[T, B], dtype="int64", append_batch_size=False)
        h0 = pd.layers.fill_constant([B], "int64", 0)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(xs)
            h_pre = rnn.memory(init=h0)
            h = pd.layers.elementwise_add(pd.layers.elementwise_div(x_t, x_t), h_pre)
            rnn.update_memory(h_pre, h)
            rnn.step_output(h)
        out = rnn()
    return prog, out


def test_a_step_failing_midway_leaves_its_step_scopes_and_bytes_behind_it(monkeypatch):
    """Every step scope is made before the first step (as PaddlePaddle's recurrent makes
    them) and each holds its step's values once it has run; a step that fails leaves the
    counts of memory where they were once the failed run has ended."""
    prog, out = _dividing_rnn()
    exe, scope = pd.Executor(CPU), pd.Scope()
    ones = np.ones((T, B), "int64")
    np.testing.assert_array_equal(exe.run(prog, feed={"x": ones}, fetch_list=[out],
                                          scope=scope)[0], np.cumsum(ones, axis=0))
    seen = []
    original = FrameScope.attach_frame

    def spy(self, frame):               # the step scopes as each step's frame comes in
        if str(self.label).startswith("step"):
            seen.append([(k.label, k.frame is not None) for k in self.parent.kids])
        return original(self, frame)
    monkeypatch.setattr(FrameScope, "attach_frame", spy)
    base = MEMORY.in_use(CPU)
    bad = ones.copy()
    bad[2, 1] = 0
    with pytest.raises(pd.errors.OpRunError, match="division by zero"):
        exe.run(prog, feed={"x": bad}, fetch_list=[out], scope=scope)
    assert MEMORY.in_use(CPU) == base and scope.kids == []
    labels = [f"step {t}" for t in range(T)]
    assert seen == [list(zip(labels, [True] * k + [False] * (T - k))) for k in range(2)]
