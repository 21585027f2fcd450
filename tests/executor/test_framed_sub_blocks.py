"""Sub-blocks run on frames: the same results as the scope path, nothing left behind.

When nothing observes a run, a sub-block without control flow runs on a list
of arrays (``FramedBlock.run_env``, executor/frames.py) and leaves its own variables in its scope
as a Frame; a listener on the executor forces the old path (a Variable for
every name). These tests run the same programs both ways and compare, check
that the frames' bytes are given back when the run ends, that a loop body's
writes to outer variables (counter, condition, parameters) land where they
must, that a failed run puts back the persistables a sub-block wrote, and
that ``run_block`` called directly leaves a Frame the scope can answer from.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.framework import unique_name
from paddle_nb.core.memory import MEMORY
from paddle_nb.errors import OpRunError
from paddle_nb.executor.frames import FramedBlock, FrameScope
from tests.executor.training import train
from tests.layers import counted_while, elman_rnn, row_ifelse, tanh_fc_while

CPU = pd.CPUPlace()
T, B, FEATURES, H = 3, 2, 4, 5


@pytest.fixture
def framed(monkeypatch):
    """The block indexes of the sub-block runs that ran on frames, in order: every one goes
    through ``FramedBlock.run_env`` (``FramedBlock.run``) or the function its ``env_runner``
    gives (an RNN's step runner, for a whole pass)."""
    blocks = []
    original, runner = FramedBlock.run_env, FramedBlock.env_runner

    def spy(self, *args, **kwargs):
        blocks.append(self.plan.block.idx)
        return original(self, *args, **kwargs)

    def spy_runner(self):
        run = runner(self)
        if run == self.run_env:          # (its runs reach the spy above)
            return run

        def counted(*args):
            blocks.append(self.plan.block.idx)
            return run(*args)
        return counted
    monkeypatch.setattr(FramedBlock, "run_env", spy)
    monkeypatch.setattr(FramedBlock, "env_runner", spy_runner)
    return blocks


# -- programs -------------------------------------------------------------------------------------
def _rnn(sgd=True, failing=False):
    """h_t = tanh(x_t W + h_{t-1} U + b) over T steps; loss = mean(out^2), one SGD step (or
    the parameters' gradients fetched). ``failing``: then p + q, which fails when p and q
    have different batch sizes."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x, h0, out = elman_rnn(T, B, FEATURES, H)
        loss = pd.layers.reduce_mean(out * out)
        extra = []
        if failing:
            p = pd.layers.data("p", shape=[3], dtype="float64")
            q = pd.layers.data("q", shape=[3], dtype="float64")
            extra = [p + q]
        gx, = pd.gradients([loss], [x])
        if sgd:
            pd.optimizer.SGD(0.1).minimize(loss)
            grads = []
        else:
            grads = [g for _, g in pd.append_backward(loss)]
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((T, B, FEATURES)), "h0": rng.standard_normal((B, H))}
    return prog, feed, [out, loss, gx] + grads + extra


def _while():
    """h <- tanh(h W + b) three times, from h = x; one SGD step on W and b."""
    prog = pd.Program()
    with pd.program_guard(prog):
        _, h, i, loss = tanh_fc_while(3)
        pd.optimizer.SGD(0.05).minimize(loss)
    feed = {"x": np.random.default_rng(1).standard_normal((2, 3))}
    return prog, feed, [h, loss, i]


def _ifelse():
    """Rows with c: a * b; rows without: fc(b); one SGD step on the fc weight."""
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[3], dtype="float64")
        b = pd.layers.data("b", shape=[3], dtype="float64")
        c = pd.layers.data("c", shape=[1], dtype="bool")
        o, = row_ifelse(c, [a, b], lambda a, b: a * b, lambda a, b: pd.layers.tanh(
            pd.layers.fc(b, 3, param_attr="w", bias_attr=False)))
        loss = pd.layers.reduce_sum(o * o)
        pd.optimizer.SGD(0.1).minimize(loss)
    rng = np.random.default_rng(2)
    feed = {"a": rng.standard_normal((4, 3)), "b": rng.standard_normal((4, 3)),
            "c": np.array([[True], [False], [False], [True]])}
    return prog, feed, [o, loss]


def _cond():
    """pred ? a * 3 : fc(a); one SGD step on the fc weight."""
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[1, 2], dtype="float64", append_batch_size=False)
        p = pd.layers.data("p", shape=[1], dtype="bool", append_batch_size=False)
        r = pd.layers.cond(p, lambda: a * 3.0,
                           lambda: pd.layers.exp(pd.layers.fc(a, 2, param_attr="v",
                                                              bias_attr=False)))
        loss = pd.layers.reduce_sum(r * r)
        pd.optimizer.SGD(0.1).minimize(loss)
    return prog, {"a": np.array([[0.3, -1.2]]), "p": np.array([False])}, [r, loss]


def _train(build, observed, steps=3):
    """Fetched values of each of ``steps`` runs, and the user scope's values after them."""
    with unique_name.guard():        # the same names both times
        prog, feed, fetch = build()
    return train(prog, feed, fetch, observed, steps, seed=11)[:2]


# -- (a) framed and observed runs agree -----------------------------------------------------------
@pytest.mark.parametrize("build, sub_blocks", [
    (_rnn, {1, 2}), (_while, {1}), (_ifelse, {1, 2}), (_cond, {2}),
], ids=["StaticRNN", "While", "IfElse", "cond"])
def test_framed_and_observed_runs_fetch_and_train_alike(framed, build, sub_blocks):
    got, got_params = _train(build, observed=False)
    assert sub_blocks <= set(framed)                # the unobserved runs did go through frames
    framed.clear()
    want, want_params = _train(build, observed=True)
    assert framed == []                             # a listener forces the scope path
    for step, (g, w) in enumerate(zip(got, want)):
        for k, (a, b) in enumerate(zip(g, w)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b, err_msg=f"run {step}, fetch {k}")
    assert sorted(got_params) == sorted(want_params) and got_params
    for name, value in want_params.items():
        np.testing.assert_array_equal(got_params[name], value, err_msg=name)
    # the parameters did train: the loss moved between the first and the last run
    assert not np.array_equal(got[0][1], got[-1][1])


def test_rnn_backward_through_frames_matches_the_scope_path(framed):
    prog, feed, fetch = _rnn(sgd=False)
    assert [v.name for v in fetch[2:]] == ["x@GRAD", "W@GRAD", "U@GRAD", "b@GRAD"]
    results = []
    for observed in (False, True):
        exe = pd.Executor(CPU, seed=5)
        if observed:
            exe.subscribe(lambda record: None)
        results.append(exe.run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope()))
    assert framed.count(1) == T and framed.count(2) == T
    for got, want in zip(*results):
        assert got.any()
        np.testing.assert_array_equal(got, want)


