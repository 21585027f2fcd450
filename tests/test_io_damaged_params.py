"""Damaged or hostile parameter files: refused before allocating, and a load is all or nothing.

- A tensor header claiming float32[2**31] in a 4 KB sparse file (the apparent size is
  8 GB, so a size check alone lets it through) and a ``.npy`` header claiming 2**40
  elements are compared with the variable's declared shape, dtype and the bytes the
  file really holds before anything is read: SaveLoadError naming file, variable,
  declared and found, with tracemalloc's peak far below the claim.
- A LoD whose offsets go down, in the second of two variables, is refused before the
  first one is written into the scope.
"""

import os
import struct
import tracemalloc

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import SaveLoadError
from paddle_nb.proto import framework_pb2
from paddle_nb.ops.machinery.tensor_stream import tensor_bytes

PEAK = 16 << 20


def header(dims, lod=(), data_type=framework_pb2.VarType.FP32):
    """PaddlePaddle's tensor header (the LoD, the TensorDesc), without the data."""
    desc = framework_pb2.VarType.TensorDesc(data_type=data_type, dims=dims).SerializeToString()
    out = struct.pack("<IQ", 0, len(lod))
    for level in lod:
        data = np.asarray(level, "<u8").tobytes()
        out += struct.pack("<Q", len(data)) + data
    return out + struct.pack("<Ii", 0, len(desc)) + desc


def npy_header(shape, descr="<f4"):
    import io
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False,
                                               "shape": tuple(shape)})
    return buf.getvalue()


def sparse_file(path, head, size):
    """``head``, then a hole up to ``size`` bytes; skips where the file system has no holes."""
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    if os.stat(path).st_blocks * 512 >= size // 2:
        os.unlink(path)
        pytest.skip("this file system does not make sparse files")


@pytest.fixture
def model():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        pd.layers.fc(x, 2)
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    return main, exe, scope


def load_bounded(fn, *args, **kwargs):
    """fn's SaveLoadError (it must raise one), under a tracemalloc peak of PEAK."""
    tracemalloc.start()
    try:
        with pytest.raises(SaveLoadError) as info:
            fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK, f"{peak} bytes allocated"
    return str(info.value)


def test_a_sparse_file_claiming_float32_2_31_is_refused_before_reading(tmp_path, model):
    main, exe, scope = model
    pd.io.save_params(exe, str(tmp_path), main, scope=scope)
    path = tmp_path / "fc_0.w_0"
    sparse_file(path, header([2**31]), 8 * 2**30 + 64)
    fresh = pd.Scope()
    message = load_bounded(pd.io.load_params, exe, str(tmp_path), main, scope=fresh)
    assert f"variable 'fc_0.w_0' in '{path}': the program declares shape [3, 2], the file's " \
           "header claims shape [2147483648]" in message
    assert fresh.local_var_names() == []


def test_a_sparse_combined_file_is_refused_before_reading(tmp_path, model):
    main, exe, scope = model
    path = tmp_path / "params"
    sparse_file(path, header([2]) + b"\0" * 8 + header([2**31]), 8 * 2**30 + 64)
    message = load_bounded(pd.io.load_params, exe, str(tmp_path), main, scope=pd.Scope(),
                           filename="params")
    assert "variable 'fc_0.w_0'" in message and "[2147483648]" in message


def test_a_sparse_file_for_a_variable_of_unknown_size_is_refused_by_its_stored_bytes(tmp_path):
    main = pd.Program()
    var = main.global_block().create_var(name="table", shape=[-1, 4], dtype="float32",
                                         persistable=True)
    path = tmp_path / "table"
    sparse_file(path, header([2**27, 4]), 2 * 2**30 + 64)
    message = load_bounded(pd.io.load_vars, pd.Executor(pd.CPUPlace()), str(tmp_path), main,
                           vars=[var], scope=pd.Scope())
    assert "variable 'table'" in message and "(a sparse file)" in message


@pytest.mark.parametrize("declared", [[3, 2], [-1, 2]])
def test_an_npy_header_claiming_2_40_elements_is_refused(tmp_path, declared):
    main = pd.Program()
    var = main.global_block().create_var(name="w", shape=declared, dtype="float32",
                                         persistable=True)
    (tmp_path / "w").write_bytes(npy_header([2**40, 2]) + b"\0" * 64)
    message = load_bounded(pd.io.load_vars, pd.Executor(pd.CPUPlace()), str(tmp_path), main,
                           vars=[var], scope=pd.Scope())
    assert f"variable 'w' in '{tmp_path / 'w'}'" in message and "[1099511627776, 2]" in message


