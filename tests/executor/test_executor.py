"""Executor.run: feed, fetch, scopes, errors, the preamble, and the reference evaluator.

Persistable variables (parameters) live in the user's scope; temporaries in a kid scope
that is gone when the run ends. Bad feeds and fetches are refused before anything runs;
a run that fails part-way names the op and the user's line that built it, and puts every
persistable back as it was.
"""
import inspect
import os

import numpy as np
import pytest

import paddle_nb as pd
from tests.layers import counted_while
from paddle_nb.core.events import EVENTS
from paddle_nb.errors import FeedError, FetchError, OpRunError
from paddle_nb.ops.machinery import registry

CPU = pd.CPUPlace()
HERE = os.path.basename(__file__)
RNG = np.random.default_rng(5)
X = RNG.uniform(-1, 1, (2, 3)).astype("float32")


def next_line():
    """The number of the caller's next line (where the op under test is built)."""
    return inspect.currentframe().f_back.f_lineno + 1


def mlp(seed=0):
    """x[-1, 3] -> fc(4, relu) -> fc(2) -> softmax -> mean; parameters in the preamble."""
    prog = pd.Program()
    init = pd.initializer.Uniform(-1, 1, seed) if seed else None
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.fc(x, 4, act="relu", param_attr=init)
        logits = pd.layers.fc(h, 2, param_attr=init)
        prob = pd.layers.softmax(logits)
        loss = pd.layers.mean(prob)
    return prog, x, h, prob, loss


def values(scope):
    """{name: a copy of the value} of every variable of ``scope`` (not its kids)."""
    out = {}
    for name in scope.local_var_names():
        var = scope.find_local_var(name)
        if var.is_type(pd.LoDTensor) and var.get_tensor().is_allocated():
            out[name] = var.get_tensor().numpy().copy()
        else:
            out[name] = None
    return out


def mlp_numpy(x, p):
    h = np.maximum(x @ p["fc_0.w_0"] + p["fc_0.b_0"], 0)
    logits = h @ p["fc_1.w_0"] + p["fc_1.b_0"]
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


# -- feed and fetch --------------------------------------------------------------------------------
def test_run_feeds_fetches_and_computes_the_program():
    prog, x, h, prob, loss = mlp()
    scope = pd.Scope()
    got_prob, got_loss = pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[prob, loss],
                                              scope=scope)
    want = mlp_numpy(X, values(scope))
    np.testing.assert_allclose(got_prob, want, rtol=1e-5)
    np.testing.assert_allclose(got_loss, [want.mean()], rtol=1e-5)
    assert isinstance(got_prob, np.ndarray) and got_prob.dtype == np.float32


def test_fetch_list_takes_variables_or_names_in_any_order():
    prog, x, h, prob, loss = mlp()
    exe, scope = pd.Executor(CPU), pd.Scope()
    by_var = exe.run(prog, feed={"x": X}, fetch_list=[loss, h, x], scope=scope)
    by_name = exe.run(prog, feed={"x": X}, fetch_list=[loss.name, h.name, "x"], scope=scope)
    mixed = exe.run(prog, feed={"x": X}, fetch_list=["fc_0.w_0", h], scope=scope)
    for a, b in zip(by_var, by_name):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(by_var[2], X)                 # a fed variable comes back
    np.testing.assert_array_equal(mixed[0], values(scope)["fc_0.w_0"])
    assert exe.run(prog, feed={"x": X}, scope=scope) == []       # nothing asked, nothing back


def test_return_numpy_false_gives_lod_tensors_that_outlive_the_run():
    prog, x, h, prob, loss = mlp()
    exe, scope = pd.Executor(CPU), pd.Scope()
    arrays = exe.run(prog, feed={"x": X}, fetch_list=[prob, loss], scope=scope)
    tensors = exe.run(prog, feed={"x": X}, fetch_list=[prob, loss], scope=scope,
                      return_numpy=False)
    assert all(isinstance(t, pd.LoDTensor) for t in tensors)
    assert tensors[0].shape == (2, 2) and tensors[0].dtype == np.float32
    assert tensors[0].place == CPU
    for t, a in zip(tensors, arrays):
        np.testing.assert_array_equal(t.numpy(), a)             # the run's scope is gone: a copy


