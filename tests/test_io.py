"""paddle_nb.io: parameters, persistables and inference models, in PaddlePaddle's formats."""

import os
from pathlib import Path

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import ProtoDecodeError, SaveLoadError
from paddle_nb.framework.variable import VarType
from paddle_nb.io import params as params_module
from paddle_nb.ops.machinery.tensor_stream import tensor_bytes

from tests.compat import FIXTURE_DIR as FIXTURES, MLP2_PARAMS, fixture


class MLP:
    """x[N,6] -> fc(8, relu) -> fc(3) = logits -> softmax = prob, initialized in ``scope``."""

    def __init__(self, startup=True, seed=1):
        self.main = pd.Program()
        self.startup = pd.Program() if startup else None
        with pd.program_guard(self.main, self.startup):
            self.x = pd.layers.data("x", shape=[6])
            hidden = pd.layers.fc(self.x, 8, act="relu")
            self.logits = pd.layers.fc(hidden, 3)
            self.prob = pd.layers.softmax(self.logits)
        self.exe = pd.Executor(pd.CPUPlace(), seed=seed)
        self.scope = pd.Scope()
        self.feed = {"x": np.random.default_rng(seed).standard_normal((5, 6)).astype("float32")}
        if startup:
            self.exe.run(self.startup, scope=self.scope)
        self.outputs = self.run()

    def run(self):
        return self.exe.run(self.main, feed=self.feed, fetch_list=[self.logits, self.prob],
                            scope=self.scope)

    def values(self, scope=None):
        scope = scope or self.scope
        return {p.name: scope.find_var(p.name).get_tensor().numpy()
                for p in self.main.all_parameters()}


def listing(path):
    """Every file and directory under ``path``, relative, sorted."""
    return sorted(str(p.relative_to(path)) for p in Path(path).rglob("*"))


# -- parameters -----------------------------------------------------------------------------------
def test_params_round_trip_one_file_per_variable(tmp_path):
    mlp = MLP()
    names = pd.io.save_params(mlp.exe, tmp_path / "m", mlp.main, scope=mlp.scope)
    assert names == sorted(mlp.values())
    assert listing(tmp_path / "m") == names
    for name, value in mlp.values().items():       # each file is one tensor_stream tensor
        assert (tmp_path / "m" / name).read_bytes() == tensor_bytes(value)
    fresh = pd.Scope()
    pd.io.load_params(pd.Executor(), tmp_path / "m", mlp.main, scope=fresh)
    for name, value in mlp.values().items():
        np.testing.assert_array_equal(mlp.values(fresh)[name], value)


def test_params_round_trip_combined(tmp_path):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope, filename="params.pdiparams")
    assert listing(tmp_path) == ["params.pdiparams"]
    fresh = pd.Scope()
    pd.io.load_params(pd.Executor(), tmp_path, mlp.main, scope=fresh, filename="params.pdiparams")
    for name, value in mlp.values().items():
        np.testing.assert_array_equal(mlp.values(fresh)[name], value)


def test_default_program_and_global_scope(tmp_path):
    main = pd.Program()
    with pd.program_guard(main), pd.scope_guard(pd.Scope()):
        y = pd.layers.fc(pd.layers.data("x", shape=[2]), 2)
        exe = pd.Executor()
        exe.run(feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y])   # runs the preamble
        before = pd.global_scope().find_var(main.all_parameters()[0].name).get_tensor().numpy()
        pd.io.save_params(exe, tmp_path)
        with pd.scope_guard(pd.Scope()):
            pd.io.load_params(exe, tmp_path)
            after = pd.global_scope().find_var(main.all_parameters()[0].name).get_tensor()
            np.testing.assert_array_equal(after.numpy(), before)


