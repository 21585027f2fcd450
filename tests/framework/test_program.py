"""Programs: the ProgramDesc is the program.

``serialize`` / ``Program.parse`` round-trip byte for byte, ``str(program)`` prints every
block with nested blocks under the op that owns them, ``clone`` copies (``for_test`` turns
on ``is_test``), and the default programs are swapped by ``program_guard``.
"""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import ProtoDecodeError
from tests.layers import counted_while


def nested_program(owner):
    """block 0 owns block 1 (through op #1), which owns block 2."""
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[2])
        y = pd.layers.relu(x)
        out = prog.global_block().create_var(name="out", shape=[-1, 2])
        with prog._block_guard() as b1:
            z = pd.layers.scale(y, 2.0)
            pd.layers.assign(z, out)
            with prog._block_guard() as b2:
                pd.layers.tanh(z)
            b1.append_op(owner, inputs={"X": [z]}, attrs={"sub_block": b2.idx})
        prog.global_block().append_op(owner, inputs={"X": [y]}, outputs={"Out": [out]},
                                      attrs={"sub_block": b1.idx})
        res = pd.layers.mean(out)
    return prog, res


# -- serialization ---------------------------------------------------------------------------------
def _small_program():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.fc(x, 4, act="relu")
        pd.layers.mean(pd.layers.dropout(h, 0.5))
    return prog


def test_serialize_then_parse_round_trips_byte_for_byte():
    prog = _small_program()
    data = prog.serialize()
    assert isinstance(data, bytes) and data == prog.desc.SerializeToString()
    parsed = pd.Program.parse(data)
    assert parsed.serialize() == data
    assert parsed.desc == prog.desc
    assert str(parsed) == str(prog)
    assert pd.Program.parse(bytearray(data)).serialize() == data


def test_a_parsed_program_has_its_views_back():
    prog = _small_program()
    parsed = pd.Program.parse(prog.serialize())
    glob = parsed.global_block()
    assert [type(v).__name__ for v in glob.vars.values()] == \
        [type(v).__name__ for v in prog.global_block().vars.values()]
    w = glob.var("fc_0.w_0")
    assert isinstance(w, pd.Parameter) and w.trainable and w.persistable
    assert glob.var("fc_0.tmp_2").writer is glob.ops[4] and glob.ops[4].type == "relu"
    # which ops the framework put in the preamble is construction-time information, which
    # their descs carry (initializes_once): a parsed program and a clone keep the preamble
    assert parsed.preamble_length() == 2 and prog.clone().preamble_length() == 2
    assert glob.var("x").shape == (-1, 3)


def test_a_program_with_sub_blocks_round_trips_byte_for_byte(block_owner):
    prog, _ = nested_program(block_owner)
    data = prog.serialize()
    parsed = pd.Program.parse(data)
    assert parsed.serialize() == data
    assert [(b.idx, b.parent_idx) for b in parsed.blocks] == [(0, -1), (1, 0), (2, 1)]
    assert parsed.global_block().ops[1].sub_block_ids() == [1]
    assert parsed.block(1).ops[2].sub_block_ids() == [2]
    assert str(parsed) == str(prog)


def test_parse_refuses_what_is_not_a_program():
    with pytest.raises(TypeError, match="bytes"):
        pd.Program.parse("not bytes")
    with pytest.raises(ProtoDecodeError):
        pd.Program.parse(b"\xff\xff\xff\xff")
    with pytest.raises(ProtoDecodeError, match="no blocks"):
        pd.Program.parse(b"")


def test_parse_refuses_a_block_attribute_naming_a_missing_block(block_owner):
    prog, _ = nested_program(block_owner)
    desc = prog.desc.__class__.FromString(prog.serialize())
    del desc.blocks[2]
    with pytest.raises(ProtoDecodeError, match="names block 2"):
        pd.Program.parse(desc.SerializeToString())