def test_a_lod_tensor_can_be_fed():
    prog, x, h, prob, loss = mlp()
    t = pd.LoDTensor()
    t.set(X, CPU)
    exe, scope = pd.Executor(CPU), pd.Scope()
    a, = exe.run(prog, feed={"x": t}, fetch_list=[prob], scope=scope)
    b, = exe.run(prog, feed={"x": X}, fetch_list=[prob], scope=scope)
    np.testing.assert_array_equal(a, b)


def test_a_fed_lod_travels_with_its_array_to_the_fetch_and_the_users_scope():
    prog = pd.Program()
    block = prog.global_block()
    x = block.create_var(name="x", shape=[-1, 3], dtype="float32", lod_level=1)
    p = block.create_var(name="p", shape=[-1, 3], dtype="float32", persistable=True)
    with pd.program_guard(prog):
        y = pd.layers.relu(x)
        z = pd.layers.scale(p, 2.0)
    fed = pd.LoDTensor()
    fed.set(np.ones((3, 3), "float32"), CPU)
    fed.set_lod([[0, 1, 3]])
    scope = pd.Scope()
    got_x, got_y, got_z = pd.Executor(CPU).run(prog, feed={"x": fed, "p": fed},
                                               fetch_list=[x, y, z], scope=scope,
                                               return_numpy=False)
    assert got_x.lod() == [[0, 1, 3]] and got_y.lod() == [] and got_z.lod() == []
    np.testing.assert_array_equal(got_z.numpy(), 2 * np.ones((3, 3), "float32"))
    assert scope.find_var("p").get_tensor().lod() == [[0, 1, 3]]      # a fed persistable


def test_the_executor_runs_the_default_main_program():
    prog, x, h, prob, loss = mlp()
    with pd.program_guard(prog):
        got, = pd.Executor(CPU).run(feed={"x": X}, fetch_list=[loss], scope=pd.Scope())
    assert got.shape == () and isinstance(float(got), float)     # a 0-D mean, as Paddle 2.5+


def test_run_refuses_what_is_not_a_program_or_a_scope():
    with pytest.raises(TypeError, match="Program"):
        pd.Executor(CPU).run("prog")
    with pytest.raises(TypeError, match="Scope"):
        pd.Executor(CPU).run(pd.Program(), scope={})
    with pytest.raises(TypeError, match="Place"):
        pd.Executor("cpu")


# -- scopes ----------------------------------------------------------------------------------------
def test_persistables_stay_in_the_users_scope_and_temporaries_do_not():
    prog, *_ , loss = mlp()
    scope = pd.Scope()
    pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    assert scope.local_var_names() == ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    assert scope.find_var("fc_0.w_0").get_tensor().shape == (3, 4)
    assert scope.find_var("x") is None and scope.find_var(loss.name) is None
    assert scope.kids == []


def test_control_flow_sees_the_run_through_a_kid_scope_labelled_run_destroyed_after():
    """A block with control flow runs on its env too; its raw ops see it through a ``run``
    kid scope (the env as its frame) and run in a kid of it, with Variables only for what
    they touch (never the parameters)."""
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.fc(x, 4, act="relu")
        loss = pd.layers.mean(h)
        out = pd.layers.cond(pd.layers.greater_than(loss, pd.layers.fill_constant(
            [], "float32", 0.0)), lambda: loss * 2.0, lambda: loss)
    scope = pd.Scope()
    pd.Executor(CPU).run(startup, scope=scope)
    made, names = [], []

    def watch(event):
        if event.kind == "scope_created" and event.scope.label == "run":
            made.append(event.scope)
        if event.kind == "var_created" and event.scope in made:
            names.append(event.name)
    exe = pd.Executor(CPU)
    with EVENTS.listening(watch):
        got, = exe.run(prog, feed={"x": X}, fetch_list=[out], scope=scope)
    assert len(made) == 2 and made[1].up is made[0]
    assert not made[0].is_alive() and scope.kids == []
    assert loss.name in names                                   # in the cond ops' slots
    assert h.name not in names                                  # a temporary it never reads
    assert not {"fc_0.w_0", "fc_0.b_0"} & set(names)            # nor the parameters
    again, = exe.run(prog, feed={"x": X}, fetch_list=[out], scope=scope)
    np.testing.assert_array_equal(again, got)      # the compiled form: the raw op called in it
    plan = next(p for p in exe._plans.values() if p.block.idx == 0)
    assert "(env, scope)" in plan.interpreter.source and scope.kids == []


