"""IfElse, cond and While ("Design Doc: Block and Scope"): results, gradients, scopes, and
bad input.

- IfElse against ``numpy.where`` on random masks (Hypothesis), all-true and
  all-false included, with several inputs and outputs;
- gradients through IfElse, cond and While against central differences of
  the program itself (float64), for data (``pd.gradients``) and for
  parameters the branch or loop body captures from the global block;
- each branch and each loop iteration runs in a kid scope of the run's
  scope, labelled "block k" / "step t", with a "grad" kid after backward,
  and nothing is left behind when the run ends;
- a condition that is not bool, a loop that never ends, a loop body that
  never writes its condition: each a clear error.
"""

import gc

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import paddle_nb as pd
from paddle_nb.core.memory import MEMORY
from paddle_nb.errors import OpBuildError, OpRunError
from tests.layers import central_difference, counted_while, row_ifelse, tanh_fc_while
from tests.ops import harness

CPU = pd.CPUPlace()
D = 3


def _sub_block_scopes(record):
    return [s for s in record.scopes.walk() if s.label and s.label.startswith(("block", "step"))]


# -- IfElse ------------------------------------------------------------------------------------
def _ifelse_program():
    """Two inputs, two outputs; the false branch uses a parameter of the global block."""
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[D], dtype="float64")
        b = pd.layers.data("b", shape=[D], dtype="float64")
        c = pd.layers.data("c", shape=[1], dtype="bool")
        for v in (a, b):
            v.stop_gradient = False
        o1, o2 = row_ifelse(c, [a, b], lambda at, bt: (at * bt, pd.layers.scale(at, 2.0)),
                            lambda af, bf: (af - bf, pd.layers.fc(bf, D, param_attr="w",
                                                                  bias_attr=False)))
        loss = pd.layers.reduce_sum(o1 * o1) + pd.layers.reduce_sum(pd.layers.tanh(o2))
        ga, gb = pd.gradients([loss], [a, b])
        pairs = pd.append_backward(loss)
    return prog, (a, b, c), (o1, o2, loss, ga, gb, pairs[0][1])


IFELSE = _ifelse_program()
EXE = pd.Executor(CPU)


@settings(max_examples=30, deadline=None)
@given(flags=st.lists(st.booleans(), min_size=1, max_size=7), seed=st.integers(0, 2**16))
@example(flags=[True] * 4, seed=0)
@example(flags=[False] * 4, seed=1)
@example(flags=[True], seed=2)
@example(flags=[False], seed=3)
def test_ifelse_matches_numpy_where(flags, seed):
    prog, _, (o1, o2, *_rest) = IFELSE
    rng = np.random.default_rng(seed)
    n = len(flags)
    a, b = rng.standard_normal((n, D)), rng.standard_normal((n, D))
    c = np.array(flags).reshape(n, 1)
    scope = pd.Scope()
    got1, got2 = EXE.run(prog, feed={"a": a, "b": b, "c": c}, fetch_list=[o1, o2], scope=scope)
    w = scope.find_var("w").get_tensor().numpy()
    np.testing.assert_allclose(got1, np.where(c, a * b, a - b), rtol=1e-12)
    np.testing.assert_allclose(got2, np.where(c, 2 * a, b @ w), rtol=1e-12)
    assert scope.kids == []


@pytest.mark.parametrize("flags", [[1, 0, 0, 1, 0], [1] * 5, [0] * 5],
                         ids=["mixed", "all-true", "all-false"])
def test_ifelse_gradients_match_central_differences(flags):
    prog, _, (_o1, _o2, loss, ga, gb, gw) = IFELSE
    rng = np.random.default_rng(len(flags) + sum(flags))
    feed = {"a": rng.standard_normal((5, D)), "b": rng.standard_normal((5, D)),
            "c": np.array(flags, bool).reshape(5, 1)}
    scope = pd.Scope()
    got_a, got_b, got_w = EXE.run(prog, feed=feed, fetch_list=[ga, gb, gw], scope=scope)
    for name, got in (("a", got_a), ("b", got_b), ("w", got_w)):
        want = central_difference(EXE, prog, feed, loss, scope, name)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=f"d loss/d {name}")


