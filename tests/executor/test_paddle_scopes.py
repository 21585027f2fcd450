"""``Executor(scopes="paddle")``: PaddlePaddle 2.6's step-scope rules, as an option.

paddle_nb's rules (the default, ``scopes="paddle_nb"``): a step scope per time step, kept
until the run ends, and grad blocks run in a "grad" kid of the forward step or branch scope.
PaddlePaddle's (``recurrent_op.cc``, ``conditional_block_op.cc``): ``recurrent`` with
``is_train=False`` runs every step in one of two alternating step scopes; ``recurrent_grad``
runs the grad block in the forward step scope itself and deletes each step scope once
backward has passed it; ``conditional_block_grad`` runs in the branch scope itself. These
tests check that both give the same values bit for bit and that the scope trees follow
each one's rules (from the run records' scope events and snapshots).
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.framework import unique_name
from paddle_nb.errors import OpRunError
from tests.layers import elman_rnn

CPU = pd.CPUPlace()
T, B, W, H = 4, 2, 3, 5
FEED = {"x": np.random.default_rng(3).standard_normal((T, B, W)),
        "h0": np.random.default_rng(4).standard_normal((B, H))}


def _rnn(train=True, is_train=True, both_backwards=False):
    """(program, startup, fetch): the Elman RNN, and (train) SGD on its mean square."""
    prog, startup = pd.Program(), pd.Program()
    with unique_name.guard(), pd.program_guard(prog, startup):
        x, _, out = elman_rnn(T, B, W, H)
        fetch = [out]
        if train:
            loss = pd.layers.reduce_mean(out * out)
            if both_backwards:
                fetch += pd.gradients([loss], [x])
            pd.optimizer.SGD(0.1).minimize(loss)
            fetch.append(loss)
    for op in prog.global_block().ops:
        if op.type == "recurrent":
            op.set_attr("is_train", is_train)
    return prog, startup, fetch, FEED


def _cond():
    """pred ? a * 3 : exp(fc(a)); one SGD step on the fc weight."""
    prog, startup = pd.Program(), pd.Program()
    with unique_name.guard(), pd.program_guard(prog, startup):
        a = pd.layers.data("a", shape=[1, 2], dtype="float64", append_batch_size=False)
        p = pd.layers.data("p", shape=[1], dtype="bool", append_batch_size=False)
        a.stop_gradient = False
        r = pd.layers.cond(p, lambda: a * 3.0,
                           lambda: pd.layers.exp(pd.layers.fc(a, 2, param_attr="v",
                                                              bias_attr=False)))
        loss = pd.layers.reduce_sum(r * r)
        ga, = pd.gradients([loss], [a])
        pd.optimizer.SGD(0.1).minimize(loss)
    return prog, startup, [r, loss, ga], {"a": np.array([[0.3, -1.2]]), "p": np.array([False])}


def _run(build, rules, watched, runs=2):
    """(fetched per run, the user scope's values, the last run's record or None)."""
    prog, startup, fetch, feed = build()
    exe = pd.Executor(CPU, seed=5, scopes=rules)
    records = []
    if watched:
        exe.subscribe(records.append)
    scope = pd.Scope()
    exe.run(startup, scope=scope)
    got = [exe.run(prog, feed=feed, fetch_list=fetch, scope=scope) for _ in range(runs)]
    values = {n: scope.find_var(n).get_tensor().numpy() for n in scope.local_var_names()}
    assert scope.kids == []
    return got, values, records[-1] if records else None


def _same(a, b):
    (got, values, _), (want, want_values, _) = a, b
    for g, w in zip(got, want):
        for x, y in zip(g, w):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
    assert values.keys() == want_values.keys()
    for name in values:
        np.testing.assert_array_equal(values[name], want_values[name], err_msg=name)


def _scope_events(record):
    """[(kind, scope id)] of the record's scope events, and {scope id: label} made."""
    return [(e[1], e[2]) for e in record.events if e[1].startswith("scope_")]


def _labels(record):
    """{scope id: label} of every scope the run made, from the recorded scope tree."""
    def walk(rec, out):
        out[rec.id] = rec.label
        for kid in rec.kids:
            walk(kid, out)
        return out
    return walk(record.scopes, {})


def _run_scope(record):
    run, = [k for k in record.scopes.kids if k.label == "run"]
    return run


def test_an_unknown_rule_set_is_refused_by_name():
    with pytest.raises(ValueError, match="scopes='tensorflow'.*'paddle_nb', 'paddle'"):
        pd.Executor(CPU, scopes="tensorflow")


