"""Prune and eval ("Design Doc: Block and Scope"): keep exactly the ops the targets need, then run them.

``program.prune(targets)`` walks the global block backwards keeping the ops that write a
still-needed variable; ``exe.eval(targets, ...)`` is ``exe.run(program.prune(targets), ...)``.
"""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import VarNotFoundError
from paddle_nb.framework.prune import needed_ops

CPU = pd.CPUPlace()
RNG = np.random.default_rng(11)
X = RNG.uniform(-1, 1, (2, 3)).astype("float32")
Z = RNG.uniform(-1, 1, (2, 2)).astype("float32")


def two_heads():
    """Two independent heads over two inputs, sharing nothing.

    ops: #0-#3 the preamble (fc_0.w_0, fc_0.b_0, fc_1.w_0, fc_1.b_0); head 1 is #4 mul,
    #5 elementwise_add, #6 mean; head 2 is #7 mul, #8 elementwise_add, #9 relu, #10 mean.
    """
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        z = pd.layers.data("z", shape=[2])
        h1 = pd.layers.fc(x, 4)
        loss1 = pd.layers.mean(h1)
        h2 = pd.layers.fc(z, 2)
        loss2 = pd.layers.mean(pd.layers.relu(h2))
    return prog, h1, loss1, h2, loss2


def _types(prog):
    return [op.type for op in prog.global_block().ops]


def test_the_two_heads_program_is_laid_out_as_documented():
    prog, *_ = two_heads()
    assert _types(prog) == ["uniform_random", "fill_constant", "uniform_random", "fill_constant",
                            "mul", "elementwise_add", "mean", "mul", "elementwise_add", "relu",
                            "mean"]


@pytest.mark.parametrize("targets, kept", [
    (lambda h1, l1, h2, l2: [l1], [0, 1, 4, 5, 6]),
    (lambda h1, l1, h2, l2: [l2], [2, 3, 7, 8, 9, 10]),
    (lambda h1, l1, h2, l2: [h1], [0, 1, 4, 5]),
    (lambda h1, l1, h2, l2: [h1, l2], [0, 1, 2, 3, 4, 5, 7, 8, 9, 10]),
    (lambda h1, l1, h2, l2: ["fc_1.w_0"], [2]),
    (lambda h1, l1, h2, l2: ["x"], []),
])
def test_prune_keeps_exactly_the_ops_the_targets_need(targets, kept):
    prog, *heads = two_heads()
    names = targets(*heads)
    original = prog.serialize()
    glob = prog.global_block()
    assert needed_ops(glob, [t if isinstance(t, str) else t.name for t in names]) == kept
    pruned = prog.prune(names)
    ops = pruned.global_block().ops
    assert [op.desc for op in ops] == [glob.ops[k].desc for k in kept]
    assert prog.serialize() == original                     # the original is left alone
    used = {n for op in ops for n in op.input_arg_names + op.output_arg_names}
    used |= {t if isinstance(t, str) else t.name for t in names}
    assert set(pruned.global_block().vars) == used         # variables nothing touches dropped
    assert [d.name for d in pruned.global_block().desc.vars] == list(pruned.global_block().vars)


