"""The ``paddle.static`` names that build no ops, against PaddlePaddle 2.6.2's behaviour.

interop/api/static_names_refs.py recorded, for one small model with set parameters, 2.6.2's
serialized program and persistables, the persistables directory its ``save_vars`` writes,
the fetched output, and what the other names return (``facts``). Here the same model is
built in paddle_nb and each name must behave as 2.6.2's did; the serialized bytes go both
ways (2.6.2's deserialize here; paddle_nb's persistables are 2.6.2's bytes).
"""

import json
import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.core.place import gpu_available
from paddle_nb.errors import PlaceUnavailableError
from paddle_nb.framework import unique_name

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api" / \
    "static_names.npz"
REFS = np.load(FIXTURE)
FACTS = json.loads(str(REFS["facts"]))
PARAMS = {"fc_0.w_0": np.array([[0.5, -1.0], [0.25, 0.75], [-0.5, 0.1]], "float32"),
          "fc_0.b_0": np.array([0.1, -0.2], "float32")}

COVERED = [
    "paddle.static.BuildStrategy", "paddle.static.CompiledProgram",
    "paddle.static.ExecutionStrategy", "paddle.static.InputSpec", "paddle.static.Variable",
    "paddle.static.append_backward", "paddle.static.cpu_places", "paddle.static.cuda_places",
    "paddle.static.default_startup_program", "paddle.static.serialize_program",
    "paddle.static.deserialize_program", "paddle.static.serialize_persistables",
    "paddle.static.deserialize_persistables", "paddle.static.device_guard",
    "paddle.static.global_scope", "paddle.static.scope_guard", "paddle.static.name_scope",
    "paddle.static.load", "paddle.static.load_program_state",
    "paddle.static.set_program_state", "paddle.static.normalize_program",
    "paddle.static.save_to_file", "paddle.static.load_from_file",
    "paddle.static.ExponentialMovingAverage",
]


def _build(facts):
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        with static.name_scope("block"):
            y = static.nn.fc(x, 2, activation="relu")
        with static.device_guard("cpu"):
            loss = pd.mean(y)
        facts["startup_is_default"] = static.default_startup_program() is startup
        facts["startup_ops"] = [op.type for op in
                                static.default_startup_program().global_block().ops]
        facts["x_is_variable"] = isinstance(x, static.Variable)
        facts["append_backward"] = [[p.name, g.name] for p, g in static.append_backward(loss)]
    facts["main_ops"] = [op.type for op in main.global_block().ops]
    return main, startup, x, y


def _model():
    facts = {}
    main, startup, x, y = _build(facts)
    scope = pd.Scope()
    exe = static.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    static.set_program_state(main, PARAMS, scope=scope)
    return main, x, y, scope, exe, facts


def test_building_names_append_backward_and_scopes_behave_as_paddle():
    main, x, y, scope, exe, facts = _model()
    for key in ("startup_is_default", "startup_ops", "x_is_variable", "append_backward",
                "main_ops"):
        assert facts[key] == FACTS[key], key
    got = exe.run(main, feed={"x": REFS["feed/x"]}, fetch_list=[y], scope=scope)[0]
    np.testing.assert_allclose(got, REFS["fetch/y"], rtol=1e-6)
    compiled = static.CompiledProgram(main, build_strategy=static.BuildStrategy())
    got = exe.run(compiled, feed={"x": REFS["feed/x"]}, fetch_list=[y], scope=scope)[0]
    np.testing.assert_allclose(got, REFS["fetch/y_compiled"], rtol=1e-6)
    other = pd.Scope()
    with static.scope_guard(other):
        inside = static.global_scope() is other
    assert [inside, static.global_scope() is other] == FACTS["scope_guard"]
    with pytest.raises(ValueError):          # 2.6.2: ValueError for an unknown device
        with static.device_guard("tpu"):
            pass
    assert FACTS["device_guard_bad"] == "ValueError"


