"""Blocks and their symbol tables ("Design Doc: Python API", "Design Doc: Block and Scope").

The global block comes first; ``create_block`` makes a kid of the current block and makes
it current; ``rollback`` goes back to the parent. A block declares one VarDesc per name,
finds names through its parents, and parameters always live in the global block, with
their initializer ops in the preamble or in the startup program.
"""
import pytest

import paddle_nb as pd
from paddle_nb.errors import VarNotFoundError
from paddle_nb.framework.program import is_initializer


def _var_descs(block, name):
    return [d for d in block.desc.vars if d.name == name]


# -- the block tree --------------------------------------------------------------------------
def test_the_global_block_comes_first():
    prog = pd.Program()
    glob = prog.global_block()
    assert prog.num_blocks == 1 and prog.blocks == [glob]
    assert glob.idx == 0 and glob.parent_idx == -1 and glob.parent is None
    assert prog.current_block() is glob and prog.block(0) is glob
    assert glob.program is prog
    assert len(prog.desc.blocks) == 1
    assert prog.desc.blocks[0].idx == 0 and prog.desc.blocks[0].parent_idx == -1


def test_create_block_makes_a_kid_of_the_current_block_and_makes_it_current():
    prog = pd.Program()
    b1 = prog.create_block()
    assert (b1.idx, b1.parent_idx) == (1, 0) and prog.current_block() is b1
    b2 = prog.create_block()
    assert (b2.idx, b2.parent_idx) == (2, 1) and prog.current_block() is b2
    assert b2.parent is b1 and b1.parent is prog.global_block()
    assert [(d.idx, d.parent_idx) for d in prog.desc.blocks] == [(0, -1), (1, 0), (2, 1)]
    assert prog.num_blocks == 3 and prog.blocks == [prog.global_block(), b1, b2]


def test_rollback_returns_to_the_parent():
    prog = pd.Program()
    b1 = prog.create_block()
    prog.create_block()
    prog.rollback()
    assert prog.current_block() is b1
    b3 = prog.create_block()           # a second kid of block 1: a sibling of block 2
    assert (b3.idx, b3.parent_idx) == (3, 1)
    prog.rollback()
    prog.rollback()
    assert prog.current_block() is prog.global_block()
    prog.rollback()                    # the global block has no parent: it stays current
    assert prog.current_block() is prog.global_block()


def test_create_block_with_an_explicit_parent():
    prog = pd.Program()
    prog.create_block()
    prog.create_block()
    b = prog.create_block(parent_idx=0)
    assert (b.idx, b.parent_idx) == (3, 0) and prog.current_block() is b


def test_the_block_guard_rolls_back_even_when_the_body_fails():
    prog = pd.Program()
    with pytest.raises(RuntimeError):
        with prog._block_guard() as sub:
            assert prog.current_block() is sub
            raise RuntimeError("boom")
    assert prog.current_block() is prog.global_block()


# -- one VarDesc per name per block ---------------------------------------------------------------
def test_create_var_twice_returns_the_same_variable_and_one_var_desc():
    prog = pd.Program()
    glob = prog.global_block()
    a = glob.create_var(name="a", shape=[2, 3])
    again = glob.create_var(name="a", shape=[2, 3])
    assert again is a
    assert len(_var_descs(glob, "a")) == 1 and len(glob.desc.vars) == 1
    assert list(glob.vars) == ["a"]


def test_create_var_without_a_name_makes_a_fresh_one_each_time():
    glob = pd.Program().global_block()
    a, b = glob.create_var(shape=[1]), glob.create_var(shape=[1])
    assert a.name != b.name and len(glob.desc.vars) == 2


def test_a_kid_block_may_declare_a_name_of_its_parent_which_shadows_it():
    prog = pd.Program()
    glob = prog.global_block()
    outer = glob.create_var(name="z", shape=[4])
    sub = prog.create_block()
    inner = sub.create_var(name="z", shape=[2])
    assert inner is not outer
    assert sub.find_var("z") is inner and glob.find_var("z") is outer
    assert outer.shape == (4,) and inner.shape == (2,)
    assert len(_var_descs(glob, "z")) == 1 and len(_var_descs(sub, "z")) == 1


