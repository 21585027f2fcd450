"""Tests for the desc layer: proto/framework.proto and its generated framework_pb2.

Five promises: every message survives serialize -> parse; the schema has PaddlePaddle
2.6.2's names, field numbers, labels and defaults (so the bytes are compatible); the
committed framework_pb2.py is what `make proto` makes from framework.proto today; it imports
under the installed protobuf beside a module that registers PaddlePaddle's own
framework.proto, in either order; and files written by real PaddlePaddle (2.6.2 and 1.8.5)
parse, keeping what this schema does not know.
"""
import ast
import difflib
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, text_format
from google.protobuf.descriptor import FieldDescriptor as FD
from hypothesis import given, settings
from hypothesis import strategies as st

from paddle_nb.proto import framework_pb2 as fp, unknown_fields_of
from tests.compat import F18, fixture_bytes

PACKAGE = "paddle_nb.proto"      # paddle_nb's own: PaddlePaddle's is paddle.framework.proto
REPO = Path(__file__).resolve().parents[2]
PROTO_FILE = REPO / "proto" / "framework.proto"

# ---------------------------------------------------------------------------------------------
# The schema, transcribed from PaddlePaddle 2.6.2's paddle/fluid/framework/framework.proto:
# message -> field -> (number, label, type). Types are proto scalar names or message/enum
# names relative to the package.
REQ, OPT, REP = "required", "optional", "repeated"
TD = "VarType.TensorDesc"
SCHEMA = {
    "Version": {"version": (1, OPT, "int64")},
    "Complex": {"r": (1, REQ, "double"), "i": (2, REQ, "double")},
    "Scalar": {"type": (1, REQ, "Scalar.Type"), "b": (2, OPT, "bool"), "i": (3, OPT, "int64"),
               "r": (4, OPT, "double"), "c": (5, OPT, "Complex")},
    "OpDesc.Attr": {
        "name": (1, REQ, "string"), "type": (2, REQ, "AttrType"), "i": (3, OPT, "int32"),
        "f": (4, OPT, "float"), "s": (5, OPT, "string"), "ints": (6, REP, "int32"),
        "floats": (7, REP, "float"), "strings": (8, REP, "string"), "b": (10, OPT, "bool"),
        "bools": (11, REP, "bool"), "block_idx": (12, OPT, "int32"), "l": (13, OPT, "int64"),
        "blocks_idx": (14, REP, "int32"), "longs": (15, REP, "int64"),
        "float64s": (16, REP, "double"), "var_name": (17, OPT, "string"),
        "vars_name": (18, REP, "string"), "float64": (19, OPT, "double"),
        "scalar": (20, OPT, "Scalar"), "scalars": (21, REP, "Scalar"),
    },
    "OpDesc.Var": {"parameter": (1, REQ, "string"), "arguments": (2, REP, "string")},
    "OpDesc": {
        "inputs": (1, REP, "OpDesc.Var"), "outputs": (2, REP, "OpDesc.Var"),
        "type": (3, REQ, "string"), "attrs": (4, REP, "OpDesc.Attr"), "is_target": (5, OPT, "bool"),
    },
    "OpProto.Var": {
        "name": (1, REQ, "string"), "comment": (2, REQ, "string"), "duplicable": (3, OPT, "bool"),
        "intermediate": (4, OPT, "bool"), "dispensable": (5, OPT, "bool"),
        "extra": (6, OPT, "bool"), "quant": (7, OPT, "bool"),
    },
    "OpProto.Attr": {
        "name": (1, REQ, "string"), "type": (2, REQ, "AttrType"), "comment": (3, REQ, "string"),
        "generated": (4, OPT, "bool"), "extra": (5, OPT, "bool"), "quant": (6, OPT, "bool"),
        "support_tensor": (7, OPT, "bool"),
    },
    "OpProto": {
        "type": (1, REQ, "string"), "inputs": (2, REP, "OpProto.Var"),
        "outputs": (3, REP, "OpProto.Var"), "attrs": (4, REP, "OpProto.Attr"),
        "comment": (5, REQ, "string"),
    },
    "VarType.TensorDesc": {"data_type": (1, REQ, "VarType.Type"), "dims": (2, REP, "int64")},
    "VarType.LoDTensorDesc": {"tensor": (1, REQ, TD), "lod_level": (2, OPT, "int32")},
    "VarType.LoDTensorArrayDesc": {"tensor": (1, REQ, TD), "lod_level": (2, OPT, "int32")},
    "VarType.ReaderDesc": {"lod_tensor": (1, REP, "VarType.LoDTensorDesc")},
    "VarType.Tuple": {"element_type": (1, REP, "VarType.Type")},
    "VarType": {
        "type": (1, REQ, "VarType.Type"), "selected_rows": (2, OPT, TD),
        "lod_tensor": (3, OPT, "VarType.LoDTensorDesc"),
        "tensor_array": (4, OPT, "VarType.LoDTensorArrayDesc"),
        "reader": (5, OPT, "VarType.ReaderDesc"), "tuple": (7, OPT, "VarType.Tuple"),
        "string": (8, OPT, TD), "strings": (9, OPT, TD), "vocab": (10, OPT, TD),
        "sparse_coo": (11, OPT, TD), "sparse_csr": (12, OPT, TD),
    },
    "VarDesc.Attr": {
        "name": (1, REQ, "string"), "type": (2, REQ, "AttrType"), "i": (3, OPT, "int32"),
        "s": (4, OPT, "string"), "ints": (5, REP, "int32"),
    },
    "VarDesc": {
        "name": (1, REQ, "string"), "type": (2, REQ, "VarType"), "persistable": (3, OPT, "bool"),
        "need_check_feed": (4, OPT, "bool"), "is_parameter": (5, OPT, "bool"),
        "stop_gradient": (6, OPT, "bool"), "attrs": (7, REP, "VarDesc.Attr"),
    },
    "BlockDesc": {
        "idx": (1, REQ, "int32"), "parent_idx": (2, REQ, "int32"), "vars": (3, REP, "VarDesc"),
        "ops": (4, REP, "OpDesc"), "forward_block_idx": (5, OPT, "int32"),
    },
    "OpVersion": {"version": (1, REQ, "int32")},
    "OpVersionPair": {"op_name": (1, REQ, "string"), "op_version": (2, REQ, "OpVersion")},
    "OpVersionMap": {"pair": (1, REP, "OpVersionPair")},
    "ProgramDesc": {
        "blocks": (1, REP, "BlockDesc"), "version": (4, OPT, "Version"),
        "op_version_map": (5, OPT, "OpVersionMap"),
    },
}