def test_a_pruned_program_keeps_its_parameters_and_preamble():
    prog, h1, loss1, h2, loss2 = two_heads()
    pruned = prog.prune([loss1])
    assert [p.name for p in pruned.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert pruned.preamble_length() == 2
    assert "z" not in pruned.global_block().vars
    assert pd.Program.parse(pruned.serialize()).serialize() == pruned.serialize()


def test_prune_drops_a_later_overwrite_and_keeps_an_in_place_update_it_needs():
    prog = pd.Program()
    with pd.program_guard(prog):
        c = pd.layers.fill_constant([1], "float32", 1.0)       # #0
        twice = pd.layers.scale(c, 2.0)                       # #1 reads c before #2
        pd.layers.increment(c, 5.0)                          # #2 writes c in place
        pd.layers.relu(c)                                    # #3 a dead end
    glob = prog.global_block()
    assert needed_ops(glob, [twice.name]) == [0, 1]
    assert needed_ops(glob, [c.name]) == [0, 2]
    exe, scope = pd.Executor(CPU), pd.Scope()
    assert exe.eval([twice], prog, scope=scope)[0].tolist() == [2.0]
    assert exe.eval([c], prog, scope=scope)[0].tolist() == [6.0]


def test_eval_equals_run_of_the_pruned_program():
    prog, h1, loss1, h2, loss2 = two_heads()
    exe, scope = pd.Executor(CPU), pd.Scope()
    feed = {"x": X, "z": Z}
    evaluated = exe.eval([h1, loss1], prog, feed=feed, scope=scope)   # z is left out for it
    assert sorted(scope.local_var_names()) == ["fc_0.b_0", "fc_0.w_0"]  # only head 1 ran
    pruned = prog.prune([h1, loss1])
    ran = exe.run(pruned, feed={"x": X}, fetch_list=[h1.name, loss1.name], scope=scope)
    for a, b in zip(evaluated, ran):
        np.testing.assert_array_equal(a, b)
    full = exe.run(prog, feed=feed, fetch_list=[h1, loss1], scope=scope)
    for a, b in zip(evaluated, full):
        np.testing.assert_array_equal(a, b)                 # the same parameters: same values


def test_eval_of_one_target_and_of_the_default_program():
    prog, h1, loss1, h2, loss2 = two_heads()
    exe, scope = pd.Executor(CPU), pd.Scope()
    with pd.program_guard(prog):
        got = exe.eval(loss2, feed={"z": Z}, scope=scope)
    assert len(got) == 1 and got[0].shape == ()
    assert sorted(scope.local_var_names()) == ["fc_1.b_0", "fc_1.w_0"]


def test_eval_still_needs_the_feeds_its_targets_read():
    prog, h1, loss1, h2, loss2 = two_heads()
    with pytest.raises(pd.errors.FeedError, match="'z'"):
        pd.Executor(CPU).eval([loss2], prog, feed={"x": X}, scope=pd.Scope())


def test_prune_of_an_unknown_target_names_it():
    prog, *_ = two_heads()
    with pytest.raises(VarNotFoundError, match="'nothing'"):
        prog.prune(["nothing"])
    with pytest.raises(pd.errors.FetchError, match="'nothing'"):
        pd.Executor(CPU).eval(["nothing"], prog, scope=pd.Scope())


def test_prune_keeps_what_a_kept_ops_sub_block_reads_from_outside(block_owner):
    """The sub-block's reads of outer variables count as the owning op's inputs."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        y = pd.layers.relu(x)                                  # #0: read only inside the sub-block
        pd.layers.tanh(x)                                     # #1: not needed
        out = prog.global_block().create_var(name="out", shape=[-1, 3])
        with prog._block_guard() as sub:
            pd.layers.assign(pd.layers.scale(y, 2.0), out)
        prog.global_block().append_op("test_block_owner", outputs={"Out": [out]},
                                      attrs={"sub_block": sub.idx})          # #2
    assert needed_ops(prog.global_block(), ["out"]) == [0, 2]
    pruned = prog.prune([out])
    assert _types(pruned) == ["relu", "test_block_owner"]
    assert pruned.num_blocks == 2 and [op.type for op in pruned.block(1).ops] == ["scale", "assign"]
    got, = pd.Executor(CPU).eval([out], prog, feed={"x": X}, scope=pd.Scope())
    np.testing.assert_allclose(got, 2 * np.maximum(X, 0), rtol=1e-6)


def test_prune_drops_the_sub_blocks_of_the_ops_it_drops():
    prog = pd.Program()
    with pd.program_guard(prog):
        a = pd.layers.fill_constant([1], "float32", 1.0)
        twice = pd.layers.scale(a, 2.0)
        pd.layers.cond(pd.layers.less_than(a, twice),
                       lambda: pd.layers.fill_constant([1], "float32", 5.0),
                       lambda: pd.layers.fill_constant([1], "float32", 7.0))
    pruned = prog.prune([twice])
    assert _types(pruned) == ["fill_constant", "scale"]
    assert sum(len(b.ops) for b in pruned.blocks) == 2
    assert pruned.num_blocks == 1
