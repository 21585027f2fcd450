"""A view of a live scope is a snapshot, even while other threads change the scope.

``snapshot_scope(scope)`` and ``pd.viz.html_of(scope)`` read a scope that training threads
may be changing: kids made and destroyed, variables created, erased, allocated and freed.
They list each scope's variables and kids once, leave out what died while they read, and
never raise for it (no ScopeDestroyedError, no "changed size during iteration"). A snapshot
holds only variables and scopes that were really there.
"""

import sys
import threading

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core.variable import Variable
from paddle_nb.executor.record import snapshot_scope

CPU = pd.CPUPlace()
ROUNDS = 150
NAMES = [f"v{k}" for k in range(8)]


@pytest.fixture(autouse=True)
def busy_switching():
    """Let the interpreter switch threads every microsecond, so that the races show up."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _churn(parent, k, stop):
    """Make a kid of ``parent`` (with variables and a grandkid), change it, destroy it."""
    rounds = 0
    while not stop.is_set() or rounds < 5:
        kid = parent.new_scope(label=f"worker {k}")
        kid.var("a").get_tensor().set(np.zeros(3, "float32"), CPU)
        for name in NAMES:
            kid.var(name).get_tensor().set(np.zeros(2, "float32"), CPU)
        grandkid = kid.new_scope(label="step")
        grandkid.var("b").get_tensor().set(np.ones(2, "float32"), CPU)
        kid.var("c")
        kid.erase("a")
        grandkid.var("b").get_tensor().free()
        (kid.drop_kids if rounds % 2 else kid.destroy)()
        kid.destroy()
        rounds += 1


def _with_churning_threads(parent, look, rounds=ROUNDS, threads=3):
    """Call ``look()`` ``rounds`` times while ``threads`` threads churn ``parent``'s kids."""
    stop, errors = threading.Event(), []

    def guarded(k):
        try:
            _churn(parent, k, stop)
        except BaseException as err:       # reported by the test's thread
            errors.append(err)
    workers = [threading.Thread(target=guarded, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    try:
        return [look() for _ in range(rounds)]
    finally:
        stop.set()
        for w in workers:
            w.join(30)
        assert not any(w.is_alive() for w in workers)
        assert errors == []


def test_a_snapshot_of_a_parent_whose_kids_come_and_go_holds_only_what_was_there():
    parent = pd.Scope()
    parent.var("w").get_tensor().set(np.arange(4, dtype="float32"), CPU)
    snaps = _with_churning_threads(parent, lambda: snapshot_scope(parent, with_values=True))
    for snap in snaps:
        assert [(v.name, v.state, v.shape) for v in snap.vars] == [("w", "allocated", (4,))]
        np.testing.assert_array_equal(snap.vars[0].value, np.arange(4))
        for kid in snap.kids:
            assert kid.label.startswith("worker ")
            assert {v.name for v in kid.vars} <= {"a", "c", *NAMES}
            assert all(g.label == "step" and {v.name for v in g.vars} <= {"b"}
                       for g in kid.kids)
    assert parent.kids == [] and parent.is_alive()


def test_html_of_a_live_scope_draws_while_other_threads_change_it():
    parent = pd.Scope()
    parent.var("w").get_tensor().set(np.zeros(2, "float32"), CPU)
    pd.viz.html_of(parent)               # (its first call loads the viewer's assets)
    pages = _with_churning_threads(parent, lambda: pd.viz.html_of(parent))
    assert all("w" in page for page in pages)


def test_a_snapshot_of_a_destroyed_scope_still_says_so():
    scope = pd.Scope()
    scope.destroy()
    with pytest.raises(pd.errors.ScopeDestroyedError):
        snapshot_scope(scope)


def _rnn_training(spy=None):
    """A StaticRNN trained by SGD: each run makes a run scope and one step scope per step;
    with ``spy``, each step also calls spy(hidden state) through a py_func op."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[-1, 2, 3], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(x)
            h = rnn.memory(shape=[-1, 3], batch_ref=xt)
            nh = pd.layers.fc(pd.layers.elementwise_add(h, xt), 3, act="tanh")
            if spy is not None:
                seen = main.current_block().create_var(name="seen", dtype="float32",
                                                       shape=[-1, 3])
                pd.static.py_func(spy, nh, seen)
            rnn.update_memory(h, nh)
            rnn.step_output(nh)
        loss = pd.layers.mean(rnn())
        pd.optimizer.SGD(0.1).minimize(loss)
    feed = {"x": np.random.default_rng(0).uniform(-1, 1, (4, 2, 3)).astype("float32")}

    def train(scope, more):
        exe = pd.Executor(CPU, seed=3)
        exe.run(startup, scope=scope)
        losses = []
        while more(len(losses)):
            losses.extend(exe.run(main, feed=feed, fetch_list=[loss], scope=scope))
        return losses
    return train


def test_snapshots_of_a_scope_a_training_thread_runs_in_change_nothing_it_computes():
    train, scope, looked = _rnn_training(), pd.Scope(), []
    losses, errors = [], []

    def worker():
        try:
            losses.extend(train(scope, lambda n: n < 20 or len(looked) < ROUNDS))
        except BaseException as err:          # reported by the test's thread
            errors.append(err)
    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        looked.append(snapshot_scope(scope, with_values=True))
    thread.join(30)
    assert errors == [] and len(looked) >= ROUNDS
    np.testing.assert_array_equal(losses, train(pd.Scope(), lambda n: n < len(losses)))
    assert all(s.id == scope.id for s in looked)


class VariableCount:
    """Counts the Variables each thread makes (every Variable is made by Variable.for_scope)."""

    def __init__(self, monkeypatch):
        self.made, real = {}, Variable.for_scope

        def counted(cls, *args, **kwargs):
            key = threading.get_ident()
            self.made[key] = self.made.get(key, 0) + 1
            return real(*args, **kwargs)
        monkeypatch.setattr(Variable, "for_scope", classmethod(counted))

    def of_this_thread(self):
        return self.made.get(threading.get_ident(), 0)


def test_a_view_of_a_paused_run_makes_no_variables_in_it(monkeypatch):
    """A training thread stops inside its third RNN step; the test's thread takes a snapshot
    of the scope it trains in (the run scope, the finished step scopes with their values)
    and makes no Variable doing so: the values a step left without Variables are read as
    they are. The run then goes on to the loss a run alone computes."""
    paused, resume = threading.Event(), threading.Event()

    def pause(h):
        if threading.current_thread().name == "trainer" and not paused.is_set():
            pause.calls = getattr(pause, "calls", 0) + 1
            if pause.calls == 3:
                paused.set()
                resume.wait(30)
        return h
    train, scope = _rnn_training(pause), pd.Scope()
    count, losses = VariableCount(monkeypatch), []
    trainer = threading.Thread(target=lambda: losses.extend(train(scope, lambda n: n < 1)),
                               name="trainer")
    trainer.start()
    try:
        assert paused.wait(30)
        before = count.of_this_thread()
        snap = snapshot_scope(scope, with_values=True)
        made = count.of_this_thread() - before
    finally:
        resume.set()
        trainer.join(30)
    assert made == 0
    steps = [s for s in snap.walk() if s.label in ("step 0", "step 1")]
    assert len(steps) == 2 and all(s.vars for s in steps)
    assert all(v.state != "allocated" or v.value is not None for s in steps for v in s.vars)
    np.testing.assert_array_equal(losses, train(pd.Scope(), lambda n: n < 1))