# -- the symbol table: find_var through parents (Design Doc: Block and Scope) -----------------
def test_find_var_looks_in_the_block_then_in_each_ancestor():
    prog = pd.Program()
    glob = prog.global_block()
    g = glob.create_var(name="g", shape=[1])
    b1 = prog.create_block()
    m = b1.create_var(name="m", shape=[1])
    b2 = prog.create_block()
    assert b2.find_var("g") is g and b2.find_var("m") is m
    assert b2.find_var("g", recursive=False) is None
    assert b2.find_var("nowhere") is None
    assert glob.find_var("m") is None          # a parent never sees its kid's names
    assert b1.has_var("m") and not b2.has_var("m")


def test_block_var_is_local_and_raises_a_key_error_naming_the_variable():
    prog = pd.Program()
    prog.global_block().create_var(name="g", shape=[1])
    sub = prog.create_block()
    with pytest.raises(VarNotFoundError, match="'g'") as info:
        sub.var("g")
    assert isinstance(info.value, KeyError)
    assert "block 1" in str(info.value)


def test_get_variable_inside_a_sub_block_finds_a_global_variable():
    prog = pd.Program()
    with pd.program_guard(prog):
        w = pd.layers.data("fc.w", shape=[20, 20], append_batch_size=False)
        with prog._block_guard() as sub:
            assert pd.get_variable("fc.w") is w
            local = sub.create_var(name="h", shape=[1])
            assert pd.get_variable("h") is local
        with pytest.raises(VarNotFoundError, match="'h'"):
            pd.get_variable("h")              # back in the global block: the kid's name is gone


def test_get_variable_of_an_unknown_name_says_where_it_looked():
    with pd.program_guard(pd.Program()):
        with pytest.raises(VarNotFoundError, match=r"'nothing'.*block 0"):
            pd.get_variable("nothing")


# -- parameters live in the global block ----------------------------------------------------------
def test_a_parameter_created_in_a_sub_block_lives_in_the_global_block():
    prog = pd.Program()
    glob = prog.global_block()
    sub = prog.create_block()
    w = sub.create_parameter(name="w", shape=[3, 2])
    assert isinstance(w, pd.Parameter)
    assert w.block is glob and "w" in glob.vars and "w" not in sub.vars
    assert sub.find_var("w") is w
    assert glob.desc.vars[0].name == "w" and glob.desc.vars[0].is_parameter
    assert len(sub.desc.vars) == 0
    assert w.persistable


def test_a_layer_called_in_a_sub_block_puts_its_parameters_in_the_global_block():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        with prog._block_guard() as sub:
            y = pd.layers.fc(x, 4)
    glob = prog.global_block()
    params = glob.all_parameters()
    assert [p.name for p in params] == ["fc_0.w_0", "fc_0.b_0"]
    assert all(p.name not in sub.vars for p in params)
    assert y.block is sub                        # the temporaries stay in the sub-block
    assert [op.type for op in sub.ops] == ["mul", "elementwise_add"]
    assert [op.type for op in glob.ops] == ["uniform_random", "fill_constant"]


def test_create_parameter_with_an_existing_name_shares_it_and_refuses_another_shape():
    glob = pd.Program().global_block()
    w = glob.create_parameter(name="w", shape=[2, 2])
    assert glob.create_parameter(name="w", shape=[2, 2]) is w
    assert len(glob.ops) == 1                   # no second initializer
    with pytest.raises(ValueError, match="'w'"):
        glob.create_parameter(name="w", shape=[3, 2])
    with pytest.raises(ValueError, match="known shape"):
        glob.create_parameter(name="v", shape=[-1, 2])
    assert list(glob.vars) == ["w"]