def test_an_npy_file_of_the_declared_shape_still_loads(tmp_path):
    main = pd.Program()
    var = main.global_block().create_var(name="w", shape=[3, 2], dtype="float32",
                                         persistable=True)
    np.save(tmp_path / "w.npy", np.arange(6, dtype="float32").reshape(3, 2))
    os.rename(tmp_path / "w.npy", tmp_path / "w")
    scope = pd.Scope()
    pd.io.load_vars(pd.Executor(pd.CPUPlace()), str(tmp_path), main, vars=[var], scope=scope)
    assert scope.find_var("w").get_tensor().numpy().tolist() == [[0, 1], [2, 3], [4, 5]]


def test_a_header_of_another_dtype_is_refused_before_reading(tmp_path, model):
    main, exe, scope = model
    pd.io.save_params(exe, str(tmp_path), main, scope=scope)
    (tmp_path / "fc_0.w_0").write_bytes(tensor_bytes(np.zeros((3, 2), "float64")))
    message = load_bounded(pd.io.load_params, exe, str(tmp_path), main, scope=pd.Scope())
    assert "declares dtype float32, the file's header claims float64" in message


@pytest.mark.parametrize("combined", [False, True])
@pytest.mark.parametrize("lod, problem", [
    ([[0, 2, 1, 3]], "level 0 is [0, 2, 1, 3]: expected offsets from 0, never decreasing"),
    ([[1, 3]], "expected offsets from 0"),
    ([[0, 2]], "the last level ends at 2; the first dimension is 3"),
    ([[0, 1, 3], [0, 1]], "level 0 ends at 3, so level 1 needs 4 offsets; it has 2"),
])
def test_an_invalid_lod_is_refused_before_any_variable_is_written(tmp_path, model, combined,
                                                                  lod, problem):
    main, exe, scope = model
    bias = scope.find_var("fc_0.b_0").get_tensor().numpy()
    weight = np.zeros((3, 2), "float32")
    # fc_0.b_0 sorts first and is valid; fc_0.w_0 carries the bad LoD
    blobs = {"fc_0.b_0": tensor_bytes(bias), "fc_0.w_0": tensor_bytes(weight, lod)}
    if combined:
        (tmp_path / "params").write_bytes(blobs["fc_0.b_0"] + blobs["fc_0.w_0"])
    else:
        for name, blob in blobs.items():
            (tmp_path / name).write_bytes(blob)
    fresh = pd.Scope()
    with pytest.raises(SaveLoadError) as info:
        pd.io.load_params(exe, str(tmp_path), main, scope=fresh,
                          filename="params" if combined else None)
    assert "variable 'fc_0.w_0'" in str(info.value) and problem in str(info.value)
    assert fresh.local_var_names() == []


def test_a_valid_lod_loads_with_its_values(tmp_path, model):
    main, exe, scope = model
    pd.io.save_params(exe, str(tmp_path), main, scope=scope)
    (tmp_path / "fc_0.w_0").write_bytes(tensor_bytes(np.ones((3, 2), "float32"), [[0, 1, 3]]))
    fresh = pd.Scope()
    pd.io.load_params(exe, str(tmp_path), main, scope=fresh)
    assert fresh.find_var("fc_0.w_0").get_tensor().lod() == [[0, 1, 3]]


def test_deserialize_persistables_sets_all_of_them_or_none(model):
    main, exe, scope = model
    x = main.global_block().var("x")
    out = main.global_block().ops[-1].output_arg_names[0]
    data = pd.static.serialize_persistables([x], [main.global_block().var(out)], exe,
                                            program=main, scope=scope)
    program = pd.static.deserialize_program(pd.static.serialize_program(
        [x], [main.global_block().var(out)], program=main))
    bias = scope.find_var("fc_0.b_0").get_tensor().numpy()
    broken = data[:len(tensor_bytes(bias))] + tensor_bytes(np.zeros((3, 2), "float32"),
                                                           [[0, 3, 1]])
    fresh = pd.Scope()
    with pytest.raises(SaveLoadError, match="'fc_0.w_0'.*LoD is not valid"):
        pd.static.deserialize_persistables(program, broken, exe, scope=fresh)
    assert fresh.local_var_names() == []
    pd.static.deserialize_persistables(program, data, exe, scope=fresh)
    assert sorted(fresh.local_var_names()) == ["fc_0.b_0", "fc_0.w_0"]


def test_load_program_state_refuses_a_sparse_file_before_reading(tmp_path):
    path = tmp_path / "w"
    sparse_file(path, header([2**31]), 8 * 2**30 + 64)
    message = load_bounded(pd.static.load_program_state, str(tmp_path))
    assert f"variable 'w' in '{path}'" in message and "(a sparse file)" in message
