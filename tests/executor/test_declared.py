"""Results checked against the dtype and shape the program declares (executor/declared.py).

A kernel whose result disagrees with its variable's VarDesc stops the run with an error that
names the op, its block and position, the variable, both metas and the user's line, on the
fast path (a plan's first run) and on the scope loop (every run), and the run changes
nothing. PaddlePaddle 1.x's [1] for a 0-D value and -1 sizes pass.
"""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import AttrError, OpRunError
from paddle_nb.executor.declared import shape_matches
from paddle_nb.ops.machinery import registry

X = np.arange(6, dtype="float32").reshape(2, 3)


def program():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[3])
        hidden = pd.layers.relu(x)                    # the op the tests break
        out = pd.layers.scale(hidden, 2.0)
    return main, hidden, out


def wrong_sizes(monkeypatch):
    """relu's kernel made to drop a column: a kernel that disagrees with its shape rule."""
    relu = registry.get("relu")
    monkeypatch.setattr(relu, "kernel", lambda ctx, x: ctx.xp.maximum(x[:, :2], 0))


@pytest.mark.parametrize("change,produced,declared", [
    ({"dtype": "float64"}, "float32[2, 3]", "float64[-1, 3]"),
    ({"shape": [-1, 3, 1]}, "float32[2, 3]", "float32[-1, 3, 1]"),
    ({"shape": []}, "float32[2, 3]", "float32[]"),
    (wrong_sizes, "float32[2, 2]", "float32[-1, 3]"),
])
def test_a_result_unlike_its_declaration_stops_the_run(change, produced, declared, monkeypatch):
    main, hidden, out = program()
    if callable(change):
        change(monkeypatch)
    else:
        for name, value in change.items():
            setattr(hidden, name, value)
    exe = pd.Executor()
    exe.subscribe(lambda record: None)         # (watching changes nothing of it)
    scope = pd.Scope()
    with pytest.raises(OpRunError) as info:
        exe.run(main, feed={"x": X}, fetch_list=[out], scope=scope)
    message = str(info.value)
    assert message.startswith("op #0 'relu' in block 0 (built at ")
    assert "test_declared.py" in message and "hidden = pd.layers.relu(x)" in message
    assert f"Out='{hidden.name}' as {produced}, but the program declares {declared}" in message
    assert scope.local_var_names() == []


def test_the_first_run_is_checked_then_the_compiled_form_runs_unchecked():
    main, hidden, out = program()
    exe = pd.Executor()
    sources = []
    for _ in range(2):
        got, = exe.run(main, feed={"x": X}, fetch_list=[out])
        np.testing.assert_array_equal(got, 2 * np.maximum(X, 0))
        plan, = [plan for _, _, _, plan in _plans(exe)]
        sources.append(plan.interpreter.source)
    assert sources[0] is None                      # the plain loop, checking
    assert "def block_0" in sources[1] and "check" not in sources[1]


def _plans(exe):
    return [(*key[1:], plan) for key, plan in exe._plans.items()]


def test_a_declaration_its_own_inputs_do_not_give_is_not_held_against_the_kernel():
    # PaddlePaddle 2.6.2 declares paddle.expand of [3, 1] to [2, -1, 4] as [2, 1, 4]; the
    # rule on the declared inputs gives the kernel's sizes, and later ops inherit them
    main, hidden, out = program()
    hidden.shape = [-1, 4]
    got, = pd.Executor().run(main, feed={"x": X}, fetch_list=[out])
    np.testing.assert_array_equal(got, 2 * np.maximum(X, 0))


def test_a_result_nothing_reads_is_not_checked():
    # PaddlePaddle's inference batch_norm declares a 0-D SavedMean that no op reads
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[3])
        unread = pd.layers.relu(x)
        out = pd.layers.scale(x, 2.0)
    unread.dtype = "int64"
    exe = pd.Executor()
    got, = exe.run(main, feed={"x": X}, fetch_list=[out])
    np.testing.assert_array_equal(got, 2 * X)
    with pytest.raises(OpRunError, match="declares int64"):      # fetched: seen, so checked
        exe.run(main, feed={"x": X}, fetch_list=[unread])


@pytest.mark.parametrize("declared,shape,ok", [
    ((-1, 3), (2, 3), True), ((2, 3), (2, 3), True), ((2, 3), (3, 3), False),
    ((1,), (), True), ((1, 1), (), True), ((), (1,), False), ((-1,), (), False),
    ((2,), (2, 1), False),
])
def test_shape_matches(declared, shape, ok):
    assert shape_matches(declared, shape) is ok


def test_a_refused_attribute_names_the_ops_block_and_position():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[5])
        block = main.global_block()
        values, indices = block.create_var(dtype="float32"), block.create_var(dtype="int64")
        block.append_op("top_k", {"X": [x]}, {"Out": [values], "Indices": [indices]}, {"k": 2})
    parsed = pd.Program.parse(main.serialize())
    op = parsed.global_block().ops[-1]
    attr = next(a for a in op.desc.attrs if a.name == "k")
    attr.i = 0                                      # k must be at least 1
    with pytest.raises(AttrError) as info:
        pd.Executor().run(parsed, feed={"x": np.ones((1, 5), "float32")},
                          fetch_list=[values.name])
    message = str(info.value)
    assert f"op #{op.index()} 'top_k' in block 0 (built at " in message
    assert "block.append_op(\"top_k\"" in message and "at least 1" in message


def test_a_block_with_control_flow_is_checked_once_and_an_observed_sub_block_always(
        monkeypatch):
    # (the check costs about 0.3 us an op: an unobserved run pays it once per plan; a sub-block
    # run on cells, as an observed run's are, pays it every time)
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", shape=[3])
        hidden = pd.layers.relu(x)
        zero = pd.layers.fill_constant([1], "float32", 0.0)
        positive = pd.layers.greater_than(pd.layers.reduce_sum(hidden), zero)
        # control flow in block 0: its branches run in scopes
        out = pd.layers.cond(positive, lambda: pd.layers.scale(hidden, 2.0), lambda: hidden)
    exe = pd.Executor()
    exe.run(main, feed={"x": X}, fetch_list=[out])
    plan = next(p for p in exe._plans.values() if p.block.idx == 0)
    assert plan.has_raw and plan.verified
    relu = next(k for k, step in enumerate(plan.steps) if step.op.type == "relu")
    kernels = list(plan.interpreter.kernels)
    kernels[relu] = lambda x: x.astype("float64")                  # a wrong kernel
    monkeypatch.setattr(plan.interpreter, "kernels", kernels)
    exe.subscribe(lambda record: None)
    # block 0 passed its checks: its wrong relu goes unseen, the branch's scale is checked
    with pytest.raises(OpRunError, match=r"'scale' in block 1 .* Out='scale_0.tmp_0' as "
                                         r"float64\[2, 3\], but the program declares "
                                         r"float32\[-1, 3\]"):
        exe.run(main, feed={"x": X}, fetch_list=[out])
