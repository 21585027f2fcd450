"""The two programs of "Design Doc: Block and Scope", run as written, against NumPy.

The document's text has evident typos, fixed here and nowhere else: ``true`` /
``false`` are Python's ``True`` / ``False``; the false block sets output
``(False, 0)``, not ``(true, 0)``; ``out = b(cond)`` is ``out = ie(cond)``;
``operator.add`` is ``+``, ``layer.fc`` is ``pd.layers.fc``, ``pd.add_two``
is ``+`` and ``pd.matmul(W, x)`` is ``pd.layers.matmul(x_t, W)`` (rows are
instances). What the document leaves open (``var(10)``, ``tensor()``,
``sequence([10, 20, 30])``) becomes data and parameters of matching shapes.
"""

import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()


def _softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def test_the_if_else_program():
    N, D = 6, 4
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[D], dtype="float64")
        y = pd.layers.data("y", shape=[D], dtype="float64", append_batch_size=False)
        cond = pd.layers.data("cond", shape=[1], dtype="bool")

        ie = pd.create_ifelseop(inputs=[x], output_num=1)
        with ie.true_block():
            x = ie.inputs(True, 0)
            z = x + y
            ie.set_output(True, 0, pd.layers.softmax(z))
        with ie.false_block():
            x = ie.inputs(False, 0)
            z = pd.layers.fc(x, size=D, param_attr="fc.w", bias_attr="fc.b")
            ie.set_output(False, 0, pd.layers.softmax(z))
        out = ie(cond)

    assert out.shape == (-1, D)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((N, D)), "y": rng.standard_normal(D),
            "cond": np.array([1, 0, 1, 1, 0, 0], bool).reshape(N, 1)}
    scope = pd.Scope()
    got, = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[out], scope=scope)
    w, b = (scope.find_var(n).get_tensor().numpy() for n in ("fc.w", "fc.b"))
    want = np.where(feed["cond"], _softmax(feed["x"] + feed["y"]), _softmax(feed["x"] @ w + b))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert scope.kids == []


def _seed_rnn(T, B, FEATURES, H):
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[T, B, FEATURES], dtype="float64", append_batch_size=False)
        m = pd.layers.data("m", shape=[B, H], dtype="float64", append_batch_size=False)
        block = prog.global_block()
        W = block.create_parameter(name="W", shape=[FEATURES, H], dtype="float64")
        U = block.create_parameter(name="U", shape=[H, H], dtype="float64")

        rnn = pd.create_rnn(inputs=[x])
        with rnn.stepnet() as net:
            x_t = net.set_inputs(0)
            h = net.add_memory(init=m)
            fc_out = pd.layers.matmul(x_t, W)
            hidden_out = pd.layers.matmul(h.pre(n=1), U)
            sum = fc_out + hidden_out                      # noqa: A001  the document's name
            act = pd.layers.sigmoid(sum)
            h.update(act)                                  # update memory with act
            net.set_outputs(0, act, hidden_out)            # two outputs
        o1, o2 = rnn()
    return prog, o1, o2


def test_the_rnn_program():
    T, B, FEATURES, H = 3, 2, 4, 5
    prog, o1, o2 = _seed_rnn(T, B, FEATURES, H)
    assert o1.shape == o2.shape == (T, B, H)
    rng = np.random.default_rng(1)
    feed = {"x": rng.standard_normal((T, B, FEATURES)), "m": rng.standard_normal((B, H))}
    scope = pd.Scope()
    got1, got2 = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[o1, o2], scope=scope)
    w, u = (scope.find_var(n).get_tensor().numpy() for n in ("W", "U"))
    mem, want1, want2 = feed["m"], [], []
    for t in range(T):                 # the document's C++ loop, mem[i] = act
        hidden_out = mem @ u
        act = _sigmoid(feed["x"][t] @ w + hidden_out)
        mem = act
        want1.append(act)
        want2.append(hidden_out)
    np.testing.assert_allclose(got1, np.stack(want1), rtol=1e-12)
    np.testing.assert_allclose(got2, np.stack(want2), rtol=1e-12)