def test_the_global_scope_is_the_default_and_scope_guard_swaps_it():
    prog, *_, loss = mlp()
    exe = pd.Executor(CPU)
    params = [p.name for p in prog.all_parameters()]
    mine = pd.Scope()
    try:
        with pd.scope_guard(mine) as entered:
            assert entered is mine and pd.global_scope() is mine
            exe.run(prog, feed={"x": X}, fetch_list=[loss])
        assert mine.local_var_names() == params
        assert pd.global_scope() is not mine
        assert not set(params) & set(pd.global_scope().local_var_names())
        exe.run(prog, feed={"x": X}, fetch_list=[loss])
        assert set(params) <= set(pd.global_scope().local_var_names())
        assert pd.global_scope().kids == []
    finally:
        pd.global_scope().erase(params)
    with pytest.raises(TypeError, match="Scope"):
        with pd.scope_guard("scope"):
            pass


# -- the preamble: initializers run once per scope -------------------------------------------------
def test_preamble_initializers_run_once_per_scope():
    prog, *_, loss = mlp()
    exe, scope = pd.Executor(CPU), pd.Scope()
    first, = exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    w1 = values(scope)
    again, = exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    w2 = values(scope)
    assert w1.keys() == w2.keys()
    for name in w1:
        np.testing.assert_array_equal(w1[name], w2[name])        # not re-initialized
    np.testing.assert_array_equal(first, again)
    fresh = pd.Scope()
    exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=fresh)
    w3 = values(fresh)
    assert w3.keys() == w1.keys()
    assert not np.array_equal(w3["fc_0.w_0"], w1["fc_0.w_0"])   # fresh parameters there
    np.testing.assert_array_equal(w3["fc_0.b_0"], np.zeros(4))


def test_a_parameter_the_user_set_is_not_overwritten_by_its_initializer():
    prog, *_, loss = mlp()
    scope = pd.Scope()
    mine = np.full((3, 4), 0.5, "float32")
    scope.var("fc_0.w_0").get_tensor().set(mine, CPU)
    pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(values(scope)["fc_0.w_0"], mine)
    assert values(scope)["fc_1.w_0"].shape == (4, 2)


def test_a_startup_program_initializes_and_the_main_program_reuses():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        out = pd.layers.fc(x, 2)
    exe, scope = pd.Executor(CPU), pd.Scope()
    assert exe.run(startup, scope=scope) == []
    w = values(scope)
    assert sorted(w) == ["fc_0.b_0", "fc_0.w_0"]
    got, = exe.run(main, feed={"x": X}, fetch_list=[out], scope=scope)
    np.testing.assert_allclose(got, X @ w["fc_0.w_0"] + w["fc_0.b_0"], rtol=1e-6)


@pytest.mark.parametrize("listening", [False, True])
def test_running_main_without_its_startup_names_the_uninitialized_parameter(listening):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        out = pd.layers.fc(x, 2)
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listening:
        exe.subscribe(lambda record: None)
    with pytest.raises(pd.errors.PaddleNBError) as info:
        exe.run(main, feed={"x": X}, fetch_list=[out], scope=scope)
    assert "fc_0.w_0" in str(info.value) and "'mul'" in str(info.value)
    assert scope.local_var_names() == [] and scope.kids == []


# -- bad feeds and fetches -------------------------------------------------------------------------
def _untouched(scope):
    assert scope.local_var_names() == [] and scope.kids == []


