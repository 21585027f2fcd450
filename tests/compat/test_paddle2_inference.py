"""PaddlePaddle 2.x inference models, round trips of PaddlePaddle's programs, and unknown ops.

- ``mlp2.pdmodel`` + ``mlp2.pdiparams`` (PaddlePaddle 2.6.2) load with
  ``pd.io.load_inference_model`` and give PaddlePaddle's outputs; so does the older layout,
  ``__model__`` + one file per variable, built here from PaddlePaddle's own tensor bytes.
- parse -> serialize is byte for byte, for all three fixture programs: attributes paddle_nb
  does not use (``op_callstack``, ``op_device``, ``use_mkldnn``, ``with_quant_attr``, ...), the
  ``op_version_map`` and 1.8's ``op_compatible_map`` field are all kept.
- A program with op types paddle_nb lacks raises one OpNotFoundError naming all of them, from
  every block, before anything runs.
"""

import io
import shutil

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import OpNotFoundError
from paddle_nb.ops.machinery import registry
from paddle_nb.ops.machinery.tensor_stream import read_tensor
from paddle_nb.proto import framework_pb2
from tests.compat import (
    F18, F18_LOSS, F18_PARAMS, MLP2_PARAMS, PROGRAM_FILES, fixture, fixture_bytes,
)

FETCHED = ["save_infer_model/scale_0.tmp_0", "save_infer_model/scale_1.tmp_0"]


@pytest.fixture(scope="module")
def mlp2_io():
    return dict(np.load(fixture("mlp2_io.npz")))


@pytest.fixture
def model_dir(tmp_path):
    for name in ("mlp2.pdmodel", "mlp2.pdiparams"):
        shutil.copy(fixture(name), tmp_path / name)
    return tmp_path


def load(dirname, model_filename="mlp2.pdmodel", params_filename="mlp2.pdiparams"):
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    program, feeds, fetches = pd.io.load_inference_model(
        str(dirname), exe, model_filename=model_filename, params_filename=params_filename,
        scope=scope)
    return exe, scope, program, feeds, fetches