def test_the_rnn_program_on_the_seeds_scalars():
    """The C++ version's numbers: x = {10, 20, 30}, m = 0, one instance of one feature."""
    prog, o1, o2 = _seed_rnn(3, 1, 1, 1)
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    exe.run(prog, feed={"x": np.zeros((3, 1, 1)), "m": np.zeros((1, 1))}, fetch_list=[o1],
            scope=scope)
    scope.find_var("W").get_tensor().set(np.array([[0.05]]))     # W = some_value()
    scope.find_var("U").get_tensor().set(np.array([[-2.0]]))     # U = some_other_value()
    x = np.array([10.0, 20.0, 30.0]).reshape(3, 1, 1)
    got1, got2 = exe.run(prog, feed={"x": x, "m": np.zeros((1, 1))}, fetch_list=[o1, o2],
                         scope=scope)
    mem, act_out, hidden = [0.0], [], []
    for i in range(1, 4):
        fc_out = 0.05 * x[i - 1, 0, 0]
        hidden_out = -2.0 * mem[i - 1]
        act = float(_sigmoid(fc_out + hidden_out))
        mem.append(act)
        act_out.append(act)
        hidden.append(hidden_out)
    np.testing.assert_allclose(got1.reshape(-1), act_out, rtol=1e-12)
    np.testing.assert_allclose(got2.reshape(-1), hidden, rtol=1e-12)


def test_get_variable_reaches_a_parameter_from_the_step_block():
    """The document's "Compilation of Blocks" example: the step net reuses fc's weight by name."""
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[3, 2, 4], dtype="float64", append_batch_size=False)
        b = pd.layers.fc(a, 4, num_flatten_dims=2, param_attr="fc.w", bias_attr="fc.b")
        rnn = pd.create_rnn(inputs=[a])
        with rnn.stepnet() as net:
            x = net.set_inputs(0)
            fc_without_b = pd.get_variable("fc.w")
            assert fc_without_b.block.idx == 0            # found in the parent (global) block
            net.set_outputs(0, pd.layers.matmul(x, fc_without_b))
        out, = rnn()
    feed = {"a": np.random.default_rng(2).standard_normal((3, 2, 4))}
    scope = pd.Scope()
    got_b, got = pd.Executor(CPU).run(prog, feed=feed, fetch_list=[b, out], scope=scope)
    np.testing.assert_allclose(got + scope.find_var("fc.b").get_tensor().numpy(), got_b,
                               rtol=1e-12)


def _seed_ifelse_with_fc_in_a_branch():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3], dtype="float64")
        cond = pd.layers.data("cond", shape=[1], dtype="bool")
        ie = pd.create_ifelseop(inputs=[x], output_num=1)
        with ie.true_block():
            ie.set_output(True, 0, ie.inputs(True, 0) * 2.0)
        with ie.false_block():
            ie.set_output(False, 0, pd.layers.fc(ie.inputs(False, 0), 3, param_attr="w"))
        out = ie(cond)
    return prog, out


def test_the_if_else_program_keeps_its_parameters_between_runs():
    """ie(cond) copies cond in after the parameters' initializers, which run once per scope
    (it used to go first, which made every run re-initialize the fc's weight)."""
    prog, out = _seed_ifelse_with_fc_in_a_branch()
    assert [op.type for op in prog.global_block().ops][:3] == ["uniform_random", "fill_constant",
                                                               "assign"]
    scope = pd.Scope()
    exe = pd.Executor(CPU)
    weights = []
    for flag in (True, False, False):
        exe.run(prog, feed={"x": np.ones((2, 3)), "cond": np.full((2, 1), flag)},
                fetch_list=[out], scope=scope)
        weights.append(scope.find_var("w").get_tensor().numpy())
    assert all(np.array_equal(weights[0], w) for w in weights)


def test_the_if_else_condition_must_be_computed_before_the_branches():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[3])
        ie = pd.create_ifelseop(inputs=[x], output_num=1)
        with ie.true_block():
            ie.set_output(True, 0, ie.inputs(True, 0))
        with ie.false_block():
            ie.set_output(False, 0, ie.inputs(False, 0))
        late = pd.layers.less_than(x, pd.layers.fill_constant([1], "float32", 0.0))
        with pytest.raises(pd.errors.OpBuildError, match="computed after the branches"):
            ie(late)