# -- printing --------------------------------------------------------------------------------------
def test_str_prints_every_block_with_nested_blocks_under_their_op(block_owner):
    prog, _ = nested_program(block_owner)
    lines = str(prog).splitlines()
    assert lines[0] == "program (3 blocks)"
    where = {text.strip(): k for k, text in enumerate(lines)}
    heads = [k for k, text in enumerate(lines) if text.strip().startswith("block ")]
    assert [lines[k].strip() for k in heads] == ["block 0 (global)", "block 1 (parent 0)",
                                                  "block 2 (parent 1)"]
    indents = [len(lines[k]) - len(lines[k].lstrip()) for k in heads]
    assert indents[0] < indents[1] < indents[2]
    owner0 = next(k for k, t in enumerate(lines) if f"= {block_owner}(X=relu_0.tmp_0)" in t)
    owner1 = next(k for k, t in enumerate(lines) if f"{block_owner}(X=scale_0.tmp_0)" in t)
    assert owner0 < heads[1] and heads[1] == owner0 + 1       # block 1 right under its op
    assert owner1 < heads[2] and heads[2] == owner1 + 1
    mean_line = where["#2 Out=mean_0.tmp_0 = mean(X=out)"]
    assert mean_line > heads[2]                  # block 0 goes on after its nested blocks
    assert "sub_block=1" in lines[owner0] and "sub_block=2" in lines[owner1]


def test_str_shows_vars_with_dtype_shape_and_tags_and_hides_bookkeeping_attrs():
    text = str(_small_program())
    assert "x : float32[-1, 3]" in text
    assert "fc_0.w_0 : float32[3, 4]  (parameter)" in text
    assert "#4 Out=fc_0.tmp_2 = relu(X=fc_0.tmp_1)" in text
    assert "op_callstack" not in text and "op_role" not in text
    assert repr(_small_program()) == "<Program: 1 blocks, 7 ops>"


def test_a_block_prints_alone():
    prog = _small_program()
    text = str(prog.global_block())
    assert text.splitlines()[0] == "block 0 (global)"
    assert text in str(prog)


# -- clone -----------------------------------------------------------------------------------------
def test_clone_is_an_independent_copy():
    prog = _small_program()
    copy = prog.clone()
    assert copy is not prog and copy.serialize() == prog.serialize()
    assert copy.global_block() is not prog.global_block()
    w, w_copy = prog.global_block().var("fc_0.w_0"), copy.global_block().var("fc_0.w_0")
    assert isinstance(w_copy, pd.Parameter) and w_copy is not w
    assert w_copy.initializer is w.initializer and w_copy.optimize_attr == w.optimize_attr
    with pd.program_guard(copy):
        pd.layers.relu(copy.global_block().var("x"))
    assert len(copy.global_block().ops) == len(prog.global_block().ops) + 1
    assert "relu_0.tmp_0" in copy.global_block().vars       # the name counter came along
    assert "relu_0.tmp_0" not in prog.global_block().vars


def test_clone_for_test_turns_on_is_test_and_leaves_the_original_alone():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3, 2, 2])
        y = pd.layers.dropout(pd.layers.batch_norm(x), 0.5)
    test = prog.clone(for_test=True)

    def is_test(p, op_type):
        return [op.attr("is_test") for op in p.global_block().ops if op.type == op_type]
    assert is_test(prog, "dropout") == [False] and is_test(prog, "batch_norm") == [False]
    assert is_test(test, "dropout") == [True] and is_test(test, "batch_norm") == [True]
    assert [op.type for op in test.global_block().ops] == \
        [op.type for op in prog.global_block().ops]
    xv = np.random.default_rng(0).uniform(1, 2, (2, 3, 2, 2)).astype("float32")
    got, = pd.Executor().run(test, feed={"x": xv}, fetch_list=[y.name], scope=pd.Scope())
    np.testing.assert_allclose(got, xv / np.sqrt(1 + 1e-5) * 0.5, rtol=1e-5)