def check_outputs(exe, scope, program, feeds, fetches, mlp2_io):
    logits, prob = exe.run(program, feed={feeds[0]: mlp2_io["x"]}, fetch_list=fetches,
                           scope=scope)
    np.testing.assert_allclose(logits, mlp2_io["logits"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(prob, mlp2_io["prob"], rtol=1e-5, atol=1e-7)


# -- loading ---------------------------------------------------------------------------------------
def test_a_paddle_2_model_and_params_file_load_and_give_paddles_outputs(model_dir, mlp2_io):
    exe, scope, program, feeds, fetches = load(model_dir)
    assert feeds == ["x"] == list(mlp2_io["feed_names"])
    assert [v.name for v in fetches] == FETCHED == list(mlp2_io["fetch_names"])
    for name in MLP2_PARAMS:
        np.testing.assert_array_equal(scope.find_var(name).get_tensor().numpy(),
                                      mlp2_io[f"param:{name}"])
    check_outputs(exe, scope, program, feeds, fetches, mlp2_io)


def paddles_tensors(params_bytes):
    """PaddlePaddle's bytes of each tensor of a ``save_combine`` file, in order."""
    stream, chunks = io.BytesIO(params_bytes), []
    while stream.tell() < len(params_bytes):
        start = stream.tell()
        read_tensor(stream, limit=len(params_bytes) - start)
        chunks.append(params_bytes[start:stream.tell()])
    return chunks


def test_the_older_layout_model_file_and_one_file_per_variable_loads_too(tmp_path, mlp2_io):
    # PaddlePaddle 1.x / 2.x's `__model__` + per-variable files (save_vars with no filename):
    # each variable's file is what save_combine concatenates, so PaddlePaddle's own tensor
    # bytes, cut out of mlp2.pdiparams, are such files.
    shutil.copy(fixture("mlp2.pdmodel"), tmp_path / "__model__")
    chunks = paddles_tensors(fixture_bytes("mlp2.pdiparams"))
    assert len(chunks) == len(MLP2_PARAMS)
    for name, chunk in zip(MLP2_PARAMS, chunks):      # save_combine sorts by name
        (tmp_path / name).write_bytes(chunk)
    exe, scope, program, feeds, fetches = load(tmp_path, model_filename=None,
                                               params_filename=None)
    check_outputs(exe, scope, program, feeds, fetches, mlp2_io)


def test_running_a_loaded_model_leaves_its_program_as_paddle_wrote_it(model_dir, mlp2_io):
    exe, scope, program, feeds, fetches = load(model_dir)
    check_outputs(exe, scope, program, feeds, fetches, mlp2_io)
    check_outputs(exe, scope, program, feeds, fetches, mlp2_io)       # a second run, cached plan
    assert program.serialize() == fixture_bytes("mlp2.pdmodel")


# -- round trips -----------------------------------------------------------------------------------
def undeclared_attrs(program):
    """(block, op index, attribute name) of every attribute the op's OpDef does not declare."""
    found = set()
    for block in program.blocks:
        for k, op in enumerate(block.ops):
            opdef = registry._REGISTRY.get(op.type)
            for attr in op.desc.attrs:
                if opdef is None or attr.name not in opdef.attrs:
                    found.add((block.idx, k, attr.name))
    return found


@pytest.mark.parametrize("name", PROGRAM_FILES)
def test_parse_then_serialize_is_byte_for_byte_and_keeps_unused_attributes(name):
    data = fixture_bytes(name)
    program = pd.Program.parse(data)
    assert program.serialize() == data
    kept = {attr for _, _, attr in undeclared_attrs(program)}
    assert {"op_callstack", "op_device", "op_namescope", "op_role_var"} <= kept
    again = pd.Program.parse(program.serialize())
    assert undeclared_attrs(again) == undeclared_attrs(program)
    assert program.clone().serialize() == data


def test_unused_attributes_of_each_kind_survive(tmp_path):
    f18 = pd.Program.parse(fixture_bytes(f"{F18}.main.pb"))
    assert "use_mkldnn" in {a for _, _, a in undeclared_attrs(f18)}
    mlp2 = pd.Program.parse(fixture_bytes("mlp2.pdmodel"))
    assert "with_quant_attr" in {a for _, _, a in undeclared_attrs(mlp2)}
    feed = mlp2.global_block().ops[0]
    callstack = feed.attr("op_callstack")
    assert isinstance(callstack, list) and callstack and all(isinstance(s, str) for s in callstack)
    assert feed.attr("op_device") == ""
    assert len(mlp2.desc.op_version_map.pair) > 0
    pd.io.save(mlp2, str(tmp_path / "again.pdmodel"))            # through a file, too
    assert (tmp_path / "again.pdmodel").read_bytes() == fixture_bytes("mlp2.pdmodel")
    assert pd.io.load_program(str(tmp_path / "again.pdmodel")).serialize() == \
        fixture_bytes("mlp2.pdmodel")


def test_a_1_8_program_with_an_op_compatible_map_parses_and_keeps_it():
    # 1.8's ProgramDesc field 3 (op_compatible_map; reserved in 2.x) is skipped and kept.
    data = fixture_bytes(f"{F18}.main.pb")
    pair = b"\x0a\x07reshape" + b"\x12\x07\x0a\x051.8.5"   # {op_name, compatible_info{version}}
    field3 = b"\x1a" + bytes([len(b"\x0a" + bytes([len(pair)]) + pair)]) + b"\x0a" + \
        bytes([len(pair)]) + pair
    program = pd.Program.parse(data + field3)
    assert program.serialize() == data + field3
    assert [op.type for op in program.global_block().ops][:2] == \
        ["fill_constant_batch_size_like", "recurrent"]


# -- op types paddle_nb lacks ----------------------------------------------------------------------
def renamed(data, renames):
    """A parsed copy of ``data`` with op ``(block, index)`` renamed to the given type."""
    desc = framework_pb2.ProgramDesc.FromString(data)
    for (block, index), new_type in renames.items():
        desc.blocks[block].ops[index].type = new_type
    return pd.Program.parse(desc.SerializeToString())


def test_unknown_op_types_in_every_block_are_named_in_one_error_before_anything_runs():
    data = fixture_bytes(f"{F18}.main.pb")
    program = renamed(data, {(0, 11): "square_v9", (1, 4): "tanh_v9", (10, 3): "tanh_v9_grad",
                             (0, 33): "sgd_v9", (0, 34): "sgd_v9"})
    io18 = dict(np.load(fixture(f"{F18}_io.npz")))
    scope = pd.Scope()
    for name in F18_PARAMS:
        scope.var(name).get_tensor().set(io18[f"init:{name}"], pd.CPUPlace())
    scope.var("learning_rate_0").get_tensor().set(np.float32([0.1]), pd.CPUPlace())
    names_before = set(scope.local_var_names())
    exe = pd.Executor(pd.CPUPlace())
    with pytest.raises(OpNotFoundError) as info:
        exe.run(program, feed={"x": io18["x"], "thr": io18["thr"][:1]}, fetch_list=[F18_LOSS],
                scope=scope)
    message = str(info.value)
    for op_type, block in [("square_v9", "block 0"), ("tanh_v9", "block 1"),
                           ("tanh_v9_grad", "block 10"), ("sgd_v9", "block 0")]:
        assert f"{op_type} ({block})" in message
    assert message.count("sgd_v9") == 1 and "nothing was run" in message
    assert isinstance(info.value, pd.errors.PaddleNBError)
    for name in F18_PARAMS:
        np.testing.assert_array_equal(scope.find_var(name).get_tensor().numpy(),
                                      io18[f"init:{name}"])
    assert set(scope.local_var_names()) == names_before and scope.kids == []


def test_only_a_sub_block_lacking_an_op_is_also_caught_before_anything_runs():
    program = renamed(fixture_bytes(f"{F18}.main.pb"), {(10, 0): "rnn_memory_helper_grad_v9"})
    io18 = dict(np.load(fixture(f"{F18}_io.npz")))
    scope = pd.Scope()
    for name in F18_PARAMS:
        scope.var(name).get_tensor().set(io18[f"init:{name}"], pd.CPUPlace())
    scope.var("learning_rate_0").get_tensor().set(np.float32([0.1]), pd.CPUPlace())
    seen = []
    exe = pd.Executor(pd.CPUPlace())
    exe.subscribe(seen.append)
    with pytest.raises(OpNotFoundError, match=r"rnn_memory_helper_grad_v9 \(block 10\)"):
        exe.run(program, feed={"x": io18["x"], "thr": io18["thr"][:1]}, fetch_list=[F18_LOSS],
                scope=scope)
    assert seen == []          # no run started, so no run record either


def test_a_loaded_model_with_unknown_ops_loads_and_names_them_all_when_run(tmp_path, mlp2_io):
    data = fixture_bytes("mlp2.pdmodel")
    types = [op.type for op in pd.Program.parse(data).global_block().ops]
    program = renamed(data, {(0, types.index("relu")): "relu6_v2",
                             (0, types.index("softmax")): "softmax_v3"})
    (tmp_path / "m.pdmodel").write_bytes(program.serialize())
    shutil.copy(fixture("mlp2.pdiparams"), tmp_path / "mlp2.pdiparams")
    exe, scope, loaded, feeds, fetches = load(tmp_path, model_filename="m.pdmodel")
    assert loaded.serialize() == program.serialize()       # loading still works, for inspection
    with pytest.raises(OpNotFoundError) as info:
        exe.run(loaded, feed={feeds[0]: mlp2_io["x"]}, fetch_list=fetches, scope=scope)
    assert "relu6_v2" in str(info.value) and "softmax_v3" in str(info.value)


def test_an_unsupported_input_slot_does_not_hide_a_missing_op_type(mlp2_io):
    """One block, one op filling a slot paddle_nb's op lacks (first) and one unknown op type
    (later): the single error names both, and nothing runs."""
    desc = framework_pb2.ProgramDesc.FromString(fixture_bytes("mlp2.pdmodel"))
    ops = desc.blocks[0].ops
    types = [op.type for op in ops]
    extra = ops[types.index("relu")].inputs.add()
    extra.parameter, extra.arguments[:] = "NoSuchSlot", [ops[types.index("relu")].inputs[0]
                                                         .arguments[0]]
    ops[types.index("softmax")].type = "softmax_v3"
    program = pd.Program.parse(desc.SerializeToString())
    scope = pd.Scope()
    with pytest.raises(OpNotFoundError) as info:
        pd.Executor(pd.CPUPlace()).run(program, feed={"x": mlp2_io["x"]}, scope=scope)
    message = str(info.value)
    assert "softmax_v3 (block 0)" in message and "relu.NoSuchSlot (block 0)" in message
    assert "nothing was run" in message and scope.kids == []