def test_places_input_spec_and_strategies_as_paddle():
    assert [len(static.cpu_places()), len(static.cpu_places(3))] == FACTS["cpu_places"]
    if not gpu_available():          # 2.6.2 built without CUDA refuses, as paddle_nb without a GPU
        assert FACTS["cuda_places"] == "refused"
        with pytest.raises(PlaceUnavailableError, match="cpu_places"):
            static.cuda_places()
    spec = static.InputSpec([None, 3], "float32", "x")
    assert [list(spec.shape), str(np.dtype(spec.dtype)), spec.name, spec.stop_gradient,
            list(spec.batch(4).shape)] == FACTS["input_spec"]
    from_numpy = static.InputSpec.from_numpy(np.zeros((2, 3), "int64"), name="a")
    assert [list(from_numpy.shape), str(np.dtype(from_numpy.dtype))] == \
        FACTS["input_spec_numpy"]
    build, execution = static.BuildStrategy(), static.ExecutionStrategy()
    assert [build.fuse_elewise_add_act_ops, build.enable_inplace, execution.num_threads,
            execution.num_iteration_per_drop_scope] == FACTS["strategies"]


def test_serialized_program_and_persistables_go_both_ways():
    main, x, y, scope, exe, _ = _model()
    paddle_program = static.deserialize_program(REFS["serialized/program"].tobytes())
    assert [op.type for op in paddle_program.global_block().ops] == FACTS["deserialized_ops"]
    ours = static.deserialize_program(static.serialize_program([x], [y], program=main))
    assert [op.type for op in ours.global_block().ops] == FACTS["deserialized_ops"]
    assert [op.type for op in static.normalize_program(main, [x], [y]).global_block().ops] \
        == FACTS["normalized_ops"]
    blob = static.serialize_persistables([x], [y], exe, program=main, scope=scope)
    assert blob == REFS["serialized/persistables"].tobytes()
    fresh = pd.Scope()
    static.deserialize_persistables(paddle_program, REFS["serialized/persistables"].tobytes(),
                                    exe, scope=fresh)
    fetch = [op.input("X")[0] for op in paddle_program.global_block().ops
             if op.type == "fetch"]
    got = exe.run(paddle_program, feed={"x": REFS["feed/x"]}, fetch_list=fetch, scope=fresh)
    np.testing.assert_allclose(got[0], REFS["fetch/y"], rtol=1e-6)


def test_load_reads_paddles_persistables_directory(tmp_path):
    main, *_ = _model()
    folder = tmp_path / "ck"
    folder.mkdir()
    for key in REFS.files:
        if key.startswith("dir/"):
            (folder / key[4:]).write_bytes(REFS[key].tobytes())
    fresh = pd.Scope()
    with static.scope_guard(fresh):
        static.load(main, str(folder), static.Executor())
    state = static.load_program_state(str(folder))
    for name, value in PARAMS.items():
        np.testing.assert_array_equal(fresh.find_var(name).get_tensor().numpy(), value)
        np.testing.assert_array_equal(state[name], value)


def test_save_to_file_and_load_from_file(tmp_path):
    path = str(tmp_path / "blob.bin")
    static.save_to_file(path, b"paddle bytes")
    assert static.load_from_file(path).decode() == FACTS["file_round_trip"]
    with pytest.raises(TypeError, match="bytes"):
        static.save_to_file(path, "text")


def test_exponential_moving_average_over_three_steps():
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        loss = pd.mean(static.nn.fc(static.data("x", [None, 3], "float32"), 2))
        pd.optimizer.SGD(0.1).minimize(loss)
        ema = static.ExponentialMovingAverage(0.9)
        ema.update()
    assert " ".join(op.type for op in main.global_block().ops) == str(REFS["ema/ops"])
    exe, scope = static.Executor(pd.CPUPlace()), pd.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        static.set_program_state(main, PARAMS)
        for k in range(3):
            exe.run(main, feed={"x": np.arange(6, dtype="float32").reshape(2, 3) * (k + 1) / 10})

        def value(n):
            return scope.find_var(n).get_tensor().numpy()

        for stage in ("trained", "applied", "restored"):
            if stage == "applied":
                with ema.apply(exe):
                    got = {n: value(n).copy() for n in PARAMS}
            else:
                got = {n: value(n) for n in PARAMS}
            for name in PARAMS:
                np.testing.assert_allclose(got[name], REFS[f"ema/{stage}/{name}"], rtol=1e-5,
                                           atol=1e-6, err_msg=f"{stage} {name}")
