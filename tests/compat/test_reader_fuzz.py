"""Fuzzing the readers: damaged files give a paddle_nb error, never a crash, hang or huge
allocation.

Inputs: PaddlePaddle's own files (the three fixture programs and ``mlp2.pdiparams``),
truncated, bit-flipped, spliced with random bytes, or replaced by random bytes; and programs
made wrong on purpose: op types paddle_nb lacks, enum values no framework.proto here knows
(``data_type: 99``), block parents that point forward or at themselves, block attributes out
of range. Every call must either succeed or raise a subclass of ``pd.errors.PaddleNBError``;
each runs under ``tracemalloc`` and must stay under ``PEAK`` bytes, so a file claiming
``dims: [2**40]`` is refused before anything that size is allocated. Bounded: about 200
examples in all, a deadline per example, a time limit for the file.
"""

import io
import shutil
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paddle_nb as pd
from paddle_nb.errors import OpNotFoundError, PaddleNBError, ProtoDecodeError
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.tensor_stream import read_tensor
from paddle_nb.proto import framework_pb2
from tests.compat import F18, MLP2_PARAMS, PROGRAM_FILES, fixture, fixture_bytes

pytestmark = pytest.mark.timeout(60)

PEAK = 64 << 20            # no reader may allocate more than this on these small inputs
FUZZ = settings(max_examples=40, deadline=3000, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
T = framework_pb2.AttrType


# -- helpers ---------------------------------------------------------------------------------------
def bounded(fn, *args, **kwargs):
    """fn(*args): its result, or the PaddleNBError it raised; anything else fails the test.

    The call runs under tracemalloc, and its peak allocation must stay under PEAK.
    """
    tracemalloc.start()
    try:
        try:
            result = fn(*args, **kwargs)
        except PaddleNBError as err:
            result = err
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK, f"{fn.__name__} allocated {peak} bytes at its peak"
    return result


@st.composite
def damaged(draw, data):
    """``data`` truncated, bit-flipped, spliced with random bytes, or replaced by random bytes."""
    kind = draw(st.sampled_from(["truncate", "flip", "splice", "random"]))
    if kind == "truncate":
        return data[:draw(st.integers(0, len(data) - 1))]
    if kind == "flip":
        out = bytearray(data)
        for pos in draw(st.lists(st.integers(0, len(data) * 8 - 1), min_size=1, max_size=8)):
            out[pos // 8] ^= 1 << (pos % 8)
        return bytes(out)
    if kind == "splice":
        start = draw(st.integers(0, len(data) - 1))
        junk = draw(st.binary(min_size=1, max_size=24))
        return data[:start] + junk + data[start + len(junk):]
    return draw(st.binary(max_size=256))


def use_program(program):
    """What a user does first with a parsed program: print it, save it, look at its vars."""
    str(program)
    program.serialize()
    for var in program.list_vars():
        if var.is_tensor():
            var.dtype, var.shape


def parse_and_use(data):
    program = pd.Program.parse(data)
    use_program(program)
    return program


def read_all_tensors(stream, limit=None):
    values = []
    while True:
        start = stream.tell()
        if not stream.read(1):
            return values
        stream.seek(start)
        values.append(read_tensor(stream, limit=limit))


@pytest.fixture(scope="module")
def programs():
    return [fixture_bytes(name) for name in PROGRAM_FILES]


@pytest.fixture(scope="module")
def params():
    return fixture_bytes("mlp2.pdiparams")


@pytest.fixture(scope="module")
def model_dir():
    with tempfile.TemporaryDirectory() as name:
        shutil.copy(fixture("mlp2.pdmodel"), Path(name) / "mlp2.pdmodel")
        yield Path(name)


# -- damaged bytes ---------------------------------------------------------------------------------
@FUZZ
@given(data=st.data())
def test_damaged_programs_parse_or_raise_a_paddle_nb_error(programs, data):
    original = data.draw(st.sampled_from(programs))
    result = bounded(parse_and_use, data.draw(damaged(original)))
    assert isinstance(result, (pd.Program, ProtoDecodeError, PaddleNBError))


@FUZZ
@given(data=st.data())
def test_damaged_tensor_streams_read_or_raise_a_paddle_nb_error(params, data):
    blob = data.draw(damaged(params))
    limit = data.draw(st.sampled_from([None, len(blob)]))
    result = bounded(read_all_tensors, io.BytesIO(blob), limit)
    if not isinstance(result, PaddleNBError):
        assert all(isinstance(a, np.ndarray) for a, _ in result)


@FUZZ
@given(data=st.data())
def test_damaged_params_files_load_all_or_nothing(model_dir, params, data):
    blob = data.draw(damaged(params))
    (model_dir / "mlp2.pdiparams").write_bytes(blob)
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    result = bounded(pd.io.load_inference_model, str(model_dir), exe,
                     model_filename="mlp2.pdmodel", params_filename="mlp2.pdiparams", scope=scope)
    if isinstance(result, PaddleNBError):
        assert scope.local_var_names() == []           # nothing half-loaded
    program = pd.io.load_program(str(model_dir / "mlp2.pdmodel"))
    scope = pd.Scope()
    result = bounded(pd.io.load_persistables, exe, str(model_dir), program,
                     filename="mlp2.pdiparams", scope=scope)
    if isinstance(result, PaddleNBError):
        assert scope.local_var_names() == []
    else:
        assert result == MLP2_PARAMS


@settings(max_examples=20, deadline=3000, database=None)
@given(data=st.data())
def test_a_damaged_model_file_loads_or_raises_a_paddle_nb_error(model_dir, params, data):
    (model_dir / "mlp2.pdiparams").write_bytes(params)
    model = data.draw(damaged(fixture_bytes("mlp2.pdmodel")))
    (model_dir / "broken.pdmodel").write_bytes(model)
    result = bounded(pd.io.load_inference_model, str(model_dir), pd.Executor(pd.CPUPlace()),
                     model_filename="broken.pdmodel", params_filename="mlp2.pdiparams",
                     scope=pd.Scope())
    if not isinstance(result, PaddleNBError):
        use_program(result[0])


# -- programs wrong on purpose ---------------------------------------------------------------------
def with_unknown_enum(desc, where, value):
    """Put enum ``value`` in a field of ``desc`` (protobuf refuses to set it directly)."""
    if where == "data_type":
        var = next(v for b in desc.blocks for v in b.vars
                   if v.type.type == framework_pb2.VarType.LOD_TENSOR)
        target, field, keep = var.type.lod_tensor.tensor, 1, ("dims",)
    elif where == "var_type":
        var = desc.blocks[0].vars[0]
        target, field, keep = var.type, 1, ("lod_tensor",)
    else:                                     # an op attribute's AttrType
        op = next(o for b in desc.blocks for o in b.ops if o.attrs)
        target, field, keep = op.attrs[0], 2, ("name", "i")
    kept = type(target)()
    for name in keep:
        if name == "dims":
            kept.dims.extend(target.dims)
        elif kept.DESCRIPTOR.fields_by_name[name].message_type is not None:
            getattr(kept, name).CopyFrom(getattr(target, name))
        else:
            setattr(kept, name, getattr(target, name))
    target.Clear()
    target.MergeFromString(kept.SerializePartialToString() + bytes([field << 3]) + _varint(value))
    return desc


def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


@settings(max_examples=30, deadline=3000, database=None)
@given(where=st.sampled_from(["data_type", "var_type", "attr_type"]),
       value=st.integers(32, 2**31 - 1), name=st.sampled_from(PROGRAM_FILES))
def test_an_enum_value_no_framework_proto_here_knows_is_a_clear_error(where, value, name):
    desc = with_unknown_enum(framework_pb2.ProgramDesc.FromString(fixture_bytes(name)), where,
                             value)
    result = bounded(parse_and_use, desc.SerializePartialToString())
    assert isinstance(result, ProtoDecodeError)
    assert str(value) in str(result) and "newer PaddlePaddle" in str(result)


def test_data_type_99_in_a_tensor_desc_names_the_variable():
    desc = with_unknown_enum(framework_pb2.ProgramDesc.FromString(fixture_bytes("mlp2.pdmodel")),
                             "data_type", 99)
    var = next(v.name for b in desc.blocks for v in b.vars
               if v.type.type == framework_pb2.VarType.LOD_TENSOR)
    with pytest.raises(ProtoDecodeError) as info:
        pd.Program.parse(desc.SerializePartialToString())
    assert f"(variable '{var}') holds 99, which is not a Type value" in str(info.value)


@st.composite
def broken_block_tree(draw):
    """The f18 program (11 blocks) with a parent or a block attribute pointing somewhere wrong."""
    desc = framework_pb2.ProgramDesc.FromString(fixture_bytes(f"{F18}.main.pb"))
    n = len(desc.blocks)
    kind = draw(st.sampled_from(["self", "forward", "negative", "global", "attr", "idx"]))
    i = draw(st.integers(1, n - 1))
    if kind == "self":
        desc.blocks[i].parent_idx = i
    elif kind == "forward":
        desc.blocks[i].parent_idx = draw(st.integers(i + 1, n + 5)) if i < n - 1 else n
    elif kind == "negative":
        desc.blocks[i].parent_idx = draw(st.integers(-2**31, -1))
    elif kind == "global":
        desc.blocks[0].parent_idx = draw(st.integers(0, n + 5))
    elif kind == "idx":
        desc.blocks[i].idx = draw(st.integers(-5, n + 5).filter(lambda x: x != i))
    else:
        owners = [(b, k) for b, block in enumerate(desc.blocks) for k, op in enumerate(block.ops)
                  if any(a.type == T.BLOCK for a in op.attrs)]
        b, k = draw(st.sampled_from(owners))
        attr = next(a for a in desc.blocks[b].ops[k].attrs if a.type == T.BLOCK)
        attr.block_idx = draw(st.one_of(st.integers(-2**31, 0), st.integers(n, 2**31 - 1),
                                        st.just(b)))
    return desc.SerializeToString()


@settings(max_examples=30, deadline=3000, database=None)
@given(data=broken_block_tree())
def test_cyclic_or_out_of_range_block_indices_are_refused(data):
    result = bounded(parse_and_use, data)
    assert isinstance(result, ProtoDecodeError)
    assert "block" in str(result)


@pytest.mark.parametrize("parent, match", [(1, "cycle"), (5, "cycle"), (-1, "expected an earlier")])
def test_a_block_pointing_at_itself_or_forward_is_named(parent, match):
    desc = framework_pb2.ProgramDesc.FromString(fixture_bytes(f"{F18}.main.pb"))
    desc.blocks[1].parent_idx = parent
    with pytest.raises(ProtoDecodeError, match=match):
        pd.Program.parse(desc.SerializeToString())


@settings(max_examples=20, deadline=5000, database=None)
@given(picks=st.lists(st.tuples(st.integers(0, 10), st.integers(0, 40),
                                st.text("abcdefgh_", min_size=1, max_size=8)),
                      min_size=1, max_size=4))
def test_unknown_op_types_parse_and_are_all_named_before_anything_runs(picks):
    desc = framework_pb2.ProgramDesc.FromString(fixture_bytes(f"{F18}.main.pb"))
    renamed = {}
    for b, k, suffix in picks:
        ops = desc.blocks[b].ops
        op = ops[k % len(ops)]
        if op.type not in registry._REGISTRY:
            continue
        op.type = f"{op.type}_zz{suffix}"
        renamed[op.type] = b
    program = pd.Program.parse(desc.SerializeToString())
    scope = pd.Scope()
    with pytest.raises(OpNotFoundError) as info:
        pd.Executor(pd.CPUPlace()).run(program, feed={
            "x": np.zeros((5, 3, 3), "float32"), "thr": np.zeros(1, "float32")}, scope=scope)
    for op_type in renamed:
        assert op_type in str(info.value)
    assert scope.local_var_names() == [] and scope.kids == []


# -- sizes claimed by a file -----------------------------------------------------------------------
def tensor_file(dims, data_type=framework_pb2.VarType.FP32, payload=b""):
    desc = framework_pb2.VarType.TensorDesc(data_type=data_type, dims=dims).SerializeToString()
    return (np.uint32(0).tobytes() + np.uint64(0).tobytes() + np.uint32(0).tobytes() +
            np.int32(len(desc)).tobytes() + desc + payload)


@pytest.mark.parametrize("dims", [[2**40], [2**20, 2**20], [0, 2**40, 2**40], [1] * 40,
                                  [2**62, 4]])
@pytest.mark.parametrize("how", ["bytes", "bytes-limit", "file"])
def test_a_tensor_claiming_a_huge_shape_is_refused_before_allocating(tmp_path, dims, how):
    blob = tensor_file(dims, payload=b"\0" * 64)
    if how == "file":
        path = tmp_path / "t"
        path.write_bytes(blob)
        with open(path, "rb") as f:
            result = bounded(read_tensor, f)
    else:
        result = bounded(read_tensor, io.BytesIO(blob), None if how == "bytes" else len(blob))
    assert isinstance(result, ProtoDecodeError), result


def test_a_huge_lod_level_is_refused_before_allocating():
    blob = (np.uint32(0).tobytes() + np.uint64(1).tobytes() + np.uint64(2**40).tobytes() +
            b"\0" * 64)
    assert isinstance(bounded(read_tensor, io.BytesIO(blob)), ProtoDecodeError)


def test_a_params_file_claiming_a_huge_tensor_loads_nothing(model_dir, params):
    huge = tensor_file([2**40], payload=b"\0" * 16)
    (model_dir / "mlp2.pdiparams").write_bytes(huge + params)
    scope = pd.Scope()
    result = bounded(pd.io.load_inference_model, str(model_dir), pd.Executor(pd.CPUPlace()),
                     model_filename="mlp2.pdmodel", params_filename="mlp2.pdiparams", scope=scope)
    assert isinstance(result, ProtoDecodeError) and scope.local_var_names() == []


def test_names_that_are_not_utf8_are_refused():
    data = bytearray(fixture_bytes("mlp2.pdmodel"))
    at = data.find(b"fc1.w_0")
    data[at] = 0xFF
    with pytest.raises(ProtoDecodeError, match="UTF-8"):
        pd.Program.parse(bytes(data))


def test_a_tensor_variable_without_its_tensor_description_is_refused_at_parse():
    """Found by the fuzzer: a damaged byte turned a variable's ``lod_tensor`` field into an
    unknown one, so the program parsed and then failed when the variable's dtype was read."""
    data = bytearray(fixture_bytes("mlp2.pdmodel"))
    key = b"\n\tfc1.tmp_1\x12\x17\x08\x07\x1a"
    at = data.find(key) + len(key) - 1
    data[at] = 0x0A                       # field 3 (lod_tensor) becomes field 1, wrong wire type
    with pytest.raises(ProtoDecodeError, match="'fc1.tmp_1' in block 0 is a LOD_TENSOR without"):
        pd.Program.parse(bytes(data))
