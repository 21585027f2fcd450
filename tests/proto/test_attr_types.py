"""Every attribute type of PaddlePaddle 2.6.2's framework.proto, read and written by paddle_nb.

tests/fixtures/paddle26/attr_types.npz (made by interop/attr_types.py with PaddlePaddle
2.6.2) holds, per AttrType, a program whose op holds such an attribute. Each must parse,
give its value through ``Operator.attr``, print, write back the same Attr message from the
Python value, and serialize back to the very bytes PaddlePaddle wrote.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import ProtoDecodeError
from paddle_nb.framework.attrs import write_attr
from paddle_nb.proto import framework_pb2 as fp

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "attr_types.npz"
CASES = np.load(FIXTURE)
KEYS = sorted({k.split("/")[0] for k in CASES.files})


def case(key):
    program = CASES[f"{key}/program"].tobytes()
    return (program, str(CASES[f"{key}/op"]), str(CASES[f"{key}/attr"]),
            json.loads(str(CASES[f"{key}/value"])))


def as_json(value):
    """paddle_nb's value in the fixture's JSON form (a complex number as [re, im])."""
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return [value.real, value.imag] if isinstance(value, complex) else value


def the_op(program, op_type, attr):
    return next(op for block in program.blocks for op in block.ops
                if op.type == op_type and op.has_attr(attr))


def test_every_attr_type_of_the_proto_has_a_case():
    assert {k.replace("_written", "") for k in KEYS} == set(fp.AttrType.keys())


@pytest.mark.parametrize("key", KEYS)
def test_attr_reads_prints_and_round_trips(key):
    data, op_type, name, value = case(key)
    program = pd.Program.parse(data)
    op = the_op(program, op_type, name)
    got = op.attr(name)
    if isinstance(value, float) or value and isinstance(value, list) and \
            isinstance(value[0], float):
        assert np.allclose(as_json(got), value, rtol=1e-7)     # FLOATs travel as float32
    else:
        assert as_json(got) == value and type(as_json(got)) is type(value)
    assert f"{name}=" in str(program) or name in pd.framework.printer.HIDDEN_ATTRS
    attr = next(a for a in op.desc.attrs if a.name == name)
    again = fp.OpDesc.Attr()
    write_attr(again, name, attr.type, got)
    assert again.SerializeToString() == attr.SerializeToString()
    assert program.serialize() == data


def test_scalars_keep_each_items_kind():
    data, op_type, name, _ = case("SCALARS_written")
    values = the_op(pd.Program.parse(data), op_type, name).attr(name)
    assert [type(v) for v in values] == [bool, int, float, complex]


def test_an_attr_type_no_release_has_is_named_with_its_op_and_attribute():
    data, op_type, name, _ = case("SCALAR")
    desc = fp.ProgramDesc.FromString(data)
    op = next(op for op in desc.blocks[0].ops if op.type == op_type)
    del op.attrs[:]
    # OpDesc field 4 (attrs): an Attr with name `name` and type 99 (field 2, a varint)
    attr = b"\x0a" + bytes([len(name)]) + name.encode() + b"\x10\x63"
    op.MergeFromString(b"\x22" + bytes([len(attr)]) + attr)
    with pytest.raises(ProtoDecodeError) as info:
        pd.Program.parse(desc.SerializePartialToString())
    message = str(info.value)
    assert f"'{op_type}'" in message and f"attribute '{name}'" in message and "99" in message
