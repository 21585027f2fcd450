"""Watching belongs to the executor (or run) it is given to, in whichever threads run.

Executor A is watched (``exe.subscribe``), executor B is not, and both run many training
steps at the same time in two threads. A's records each hold exactly what A's run did alone
(every event of A's own scopes, none of B's); B's runs go exactly as they go when nobody
watches anything: inside them ``EVENTS.active`` is False (a ``py_func`` op of B's program
looks), and each makes as many Variables as it makes with nobody watching anywhere (so B
stays on its unobserved path, whatever that path is). One executor shared by two watched
threads gives each run a record of its own run only.
"""

import sys
import threading

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core.events import EVENTS
from paddle_nb.core.variable import Variable

CPU = pd.CPUPlace()
STEPS = 25
X = np.random.default_rng(5).uniform(-1, 1, (4, 3)).astype("float32")


@pytest.fixture(autouse=True)
def busy_switching():
    """Let the interpreter switch threads every microsecond, so that the runs interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _program(spy=None):
    """fc(4, relu) -> mean, trained by SGD; with ``spy``, a py_func op calls spy(x) too."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        loss = pd.layers.mean(pd.layers.fc(x, 4, act="relu"))
        pd.optimizer.SGD(0.1).minimize(loss)
        fetch = [loss]
        if spy is not None:
            out = main.current_block().create_var(name="spied", dtype="float32", shape=[-1, 3])
            fetch.append(pd.static.py_func(spy, x, out))
    return main, startup, fetch


def _ready(spy=None):
    main, startup, fetch = _program(spy)
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(startup, scope=scope)
    return exe, scope, lambda: exe.run(main, feed={"x": X}, fetch_list=fetch, scope=scope)


def _in_threads(*targets):
    """Run each target in a thread of its own, all started together; re-raise an error."""
    errors, start = [], threading.Barrier(len(targets))

    def guarded(target):
        try:
            start.wait(10)
            target()
        except BaseException as err:          # reported by the test's thread, not lost
            errors.append(err)
    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]


def _what_happened(record):
    """A record's events without scope ids (each run makes new scopes): what a run did."""
    return [(at, kind, name, nbytes) for at, kind, _, name, nbytes, _ in record.events]


def _strangers(record):
    """Events of scopes that are not the run's own (its user scope and what it made)."""
    own = {s.id for s in record.scopes.walk()} | {None}
    return [e for e in record.events if e[2] not in own]


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


def test_a_watched_and_an_unwatched_executor_in_two_threads_each_see_only_their_own(
        monkeypatch):
    active_in_b = []

    def spy(x):                      # runs inside B's runs, in B's thread
        active_in_b.append(EVENTS.active)
        return x
    exe_a, _, run_a = _ready()
    exe_b, _, run_b = _ready(spy)
    records = []
    exe_a.subscribe(records.append)
    count = VariableCount(monkeypatch)

    for _ in range(3):               # alone, nobody else running: what each run does
        run_a()
        before = count.of_this_thread()
        run_b()
        alone_b = count.of_this_thread() - before
    alone_a = _what_happened(records[-1])
    assert alone_a and active_in_b == [False] * 3
    del records[:]

    made_by_b, a_done = [], threading.Event()

    def steps_of_b():                # B runs for as long as A does
        while not a_done.is_set() or len(made_by_b) < STEPS:
            before = count.of_this_thread()
            run_b()
            made_by_b.append(count.of_this_thread() - before)

    def steps_of_a():
        for _ in range(STEPS):
            run_a()
        a_done.set()
    _in_threads(steps_of_a, steps_of_b)

    assert len(records) == STEPS and not any(r.failed for r in records)
    assert [_strangers(r) for r in records] == [[]] * STEPS      # none of B's events
    assert all(_what_happened(r) == alone_a for r in records)   # and all of A's
    assert active_in_b == [False] * (3 + len(made_by_b))
    assert made_by_b == [alone_b] * len(made_by_b)


def test_one_executor_shared_by_two_threads_records_each_run_alone():
    """Both threads' runs are watched (the listener is the executor's): each record holds
    its own run's events, as a run alone records them."""
    main, startup, fetch = _program()
    exe, scopes, records = pd.Executor(CPU), [pd.Scope() for _ in range(3)], []
    for scope in scopes:
        exe.run(startup, scope=scope)

    def steps(scope, count=STEPS):
        for _ in range(count):
            exe.run(main, feed={"x": X}, fetch_list=fetch, scope=scope)
    exe.subscribe(records.append)
    steps(scopes[2], 2)                  # (its first run checks results: a second run)
    alone = _what_happened(records[-1])
    del records[:]
    _in_threads(lambda: steps(scopes[0]), lambda: steps(scopes[1]))
    assert len(records) == 2 * STEPS
    assert [_strangers(r) for r in records] == [[]] * (2 * STEPS)
    assert all(_what_happened(r) == alone for r in records)


def test_core_event_listeners_of_one_thread_leave_another_thread_unobserved():
    """EVENTS.listening in the test's thread: the other thread's executor runs unobserved
    (its py_func sees EVENTS.active False) and none of its scopes' events arrive."""
    active_inside, heard = [], []

    def spy(x):
        active_inside.append(EVENTS.active)
        return x
    _, scope, run = _ready(spy)
    done = threading.Event()

    def other():
        for _ in range(STEPS):
            run()
        done.set()
    with EVENTS.listening(heard.append):
        thread = threading.Thread(target=other)
        thread.start()
        mine = 0
        while not done.is_set() or mine < 3:      # this thread makes its own events meanwhile
            pd.Scope().var("mine").get_tensor().set(np.zeros(2, "float32"), CPU)
            mine += 1
        thread.join(60)
    assert active_inside == [False] * STEPS
    assert heard and all(e.name in (None, "mine") for e in heard)
    assert not [e for e in heard if e.scope is scope]


def test_a_watched_run_on_an_env_leaves_another_executor_unwatched_in_any_thread(monkeypatch):
    """A and B run a program without control flow (so both on an env of arrays), A watched,
    B not, by turns in this thread and then at the same time in two threads: no hook is
    ever called in B's runs (no watched interpreter is made for B), B makes no Variable,
    and A's records are each A's run alone."""
    from paddle_nb.executor import interpreter
    watched_for = []
    real_init = interpreter.WatchedInterpreter.__init__

    def spy_init(self, plan, executor, *args):
        watched_for.append(executor)
        real_init(self, plan, executor, *args)
    monkeypatch.setattr(interpreter.WatchedInterpreter, "__init__", spy_init)
    exe_a, _, run_a = _ready()
    exe_b, _, run_b = _ready()
    records = []
    exe_a.subscribe(records.append)
    count = VariableCount(monkeypatch)
    made_by_b = []

    def steps_of_b(n=STEPS):
        for _ in range(n):
            before = count.of_this_thread()
            run_b()
            made_by_b.append(count.of_this_thread() - before)

    def steps_of_a(n=STEPS):
        for _ in range(n):
            run_a()
    for _ in range(3):
        steps_of_a(1)
        steps_of_b(1)
    alone_a = _what_happened(records[-1])
    _in_threads(steps_of_a, steps_of_b)
    assert set(watched_for) == {exe_a} and len(watched_for) == 3 + STEPS
    assert made_by_b == [0] * (3 + STEPS)
    assert [_strangers(r) for r in records] == [[]] * (3 + STEPS)
    assert all(_what_happened(r) == alone_a for r in records[1:])