# -- (b) nothing left behind ----------------------------------------------------------------------
def _param_bytes(scope):
    return sum(scope.find_var(n).get_tensor().nbytes for n in scope.local_var_names()
               if scope.find_var(n).get_tensor().is_allocated())


def test_an_unobserved_rnn_run_with_backward_gives_every_frame_byte_back(quiet_gc, framed):
    prog, feed, fetch = _rnn()
    exe = pd.Executor(CPU)
    scope = pd.Scope()
    base = MEMORY.in_use(CPU)
    exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)        # initializes the parameters
    params = _param_bytes(scope)
    assert params == (FEATURES * H + H * H + H) * 8 + 4       # W, U, b and the learning rate
    assert MEMORY.in_use(CPU) - base == params
    for _ in range(2):
        exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)
        assert MEMORY.in_use(CPU) - base == params
    assert framed.count(1) == 3 * T and framed.count(2) == 3 * T
    assert scope.kids == []


def test_a_failed_unobserved_run_gives_the_frame_bytes_back(quiet_gc, framed):
    prog, feed, fetch = _rnn(sgd=False, failing=True)    # p + q runs after the RNN's forward
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    good = {**feed, "p": np.ones((2, 3)), "q": np.ones((2, 3))}
    exe.run(prog, feed=good, fetch_list=fetch, scope=scope)
    base = MEMORY.in_use(CPU)
    framed.clear()
    with pytest.raises(OpRunError, match="elementwise_add"):
        exe.run(prog, feed={**good, "q": np.ones((5, 3))}, fetch_list=fetch, scope=scope)
    assert framed.count(1) == T
    assert MEMORY.in_use(CPU) == base
    assert scope.kids == []