def test_a_missing_feed_names_the_variable_its_shape_and_the_reader():
    prog, *_, loss = mlp()
    scope = pd.Scope()
    with pytest.raises(FeedError) as info:
        pd.Executor(CPU).run(prog, feed={}, fetch_list=[loss], scope=scope)
    message = str(info.value)
    assert "missing feed for 'x'" in message and "[-1, 3]" in message and "float32" in message
    assert "'mul'" in message and HERE in message               # the op that reads it, and where
    assert isinstance(info.value, ValueError)
    _untouched(scope)


def test_a_feed_of_the_wrong_shape_names_expected_and_given():
    prog, *_, loss = mlp()
    scope = pd.Scope()
    with pytest.raises(FeedError) as info:
        pd.Executor(CPU).run(prog, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[loss],
                             scope=scope)
    message = str(info.value)
    assert "'x'" in message and "[-1, 3]" in message and "[2, 4]" in message
    with pytest.raises(FeedError, match=r"'x'.*\[-1, 3\].*\[3\]"):
        pd.Executor(CPU).run(prog, feed={"x": np.ones(3, "float32")}, fetch_list=[loss],
                             scope=scope)
    _untouched(scope)


def test_a_feed_of_the_wrong_dtype_names_expected_and_given():
    prog, *_, loss = mlp()
    scope = pd.Scope()
    with pytest.raises(FeedError) as info:
        pd.Executor(CPU).run(prog, feed={"x": X.astype("float64")}, fetch_list=[loss],
                             scope=scope)
    message = str(info.value)
    assert "'x'" in message and "float32" in message and "float64" in message
    _untouched(scope)


def test_an_unknown_feed_name_lists_the_data_variables():
    prog, *_, loss = mlp()
    scope = pd.Scope()
    with pytest.raises(FeedError) as info:
        pd.Executor(CPU).run(prog, feed={"x": X, "image": X}, fetch_list=[loss], scope=scope)
    assert "'image'" in str(info.value) and "data variables: x" in str(info.value)
    _untouched(scope)


def test_a_fetch_of_an_unknown_name_is_a_fetch_error_naming_it():
    prog, *_, loss = mlp()
    scope = pd.Scope()
    with pytest.raises(FetchError) as info:
        pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=["nope"], scope=scope)
    assert "'nope'" in str(info.value) and isinstance(info.value, KeyError)
    with pytest.raises(FetchError, match="Variables or names"):
        pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[3], scope=scope)
    _untouched(scope)


def test_fetch_targets_are_checked_though_the_executor_ran_the_program_before():
    """A run finds its plan by the fetch names before checking them (a plan's names were
    checked when it was made): an unknown or unhashable target still says what it is, and
    a target removed from the program since is refused."""
    prog, *_, loss = mlp()
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    with pytest.raises(FetchError, match="'nope'"):
        exe.run(prog, feed={"x": X}, fetch_list=[loss, "nope"], scope=scope)
    with pytest.raises(FetchError, match="Variables or names"):
        exe.run(prog, feed={"x": X}, fetch_list=[["a list"]], scope=scope)
    extra = prog.global_block().create_var(name="extra", shape=[1])
    exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    prog.global_block().remove_var(extra.name)
    with pytest.raises(FetchError, match="'extra'"):
        exe.run(prog, feed={"x": X}, fetch_list=["extra"], scope=scope)


def test_a_fetch_of_a_variable_nothing_computes_is_a_fetch_error():
    prog, *_, loss = mlp()
    orphan = prog.global_block().create_var(name="orphan", shape=[1])
    scope = pd.Scope()
    with pytest.raises(FetchError, match="'orphan'.*no value"):
        pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[loss, orphan], scope=scope)
    assert scope.kids == []
    assert set(scope.local_var_names()) <= {p.name for p in prog.all_parameters()}


