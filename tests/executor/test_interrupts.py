"""Ctrl-C during ``Executor.run`` leaves the user's scope all old or all new.

A KeyboardInterrupt may arrive at any bytecode. These tests raise one at the
N-th function call of a training step (a profile hook counting calls, N over
the whole step) and check after each: every parameter and Adam moment holds
either its value from before the step or its value after it, all of them the
same one, every variable has a value, and no ``run`` kid scope is left.
"""

import sys

import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()


def _mlp_adam():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[4], dtype="float32")
        y = pd.layers.data("y", shape=[1], dtype="float32")
        h = pd.layers.fc(x, 5, act="relu")
        out = pd.layers.fc(h, 1)
        loss = pd.layers.mean(pd.layers.square_error_cost(out, y))
        pd.optimizer.Adam(0.1).minimize(loss)
    return prog, startup, loss


def _loop_sgd():
    """An fc trained by SGD, and a While loop whose body counts in a persistable: a write
    by a sub-block, seen through the run scope, committed with the others."""
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[4], dtype="float32")
        y = pd.layers.data("y", shape=[1], dtype="float32")
        out = pd.layers.fc(x, 1)
        loss = pd.layers.mean(pd.layers.square_error_cost(out, y))
        counter = prog.global_block().create_var(name="counter", shape=[1], dtype="float32",
                                                 persistable=True)
        startup.global_block().create_var(name="counter", shape=[1], dtype="float32",
                                          persistable=True)
        with pd.program_guard(startup):
            pd.layers.fill_constant([1], "float32", 0.0, out=startup.global_block().var(
                "counter"))
        i = pd.layers.fill_constant([1], "int64", 0)
        n = pd.layers.fill_constant([1], "int64", 2)
        cond = pd.layers.less_than(i, n)
        loop = pd.layers.While(cond)
        with loop.block():
            pd.layers.increment(counter)
            pd.layers.increment(i)
            pd.layers.less_than(i, n, cond=cond)
        pd.optimizer.SGD(0.1).minimize(loss)
    return prog, startup, loss


def _values(scope, names):
    return {n: np.array(scope.find_var(n).get_tensor().array(), copy=True) for n in names}


def _copy_scope(values):
    scope = pd.Scope()
    for name, array in values.items():
        scope.var(name).get_tensor().set(array.copy(), CPU)
    return scope


class _Interrupt:
    """A profile hook raising KeyboardInterrupt at the ``at``-th call (Python or C), or the
    first one after it outside a finalizer (where an exception would only be printed)."""

    def __init__(self, at):
        self.at, self.count = at, 0

    def __call__(self, frame, event, arg):
        if event in ("call", "c_call"):
            self.count += 1
            if self.count >= self.at > 0 and not _in_finalizer(frame):
                self.at = 0
                raise KeyboardInterrupt(f"interrupt at call {self.count}")


def _in_finalizer(frame):
    while frame is not None:
        if frame.f_code.co_name in ("__del__", "gc_callback"):   # (errors there are only printed)
            return True
        frame = frame.f_back
    return False


def _run_profiled(exe, prog, scope, feed, loss, hook):
    sys.setprofile(hook)
    try:
        exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    finally:
        sys.setprofile(None)


@pytest.mark.parametrize("build", [_mlp_adam, _loop_sgd], ids=["adam", "while"])
@pytest.mark.parametrize("watched", [False, True], ids=["unwatched", "watched"])
def test_an_interrupt_anywhere_in_a_step_leaves_the_scope_all_old_or_all_new(watched, build):
    prog, startup, loss = build()
    base = pd.Scope()
    exe = pd.Executor(CPU)
    exe.run(startup, scope=base)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((3, 4)).astype("float32"),
            "y": rng.standard_normal((3, 1)).astype("float32")}
    exe.run(prog, feed=feed, fetch_list=[loss], scope=base)       # moments not zero
    names = [v.name for v in prog.global_block().vars.values() if v.persistable
             and base.find_var(v.name) is not None]
    old = _values(base, names)
    if watched:
        exe.subscribe(lambda record: None)
    done = _copy_scope(old)
    counter = _Interrupt(at=-1)
    _run_profiled(exe, prog, done, feed, loss, counter)            # warm, and count the calls
    new = _values(done, names)
    assert any(not np.array_equal(old[n], new[n]) for n in names)
    total = counter.count
    points = sorted(set(range(1, total, max(1, total // 300)))
                    | set(range(max(1, total - 150), total + 1)))
    assert len(points) >= 300
    outcomes = {"old": 0, "new": 0}
    for at in points:
        scope = _copy_scope(old)
        try:
            _run_profiled(exe, prog, scope, feed, loss, _Interrupt(at))
        except KeyboardInterrupt:
            pass
        assert scope.kids == [], f"interrupt at call {at} left kid scopes {scope.kids}"
        held = {}
        for n in names:
            tensor = scope.find_var(n).get_tensor()
            assert tensor.is_allocated(), f"interrupt at call {at}: '{n}' has no value"
            held[n] = tensor.array()
        if all(np.array_equal(held[n], old[n]) for n in names):
            outcomes["old"] += 1
        else:
            torn = [n for n in names if not np.array_equal(held[n], new[n])]
            assert not torn, f"interrupt at call {at}: {torn} old, the others new"
            outcomes["new"] += 1
    assert outcomes["old"] > 0 and outcomes["new"] > 0, outcomes