def test_persistables_include_non_parameters(tmp_path):
    mlp = MLP()
    step = mlp.main.global_block().create_var(name="step", shape=[1], dtype="int64",
                                              persistable=True)
    mlp.scope.var("step").get_tensor().set(np.array([7], "int64"))
    assert "step" not in pd.io.save_params(mlp.exe, tmp_path / "p", mlp.main, scope=mlp.scope)
    saved = pd.io.save_persistables(mlp.exe, tmp_path / "q", mlp.main, scope=mlp.scope)
    assert step.name in saved and set(mlp.values()) < set(saved)
    fresh = pd.Scope()
    pd.io.load_persistables(pd.Executor(), tmp_path / "q", mlp.main, scope=fresh)
    np.testing.assert_array_equal(fresh.find_var("step").get_tensor().numpy(), [7])


def test_training_state_round_trip(tmp_path):
    optimizer = pytest.importorskip("paddle_nb.optimizer")
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        loss = pd.layers.mean(pd.layers.fc(x, 2))
        optimizer.Momentum(0.1, 0.9).minimize(loss)
    exe, scope = pd.Executor(), pd.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((2, 3), "float32")}
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    pd.io.save_persistables(exe, tmp_path, main, scope=scope, filename="all")
    fresh = pd.Scope()
    pd.io.load_persistables(exe, tmp_path, main, scope=fresh, filename="all")
    assert exe.run(main, feed=feed, fetch_list=[loss], scope=fresh) == \
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)


def test_saving_before_initialization_names_the_variable(tmp_path):
    mlp = MLP()
    with pytest.raises(SaveLoadError, match="'fc_0.b_0'.*startup"):
        pd.io.save_params(mlp.exe, tmp_path / "m", mlp.main, scope=pd.Scope())
    assert listing(tmp_path) == []


# -- PaddlePaddle's own files ---------------------------------------------------------------------
def mlp2_program():
    """A program declaring the four parameters of the mlp2 fixture."""
    npz = np.load(fixture("mlp2_io.npz"), allow_pickle=False)
    program = pd.Program()
    for name in MLP2_PARAMS:
        value = npz[f"param:{name}"]
        program.global_block().create_parameter(name=name, shape=value.shape, dtype=value.dtype)
    return program, {name: npz[f"param:{name}"] for name in MLP2_PARAMS}


def test_combined_file_is_byte_identical_to_paddlepaddles(tmp_path):
    program, values = mlp2_program()
    scope = pd.Scope()
    for name, value in values.items():
        scope.var(name).get_tensor().set(value)
    pd.io.save_params(pd.Executor(), tmp_path, program, scope=scope, filename="mlp2.pdiparams")
    assert (tmp_path / "mlp2.pdiparams").read_bytes() == fixture("mlp2.pdiparams").read_bytes()


def test_reading_paddlepaddles_combined_file(tmp_path):
    program, values = mlp2_program()
    scope = pd.Scope()
    names = pd.io.load_params(pd.Executor(), FIXTURES, program, scope=scope,
                              filename="mlp2.pdiparams")
    assert names == MLP2_PARAMS
    for name, value in values.items():
        got = scope.find_var(name).get_tensor().numpy()
        assert got.dtype == value.dtype
        np.testing.assert_array_equal(got, value)