# -- a run that fails part-way ---------------------------------------------------------------------
def stateful_program():
    """batch_norm (updates its running statistics), a persistable total, then x + y."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3, 2, 2])
        y = pd.layers.data("y", shape=[3, 2, 2])
        bn = pd.layers.batch_norm(x)
        total = prog.global_block().create_var(name="total", shape=[1], persistable=True)
        pd.layers.assign(pd.layers.reduce_sum(bn), total)
        line = next_line()
        out = pd.layers.mean(bn + y)
    return prog, out, line


def _feeds(batch_y):
    rng = np.random.default_rng(batch_y)
    return {"x": rng.uniform(size=(3, 3, 2, 2)).astype("float32"),
            "y": rng.uniform(size=(batch_y, 3, 2, 2)).astype("float32")}


@pytest.mark.parametrize("listening", [False, True])
def test_a_failing_op_names_op_block_and_line_and_leaves_persistables_as_they_were(listening):
    prog, out, line = stateful_program()
    exe, scope = pd.Executor(CPU), pd.Scope()
    records = []
    if listening:
        exe.subscribe(records.append)
    exe.run(prog, feed=_feeds(3), fetch_list=[out], scope=scope)
    before = values(scope)
    assert "total" in before and "batch_norm_0.mean" in before
    arrays = {n: scope.find_var(n).get_tensor().array() for n in before}
    with pytest.raises(OpRunError) as info:
        exe.run(prog, feed=_feeds(2), fetch_list=[out], scope=scope)   # passes the feed check
    message = str(info.value)
    assert "op #7 'elementwise_add'" in message and "block 0" in message
    assert f"{HERE}:{line}" in message and "bn + y" in message
    assert "[3, 3, 2, 2]" in message and "[2, 3, 2, 2]" in message
    assert isinstance(info.value.__cause__, ValueError)
    after = values(scope)
    assert after.keys() == before.keys()                          # no new variables
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    assert all(scope.find_var(n).get_tensor().array() is arrays[n] for n in before)
    assert scope.kids == []
    if listening:
        assert records[-1].failed and records[-1].ops[-1].type == "elementwise_add"


def test_a_first_run_that_fails_leaves_a_fresh_scope_empty():
    prog, out, _ = stateful_program()
    scope = pd.Scope()
    with pytest.raises(OpRunError):
        pd.Executor(CPU).run(prog, feed=_feeds(2), fetch_list=[out], scope=scope)
    _untouched(scope)


def _loop_writing_a_persistable_array():
    """A While loop writing x into a persistable tensor array at 0..2, then an op that fails
    when x has 2 values (a reshape to [3])."""
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[-1], append_batch_size=False)
        arr = pd.static.create_array("float32")
        arr.persistable = True
        i = pd.layers.fill_constant([1], "int64", 0)
        n = pd.layers.fill_constant([1], "int64", 3)
        cond = pd.layers.less_than(i, n)
        loop = pd.layers.While(cond)
        with loop.block():
            pd.static.array_write(x, i, array=arr)
            pd.layers.increment(i, in_place=True)
            pd.layers.less_than(i, n, cond=cond)
        out = pd.layers.reshape(x, [3])
    return main, arr.name, out


@pytest.mark.parametrize("listening", [False, True])
def test_a_failed_run_leaves_a_persistable_tensor_array_as_it_was(listening):
    main, name, out = _loop_writing_a_persistable_array()
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listening:
        exe.subscribe(lambda record: None)
    with pytest.raises(OpRunError, match="reshape2"):         # the array did not exist
        exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[out], scope=scope)
    assert scope.find_var(name) is None
    exe.run(main, feed={"x": np.full(3, 7.0, "float32")}, fetch_list=[out], scope=scope)
    array = scope.find_var(name).holder
    before = [t.numpy() for t in array]
    assert len(before) == 3
    with pytest.raises(OpRunError, match="reshape2"):         # it held three elements
        exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[out], scope=scope)
    assert scope.find_var(name).holder is array and len(array) == 3
    for got, want in zip(array, before):
        np.testing.assert_array_equal(got.numpy(), want)


def test_a_kernel_that_raises_is_reported_with_its_op_and_nothing_changes(monkeypatch):
    prog, out, line = stateful_program()
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(prog, feed=_feeds(3), fetch_list=[out], scope=scope)
    before = values(scope)

    def broken(ctx, x, **attrs):
        raise RuntimeError("the device caught fire")
    monkeypatch.setattr(registry.get("mean"), "kernel", broken)
    with pytest.raises(OpRunError) as info:
        pd.Executor(CPU).run(prog, feed=_feeds(3), fetch_list=[out], scope=scope)
    message = str(info.value)
    assert "op #8 'mean'" in message and "block 0" in message
    assert "RuntimeError: the device caught fire" in message
    assert f"{HERE}:{line}: out = pd.layers.mean(bn + y)" in message
    after = values(scope)
    assert after.keys() == before.keys()
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


# -- with and without a listener: the same run -----------------------------------------------------
@pytest.mark.parametrize("build", ["mlp", "stateful"])
def test_a_run_gives_the_same_values_and_scope_with_or_without_a_listener(build):
    if build == "mlp":
        prog, x, h, prob, loss = mlp(seed=4)
        feed, fetch = {"x": X}, [h, prob, loss]
    else:
        prog, out, _ = stateful_program()
        feed, fetch = _feeds(3), [out, "total"]
    results, scopes = [], []
    for listening in (False, True):
        exe, scope = pd.Executor(CPU), pd.Scope()
        if listening:
            exe.subscribe(lambda record: None)
        for _ in range(2):                        # the second run: preamble skipped, state used
            got = exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)
        results.append(got)
        scopes.append(values(scope))
        assert scope.kids == []
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    assert scopes[0].keys() == scopes[1].keys()
    for name in scopes[0]:
        np.testing.assert_array_equal(scopes[0][name], scopes[1][name], err_msg=name)


# -- the reference evaluator -----------------------------------------------------------------------
def _evaluate(prog, feed, fetch):
    scope = pd.Scope()
    for name, value in feed.items():
        scope.var(name).get_tensor().set(value, CPU)
    pd.executor.evaluate(prog, scope)
    return [scope.find_var(f.name).get_tensor().numpy() for f in fetch]


def test_the_reference_evaluator_agrees_with_the_executor_on_an_mlp():
    prog, x, h, prob, loss = mlp(seed=3)                         # seeded: the same parameters
    want = pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[h, prob, loss], scope=pd.Scope())
    got = _evaluate(prog, {"x": X}, [h, prob, loss])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_the_reference_evaluator_agrees_with_the_executor_on_arithmetic_and_shapes():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.data("y", shape=[3])
        z = pd.layers.reshape((x * 2 - y) / (y * y + 1), [0, 3, 1])
        parts = pd.layers.split(pd.layers.transpose(z, [0, 2, 1]), 3, dim=2)
        w = pd.layers.concat([parts[2], parts[0]], axis=1)
        s = pd.layers.reduce_sum(w, dim=1)
        c = pd.layers.cast(pd.layers.less_than(s, pd.layers.fill_constant([1], "float32", 0.0)),
                           "int32")
    feed = {"x": X, "y": RNG.uniform(-1, 1, (2, 3)).astype("float32")}
    fetch = [z, w, s, c]
    want = pd.Executor(CPU).run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())
    got = _evaluate(prog, feed, fetch)
    for g, v in zip(got, want):
        np.testing.assert_array_equal(g, v)


def test_the_reference_evaluator_agrees_with_the_executor_on_batch_norm_statistics():
    prog, out, _ = stateful_program()
    feed = _feeds(3)
    scope = pd.Scope()
    want = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[out, "total", "batch_norm_0.mean"],
                                scope=scope)
    got = _evaluate(prog, feed, [out, prog.global_block().var("total"),
                                 prog.global_block().var("batch_norm_0.mean")])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_the_reference_evaluator_agrees_with_the_executor_on_sub_blocks(block_owner):
    """A sub-block that writes a variable of its parent block (as control flow does)."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        out = prog.global_block().create_var(name="out", shape=[-1, 3])
        with prog._block_guard() as sub:
            pd.layers.assign(pd.layers.scale(pd.layers.relu(x), 3.0), out)
        prog.global_block().append_op("test_block_owner", outputs={"Out": [out]},
                                      attrs={"sub_block": sub.idx})
        res = pd.layers.reduce_sum(out, dim=1)
    want = pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[out, res], scope=pd.Scope())
    np.testing.assert_allclose(want[0], 3 * np.maximum(X, 0), rtol=1e-6)
    got = _evaluate(prog, {"x": X}, [out, res])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