# Explicit defaults stated by the facts: (message, field) -> default.
DEFAULTS = {
    ("Version", "version"): 0,
    ("OpDesc", "is_target"): False,
    **{("OpProto.Var", f): False
       for f in ("duplicable", "intermediate", "dispensable", "extra", "quant")},
    ("VarType.LoDTensorDesc", "lod_level"): 0,
    ("VarType.LoDTensorArrayDesc", "lod_level"): 0,
    **{("VarDesc", f): False
       for f in ("persistable", "need_check_feed", "is_parameter", "stop_gradient")},
    ("BlockDesc", "forward_block_idx"): -1,
}

ATTR_TYPES = {
    "INT": 0, "FLOAT": 1, "STRING": 2, "INTS": 3, "FLOATS": 4, "STRINGS": 5, "BOOLEAN": 6,
    "BOOLEANS": 7, "BLOCK": 8, "LONG": 9, "BLOCKS": 10, "LONGS": 11, "FLOAT64S": 12,
    "VAR": 13, "VARS": 14, "FLOAT64": 15, "SCALAR": 16, "SCALARS": 17,
}
SCALAR_KINDS = {"BOOLEAN": 1, "LONG": 2, "FLOAT64": 3, "COMPLEX128": 4}
VAR_TYPES = {
    "BOOL": 0, "INT16": 1, "INT32": 2, "INT64": 3, "FP16": 4, "FP32": 5, "FP64": 6,
    "LOD_TENSOR": 7, "SELECTED_ROWS": 8, "FEED_MINIBATCH": 9, "FETCH_LIST": 10,
    "STEP_SCOPES": 11, "LOD_RANK_TABLE": 12, "LOD_TENSOR_ARRAY": 13, "PLACE_LIST": 14,
    "READER": 15, "RAW": 17, "TUPLE": 18, "SIZE_T": 19, "UINT8": 20, "INT8": 21, "BF16": 22,
    "COMPLEX64": 23, "COMPLEX128": 24, "STRING": 25, "STRINGS": 26, "VOCAB": 27,
    "FEED_LIST": 28, "PSTRING": 29, "SPARSE_COO": 30, "SPARSE_CSR": 31,
}