def test_ifelse_branch_scopes_hold_their_rows():
    prog, _, (o1, *_rest) = IFELSE
    records = []
    exe = pd.Executor(CPU)
    exe.subscribe(records.append)
    flags = np.array([1, 0, 0, 1, 0, 0], bool).reshape(-1, 1)
    rng = np.random.default_rng(0)
    scope = pd.Scope()
    exe.run(prog, feed={"a": rng.standard_normal((6, D)), "b": rng.standard_normal((6, D)),
                        "c": flags}, fetch_list=[o1], scope=scope)
    run, = records[-1].scopes.kids
    assert run.label == "run"
    true_scope, false_scope = run.kids
    assert (true_scope.label, false_scope.label) == ("block 1", "block 2")
    for branch, rows in ((true_scope, 2), (false_scope, 4)):
        assert {v.shape[0] for v in branch.vars if v.shape} == {rows}
        # gradients() and append_backward
        assert [k.label for k in branch.kids] == ["grad", "grad"]
    assert scope.kids == []


def test_ifelse_empty_branch_makes_no_scope():
    prog, _, (o1, *_rest) = IFELSE
    records = []
    exe = pd.Executor(CPU)
    exe.subscribe(records.append)
    ones = np.ones((3, D))
    exe.run(prog, feed={"a": ones, "b": ones, "c": np.ones((3, 1), bool)}, fetch_list=[o1],
            scope=pd.Scope())
    assert [s.label for s in _sub_block_scopes(records[-1])] == ["block 1"]


def test_ifelse_output_counts_must_agree():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[D])
        c = pd.layers.data("c", shape=[1], dtype="bool")
        ie = pd.layers.IfElse(c)
        with ie.true_block():
            ie.output(ie.input(x), ie.input(x))
        with ie.false_block():
            ie.output(ie.input(x))
        with pytest.raises(OpBuildError, match="true branch has 2 outputs and the false branch 1"):
            ie()


def test_ifelse_input_outside_a_branch_is_an_error():
    with pd.program_guard(pd.Program()):
        x = pd.layers.data("x", shape=[D])
        ie = pd.layers.IfElse(pd.layers.data("c", shape=[1], dtype="bool"))
        with pytest.raises(OpBuildError, match="inside true_block"):
            ie.input(x)


def test_ifelse_mask_rows_must_match_at_run_time():
    prog, _, (o1, *_rest) = IFELSE
    feed = {"a": np.zeros((4, D)), "b": np.zeros((4, D)), "c": np.ones((3, 1), bool)}
    with pytest.raises(OpRunError, match="Mask has 3 rows, X has 4"):
        EXE.run(prog, feed=feed, fetch_list=[o1], scope=pd.Scope())


# -- cond --------------------------------------------------------------------------------------
def _cond_program():
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.data("a", shape=[1, 2], dtype="float64", append_batch_size=False)
        a.stop_gradient = False
        p = pd.layers.data("p", shape=[1], dtype="bool", append_batch_size=False)
        r1, r2 = pd.layers.cond(
            p, lambda: [a * 3.0, pd.layers.exp(a)],
            lambda: [a * a, pd.layers.fc(a, 2, param_attr="v", bias_attr=False)])
        single = pd.layers.cond(p, lambda: a + 1.0, lambda: a - 1.0)
        loss = pd.layers.reduce_sum(r1) + pd.layers.reduce_sum(r2 * r2)
        ga, = pd.gradients([loss], [a])
        pairs = pd.append_backward(loss)
    return prog, (r1, r2, single, loss, ga, pairs[0][1])


COND = _cond_program()