# -- memory ----------------------------------------------------------------------------------------


def _held(scope):
    total = 0
    for name in scope.local_var_names():
        var = scope.find_local_var(name)
        if var.is_type(pd.LoDTensor) and var.get_tensor().is_allocated():
            total += var.get_tensor().nbytes
    return total


def test_after_a_run_only_the_users_scope_holds_memory(quiet_gc):
    prog, *_, loss = mlp()
    exe = pd.Executor(CPU)
    before = pd.memory_stats(CPU)["in_use"]
    scope = pd.Scope()
    exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)
    held = _held(scope)
    assert held == 4 * (3 * 4 + 4 + 4 * 2 + 2)
    assert pd.memory_stats(CPU)["in_use"] == before + held
    exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope)     # a second run: no growth
    assert pd.memory_stats(CPU)["in_use"] == before + held
    tensors = exe.run(prog, feed={"x": X}, fetch_list=[loss], scope=scope, return_numpy=False)
    assert pd.memory_stats(CPU)["in_use"] == before + held + tensors[0].nbytes
    del tensors
    scope.destroy()
    assert pd.memory_stats(CPU)["in_use"] == before


def test_a_failed_run_leaks_no_memory(quiet_gc):
    prog, out, _ = stateful_program()
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(prog, feed=_feeds(3), fetch_list=[out], scope=scope)
    before = pd.memory_stats(CPU)["in_use"]
    with pytest.raises(OpRunError):
        exe.run(prog, feed=_feeds(2), fetch_list=[out], scope=scope)
    assert pd.memory_stats(CPU)["in_use"] == before


