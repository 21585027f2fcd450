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

import paddle_nb as pd
from paddle_nb.core.memory import MEMORY
from paddle_nb.core.scope import Scope
from paddle_nb.executor import step_runs
from paddle_nb.ops.machinery.context import KernelContext, RawContext, StepRunner
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
    original = Scope.new_scope

    def spy(self, label=None, kind=None):
        made.append(label)
        return original(self, label, kind)
    monkeypatch.setattr(Scope, "new_scope", spy)
    return made


def _train(observed, steps=2):
    prog, feed, fetch = _program()
    exe = pd.Executor(CPU, seed=4)
    if observed:
        exe.subscribe(lambda record: None)
    scope = pd.Scope()
    got = [exe.run(prog, feed=feed, fetch_list=fetch, scope=scope) for _ in range(steps)]
    params = {n: scope.find_var(n).get_tensor().numpy() for n in ("W", "U", "b")}
    return got, params, scope


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


def test_framed_steps_and_plain_steps_agree_bit_for_bit():
    got, params, _ = _train(observed=False)
    want, want_params, _ = _train(observed=True)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    for name, value in want_params.items():
        np.testing.assert_array_equal(params[name], value, err_msg=name)


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