# -- (c) a loop body that writes outer variables --------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 10])
def test_a_framed_while_body_updates_its_counter_and_condition(framed, n):
    prog = pd.Program()
    with pd.program_guard(prog):
        i = pd.layers.fill_constant([1], "int64", 0)
        limit = pd.layers.fill_constant([1], "int64", n)
        s = pd.layers.fill_constant([1], "int64", 0)
        c = pd.layers.less_than(i, limit)
        loop = pd.layers.While(c, max_iterations=50)
        with loop.block():
            pd.layers.assign(s + i, s)
            pd.layers.increment(i)
            pd.layers.less_than(i, limit, cond=c)
    total, count, still = pd.Executor(CPU).run(prog, fetch_list=[s, i, c], scope=pd.Scope())
    assert count.tolist() == [n]
    assert total.tolist() == [n * (n - 1) // 2]
    assert still.tolist() == [False]
    assert framed == [1] * n


def test_a_framed_while_body_reads_each_iterations_value_of_an_outer_variable(framed):
    """x <- 2 x + 1 five times from 0: 31; each iteration must read the last one's write."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.fill_constant([2], "float64", 0.0)
        counted_while(5, lambda i: pd.layers.assign(pd.layers.scale(x, 2.0, bias=1.0), x))
    got, = pd.Executor(CPU).run(prog, fetch_list=[x], scope=pd.Scope())
    np.testing.assert_array_equal(got, [31.0, 31.0])
    assert framed == [1] * 5


# -- (d) a failed run puts back the persistables a sub-block wrote --------------------------------
def _doubling(kind):
    """w (a parameter, 1 at first) doubled by a sub-block: three times in a While, once in a
    cond; then x + y, which fails when x and y have different batch sizes."""
    prog = pd.Program()
    with pd.program_guard(prog):
        w = prog.global_block().create_parameter(
            name="w", shape=[3], dtype="float64", initializer=pd.initializer.Constant(1.0))
        x = pd.layers.data("x", shape=[3], dtype="float64")
        y = pd.layers.data("y", shape=[3], dtype="float64")
        if kind == "while":
            counted_while(3, lambda i: pd.layers.assign(pd.layers.scale(w, 2.0), w))
        else:
            p = pd.layers.fill_constant([1], "bool", True)

            def double():
                pd.layers.assign(pd.layers.scale(w, 2.0), w)
            pd.layers.cond(p, double, None)
        z = x + y
    return prog, z, 8.0 if kind == "while" else 2.0


@pytest.mark.parametrize("observed", [False, True], ids=["framed", "observed"])
@pytest.mark.parametrize("kind", ["while", "cond"])
def test_a_failed_run_puts_back_a_parameter_a_sub_block_wrote(framed, kind, observed):
    prog, z, factor = _doubling(kind)
    exe = pd.Executor(CPU)
    if observed:
        exe.subscribe(lambda record: None)
    scope = pd.Scope()
    good = {"x": np.ones((2, 3)), "y": np.ones((2, 3))}
    exe.run(prog, feed=good, fetch_list=[z], scope=scope)
    w = scope.find_var("w").get_tensor()
    np.testing.assert_array_equal(w.numpy(), [factor] * 3)    # the sub-block did write w
    with pytest.raises(OpRunError, match="elementwise_add"):
        exe.run(prog, feed={"x": np.ones((2, 3)), "y": np.ones((4, 3))}, fetch_list=[z],
                scope=scope)
    np.testing.assert_array_equal(w.numpy(), [factor] * 3)
    assert scope.find_var("w").get_tensor() is w and scope.local_var_names() == ["w"]
    exe.run(prog, feed=good, fetch_list=[z], scope=scope)
    np.testing.assert_array_equal(w.numpy(), [factor * factor] * 3)
    assert bool(framed) != observed


def test_a_failed_first_run_leaves_no_parameter_behind(framed):
    prog, z, _ = _doubling("while")
    scope = pd.Scope()
    with pytest.raises(OpRunError):
        pd.Executor(CPU).run(prog, feed={"x": np.ones((2, 3)), "y": np.ones((4, 3))},
                             fetch_list=[z], scope=scope)
    assert framed == [1, 1, 1]
    assert scope.local_var_names() == []


# -- sub-blocks an op runs without naming what they write (Program / Block API) ------------------
def _owner_program(block_owner, local_persistable=False):
    """A test-only op runs block 1, which writes the global persistable ``w`` (the op lists
    nothing, so block 0 never binds ``w``) and, if asked, a persistable of its own."""
    prog = pd.Program()
    with pd.program_guard(prog):
        g = prog.global_block()
        x = pd.layers.data("x", shape=[3], dtype="float64")
        y = pd.layers.data("y", shape=[3], dtype="float64")
        w = g.create_var(name="w", shape=[3], dtype="float64", persistable=True)
        with prog._block_guard() as sub:
            if local_persistable:
                mine = sub.create_var(name="mine", shape=[3], dtype="float64", persistable=True)
                pd.layers.assign(pd.layers.fill_constant([3], "float64", 5.0), mine)
            pd.layers.assign(pd.layers.fill_constant([3], "float64", 2.0), w)
        g.append_op(block_owner, attrs={"sub_block": sub.idx})
        z = x + y
    return prog, z


@pytest.mark.parametrize("observed", [False, True], ids=["framed", "observed"])
def test_a_failed_run_puts_back_a_persistable_only_the_sub_block_binds(block_owner, observed):
    prog, z = _owner_program(block_owner)
    exe = pd.Executor(CPU)
    if observed:
        exe.subscribe(lambda record: None)
    scope = pd.Scope()
    w = scope.var("w").get_tensor()
    w.set(np.ones(3), CPU)
    exe.run(prog, feed={"x": np.ones((2, 3)), "y": np.ones((2, 3))}, fetch_list=[z], scope=scope)
    np.testing.assert_array_equal(w.numpy(), [2.0] * 3)
    w.set(np.ones(3), CPU)
    with pytest.raises(OpRunError):
        exe.run(prog, feed={"x": np.ones((2, 3)), "y": np.ones((4, 3))}, fetch_list=[z],
                scope=scope)
    np.testing.assert_array_equal(w.numpy(), [1.0] * 3)


@pytest.mark.parametrize("local_persistable", [False, True], ids=["global", "sub-block's own"])
def test_a_persistable_a_sub_block_creates_lands_in_the_user_scope_either_way(block_owner,
                                                                               local_persistable):
    """The scope path makes a persistable the user scope lacks in the user scope (as
    PaddlePaddle makes persistables in the root scope); the framed path must agree."""
    prog, z = _owner_program(block_owner, local_persistable)
    feed = {"x": np.ones((2, 3)), "y": np.ones((2, 3))}
    held = []
    for observed in (False, True):
        exe = pd.Executor(CPU)
        if observed:
            exe.subscribe(lambda record: None)
        scope = pd.Scope()
        exe.run(prog, feed=feed, fetch_list=[z], scope=scope)
        held.append({n: scope.find_var(n).get_tensor().numpy().tolist()
                     for n in scope.local_var_names()})
    framed_held, observed_held = held
    assert observed_held["w"] == [2.0] * 3
    assert framed_held == observed_held


# -- (e) run_block called directly leaves a Frame -------------------------------------------------
def _step_block():
    prog, _feed, _fetch = _rnn(sgd=False)
    op, = [op for op in prog.global_block().ops if op.type == "recurrent"]
    rng = np.random.default_rng(3)
    params = {"W": rng.standard_normal((FEATURES, H)), "U": rng.standard_normal((H, H)),
              "b": rng.standard_normal(H)}
    parent = FrameScope()              # (an executor's run scope: its kids hold frames)
    for name, value in params.items():
        parent.var(name).get_tensor().set(value, CPU)
    x_t, h_pre = rng.standard_normal((B, FEATURES)), rng.standard_normal((B, H))
    want = np.tanh(x_t @ params["W"] + h_pre @ params["U"] + params["b"])
    step_input = op.input("inputs")[0]
    return prog, op, parent, {step_input: x_t, op.attr("ex_states")[0]: h_pre}, want


def test_run_block_on_a_step_block_leaves_a_frame_that_find_var_materializes(framed):
    prog, op, parent, values, want = _step_block()
    kid = parent.new_scope()
    pd.Executor(CPU).run_block(prog, op.attr("sub_block"), kid, values=values)
    assert framed == [op.attr("sub_block")]
    assert kid.frame is not None and kid.own_vars == {}
    state = op.attr("states")[0]
    np.testing.assert_allclose(kid.local_array(state), want, rtol=1e-12)
    var = kid.find_var(state)
    assert kid.frame is None
    np.testing.assert_allclose(var.get_tensor().numpy(), want, rtol=1e-12)
    assert kid.find_local_var(state) is var
    assert set(kid.local_var_names()) == set(prog.block(op.attr("sub_block")).vars)
    for name, value in values.items():               # the seeds are the block's own variables
        assert kid.find_local_var(name).get_tensor().array() is value
    assert parent.local_var_names() == ["W", "U", "b"]


def test_run_block_puts_values_the_block_does_not_declare_in_real_variables(framed):
    prog, op, parent, values, want = _step_block()
    kid = parent.new_scope()
    extra = np.arange(3.0)
    pd.Executor(CPU).run_block(prog, op.attr("sub_block"), kid, values={**values, "extra": extra})
    assert list(kid.own_vars) == ["extra"] and kid.frame is not None
    assert kid.find_var("extra").get_tensor().array() is extra
    assert kid.frame is not None                     # finding "extra" made nothing else
    assert "extra" not in kid.frame.index
    np.testing.assert_allclose(kid.local_array(op.attr("states")[0]), want, rtol=1e-12)


def test_run_block_writes_a_block_variable_the_caller_made_into_that_variable(framed):
    prog, op, parent, values, want = _step_block()
    kid = parent.new_scope()
    state = op.attr("states")[0]
    made = kid.var(state)
    pd.Executor(CPU).run_block(prog, op.attr("sub_block"), kid, values=values)
    assert state not in kid.frame.index
    assert kid.own_vars[state] is made
    np.testing.assert_allclose(made.get_tensor().numpy(), want, rtol=1e-12)
    assert kid.find_var(state) is made


@pytest.mark.parametrize("materialize", [False, True], ids=["destroyed", "materialized"])
def test_run_block_frames_count_their_bytes_until_the_scope_is_destroyed(quiet_gc, framed,
                                                                        materialize):
    prog, op, parent, values, want = _step_block()
    base = MEMORY.in_use(CPU)
    kid = parent.new_scope()
    pd.Executor(CPU).run_block(prog, op.attr("sub_block"), kid, values=values)
    frame = kid.frame              # held here: only an explicit release gives its bytes back
    held = MEMORY.in_use(CPU) - base
    assert held == frame.nbytes >= 5 * want.nbytes            # at least the five values it made
    if materialize:
        kid.local_var_names()
        assert kid.frame is None and MEMORY.in_use(CPU) - base >= held
    kid.destroy()
    assert MEMORY.in_use(CPU) == base