def test_loading_paddlepaddles_inference_model():
    fixture("mlp2.pdmodel")
    npz = np.load(fixture("mlp2_io.npz"), allow_pickle=False)
    scope, exe = pd.Scope(), pd.Executor()
    program, feeds, fetches = pd.io.load_inference_model(
        FIXTURES, exe, model_filename="mlp2.pdmodel", params_filename="mlp2.pdiparams",
        scope=scope)
    assert feeds == list(npz["feed_names"])
    assert [v.name for v in fetches] == list(npz["fetch_names"])
    logits, prob = exe.run(program, feed={"x": npz["x"]}, fetch_list=fetches, scope=scope)
    np.testing.assert_allclose(logits, npz["logits"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(prob, npz["prob"], rtol=1e-5, atol=1e-6)


# -- inference models -----------------------------------------------------------------------------
@pytest.mark.parametrize("params_filename", [None, "__params__"])
@pytest.mark.parametrize("startup", [True, False])
def test_inference_model_round_trip(tmp_path, params_filename, startup):
    mlp = MLP(startup=startup)
    targets = pd.io.save_inference_model(str(tmp_path / "model"), ["x"], [mlp.logits, mlp.prob],
                                         mlp.exe, mlp.main, params_filename=params_filename,
                                         scope=mlp.scope)
    assert targets == [mlp.logits.name, mlp.prob.name]
    files = listing(tmp_path / "model")
    assert files == sorted(["__model__"] + ([params_filename] if params_filename
                                            else list(mlp.values())))
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    program, feeds, fetches = pd.io.load_inference_model(tmp_path / "model", exe,
                                                         params_filename=params_filename,
                                                         scope=scope)
    assert feeds == ["x"] and [v.name for v in fetches] == targets
    types = [op.type for op in program.global_block().ops]
    assert types[0] == "feed" and types[-2:] == ["fetch", "fetch"]
    assert not {"uniform_random", "fill_constant", "gaussian_random"} & set(types)
    for op in program.global_block().ops:
        assert op.attr("op_role") == 0 and "op_callstack" in op.attrs
    holders = program.global_block().vars
    assert holders["feed"].persistable and holders["feed"].type == VarType.FEED_MINIBATCH
    assert holders["fetch"].persistable and holders["fetch"].type == VarType.FETCH_LIST
    got = exe.run(program, feed=mlp.feed, fetch_list=fetches, scope=scope)
    for a, b in zip(got, mlp.outputs):
        np.testing.assert_array_equal(a, b)


def test_inference_model_of_a_training_program(tmp_path):
    optimizer = pytest.importorskip("paddle_nb.optimizer")
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[3])
        label = pd.layers.data("label", shape=[2])
        out = pd.layers.fc(x, 2)
        loss = pd.layers.mean(pd.layers.square_error_cost(out, label))
        optimizer.SGD(0.1).minimize(loss)
    exe, scope = pd.Executor(), pd.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((2, 3), "float32"), "label": np.zeros((2, 2), "float32")}
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    pd.io.save_inference_model(tmp_path, ["x"], [out], exe, main, scope=scope)
    program, feeds, fetches = pd.io.load_inference_model(tmp_path, exe, scope=pd.Scope())
    roles = {op.attr("op_role") for op in program.global_block().ops}
    assert roles == {0} and "label" not in program.global_block().vars
    assert sorted(listing(tmp_path)) == ["__model__", "fc_0.b_0", "fc_0.w_0"]


def test_feed_order_and_cut_at_fed_intermediate(tmp_path):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[4])
        y = pd.layers.data("y", shape=[2])
        h = pd.layers.fc(x, 2, act="tanh")
        out = pd.layers.fc([h, y], 3)
    exe, scope = pd.Executor(), pd.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((3, 4)).astype("float32"),
            "y": rng.standard_normal((3, 2)).astype("float32")}
    h_value, want = exe.run(main, feed=feed, fetch_list=[h, out], scope=scope)
    pd.io.save_inference_model(tmp_path, ["y", h.name], [out], exe, main, scope=scope)
    fresh = pd.Scope()
    program, feeds, fetches = pd.io.load_inference_model(tmp_path, exe, scope=fresh)
    assert feeds == ["y", h.name]
    assert "x" not in program.global_block().vars and "fc_0.w_0" not in program.global_block().vars
    assert [op.attr("col") for op in program.global_block().ops[:2]] == [0, 1]
    (got,) = exe.run(program, feed={"y": feed["y"], h.name: h_value}, fetch_list=fetches,
                     scope=fresh)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_save_and_load_a_bare_program(tmp_path):
    mlp = MLP()
    pd.io.save(mlp.main, tmp_path / "main.pdmodel")
    loaded = pd.io.load_program(tmp_path / "main.pdmodel")
    assert loaded.serialize() == mlp.main.serialize()
    assert str(loaded) == str(mlp.main)
    with pytest.raises(SaveLoadError, match="no file"):
        pd.io.load_program(tmp_path / "absent")
    (tmp_path / "junk").write_bytes(b"\xff\xff\xff")
    with pytest.raises(ProtoDecodeError):
        pd.io.load_program(tmp_path / "junk")


