"""A program that does not parse still says which op types paddle_nb lacks.

A file from a newer PaddlePaddle can hold an attribute type or a dtype this framework.proto
does not know *and* op types paddle_nb has not registered: the one ProtoDecodeError names
both, so a user learns everything that stands in the way from a single load.
"""
import pytest

import paddle_nb as pd
from paddle_nb.errors import ProtoDecodeError
from paddle_nb.proto import framework_pb2 as fp


def program_with(unknown_ops):
    program = pd.Program()
    with pd.program_guard(program, pd.Program()):
        pd.layers.relu(pd.layers.data("x", shape=[3]))
    desc = fp.ProgramDesc.FromString(program.serialize())
    sub = desc.blocks.add(idx=1, parent_idx=0)
    for block, op_type in unknown_ops:
        (desc.blocks[0] if block == 0 else sub).ops.add(type=op_type)
    return desc


def unknown_attr_type(op):
    """Give ``op`` an attribute of AttrType 99 (no release has it)."""
    attr = b"\x0a\x03new\x10\x63"
    op.MergeFromString(b"\x22" + bytes([len(attr)]) + attr)


def test_an_unknown_attr_type_does_not_hide_missing_ops():
    desc = program_with([(0, "fancy_new_op"), (1, "other_new_op")])
    unknown_attr_type(desc.blocks[0].ops[0])
    with pytest.raises(ProtoDecodeError) as info:
        pd.Program.parse(desc.SerializePartialToString())
    message = str(info.value)
    assert "attribute 'new'" in message and "99" in message
    assert "2 op types paddle_nb does not have: fancy_new_op (block 0), other_new_op (block 1)" \
        in message


def test_an_unknown_dtype_does_not_hide_missing_ops():
    desc = program_with([(0, "fancy_new_op")])
    tensor = desc.blocks[0].vars[0].type.lod_tensor.tensor
    tensor.ClearField("data_type")
    tensor.MergeFromString(b"\x08\x40")                   # data_type 64: no release has it
    with pytest.raises(ProtoDecodeError, match=r"holds 64.*fancy_new_op \(block 0\)"):
        pd.Program.parse(desc.SerializePartialToString())


def test_a_broken_program_using_only_known_ops_says_only_what_is_broken():
    desc = program_with([])
    unknown_attr_type(desc.blocks[0].ops[0])
    with pytest.raises(ProtoDecodeError) as info:
        pd.Program.parse(desc.SerializePartialToString())
    assert "does not have" not in str(info.value)