SCALAR_TYPES = {FD.TYPE_INT32: "int32", FD.TYPE_INT64: "int64", FD.TYPE_FLOAT: "float",
                FD.TYPE_DOUBLE: "double", FD.TYPE_BOOL: "bool", FD.TYPE_STRING: "string"}


def repeated(f):
    """Whether field ``f`` is repeated (protobuf 3.20 and 4.x have only ``label``, 7 only this)."""
    return f.is_repeated if hasattr(f, "is_repeated") else f.label == FD.LABEL_REPEATED


def required(f):
    return f.is_required if hasattr(f, "is_required") else f.label == FD.LABEL_REQUIRED


def all_messages():
    """Every message descriptor in the file, nested ones included, by package-relative name."""
    found, todo = {}, list(fp.DESCRIPTOR.message_types_by_name.values())
    while todo:
        d = todo.pop()
        found[d.full_name[len(PACKAGE) + 1:]] = d
        todo.extend(d.nested_types)
    return found


def describe(f):
    label = REP if repeated(f) else REQ if required(f) else OPT
    named = f.message_type or f.enum_type
    kind = named.full_name[len(PACKAGE) + 1:] if named else SCALAR_TYPES[f.type]
    return f.number, label, kind


# ---------------------------------------------------------------------------------------------
# The schema matches PaddlePaddle's

def test_the_file_declares_exactly_the_expected_messages():
    file_proto = descriptor_pb2.FileDescriptorProto.FromString(fp.DESCRIPTOR.serialized_pb)
    assert file_proto.package == PACKAGE
    assert file_proto.syntax in ("", "proto2")     # protoc leaves proto2's syntax field empty
    assert sorted(all_messages()) == sorted(SCHEMA)


@pytest.mark.parametrize("name", sorted(SCHEMA))
def test_fields_have_paddles_numbers_labels_and_types(name):
    desc = all_messages()[name]
    actual = {f.name: describe(f) for f in desc.fields}
    assert actual == SCHEMA[name]


@pytest.mark.parametrize("key", sorted(DEFAULTS), ids=lambda k: ".".join(k))
def test_explicit_defaults(key):
    message, field = key
    f = all_messages()[message].fields_by_name[field]
    assert f.has_default_value and f.default_value == DEFAULTS[key]


def test_unset_fields_read_as_their_defaults():
    assert fp.BlockDesc().forward_block_idx == -1
    assert fp.VarDesc().persistable is False
    assert fp.Version().version == 0


def test_program_desc_reserves_fields_2_and_3():
    file_proto = descriptor_pb2.FileDescriptorProto.FromString(fp.DESCRIPTOR.serialized_pb)
    proto = next(m for m in file_proto.message_type if m.name == "ProgramDesc")
    reserved = {n for r in proto.reserved_range for n in range(r.start, r.end)}
    assert reserved == {2, 3}


def test_enum_values():
    assert {v.name: v.number for v in fp.AttrType.DESCRIPTOR.values} == ATTR_TYPES
    assert {v.name: v.number for v in fp.VarType.Type.DESCRIPTOR.values} == VAR_TYPES
    assert {v.name: v.number for v in fp.Scalar.Type.DESCRIPTOR.values} == SCALAR_KINDS


# ---------------------------------------------------------------------------------------------
# Every message round-trips

def _value(f, k):
    """A non-default value for scalar field `f`; k tells the elements of a list apart."""
    if f.enum_type is not None:
        return f.enum_type.values[-1 - k].number
    return {
        FD.TYPE_INT32: -(f.number * 1000 + k),          # negative: the 10-byte varint form
        FD.TYPE_INT64: -(2**40) * f.number - k,
        FD.TYPE_FLOAT: f.number + k + 0.5,               # exact in float32
        FD.TYPE_DOUBLE: f.number + k + 1 / 3,
        FD.TYPE_BOOL: k == 0,
        FD.TYPE_STRING: f"{f.name}-{k}-é",
    }[f.type]


def populated(msg):
    """Set every field of `msg`, recursively; repeated fields get two elements."""
    for f in msg.DESCRIPTOR.fields:
        field = getattr(msg, f.name)
        if f.message_type is not None and repeated(f):
            populated(field.add())
            populated(field.add())
        elif f.message_type is not None:
            populated(field)
        elif repeated(f):
            field.extend([_value(f, 0), _value(f, 1)])
        else:
            setattr(msg, f.name, _value(f, 0))
    return msg


def message_class(name):
    cls = fp
    for part in name.split("."):
        cls = getattr(cls, part)
    return cls