# -- whole or nothing -----------------------------------------------------------------------------
def fail_on_call(monkeypatch, module, name, n):
    """Make ``module.name`` raise on its ``n``-th call."""
    real, calls = getattr(module, name), []

    def patched(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise RuntimeError("simulated failure part-way through the save")
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, patched)


def snapshot(path):
    return {p: (Path(path) / p).read_bytes() for p in listing(path) if (Path(path) / p).is_file()}


@pytest.mark.parametrize("filename", [None, "params"])
def test_an_interrupted_save_leaves_the_previous_files(tmp_path, monkeypatch, filename):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path / "m", mlp.main, scope=mlp.scope, filename=filename)
    before = snapshot(tmp_path / "m")
    for name in mlp.values():
        mlp.scope.find_var(name).get_tensor().set(np.zeros_like(mlp.values()[name]))
    fail_on_call(monkeypatch, params_module, "write_tensor", 3)
    with pytest.raises(RuntimeError, match="simulated"):
        pd.io.save_params(mlp.exe, tmp_path / "m", mlp.main, scope=mlp.scope, filename=filename)
    assert snapshot(tmp_path / "m") == before
    assert listing(tmp_path) == ["m"] + [f"m/{n}" for n in before]   # no temporaries


def test_an_interrupted_inference_save_keeps_model_and_params_together(tmp_path, monkeypatch):
    mlp = MLP()
    pd.io.save_inference_model(tmp_path / "m", ["x"], [mlp.prob], mlp.exe, mlp.main,
                               scope=mlp.scope)
    before = snapshot(tmp_path / "m")
    fail_on_call(monkeypatch, params_module, "write_tensor", 2)
    with pytest.raises(RuntimeError, match="simulated"):
        pd.io.save_inference_model(tmp_path / "m", ["x"], [mlp.logits, mlp.prob], mlp.exe,
                                   mlp.main, scope=mlp.scope)
    assert snapshot(tmp_path / "m") == before
    assert [p for p in os.listdir(tmp_path)] == ["m"]


def test_a_failed_swap_restores_the_old_directory(tmp_path, monkeypatch):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path / "m", mlp.main, scope=mlp.scope)
    before = snapshot(tmp_path / "m")
    fail_on_call(monkeypatch, os, "rename", 2)       # the rename of the new directory
    with pytest.raises(RuntimeError):
        pd.io.save_params(mlp.exe, tmp_path / "m", mlp.main, scope=mlp.scope)
    monkeypatch.undo()
    assert snapshot(tmp_path / "m") == before and os.listdir(tmp_path) == ["m"]


def test_saving_into_a_directory_keeps_its_other_files(tmp_path):
    mlp = MLP()
    (tmp_path / "notes.txt").write_text("mine")
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert set(listing(tmp_path)) == {"notes.txt", *mlp.values()}


def test_a_failed_load_changes_nothing(tmp_path):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)
    os.remove(tmp_path / "fc_1.w_0")       # read last, in name order
    for name, value in mlp.values().items():
        mlp.scope.find_var(name).get_tensor().set(np.zeros_like(value))
    before = mlp.values()
    with pytest.raises(SaveLoadError, match="fc_1.w_0"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)
    after = mlp.values()
    for name in before:
        np.testing.assert_array_equal(after[name], before[name])


# -- refusing bad files ---------------------------------------------------------------------------
def write_pickled_npy(path):
    with open(path, "wb") as f:
        np.save(f, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)


def test_io_refuses_a_pickled_npy(tmp_path):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)
    write_pickled_npy(tmp_path / "fc_0.b_0")
    with pytest.raises(SaveLoadError, match="pickle"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope())


def test_io_reads_a_plain_npy_parameter(tmp_path):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)
    with open(tmp_path / "fc_0.b_0", "wb") as f:
        np.save(f, np.arange(8, dtype="float32"))
    scope = pd.Scope()
    pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=scope)
    np.testing.assert_array_equal(scope.find_var("fc_0.b_0").get_tensor().numpy(), np.arange(8))