# -- where a parameter's initializer goes ----------------------------------------------------------
def test_without_a_startup_program_the_initializer_is_in_the_preamble():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.relu(x)                      # an op before any parameter exists
        pd.layers.fc(h, 2)
        pd.layers.fc(h, 5)
    ops = prog.global_block().ops
    n = prog.preamble_length()
    assert n == 4
    assert [op.type for op in ops[:n]] == ["uniform_random", "fill_constant"] * 2
    assert [op.output("Out")[0] for op in ops[:n]] == ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0",
                                                        "fc_1.b_0"]
    assert all(is_initializer(op) for op in ops[:n])
    assert not any(is_initializer(op) for op in ops[n:])
    assert [op.type for op in ops[n:]] == ["relu", "mul", "elementwise_add", "mul",
                                           "elementwise_add"]


def test_with_a_startup_program_the_initializer_goes_there():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        pd.layers.fc(x, 2)
    assert [op.type for op in main.global_block().ops] == ["mul", "elementwise_add"]
    assert main.preamble_length() == 0
    sglob = startup.global_block()
    assert [op.type for op in sglob.ops] == ["uniform_random", "fill_constant"]
    assert [op.output("Out")[0] for op in sglob.ops] == ["fc_0.w_0", "fc_0.b_0"]
    assert sglob.var("fc_0.w_0").persistable and sglob.var("fc_0.w_0").shape == (3, 2)
    assert isinstance(main.global_block().var("fc_0.w_0"), pd.Parameter)


def test_the_startup_program_only_applies_inside_its_guard():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        main.global_block().create_parameter(name="a", shape=[1])
    main.global_block().create_parameter(name="b", shape=[1])
    assert [op.output("Out")[0] for op in startup.global_block().ops] == ["a"]
    assert [op.output("Out")[0] for op in main.global_block().ops] == ["b"]


# -- the writer: the op that last wrote a variable -------------------------------------------------
def test_the_writer_is_the_last_op_that_wrote_the_variable():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2])
        v = prog.global_block().create_var(name="v", shape=[-1, 2])
        assert v.writer is None and x.writer is None
        first = prog.global_block().append_op("relu", inputs={"X": x}, outputs={"Out": v})
        assert v.writer is first
        second = prog.global_block().append_op("tanh", inputs={"X": x}, outputs={"Out": v})
        assert v.writer is second
        prog.global_block().remove_op(second.index())
        assert v.writer is first                 # removing the last writer falls back


def test_an_in_place_layer_becomes_the_writer():
    with pd.program_guard(pd.Program()):
        i = pd.layers.fill_constant([1], "int64", 0)
        made = i.writer
        assert pd.layers.increment(i) is i
        assert i.writer is not made and i.writer.type == "increment"


# -- Parameter's construction-time information -----------------------------------------------------
def test_parameter_trainable_optimize_attr_and_initializer():
    init = pd.initializer.Constant(2.5)
    with pd.program_guard(pd.Program()) as prog:
        x = pd.layers.data("x", shape=[3])
        pd.layers.fc(x, 2, param_attr=pd.ParamAttr(name="w", initializer=init, learning_rate=0.5,
                                                   trainable=False))
    w = prog.global_block().var("w")
    b = prog.global_block().var("fc_0.b_0")
    assert isinstance(w, pd.Parameter) and w.is_parameter
    assert w.trainable is False and w.stop_gradient       # the desc records it too
    assert w.optimize_attr == {"learning_rate": 0.5}
    assert w.initializer is init
    assert prog.global_block().ops[0].type == "fill_constant"
    assert prog.global_block().ops[0].attr("value") == 2.5
    assert b.trainable is True and not b.stop_gradient
    assert b.optimize_attr == {"learning_rate": 1.0}
    assert isinstance(b.initializer, pd.initializer.Constant) and b.initializer.value == 0.0


def test_default_initializers_are_xavier_for_weights_and_zeros_for_biases():
    glob = pd.Program().global_block()
    w = glob.create_parameter(name="w", shape=[4, 6])
    b = glob.create_parameter(name="b", shape=[6])
    assert isinstance(w.initializer, pd.initializer.Xavier)
    assert isinstance(b.initializer, pd.initializer.Constant)
    assert glob.ops[0].type == "uniform_random"
    limit = (6.0 / (4 + 6)) ** 0.5
    assert glob.ops[0].attr("min") == pytest.approx(-limit)
    assert glob.ops[0].attr("max") == pytest.approx(limit)


