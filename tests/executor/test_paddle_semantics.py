"""Runs mean what they mean in PaddlePaddle, whichever path runs them.

- Every op of a program runs on every run. The only exception is the preamble ("Design Doc:
  Python API"): the initializers the framework itself put at the head of the main program
  when there was no startup program, which run once per scope. A user's leading op that
  writes a persistable (an accumulator reset) and a startup program run again are never
  skipped.
"""

import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()


@pytest.fixture(params=[False, True], ids=["unobserved", "observed"])
def listener(request):
    """Each test runs twice: on the fast path and with a run listener subscribed."""
    return request.param


def _accumulator_program():
    """acc = 0; acc += 1; fetch acc -- the reset is the program's own first op."""
    prog = pd.Program()
    with pd.program_guard(prog):
        acc = prog.global_block().create_var(name="acc", shape=[1], dtype="float32",
                                             persistable=True)
        pd.layers.fill_constant([1], "float32", 0.0, out=acc)
        pd.layers.increment(acc, 1.0, in_place=True)
    return prog, acc


def test_a_leading_write_to_a_persistable_runs_on_every_run(listener):
    prog, acc = _accumulator_program()
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listener:
        exe.subscribe(lambda record: None)
    got = [float(exe.run(prog, fetch_list=[acc], scope=scope)[0][0]) for _ in range(3)]
    assert got == [1.0, 1.0, 1.0]                 # PaddlePaddle 2.6.2 gives 1, 1, 1


def test_running_the_startup_program_again_resets_the_parameters(listener):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        loss = pd.layers.mean(pd.layers.fc(x, 2, param_attr=pd.initializer.Constant(0.5)))
        pd.optimizer.SGD(0.5).minimize(loss)
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listener:
        exe.subscribe(lambda record: None)
    exe.run(startup, scope=scope)
    w = main.global_block().all_parameters()[0].name
    initial = scope.find_var(w).get_tensor().numpy().copy()
    exe.run(main, feed={"x": np.ones((2, 3), "float32")}, scope=scope)
    assert not np.array_equal(scope.find_var(w).get_tensor().numpy(), initial)
    exe.run(startup, scope=scope)
    np.testing.assert_array_equal(scope.find_var(w).get_tensor().numpy(), initial)


def test_the_frameworks_own_preamble_still_runs_once_per_scope(listener):
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        loss = pd.layers.mean(pd.layers.fc(x, 2))
        pd.optimizer.SGD(0.5).minimize(loss)
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listener:
        exe.subscribe(lambda record: None)
    feed = {"x": np.ones((2, 3), "float32")}
    losses = [float(exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0].reshape(-1)[0])
              for _ in range(3)]
    assert losses[0] > losses[1] > losses[2]      # trained, never re-initialized


def _fc_program():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        out = pd.layers.fc(x, 2, param_attr="w", bias_attr=False)
    return main, startup, out


def test_a_fed_parameter_is_written_into_the_scope_on_every_path(listener):
    """PaddlePaddle writes a fed persistable into the scope; attaching a viewer must not
    change that, and the scope keeps a copy, not the caller's array."""
    main, startup, out = _fc_program()
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listener:
        exe.subscribe(lambda record: None)
    exe.run(startup, scope=scope)
    fed = np.full((3, 2), 2.0, "float32")
    x = np.ones((1, 3), "float32")
    got = exe.run(main, feed={"x": x, "w": fed}, fetch_list=[out], scope=scope)[0]
    np.testing.assert_array_equal(got, [[6.0, 6.0]])
    np.testing.assert_array_equal(scope.find_var("w").get_tensor().numpy(), fed)
    fed[...] = -1.0                                   # the caller's array is still the caller's
    np.testing.assert_array_equal(scope.find_var("w").get_tensor().numpy(), 2.0)
    got = exe.run(main, feed={"x": x}, fetch_list=[out], scope=scope)[0]
    np.testing.assert_array_equal(got, [[6.0, 6.0]])  # the fed value stays


def test_a_fed_parameter_of_a_failed_run_leaves_the_scope_as_it_was(listener):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        label = pd.layers.data("label", shape=[1], dtype="int64")
        logits = pd.layers.fc(x, 2, param_attr="w", bias_attr=False)
        loss = pd.layers.softmax_with_cross_entropy(logits, label)
    exe, scope = pd.Executor(CPU), pd.Scope()
    if listener:
        exe.subscribe(lambda record: None)
    exe.run(startup, scope=scope)
    before = scope.find_var("w").get_tensor().numpy().copy()
    with pytest.raises(pd.errors.OpRunError, match="softmax_with_cross_entropy"):
        exe.run(main, feed={"x": np.ones((1, 3), "float32"), "w": np.zeros((3, 2), "float32"),
                            "label": np.array([[5]], "int64")},      # a class that is not there
                fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(scope.find_var("w").get_tensor().numpy(), before)


def test_a_preamble_initializer_stays_one_after_an_op_is_put_before_it():
    """Which ops initialize once per scope is decided when the program is built
    (``Program.initializes_once``), not guessed from where the ops stand: an op
    prepended to the global block does not make the initializers run again."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.fc(x, 2)
    block = prog.global_block()
    block.create_var(name="zero", shape=[1], dtype="float32")
    block.prepend_op("fill_constant", outputs={"Out": ["zero"]},
                     attrs={"shape": [1], "dtype": "float32", "value": 0.0})
    assert [op.type for op in block.ops][:3] == ["fill_constant", "uniform_random",
                                                 "fill_constant"]
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    feed = {"x": np.ones((1, 3), "float32")}
    first, = exe.run(prog, feed=feed, fetch_list=[y], scope=scope)
    weight = scope.find_var("fc_0.w_0").get_tensor().array()
    second, = exe.run(prog, feed=feed, fetch_list=[y], scope=scope)
    assert scope.find_var("fc_0.w_0").get_tensor().array() is weight
    np.testing.assert_array_equal(first, second)
    assert [prog.initializes_once(op) for op in block.ops] == [False, True, True, False, False]