def test_the_reference_evaluator_agrees_with_the_executor_on_while_and_cond():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        n = pd.layers.fill_constant([1], "int64", 4)
        acc = pd.layers.scale(x, 1.0)
        i = counted_while(4, lambda i: pd.layers.assign(acc * 0.5 + x, acc))
        picked = pd.layers.cond(pd.layers.less_than(n, i),
                                lambda: pd.layers.reduce_sum(acc),
                                lambda: pd.layers.reduce_mean(acc))
    want = pd.Executor(CPU).run(prog, feed={"x": X}, fetch_list=[acc, i, picked],
                                scope=pd.Scope())
    expect = X.copy()
    for _ in range(4):
        expect = expect * 0.5 + X
    np.testing.assert_allclose(want[0], expect, rtol=1e-6)
    np.testing.assert_allclose(want[2], [expect.mean()], rtol=1e-6)
    got = _evaluate(prog, {"x": X}, [acc, i, picked])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_cached_plans_lists_one_plan_per_block_run_and_a_new_one_after_an_edit():
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.fc(x, 2)
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": X}
    exe.run(prog, feed=feed, fetch_list=[y], scope=scope)
    exe.run(prog, feed=feed, fetch_list=[y], scope=scope)       # the same plan again
    plans = [(p, v, b, k) for p, v, b, k in exe.cached_plans() if p is prog]
    assert plans == [(prog, prog.version, 0, (y.name,))]
    with pd.program_guard(prog, startup):
        z = pd.layers.scale(y, 2.0)                                  # an edit: a new version
    exe.run(prog, feed=feed, fetch_list=[z], scope=scope)
    versions = [v for p, v, _, _ in exe.cached_plans() if p is prog]
    assert len(versions) == 2 and versions[-1] == prog.version > versions[0]
    assert any(p is startup for p, _, _, _ in exe.cached_plans())