def test_a_programs_random_seed_seeds_its_unseeded_random_ops_as_in_paddlepaddle():
    """PaddlePaddle 2.6, same program: ``startup.random_seed = 90`` gives the startup's
    uniform_random seed 90, ``main.random_seed = 7`` gives dropout seed 7 and fix_seed."""
    import numpy as np

    def build(startup_seed, main_seed, w_init=None):
        main, startup = pd.Program(), pd.Program()
        main.random_seed, startup.random_seed = main_seed, startup_seed
        with pd.program_guard(main, startup):
            x = pd.layers.data("x", shape=[3])
            y = pd.layers.dropout(pd.layers.fc(x, 2, param_attr=w_init), 0.5)
        return main, startup, y

    main, startup, _ = build(90, 7)
    assert [(op.type, op.attr("seed")) for op in startup.global_block().ops
            if op.has_attr("seed")] == [("uniform_random", 90)]
    drop, = [op for op in main.global_block().ops if op.type == "dropout"]
    assert (drop.attr("seed"), drop.attr("fix_seed")) == (7, True)

    def weights(startup_seed, executor_seed, w_init=None):
        _, startup, _ = build(startup_seed, 0, w_init)
        scope = pd.Scope()
        pd.Executor(pd.CPUPlace(), seed=executor_seed).run(startup, scope=scope)
        return scope.find_var("fc_0.w_0").get_tensor().numpy()

    np.testing.assert_array_equal(weights(90, 1), weights(90, 2))    # the program's seed wins
    assert not np.array_equal(weights(0, 1), weights(0, 2))          # unseeded: the run's draws
    explicit = pd.ParamAttr(initializer=pd.initializer.Uniform(-1, 1, seed=5))
    _, startup, _ = build(90, 0, explicit)
    assert startup.global_block().ops[0].attr("seed") == 5           # a seed given stays
    drop, = [op for op in build(0, 0)[0].global_block().ops if op.type == "dropout"]
    assert (drop.attr("seed"), drop.attr("fix_seed")) == (0, False)


@pytest.mark.parametrize("case", range(2), ids=["seeded", "unseeded"])
def test_random_seeds_match_paddlepaddles_on_the_same_program(case):
    """interop/ops/seed_refs.py: PaddlePaddle 2.6.2 builds fc(fc(x, 3), 3) + dropout with the
    programs' random_seed set (or not); paddle_nb's build gives its random ops the same seeds,
    and its two same-shaped weights start equal exactly when PaddlePaddle's do."""
    import json
    import pathlib
    import numpy as np
    path = (pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops"
            / "seed_refs.json")
    if not path.is_file():
        pytest.fail(f"{path} is absent (interop/ops/seed_refs.py writes it)")
    refs = json.loads(path.read_text())
    assert refs["paddle"] == "2.6.2"
    ref = refs["cases"][case]
    main, startup = pd.Program(), pd.Program()
    main.random_seed, startup.random_seed = ref["main_seed"], ref["startup_seed"]
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        pd.layers.dropout(pd.layers.fc(pd.layers.fc(x, 3), 3), 0.5)

    def seeds(program):
        return [[op.type, op.attr("seed"), op.attr("fix_seed") if op.has_attr("fix_seed")
                 else None] for op in program.global_block().ops if op.has_attr("seed")]
    assert seeds(startup) == ref["startup_ops"] and seeds(main) == ref["main_ops"]
    scope = pd.Scope()
    pd.Executor(pd.CPUPlace()).run(startup, scope=scope)
    w = [scope.find_var(n).get_tensor().numpy() for n in ("fc_0.w_0", "fc_1.w_0")]
    assert np.array_equal(*w) == ref["same_shaped_weights_equal"]