def test_the_load_initializer_refuses_a_pickled_npy(tmp_path):
    write_pickled_npy(tmp_path / "w.npy")
    main = pd.Program()
    main.global_block().create_parameter(name="w", shape=[2], dtype="float32",
                                         initializer=pd.initializer.Load(tmp_path / "w.npy"))
    with pytest.raises(pd.errors.PaddleNBError, match="pickle") as info:
        pd.Executor().run(main, scope=pd.Scope())
    chain = [info.value, info.value.__cause__]
    assert any(isinstance(e, SaveLoadError) for e in chain)


@pytest.mark.parametrize("shape,dtype,what", [([6, 9], "float32", "shape"),
                                              ([6, 8], "float64", "dtype")])
def test_a_mismatch_on_load_names_the_variable(tmp_path, shape, dtype, what):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope, filename="p")
    other = pd.Program()
    for param in mlp.main.all_parameters():
        is_w0 = param.name == "fc_0.w_0"
        other.global_block().create_parameter(name=param.name,
                                              shape=shape if is_w0 else param.shape,
                                              dtype=dtype if is_w0 else param.dtype)
    with pytest.raises(SaveLoadError, match=rf"'fc_0\.w_0'.*{what}"):
        pd.io.load_params(mlp.exe, tmp_path, other, scope=pd.Scope(), filename="p")


def test_truncated_and_overlong_combined_files(tmp_path):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope, filename="p")
    data = (tmp_path / "p").read_bytes()
    for cut in (1, 10, 30, len(data) // 2, len(data) - 1):
        (tmp_path / "p").write_bytes(data[:cut])
        with pytest.raises((SaveLoadError, ProtoDecodeError)):
            pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope(), filename="p")
    first = len(tensor_bytes(mlp.values()["fc_0.b_0"]))     # cut between two tensors
    (tmp_path / "p").write_bytes(data[:first])
    with pytest.raises(SaveLoadError, match="before variable 'fc_0.w_0'"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope(), filename="p")
    (tmp_path / "p").write_bytes(data + b"\0" * 8)
    with pytest.raises(SaveLoadError, match="bytes after"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope(), filename="p")


def test_truncated_separate_file(tmp_path):
    mlp = MLP()
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)
    path = tmp_path / "fc_1.w_0"
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(ProtoDecodeError, match="fc_1.w_0"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope())


def test_missing_files_are_clear_errors(tmp_path):
    mlp = MLP()
    with pytest.raises(SaveLoadError, match="not a directory"):
        pd.io.load_params(mlp.exe, tmp_path / "absent", mlp.main, scope=pd.Scope())
    with pytest.raises(SaveLoadError, match="fc_0.b_0"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope())
    with pytest.raises(SaveLoadError, match="no file"):
        pd.io.load_params(mlp.exe, tmp_path, mlp.main, scope=pd.Scope(), filename="p")
    with pytest.raises(SaveLoadError, match="__model__"):
        pd.io.load_inference_model(tmp_path, mlp.exe)


def test_names_that_leave_the_directory_are_refused(tmp_path):
    mlp = MLP()
    mlp.main.global_block().create_var(name="../escape", shape=[1], persistable=True)
    mlp.scope.var("../escape").get_tensor().set(np.ones(1, "float32"))
    with pytest.raises(SaveLoadError, match="escape"):
        pd.io.save_persistables(mlp.exe, tmp_path / "d", mlp.main, scope=mlp.scope)
    assert listing(tmp_path) == []
    with pytest.raises(SaveLoadError, match="plain relative"):
        pd.io.load_inference_model(tmp_path, mlp.exe, model_filename="/etc/passwd")


def test_saving_into_the_working_directory_writes_in_place(tmp_path, monkeypatch):
    mlp = MLP()
    monkeypatch.chdir(tmp_path)
    pd.io.save_params(mlp.exe, ".", mlp.main, scope=mlp.scope)
    assert Path.cwd() == tmp_path and listing(tmp_path) == sorted(mlp.values())
    pd.io.save_params(mlp.exe, tmp_path, mlp.main, scope=mlp.scope)   # again, over the files
    assert os.path.samefile(os.getcwd(), tmp_path) and listing(tmp_path) == sorted(mlp.values())