@pytest.mark.parametrize("listening", [False, True])
def test_a_sub_block_reads_a_fed_persistable_as_fed(listening):
    # the user's scope keeps the old value until the run commits: a sub-block must see the
    # value fed for this run (it is in the run scope's frame), not the user's
    main = pd.Program()
    with pd.program_guard(main):
        x = pd.layers.data("x", shape=[2], append_batch_size=False)
        w = main.global_block().create_var(name="w", shape=[2], dtype="float32",
                                           persistable=True)
        out = pd.layers.fill_constant([2], "float32", 0.0)
        i = pd.layers.fill_constant([1], "int64", 0)
        n = pd.layers.fill_constant([1], "int64", 1)
        cond = pd.layers.less_than(i, n)
        loop = pd.layers.While(cond)
        with loop.block():
            pd.layers.assign(pd.layers.elementwise_mul(x, w), out)
            pd.layers.increment(i, in_place=True)
            pd.layers.less_than(i, n, cond=cond)
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listening:
        exe.subscribe(lambda record: None)
    scope.var("w").get_tensor().set(np.ones(2, "float32"))
    got, = exe.run(main, feed={"x": np.array([1.0, 2.0], "float32"),
                               "w": np.array([3.0, 3.0], "float32")}, fetch_list=[out],
                   scope=scope)
    np.testing.assert_array_equal(got, [3.0, 6.0])
    np.testing.assert_array_equal(scope.find_var("w").get_tensor().numpy(), [3.0, 3.0])


def test_the_compiled_form_tests_for_none_only_where_a_kernel_may_return_it():
    """A same-shape add binds NumPy's ufunc, which always returns an array: its line stores
    the result at once. Another kernel may leave an output absent (None): its line tests."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[4], append_batch_size=False)
        y = pd.layers.mean(x + x + x)
    exe, scope = pd.Executor(CPU), pd.Scope()
    xv = np.arange(4, dtype="float32")
    for _ in range(2):          # the second run takes the compiled form
        got, = exe.run(prog, feed={"x": xv}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(got, np.mean(3 * xv))
    plan = next(p for p in exe._plans.values() if p.block.idx == 0)
    lines = plan.interpreter.source.splitlines()
    follows = {line.split("# ")[-1].split()[-1]: lines[i + 2].strip()
               for i, line in enumerate(lines) if "# #" in line}
    assert follows["elementwise_add"].startswith("env[")
    assert follows["mean"] == "if out is not None:"


@pytest.mark.parametrize("listening", [False, True])
def test_a_run_whose_scope_a_kernel_destroys_fails_as_the_op_and_leaves_no_run_state(
        monkeypatch, listening):
    """A kernel destroying the user's scope mid-run (a run holding persistable tensor arrays,
    which a failed run puts back): the error is the op's, and the thread's run state and the
    listeners are seen to as after any other failure."""
    main, _, out = _loop_writing_a_persistable_array()
    exe, scope, heard = pd.Executor(CPU), pd.Scope(), []
    if listening:
        exe.subscribe(heard.append)

    def destroying(ctx, x, *args, **attrs):
        scope.destroy()
        raise RuntimeError("the scope is gone")
    monkeypatch.setattr(registry.get("reshape2"), "kernel", destroying)
    with pytest.raises(OpRunError, match="reshape2"):
        exe.run(main, feed={"x": np.ones(3, "float32")}, fetch_list=[out], scope=scope)
    assert exe.run_state is None
    assert len(heard) == (1 if listening else 0)


def test_a_block_with_the_fused_rnn_still_frees_its_temporaries():
    """The rnn op reads and writes only its slots (plan.SLOTS_ALONE, which the run scope's
    lending reads too): the block around it releases temporaries after their last use, but
    for the rnn op's inputs, which the RNN explorer compares its step scopes with."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.static.data("x", [2, 3, 4], "float32")
        out, _ = pd.nn.LSTM(4, 5)(pd.nn.functional.relu(x) * 2.0)
        y = pd.mean(out)
    exe, scope = pd.Executor(CPU), pd.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones((2, 3, 4), "float32")}, fetch_list=[y], scope=scope)
    plan = next(p for p in exe._plans.values() if p.block.idx == 0 and p.has_raw)
    released = {plan.names[pos] for step in plan.steps for pos in step.release}
    rnn = next(step for step in plan.steps if step.op.type == "rnn")
    assert any(name.startswith("relu") for name in released)
    assert not released & set(rnn.op.input_arg_names)   # (the RNN explorer shows them)