@pytest.mark.parametrize("build", [_rnn, _cond], ids=["StaticRNN", "cond"])
@pytest.mark.parametrize("watched", [False, True], ids=["unwatched", "watched"])
def test_paddle_rules_train_to_the_same_values_bit_for_bit(build, watched):
    _same(_run(build, "paddle", watched), _run(build, "paddle_nb", watched))


def test_recurrent_grad_runs_in_the_step_scopes_and_deletes_each_once_passed():
    _, _, record = _run(_rnn, "paddle", watched=True, runs=1)
    events = _scope_events(record)
    made = [sid for kind, sid in events if kind == "scope_created"]
    gone = [sid for kind, sid in events if kind == "scope_destroyed"]
    assert len(made) == T                    # the step scopes; no "grad" kid scope
    assert gone == made[::-1]                # step T-1's first (once step T-2 ran), step 0's last
    # the grad block's gradients were made in the forward step scopes themselves
    grads = {e[2] for e in record.events if e[1] == "var_created" and e[3].endswith("@GRAD")}
    assert set(made) <= grads
    assert _run_scope(record).kids == []     # none left when the run ended


def test_paddle_nb_rules_keep_step_scopes_with_a_grad_kid_each():
    _, _, record = _run(_rnn, "paddle_nb", watched=True, runs=1)
    steps = _run_scope(record).kids
    assert [s.label for s in steps] == [f"step {t}" for t in range(T)]
    assert all([k.label for k in s.kids] == ["grad"] for s in steps)


@pytest.mark.parametrize("watched", [False, True], ids=["unwatched", "watched"])
def test_inference_on_two_alternating_step_scopes(watched):
    build = lambda: _rnn(train=False, is_train=False)      # noqa: E731
    got = _run(build, "paddle", watched)
    _same(got, _run(build, "paddle_nb", watched))
    if not watched:
        return
    record = got[2]
    steps = _run_scope(record).kids
    assert [s.label for s in steps] == ["step 0", "step 1"]
    made = [sid for kind, sid in _scope_events(record) if kind == "scope_created"]
    assert made == [s.id for s in steps]


def test_two_step_scopes_keep_the_last_two_steps_values():
    prog, startup, fetch, _ = _rnn(train=False, is_train=False)
    exe = pd.Executor(CPU, seed=5, scopes="paddle")
    exe.record_values = True
    records = []
    exe.subscribe(records.append)
    scope = pd.Scope()
    exe.run(startup, scope=scope)
    out, = exe.run(prog, feed=FEED, fetch_list=fetch, scope=scope)
    steps = _run_scope(records[-1]).kids
    for t in (T - 1, T - 2):
        h, = [v for v in steps[t % 2].vars if v.name.startswith("tanh")]
        np.testing.assert_array_equal(np.asarray(h.value), out[t])


def test_backward_after_inference_steps_is_refused():
    def build():      # is_train=False on the forward op only (its grad op's attrs say True)
        prog, startup, fetch, feed = _rnn()
        next(op for op in prog.global_block().ops if op.type == "recurrent").set_attr(
            "is_train", False)
        return prog, startup, fetch, feed
    with pytest.raises(OpRunError, match="is_train=False.*expected is_train=True"):
        _run(build, "paddle", watched=False, runs=1)
    _run(build, "paddle_nb", watched=False, runs=1)     # paddle_nb's rules keep every step


def test_a_second_backward_of_one_rnn_finds_its_step_scopes_gone():
    build = lambda: _rnn(both_backwards=True)      # noqa: E731
    with pytest.raises(OpRunError, match="ScopeDestroyedError.*earlier recurrent_grad"):
        _run(build, "paddle", watched=False, runs=1)
    _run(build, "paddle_nb", watched=False, runs=1)


def test_conditional_block_grad_runs_in_the_branch_scope():
    for rules, grad_kids in (("paddle", 0), ("paddle_nb", 2)):
        _, _, record = _run(_cond, rules, watched=True, runs=1)
        labels = _labels(record)
        branch, = [k for k in _run_scope(record).kids if k.label.startswith("block")]
        assert sum(label == "grad" for label in labels.values()) == grad_kids
        names = {v.name for v in branch.vars}
        # the branch's own values, and (PaddlePaddle's rules) the grad block's beside them
        assert any(n.endswith("@GRAD") for n in names) == (rules == "paddle")