@pytest.mark.parametrize("name", sorted(SCHEMA))
def test_fully_populated_message_round_trips(name):
    msg = populated(message_class(name)())
    assert len(msg.ListFields()) == len(msg.DESCRIPTOR.fields)   # really fully populated
    data = msg.SerializeToString()                  # raises if a required field were unset
    again = type(msg).FromString(data)
    assert again == msg
    assert again.SerializeToString() == data


utf8 = st.text(st.characters(codec="utf-8"), max_size=12)
names = st.text("abcdefghijklmnopqrstuvwxyz0123456789_.@/", min_size=1, max_size=16)
int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
float32s = st.floats(width=32, allow_nan=False)
float64s = st.floats(allow_nan=False)
block_ids = st.integers(0, 1000)

scalar_messages = st.one_of(
    st.builds(fp.Scalar, type=st.just(fp.Scalar.BOOLEAN), b=st.booleans()),
    st.builds(fp.Scalar, type=st.just(fp.Scalar.LONG), i=int64s),
    st.builds(fp.Scalar, type=st.just(fp.Scalar.FLOAT64), r=float64s),
    st.builds(fp.Scalar, type=st.just(fp.Scalar.COMPLEX128),
              c=st.builds(fp.Complex, r=float64s, i=float64s)))

# AttrType -> (the Attr field that holds the value, a strategy for the value)
ATTR_VALUES = {
    fp.INT: ("i", int32s), fp.FLOAT: ("f", float32s), fp.STRING: ("s", utf8),
    fp.INTS: ("ints", st.lists(int32s)), fp.FLOATS: ("floats", st.lists(float32s)),
    fp.STRINGS: ("strings", st.lists(utf8)), fp.BOOLEAN: ("b", st.booleans()),
    fp.BOOLEANS: ("bools", st.lists(st.booleans())), fp.BLOCK: ("block_idx", block_ids),
    fp.LONG: ("l", int64s), fp.BLOCKS: ("blocks_idx", st.lists(block_ids)),
    fp.LONGS: ("longs", st.lists(int64s)), fp.FLOAT64S: ("float64s", st.lists(float64s)),
    fp.VAR: ("var_name", names), fp.VARS: ("vars_name", st.lists(names)),
    fp.FLOAT64: ("float64", float64s),
    fp.SCALAR: ("scalar", scalar_messages), fp.SCALARS: ("scalars", st.lists(scalar_messages)),
}


def test_attr_strategy_covers_every_attr_type():
    assert sorted(ATTR_VALUES) == sorted(ATTR_TYPES.values())


@st.composite
def attrs(draw):
    """(an OpDesc.Attr of a random type, the value put in it)."""
    attr_type = draw(st.sampled_from(sorted(ATTR_VALUES)))
    field, values = ATTR_VALUES[attr_type]
    value = draw(values)
    attr = fp.OpDesc.Attr(name=draw(names), type=attr_type)
    if isinstance(value, list):
        getattr(attr, field).extend(value)
    elif isinstance(value, fp.Scalar):
        attr.scalar.CopyFrom(value)
    else:
        setattr(attr, field, value)
    return attr, value


slots = st.builds(fp.OpDesc.Var, parameter=names, arguments=st.lists(names, max_size=3))


@settings(deadline=None)     # timing varies on shared CI machines; correctness does not
@given(st.lists(attrs(), max_size=8), st.lists(slots, max_size=3), st.booleans())
def test_op_desc_with_random_attrs_round_trips(attr_values, inputs, is_target):
    op = fp.OpDesc(type="some_op", inputs=inputs, attrs=[a for a, _ in attr_values],
                   is_target=is_target)
    again = fp.OpDesc.FromString(op.SerializeToString())
    assert again == op
    for parsed, (_, value) in zip(again.attrs, attr_values):
        field = ATTR_VALUES[parsed.type][0]
        got = getattr(parsed, field)
        assert (list(got) if isinstance(value, list) else got) == value
        # only the field that `type` selects is set
        assert [f.name for f, _ in parsed.ListFields()] in (["name", "type"],
                                                             ["name", "type", field])


element_types = st.sampled_from([fp.VarType.BOOL, fp.VarType.INT32, fp.VarType.INT64,
                                 fp.VarType.FP16, fp.VarType.FP32, fp.VarType.FP64,
                                 fp.VarType.UINT8, fp.VarType.INT8, fp.VarType.BF16])
dims_lists = st.lists(st.one_of(st.just(-1), st.integers(0, 2**40)), max_size=8)