@pytest.mark.parametrize("pred", [True, False])
def test_cond_takes_one_branch(pred):
    prog, (r1, r2, single, *_rest) = COND
    a = np.array([[0.3, -1.2]])
    scope = pd.Scope()
    got1, got2, got_single = EXE.run(prog, feed={"a": a, "p": np.array([pred])},
                                     fetch_list=[r1, r2, single], scope=scope)
    v = scope.find_var("v").get_tensor().numpy()
    np.testing.assert_allclose(got1, 3 * a if pred else a * a)
    np.testing.assert_allclose(got2, np.exp(a) if pred else a @ v)
    np.testing.assert_allclose(got_single, a + 1 if pred else a - 1)


@pytest.mark.parametrize("pred", [True, False])
def test_cond_gradients_match_central_differences(pred):
    prog, (*_outs, loss, ga, gv) = COND
    feed = {"a": np.array([[0.3, -1.2]]), "p": np.array([pred])}
    scope = pd.Scope()
    got_a, got_v = EXE.run(prog, feed=feed, fetch_list=[ga, gv], scope=scope)
    np.testing.assert_allclose(got_a, central_difference(EXE, prog, feed, loss, scope, "a"),
                               rtol=1e-6, atol=1e-8)
    want_v = central_difference(EXE, prog, feed, loss, scope, "v")
    np.testing.assert_allclose(got_v, want_v, rtol=1e-6, atol=1e-8)
    if pred:
        assert not got_v.any()          # the branch that reads v did not run


def test_cond_runs_one_branch_scope_per_cond():
    prog, (r1, *_rest) = COND          # two conds: blocks 1 and 2, then blocks 3 and 4
    records = []
    exe = pd.Executor(CPU)
    exe.subscribe(records.append)
    for pred, taken in ((True, ["block 1", "block 3"]), (False, ["block 2", "block 4"])):
        exe.run(prog, feed={"a": np.ones((1, 2)), "p": np.array([pred])}, fetch_list=[r1],
                scope=pd.Scope())
        run, = records[-1].scopes.kids
        assert [k.label for k in run.kids] == taken


def test_cond_branches_must_return_alike():
    with pd.program_guard(pd.Program()):
        a = pd.layers.data("a", shape=[2], append_batch_size=False)
        p = pd.layers.data("p", shape=[1], dtype="bool", append_batch_size=False)
        with pytest.raises(OpBuildError, match="true_fn returns 2 values and false_fn 1"):
            pd.layers.cond(p, lambda: [a, a], lambda: [a])


def test_select_output_sends_the_value_to_one_slot():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for k in (0, 1):
        out = harness.forward("select_output", {"X": x, "Mask": np.array([k], np.int32)})["Out"]
        assert out[k] is x and out[1 - k] is None


# -- While -------------------------------------------------------------------------------------
def test_while_sums_zero_to_nine_one_step_scope_per_iteration():
    prog = pd.Program()
    with pd.program_guard(prog):
        s = pd.layers.fill_constant([1], "int64", 0)
        i = counted_while(10, lambda i: pd.layers.assign(s + i, s))
    records = []
    exe = pd.Executor(CPU)
    exe.subscribe(records.append)
    scope = pd.Scope()
    total, count = exe.run(prog, fetch_list=[s, i], scope=scope)
    assert total.tolist() == [45] and count.tolist() == [10]
    run, = records[-1].scopes.kids
    assert [k.label for k in run.kids] == [f"step {t}" for t in range(10)]
    assert scope.kids == []


