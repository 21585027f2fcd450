"""Threads: building state is per thread, and one Executor may be shared between threads.

``program_guard``, ``scope_guard`` and the default programs they swap live in ContextVars
(framework/context.py, core/scope.py): two threads each inside their own guard build exactly
what one thread builds alone. An Executor keeps the state of a run in progress per thread
(executor/executor.py), so two threads running their own programs on their own scopes put
every persistable in the right scope.
"""

import sys
import threading

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.machinery import registry


@pytest.fixture
def busy_switching():
    """Let the interpreter switch threads every microsecond, so that races show up."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _in_threads(target, args_list):
    """Run ``target(*args)`` for each args in a thread of its own; re-raise the first error."""
    errors = []

    def guarded(*args):
        try:
            target(*args)
        except BaseException as err:     # reported by the test's thread, not lost
            errors.append(err)
    threads = [threading.Thread(target=guarded, args=args) for args in args_list]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]


# -- building ----------------------------------------------------------------------------------
def _build(k):
    """A program that differs by thread: k + 2 fc layers, scaled by k."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        h = pd.layers.data("x", shape=[4])
        for _ in range(k + 2):
            h = pd.layers.scale(pd.layers.fc(h, 4, act="relu"), float(k + 1))
        pd.layers.mean(h)
    return main.serialize(), startup.serialize()


def test_threads_building_under_their_own_guards_build_what_one_thread_builds(busy_switching):
    alone = {k: _build(k) for k in range(4)}
    built = {k: [] for k in alone}

    def build_many(k):
        for _ in range(10):
            built[k].append(_build(k))
    for _ in range(3):
        _in_threads(build_many, [(k,) for k in alone])
    for k, pairs in built.items():
        assert len(pairs) == 30 and all(pair == alone[k] for pair in pairs), k


def test_a_guard_holds_for_its_own_thread_only_and_a_new_thread_starts_from_the_defaults():
    mine, entered, release = pd.Program(), threading.Event(), threading.Event()
    seen = {}

    def other():
        seen["before"] = pd.default_main_program()
        with pd.program_guard(pd.Program()) as theirs, pd.scope_guard(pd.Scope()) as scope:
            seen["theirs"], seen["scope"] = theirs, scope
            entered.set()
            release.wait(10)
    with pd.program_guard(mine), pd.scope_guard(pd.Scope()) as my_scope:
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
        assert pd.default_main_program() is mine and pd.global_scope() is my_scope
        release.set()
        thread.join(10)
    assert seen["before"] is pd.default_main_program()        # the process default, not mine
    assert seen["theirs"] is not mine and seen["scope"] is not my_scope
    assert pd.global_scope() is not my_scope


# -- one Executor, two threads -------------------------------------------------------------------
def _looping_program(k, max_iterations=None):
    """x @ W_k doubled three times in a While (a raw op: the scope path); the loop also writes
    ``total_k``, a persistable that no op before the loop makes, so the loop's run creates it
    in the user's scope."""
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[3])
        init = pd.initializer.Constant(k + 1.0)
        h = pd.layers.fc(x, 2, param_attr=pd.ParamAttr(name=f"W_{k}", initializer=init),
                         bias_attr=False)
        total = main.global_block().create_var(name=f"total_{k}", shape=[-1, 2],
                                               dtype="float32", persistable=True)
        i = pd.layers.fill_constant([1], "int64", 0)
        n = pd.layers.fill_constant([1], "int64", 3)
        c = pd.layers.less_than(i, n)
        loop = pd.layers.While(c, max_iterations=max_iterations)
        with loop.block():
            pd.layers.assign(h * 2.0, h)
            pd.layers.assign(h, total)
            pd.layers.increment(i)
            pd.layers.less_than(i, n, cond=c)
    return main, h


def _check_run(exe, k, prog, h):
    scope = pd.Scope()
    out, = exe.run(prog, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[h], scope=scope)
    want = np.full((2, 2), 3 * (k + 1) * 8, "float32")
    np.testing.assert_array_equal(out, want)
    assert sorted(scope.local_var_names()) == [f"W_{k}", f"total_{k}"]
    np.testing.assert_array_equal(scope.find_var(f"total_{k}").get_tensor().numpy(), want)


def test_one_executor_shared_by_threads_many_runs(busy_switching):
    """Two programs, each run by two threads (so plans are shared too), each run in a scope
    of its own: 4 x 100 runs."""
    exe = pd.Executor(pd.CPUPlace())
    programs = [_looping_program(k) for k in range(2)]

    def run_many(k):
        for _ in range(100):
            _check_run(exe, k, *programs[k])
    _in_threads(run_many, [(0,), (1,), (0,), (1,)])


def test_a_run_paused_while_another_thread_runs_still_undoes_its_own_failure(monkeypatch):
    """Deterministic: thread A stops inside its loop, the test's thread runs a whole program
    with the same Executor, then A goes on and its loop fails (too many iterations). A's run
    must still know what it has to undo: the error is the loop's, and A's scope is as before."""
    while_op = registry._REGISTRY["while"]
    original, paused, resume = while_op.kernel, threading.Event(), threading.Event()

    def pausing(ctx):
        if threading.current_thread().name == "A":
            paused.set()
            assert resume.wait(10)
        return original(ctx)
    monkeypatch.setattr(while_op, "kernel", pausing)    # before any plan binds the kernel
    exe = pd.Executor(pd.CPUPlace())
    failing, _ = _looping_program(0, max_iterations=2)
    scope_a, seen = pd.Scope(), []

    def run_a():
        try:
            exe.run(failing, feed={"x": np.ones((2, 3), "float32")}, scope=scope_a)
        except BaseException as err:
            seen.append(err)
    a = threading.Thread(target=run_a, name="A")
    a.start()
    try:
        assert paused.wait(10)
        _check_run(exe, 1, *_looping_program(1))
    finally:
        resume.set()
        a.join(10)
    assert len(seen) == 1 and isinstance(seen[0], pd.errors.OpRunError), seen
    assert "2 iterations" in str(seen[0])
    assert scope_a.local_var_names() == []        # W_0 and total_0, made by the run, erased