@settings(deadline=None)
@given(names, element_types, dims_lists, st.integers(0, 3), st.booleans())
def test_var_desc_with_random_dims_round_trips(name, dtype, dims, lod_level, persistable):
    tensor = fp.VarType.TensorDesc(data_type=dtype, dims=dims)
    var = fp.VarDesc(name=name, persistable=persistable, type=fp.VarType(
        type=fp.VarType.LOD_TENSOR,
        lod_tensor=fp.VarType.LoDTensorDesc(tensor=tensor, lod_level=lod_level)))
    again = fp.VarDesc.FromString(var.SerializeToString())
    assert again == var
    assert list(again.type.lod_tensor.tensor.dims) == dims
    assert again.type.lod_tensor.tensor.data_type == dtype


def test_a_dtype_from_a_newer_release_parses_as_unset_and_is_kept():
    # TensorDesc{data_type: 32 (unknown here), dims: [2]}. proto2 enums are closed: the value
    # goes to the unknown fields, the required field reads as unset, parsing does not raise.
    data = bytes([0x08, 32, 0x10, 2])
    tensor = fp.VarType.TensorDesc.FromString(data)
    assert not tensor.HasField("data_type")
    assert list(tensor.dims) == [2]
    assert [(u.field_number, u.data) for u in unknown_fields_of(tensor)] == [(1, 32)]
    assert tensor.FindInitializationErrors() == ["data_type"]
    with pytest.raises(Exception, match="missing required fields: data_type"):
        tensor.SerializeToString()
    kept = fp.VarType.TensorDesc.FromString(tensor.SerializePartialToString())
    assert [(u.field_number, u.data) for u in unknown_fields_of(kept)] == [(1, 32)]


# ---------------------------------------------------------------------------------------------
# The committed module is what `make proto` makes

