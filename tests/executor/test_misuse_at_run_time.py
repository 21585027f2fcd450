"""Misuse that used to surface as a raw or misleading error at run time.

Each case gets a ``paddle_nb.errors`` error that names the op (or the variable), what was
expected, what came, and the user's line, on both paths the executor has: the fast path
(nobody listens) and the observed path (a run listener subscribed):

- an allocation too big for memory (was NumPy's bare MemoryError on the fast path);
- IfElse on a batch of 0 rows (was "neither branch produced a value"): 0 rows come out;
- a StaticRNN over a sequence of length 0 (was "need at least one array to stack");
- a control-flow program run without its startup program (was a broadcasting message);
- a scope destroyed during a run (was "the step block did not compute memory ..."), or
  before it; a parameter erased during one is the value the run read as it started.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core.events import EVENTS
from paddle_nb.errors import OpRunError, OutOfMemoryError, ScopeDestroyedError
from paddle_nb.ops.machinery import registry
from tests.layers import counted_while, row_ifelse

CPU = pd.CPUPlace()
HERE = __file__
HUGE = 1_000_000      # HUGE x HUGE float32: 4e12 bytes, more than any test machine has


@pytest.fixture(params=[False, True], ids=["fast", "observed"])
def exe(request):
    executor = pd.Executor(CPU)
    if request.param:
        executor.subscribe(lambda record: None)
    return executor


def _persistable(prog, name, value):
    var = prog.global_block().create_var(name=name, shape=[1], dtype="float32", persistable=True)
    pd.layers.fill_constant([1], "float32", value, out=var)
    return var


# -- allocations too big -------------------------------------------------------------------------
def test_a_constant_too_big_names_the_op_the_variable_the_bytes_and_the_line(exe):
    prog, scope = pd.Program(), pd.Scope()
    scope.var("acc").get_tensor().set(np.array([7.0], "float32"))
    with pd.program_guard(prog):
        _persistable(prog, "acc", 1.0)
        big = pd.layers.fill_constant([HUGE, HUGE], "float32", 1.0)
    with pytest.raises(OutOfMemoryError) as info:
        exe.run(prog, fetch_list=[big], scope=scope)
    message = str(info.value)
    assert "'fill_constant'" in message and big.name in message and HERE in message
    assert f"float32[{HUGE}, {HUGE}]" in message and "4000000000000 bytes" in message
    assert isinstance(info.value, MemoryError) and isinstance(info.value, OpRunError)
    assert scope.find_var("acc").get_tensor().numpy().tolist() == [7.0]   # as it was


def test_a_result_too_big_at_run_time_names_the_op_and_leaves_the_scope(exe):
    prog, scope = pd.Program(), pd.Scope()
    scope.var("acc").get_tensor().set(np.array([7.0], "float32"))
    with pd.program_guard(prog):
        _persistable(prog, "acc", 1.0)
        col = pd.layers.data("col", shape=[-1, 1], append_batch_size=False)
        row = pd.layers.data("row", shape=[1, -1], append_batch_size=False)
        outer = pd.layers.elementwise_add(col, row)          # HUGE x HUGE by broadcasting
    feed = {"col": np.zeros((HUGE, 1), "float32"), "row": np.zeros((1, HUGE), "float32")}
    with pytest.raises(OutOfMemoryError) as info:
        exe.run(prog, feed=feed, fetch_list=[outer], scope=scope)
    message = str(info.value)
    assert "'elementwise_add'" in message and outer.name in message and HERE in message
    assert "bytes" in message and f"col float32[{HUGE}, 1]" in message
    assert scope.find_var("acc").get_tensor().numpy().tolist() == [7.0]


def test_mutable_data_too_big_names_the_variable():
    tensor = pd.Scope().var("w").get_tensor()
    with pytest.raises(OutOfMemoryError, match=r"4000000000000 bytes for the tensor of "
                                               r"variable 'w' \(float32\[1000000, 1000000\]\)"):
        tensor.mutable_data(CPU, "float32", (HUGE, HUGE))
    assert not tensor.is_allocated()


# -- IfElse on an empty batch --------------------------------------------------------------------
def _ifelse():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2])
        total = pd.layers.reduce_sum(x, dim=[1], keep_dim=True)
        negative = pd.layers.less_than(total, pd.layers.scale(total, 0.0))
        out, = row_ifelse(negative, [x], lambda rows: pd.layers.scale(rows, 2.0),
                          lambda rows: pd.layers.scale(rows, -1.0))
    return prog, out


@pytest.mark.parametrize("rows", [[], [[1, 2]], [[-1, -2]], [[1, 2], [-3, -4], [5, 6]]],
                         ids=["empty", "one-false", "one-true", "mixed"])
def test_ifelse_gives_one_row_per_row_even_for_an_empty_batch(exe, rows):
    prog, out = _ifelse()
    x = np.array(rows, "float32").reshape(-1, 2)
    got, = exe.run(prog, feed={"x": x}, fetch_list=[out], scope=pd.Scope())
    want = np.where(x.sum(1, keepdims=True) < 0, 2 * x, -x)
    assert got.shape == (len(rows), 2) and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


# -- StaticRNN over no time steps ----------------------------------------------------------------
def _rnn(with_fc=False):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[-1, 2, 3], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(x)
            h = rnn.memory(shape=[-1, 3], batch_ref=xt)
            nh = pd.layers.elementwise_add(h, xt)
            if with_fc:
                nh = pd.layers.fc(nh, 3)
            rnn.update_memory(h, nh)
            rnn.step_output(nh)
        out = rnn()
    return main, startup, out


def test_a_static_rnn_over_no_time_steps_names_the_rnn_and_the_line(exe):
    main, _, out = _rnn()
    with pytest.raises(OpRunError) as info:
        exe.run(main, feed={"x": np.ones((0, 2, 3), "float32")}, fetch_list=[out],
                scope=pd.Scope())
    message = str(info.value)
    assert "'recurrent'" in message and HERE in message and "rnn.step()" in message
    assert "0 time steps (x: [0, 2, 3])" in message and "at least one step" in message


# -- control flow without the startup program ----------------------------------------------------
def _cond_with_fc():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        yes = pd.layers.less_than(pd.layers.fill_constant([1], "float32", 0.0),
                                  pd.layers.fill_constant([1], "float32", 1.0))
        out = pd.layers.cond(yes, lambda: pd.layers.fc(x, 2), lambda: pd.layers.fc(x, 2))
    return main, out, {"x": np.ones((2, 3), "float32")}


def _while_with_fc():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        h = pd.layers.data("h", shape=[2])
        counted_while(2, lambda i: pd.layers.assign(pd.layers.fc(h, 2), h))
    return main, h, {"h": np.ones((2, 2), "float32")}


def _rnn_with_fc():
    main, _, out = _rnn(with_fc=True)
    return main, out, {"x": np.ones((4, 2, 3), "float32")}


@pytest.mark.parametrize("build", [_cond_with_fc, _while_with_fc, _rnn_with_fc],
                         ids=["cond", "while", "static_rnn"])
def test_a_sub_block_reading_an_uninitialized_parameter_says_run_the_startup_program(exe, build):
    main, out, feed = build()
    scope = pd.Scope()
    with pytest.raises(OpRunError) as info:
        exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    message = str(info.value)
    assert "run the startup program in this scope first" in message
    assert "fc_0.w_0" in message and "'mul'" in message and HERE in message
    assert scope.local_var_names() == []                  # nothing left half-made


# -- scopes and variables destroyed during a run -------------------------------------------------
def _run_destroying(exe, action, raises=True):
    """Run the RNN (with a parameter) while a core-event listener erases the parameter or
    destroys the scope as the second step begins."""
    main, startup, out = _rnn(with_fc=True)
    scope = pd.Scope()
    exe.run(startup, scope=scope)
    weight = main.global_block().all_parameters()[0].name

    def listener(event):
        if event.kind == "scope_created" and event.scope.label == "step 1":
            scope.erase(weight) if action == "erase" else scope.destroy()
    feed = {"x": np.ones((3, 2, 3), "float32")}
    if not raises:
        want, = pd.Executor(CPU).run(main, feed=feed, fetch_list=[out], scope=scope)
        with EVENTS.listening(listener):
            got, = exe.run(main, feed=feed, fetch_list=[out], scope=scope)
        return got, want, scope, weight
    with EVENTS.listening(listener), pytest.raises(OpRunError) as info:
        exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    return str(info.value), weight


def test_a_parameter_erased_during_a_run_is_the_value_the_run_read_as_it_started(exe):
    """A run reads the persistables once, as it starts (PaddlePaddle's executor reads them
    from the scope as each op runs): an erase part-way changes nothing of it."""
    got, want, scope, weight = _run_destroying(exe, "erase", raises=False)
    np.testing.assert_array_equal(got, want)
    assert scope.find_var(weight) is None                  # erased it stays


def test_a_scope_destroyed_during_a_run_says_so(exe):
    message, _ = _run_destroying(exe, "destroy")
    assert "was destroyed while the program ran" in message
    assert ("'recurrent'" in message or "'mul'" in message) and HERE in message  # (or its step's)
    assert "did not compute" not in message


@pytest.fixture
def scope_destroyer(monkeypatch):
    """A test-only op whose kernel destroys the scope the run was given (a misbehaving kernel)."""
    def kernel(ctx):
        scope = ctx.scope
        while scope.parent is not None:
            scope = scope.parent
        scope.destroy()

    opdef = registry.OpDef("test_scope_destroyer", inputs=[], outputs=[], kernel=kernel,
                           raw=True, doc="Destroys the root of the running scope (test-only).")
    monkeypatch.setitem(registry._REGISTRY, opdef.type, opdef)
    return opdef.type


def test_a_kernel_destroying_the_scope_fails_the_next_op_clearly(exe, scope_destroyer):
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2])
        prog.global_block().append_op(scope_destroyer, {}, {}, {})
        y = pd.layers.relu(x)
    with pytest.raises(OpRunError, match="was destroyed while the program ran") as info:
        exe.run(prog, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y], scope=pd.Scope())
    assert "'relu'" in str(info.value)


def test_a_scope_destroyed_before_the_write_back_says_so(monkeypatch):
    """Another thread destroying the scope while the ops run: the write-back says so."""
    from paddle_nb.executor import executor as executor_module
    prog, scope = pd.Program(), pd.Scope()
    with pd.program_guard(prog):
        acc = _persistable(prog, "acc", 1.0)
    real = executor_module.fetched

    def destroy_then_fetch(*args):      # runs between the ops and the write-back
        scope.destroy()
        return real(*args)
    monkeypatch.setattr(executor_module, "fetched", destroy_then_fetch)
    with pytest.raises(ScopeDestroyedError, match="destroyed while the program ran"):
        pd.Executor(CPU).run(prog, fetch_list=[acc], scope=scope)


def test_a_scope_destroyed_before_the_run_is_refused_before_anything_runs(exe):
    prog = pd.Program()
    with pd.program_guard(prog):
        y = pd.layers.relu(pd.layers.data("x", shape=[2]))
    scope = pd.Scope()
    scope.destroy()
    with pytest.raises(ScopeDestroyedError, match="was destroyed before the run"):
        exe.run(prog, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y], scope=scope)
