"""Program.parse refuses what would fail later in a confusing way; PaddlePaddle's own programs
clone.

- A ``sub_block`` attribute must name a block nested in the op's block: one naming the op's
  own block, an enclosing block or a sibling could make the walk into sub-blocks go round
  (a bare RecursionError from ``prune``, a wrapped one from ``run``).
- An attribute stored in an AttrType that cannot hold what the op declares (``op_role`` as
  FLOATS or a STRING) is refused, naming op, attribute, expected and found, instead of a
  bare TypeError from ``clone(for_test=True)``.
- A global-block op naming a variable only a sub-block declares is refused.
- ``clone(for_test=True)`` and re-export (``io.export26.normalize``) of every program
  PaddlePaddle 2.6.2 wrote among the committed fixtures: 2.6 writes no ``is_test`` on
  ``conv2d`` / ``pool2d``, and clone sets it only where the op's desc holds it.
"""

from pathlib import Path

import pytest

import paddle_nb as pd
from paddle_nb.errors import ProtoDecodeError
from paddle_nb.io.export26 import normalize
from paddle_nb.proto import framework_pb2

T = framework_pb2.AttrType
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paddle26"
CTRL = FIXTURES / "ctrl.main.pb"       # while (block 1) and two conditional_blocks (2, 3)


def ctrl_desc():
    return framework_pb2.ProgramDesc.FromString(CTRL.read_bytes())


def op_with_sub_block(desc, owner, sub_block):
    """Append to block ``owner`` a copy of the global block's ``while`` op naming ``sub_block``."""
    op = next(o for o in desc.blocks[0].ops if o.type == "while")
    copy = desc.blocks[owner].ops.add()
    copy.CopyFrom(op)
    next(a for a in copy.attrs if a.name == "sub_block").block_idx = sub_block
    del copy.inputs[:]
    del copy.outputs[:]
    return copy


def test_a_sub_block_pointing_back_at_an_enclosing_block_is_refused_at_parse():
    desc = ctrl_desc()
    desc.blocks[2].parent_idx = 1            # block 2 nested in block 1 ...
    op_with_sub_block(desc, 1, 2)            # ... which runs it (fine) ...
    op_with_sub_block(desc, 2, 1)            # ... and which runs block 1 again: a cycle
    with pytest.raises(ProtoDecodeError) as info:
        pd.Program.parse(desc.SerializeToString())
    message = str(info.value)
    assert "op #2 'while' in block 2: attribute 'sub_block' names block 1, an enclosing " \
           "block" in message and "cycle" in message


@pytest.mark.parametrize("owner, target, what", [(1, 1, "its own block"),
                                                 (1, 2, "not nested in it"),
                                                 (3, 2, "not nested in it")])
def test_a_sub_block_that_is_the_op_s_own_block_or_a_sibling_is_refused(owner, target, what):
    desc = ctrl_desc()
    op_with_sub_block(desc, owner, target)
    with pytest.raises(ProtoDecodeError, match=what):
        pd.Program.parse(desc.SerializeToString())


def test_a_correctly_nested_sub_block_still_parses_and_prunes():
    desc = ctrl_desc()
    desc.blocks[2].parent_idx = 1
    op_with_sub_block(desc, 1, 2)
    program = pd.Program.parse(desc.SerializeToString())
    program.prune(["mean_0.tmp_0"])


@pytest.mark.parametrize("stored", ["FLOATS", "STRING", "BOOLEANS", "LONGS"])
def test_op_role_stored_as_another_type_is_named_at_parse(stored):
    desc = ctrl_desc()
    attr = next(a for a in desc.blocks[0].ops[2].attrs if a.name == "op_role")
    attr.type = T.Value(stored)
    with pytest.raises(ProtoDecodeError) as info:
        pd.Program.parse(desc.SerializeToString())
    assert (f"op #2 'less_than' in block 0: attribute 'op_role' is stored as {stored}; the op "
            "declares it int (INT)") in str(info.value)


def test_an_op_attribute_of_another_type_is_named_at_load(tmp_path):
    desc = ctrl_desc()
    op = next(o for o in desc.blocks[0].ops if o.type == "reduce_mean")
    attr = next(a for a in op.attrs if a.name == "keep_dim")
    attr.type, attr.s = T.STRING, "yes"
    (tmp_path / "m.pdmodel").write_bytes(desc.SerializeToString())
    with pytest.raises(ProtoDecodeError, match="'reduce_mean' in block 0: attribute 'keep_dim' "
                                               "is stored as STRING; the op declares it bool"):
        pd.io.load_program(str(tmp_path / "m.pdmodel"))


def test_numbers_stored_in_a_wider_type_still_parse():
    desc = ctrl_desc()
    op = next(o for o in desc.blocks[0].ops if o.type == "fill_constant")
    value = next(a for a in op.attrs if a.name == "value")
    value.type, value.float64 = T.FLOAT64, float(value.f)     # float declared, FLOAT64 stored
    role = next(a for a in op.attrs if a.name == "op_role")
    role.type, role.l = T.LONG, role.i                       # int declared, LONG stored
    pd.Program.parse(desc.SerializeToString()).clone(for_test=True)


def test_a_global_block_op_reading_a_sub_block_variable_is_refused():
    desc = ctrl_desc()
    op = next(o for o in desc.blocks[0].ops if o.type == "square")
    op.inputs[0].arguments[0] = "tanh_0.tmp_0"            # declared only in the while block
    with pytest.raises(ProtoDecodeError, match="op #4 'square' in block 0 reads variable "
                                               "'tanh_0.tmp_0' .slot 'X'., which only a "
                                               "sub-block declares"):
        pd.Program.parse(desc.SerializeToString())


def test_an_op_naming_a_variable_without_a_name_is_refused():
    desc = ctrl_desc()
    op = next(o for o in desc.blocks[0].ops if o.type == "square")
    op.inputs[0].arguments[0] = ""
    with pytest.raises(ProtoDecodeError, match="op #4 'square' in block 0: slot 'X' names a "
                                               "variable '' .no name."):
        pd.Program.parse(desc.SerializeToString())


# -- PaddlePaddle 2.6.2's own programs -----------------------------------------------------------
PROGRAMS = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*")
                  if p.suffix in (".pdmodel", ".pb") or p.name == "__model__")


def test_the_fixture_programs_are_there():
    assert len(PROGRAMS) >= 90


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_paddle26_program_clones_for_test_and_re_exports(name):
    program = pd.Program.parse((FIXTURES / name).read_bytes())
    clone = program.clone(for_test=True)
    for op in (op for block in clone.blocks for op in block.ops):
        if op.has_attr("is_test"):
            assert op.attr("is_test") is True, (name, op.type)
    again = pd.Program.parse(normalize(clone.desc).SerializeToString())
    assert sum(len(b.ops) for b in again.blocks) == sum(len(b.ops) for b in clone.blocks)


def test_clone_for_test_leaves_conv2d_without_is_test_as_paddle_does():
    program = pd.Program.parse((FIXTURES / "cnn.pdmodel").read_bytes())    # 2.6's export
    conv = next(op for op in program.global_block().ops if op.type == "conv2d")
    assert not conv.has_attr("is_test")
    clone = program.clone(for_test=True)
    conv = next(op for op in clone.global_block().ops if op.type == "conv2d")
    assert not conv.has_attr("is_test")