def _serialized_descriptor(generated_py: Path) -> bytes:
    """The FileDescriptorProto bytes a generated *_pb2.py registers, read without running it."""
    for node in ast.walk(ast.parse(generated_py.read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "AddSerializedFile"):
            return node.args[0].value
    raise AssertionError(f"no AddSerializedFile(...) call in {generated_py}")


@pytest.fixture(scope="module")
def fresh_module(tmp_path_factory):
    pytest.importorskip("grpc_tools.protoc", reason="grpcio-tools is not installed (it is in "
                        "the `test` extra), so framework_pb2.py cannot be regenerated to compare")
    out = tmp_path_factory.mktemp("protoc") / "framework_pb2.py"
    done = subprocess.run([sys.executable, str(REPO / "proto" / "generate.py"), "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, f"proto/generate.py failed on {PROTO_FILE}:\n{done.stderr}"
    return out


def _as_text(data: bytes) -> list:
    return text_format.MessageToString(
        descriptor_pb2.FileDescriptorProto.FromString(data)).splitlines()


def test_committed_module_matches_the_proto(fresh_module):
    committed = fp.DESCRIPTOR.serialized_pb
    fresh = _serialized_descriptor(fresh_module)
    if descriptor_pb2.FileDescriptorProto.FromString(committed) != \
            descriptor_pb2.FileDescriptorProto.FromString(fresh):
        diff = "\n".join(difflib.unified_diff(_as_text(committed), _as_text(fresh),
                                              "framework_pb2.py", "framework.proto", lineterm=""))
        pytest.fail("paddle_nb/proto/framework_pb2.py is stale: run `make proto`\n" + diff)


def test_committed_module_is_byte_identical_with_pinned_compiler(fresh_module):
    version = importlib.metadata.version("grpcio-tools")
    if version != "1.85.1":
        pytest.skip(f"grpcio-tools {version} is installed; the module is made with 1.85.1")
    committed = Path(fp.__file__).read_text()
    assert committed == fresh_module.read_text(), \
        "framework_pb2.py differs from protoc's output: run `make proto`"


# ---------------------------------------------------------------------------------------------
# Files written by real PaddlePaddle parse

def unknown_anywhere(msg, path="program"):
    """Paths of every sub-message that holds fields this schema does not know."""
    found = [path] if len(unknown_fields_of(msg)) else []
    for f, value in msg.ListFields():
        if f.message_type is not None:
            items = enumerate(value) if repeated(f) else [(None, value)]
            for i, sub in items:
                found += unknown_anywhere(sub, f"{path}.{f.name}" + ("" if i is None else f"[{i}]"))
    return found


MLP2_OPS = ["feed", "mul", "elementwise_add", "relu", "mul", "elementwise_add", "softmax",
            "scale", "scale", "fetch", "fetch"]
ALL_FIXTURES = ["mlp2.pdmodel", f"{F18}.main.pb", f"{F18}.startup.pb"]


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_paddle_file_round_trips_exactly(name):
    data = fixture_bytes(name)
    program = fp.ProgramDesc.FromString(data)
    assert unknown_anywhere(program) == []      # every field written has a number known here
    again = fp.ProgramDesc.FromString(program.SerializeToString())
    assert again == program
    # With no unknown fields, fields in number order, our bytes are PaddlePaddle's bytes.
    assert program.SerializeToString() == data


def test_mlp2_inference_model_from_paddle_2_6_2():
    program = fp.ProgramDesc.FromString(fixture_bytes("mlp2.pdmodel"))
    assert program.version.version == 2006002
    (block,) = program.blocks
    assert (block.idx, block.parent_idx) == (0, -1)
    assert [op.type for op in block.ops] == MLP2_OPS
    variables = {v.name: v for v in block.vars}
    assert variables["feed"].type.type == fp.VarType.FEED_MINIBATCH
    assert variables["fetch"].type.type == fp.VarType.FETCH_LIST
    x = variables["x"]
    assert x.need_check_feed
    assert list(x.type.lod_tensor.tensor.dims) == [-1, 784]
    assert x.type.lod_tensor.tensor.data_type == fp.VarType.FP32
    assert variables["fc1.w_0"].persistable
    assert list(variables["fc1.w_0"].type.lod_tensor.tensor.dims) == [784, 32]
    # Only the ops added at save time (feed, fetch) still carry the user's call stack.
    with_callstack = [op.type for op in block.ops if "op_callstack" in {a.name for a in op.attrs}]
    assert with_callstack == ["feed", "fetch", "fetch"]
    versions = {p.op_name: p.op_version.version for p in program.op_version_map.pair}
    assert "elementwise_add" in versions


def test_f18_training_program_from_paddle_1_8_5():
    program = fp.ProgramDesc.FromString(fixture_bytes(f"{F18}.main.pb"))
    manifest = json.loads(fixture_bytes("f18_manifest.json"))[F18]
    assert program.version.version == 1008005
    assert not program.HasField("op_version_map")           # 1.8.5 had no such field
    assert [[op.type for op in b.ops] for b in program.blocks] == manifest["blocks"]
    assert [b.idx for b in program.blocks] == list(range(len(manifest["blocks"])))
    # The text-format dump of the same program describes the same message.
    text = fixture_bytes(f"{F18}.main.txt").decode()
    assert text_format.Parse(text, fp.ProgramDesc()) == program


def test_f18_startup_program_declares_the_parameters():
    program = fp.ProgramDesc.FromString(fixture_bytes(f"{F18}.startup.pb"))
    assert program.version.version == 1008005
    shapes = {v.name: list(v.type.lod_tensor.tensor.dims) for v in program.blocks[0].vars}
    assert {k: shapes[k] for k in ("rnn_Wx", "rnn_Wh", "rnn_b")} == \
        {"rnn_Wx": [3, 4], "rnn_Wh": [4, 4], "rnn_b": [4]}


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    assert len(payload) < 128                   # one-byte length keeps this helper short
    return bytes([field_number << 3 | 2, len(payload)]) + payload


def test_unknown_program_field_3_is_skipped_and_kept():
    # 1.x wrote `op_compatible_map` as ProgramDesc field 3, reserved in 2.x. The stored 1.8.5
    # files happen to carry none, so append one to the real file (appending a field to a
    # message's bytes is valid protobuf): an opaque record standing in for the map.
    data = fixture_bytes(f"{F18}.main.pb")
    payload = _length_delimited(1, _length_delimited(1, b"sgd")) + _length_delimited(2, b"1.8.5")
    program = fp.ProgramDesc.FromString(data + _length_delimited(3, payload))
    assert program.version.version == 1008005
    unknown = [(u.field_number, u.wire_type, u.data)
               for u in unknown_fields_of(program)]
    assert unknown == [(3, 2, payload)]
    again = fp.ProgramDesc.FromString(program.SerializeToString())
    assert again == program
    assert [(u.field_number, u.data) for u in unknown_fields_of(again)] == \
        [(3, payload)]
    again.DiscardUnknownFields()
    assert again == fp.ProgramDesc.FromString(data)