def _while_program(steps=3):
    """h <- tanh(h W + b), ``steps`` times, from h = x; W, b captured from the global block."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x, h, _, loss = tanh_fc_while(steps)
        gx, = pd.gradients([loss], [x])
        pairs = pd.append_backward(loss)
    return prog, h, loss, gx, pairs


def test_while_matches_numpy_and_its_gradients_central_differences():
    prog, h, loss, gx, pairs = _while_program()
    feed = {"x": np.random.default_rng(4).standard_normal((2, 3))}
    scope = pd.Scope()
    got_h, got_x, got_w, got_b = EXE.run(prog, feed=feed,
                                         fetch_list=[h, gx] + [g for _, g in pairs], scope=scope)
    w, b = (scope.find_var(n).get_tensor().numpy() for n in ("W", "bias"))
    want = feed["x"]
    for _ in range(3):
        want = np.tanh(want @ w + b)
    np.testing.assert_allclose(got_h, want, rtol=1e-12)
    for name, got in (("x", got_x), ("W", got_w), ("bias", got_b)):
        np.testing.assert_allclose(got, central_difference(EXE, prog, feed, loss, scope, name),
                                   rtol=1e-6, atol=1e-8, err_msg=f"d loss/d {name}")


def test_while_step_scopes_get_grad_kids_and_are_gone_after_the_run():
    prog, h, *_ = _while_program()
    records = []
    exe = pd.Executor(CPU)
    exe.subscribe(records.append)
    scope = pd.Scope()
    feed = {"x": np.ones((2, 3))}
    gc.collect()
    base = MEMORY.in_use(CPU)
    for _ in range(2):                 # the first run also initializes W and bias
        exe.run(prog, feed=feed, fetch_list=[h], scope=scope)
        gc.collect()
        assert MEMORY.in_use(CPU) - base == (3 * 3 + 3) * 8      # the parameters' bytes
        assert scope.kids == [] and sorted(scope.local_var_names()) == ["W", "bias"]
    run, = records[-1].scopes.kids
    assert [k.label for k in run.kids] == ["step 0", "step 1", "step 2"]
    for step in run.kids:
        assert [k.label for k in step.kids] == ["grad", "grad"]
        assert ("fc_0.tmp_0", (2, 3)) in [(v.name, v.shape) for v in step.vars]


def _endless(body):
    prog = pd.Program()
    with pd.program_guard(prog):
        c = pd.layers.fill_constant([1], "bool", True)
        i = pd.layers.fill_constant([1], "int64", 0)
        loop = pd.layers.While(c, max_iterations=5)
        with loop.block():
            pd.layers.increment(i)
            body(c)
    return prog


@pytest.mark.parametrize("body", [
    lambda c: pd.layers.fill_constant([1], "bool", True, out=c),
    lambda c: pd.layers.assign(pd.layers.fill_constant([1], "bool", True), c),
], ids=["fill_constant", "assign"])
def test_while_that_never_ends_is_stopped(body):
    prog = _endless(body)
    with pytest.raises(OpRunError, match="still true after 5 iterations"):
        EXE.run(prog, scope=pd.Scope())


def test_while_body_must_write_its_condition():
    with pd.program_guard(pd.Program()):
        c = pd.layers.fill_constant([1], "bool", True)
        i = pd.layers.fill_constant([1], "int64", 0)
        loop = pd.layers.While(c)
        with pytest.raises(OpBuildError, match="never updates its condition"):
            with loop.block():
                pd.layers.increment(i)


# -- conditions that are not bool ----------------------------------------------------------------
def test_ifelse_condition_must_be_bool():
    with pd.program_guard(pd.Program()):
        with pytest.raises(OpBuildError, match="IfElse: the condition 'c' must be a bool tensor, "
                                               "got float32"):
            pd.layers.IfElse(pd.layers.data("c", shape=[1]))


def test_cond_condition_must_be_one_bool():
    with pd.program_guard(pd.Program()):
        a = pd.layers.fill_constant([1], "float32", 1.0)
        with pytest.raises(OpBuildError, match="cond: the condition .* must be a bool tensor, "
                                               "got int32"):
            pd.layers.cond(pd.layers.fill_constant([1], "int32", 1), lambda: a, lambda: a)
        with pytest.raises(OpBuildError, match=r"must hold one value, got shape \[3\]"):
            pd.layers.cond(pd.layers.fill_constant([3], "bool", True), lambda: a, lambda: a)


def test_while_condition_must_be_bool():
    with pd.program_guard(pd.Program()):
        with pytest.raises(OpBuildError, match="While: the condition .* must be a bool tensor, "
                                               "got float32"):
            pd.layers.While(pd.layers.fill_constant([1], "float32", 1.0))