def test_clone_for_test_drops_backward_and_optimize_ops():
    from paddle_nb.framework.operator import OpRole
    prog = _small_program()
    n = len(prog.global_block().ops)
    with prog.role_guard(OpRole.BACKWARD):
        prog.global_block().append_op("scale", inputs={"X": "x"})
    with prog.role_guard(OpRole.OPTIMIZE):
        prog.global_block().append_op("scale", inputs={"X": "x"})
    assert len(prog.global_block().ops) == n + 2
    assert len(prog.clone().global_block().ops) == n + 2
    assert len(prog.clone(for_test=True).global_block().ops) == n


# -- the default programs --------------------------------------------------------------------------
def test_program_guard_swaps_the_default_programs_and_restores_them():
    main0, startup0 = pd.default_main_program(), pd.default_startup_program()
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup) as entered:
        assert entered is main
        assert pd.default_main_program() is main and pd.default_startup_program() is startup
        inner = pd.Program()
        with pd.program_guard(inner):
            assert pd.default_main_program() is inner
            assert pd.default_startup_program() is startup   # the innermost one given
        assert pd.default_main_program() is main
    assert pd.default_main_program() is main0 and pd.default_startup_program() is startup0


def test_program_guard_refuses_what_is_not_a_program():
    with pytest.raises(TypeError, match="Program"):
        with pd.program_guard("main"):
            pass
    with pytest.raises(TypeError, match="startup"):
        with pd.program_guard(pd.Program(), startup_program=3):
            pass


def test_the_version_changes_whenever_the_program_does():
    prog = pd.Program()
    seen = [prog.version]
    glob = prog.global_block()
    x = glob.create_var(name="x", shape=[2])
    seen.append(prog.version)
    op = glob.append_op("relu", inputs={"X": x})
    seen.append(prog.version)
    x.shape = (3,)
    seen.append(prog.version)
    glob.remove_op(op.index())
    seen.append(prog.version)
    prog.create_block()
    seen.append(prog.version)
    assert all(a < b for a, b in zip(seen, seen[1:]))


def loop_and_cond_program():
    """A While loop (block 1) that doubles ``acc`` three times, then a cond (blocks 2, 3)."""
    prog = pd.Program()
    with pd.program_guard(prog):
        acc = pd.layers.fill_constant([1], "float32", 1.0)
        i = counted_while(3, lambda i: pd.layers.assign(acc * 2.0, acc))
        n = pd.layers.fill_constant([1], "int64", 3)
        out = pd.layers.cond(pd.layers.less_than(n, i),
                             lambda: pd.layers.fill_constant([1], "float32", 5.0),
                             lambda: pd.layers.fill_constant([1], "float32", 7.0))
    return prog, acc, i, out


def test_str_nests_the_blocks_of_real_control_flow_ops():
    prog, acc, i, out = loop_and_cond_program()
    lines = str(prog).splitlines()
    owners = {}
    for k, text in enumerate(lines):
        for op_type in ("= while(", "= conditional_block("):
            if op_type in text:
                owners.setdefault(op_type, []).append(k)
    assert len(owners["= while("]) == 1 and len(owners["= conditional_block("]) == 2
    w = owners["= while("][0]
    assert lines[w + 1].strip() == "block 1 (parent 0)"
    assert "sub_block=1" in lines[w]
    for k, b in zip(owners["= conditional_block("], (2, 3)):
        assert lines[k + 1].strip() == f"block {b} (parent 0)" and f"sub_block={b}" in lines[k]
        assert len(lines[k + 1]) - len(lines[k + 1].lstrip()) > \
            len(lines[k]) - len(lines[k].lstrip()) - 4
    assert sum(1 for t in lines if t.strip().startswith("block ")) == 4     # each block once
    data = prog.serialize()
    parsed = pd.Program.parse(data)
    assert parsed.serialize() == data and str(parsed) == str(prog)
    got = pd.Executor().run(parsed, fetch_list=[acc.name, i.name, out.name], scope=pd.Scope())
    assert [g.tolist() for g in got] == [[8.0], [3], [7.0]]
