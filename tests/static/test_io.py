"""paddle.static's saving and loading: checkpoints (no pickle), serialized programs and
persistables, program state."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import static
from paddle_nb.errors import SaveLoadError
from paddle_nb.framework import unique_name


def _model():
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [None, 3])
        y = static.nn.fc(x, 2, activation="relu")
    scope = pd.Scope()
    static.Executor().run(startup, scope=scope)
    return main, x, y, scope


def test_save_writes_the_program_and_one_file_per_persistable(tmp_path):
    main, _, _, scope = _model()
    with static.scope_guard(scope):
        static.save(main, str(tmp_path / "ck"))
    assert sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["fc_0.b_0", "fc_0.w_0"]
    assert pd.Program.parse((tmp_path / "ck.pdmodel").read_bytes()).global_block().ops
    fresh = pd.Scope()
    with static.scope_guard(fresh):
        static.load(main, str(tmp_path / "ck.pdparams"), static.Executor())
    for name in ("fc_0.w_0", "fc_0.b_0"):
        np.testing.assert_array_equal(fresh.find_var(name).get_tensor().numpy(),
                                      scope.find_var(name).get_tensor().numpy())
    state = static.load_program_state(str(tmp_path / "ck"))
    assert sorted(state) == ["fc_0.b_0", "fc_0.w_0"]
    other = pd.Scope()
    static.set_program_state(main, {"fc_0.w_0": state["fc_0.w_0"] * 2}, scope=other)
    np.testing.assert_array_equal(other.find_var("fc_0.w_0").get_tensor().numpy(),
                                  state["fc_0.w_0"] * 2)


def test_a_pickled_checkpoint_is_refused_by_name(tmp_path):
    main, *_ = _model()
    (tmp_path / "m.pdparams").write_bytes(b"\x80\x04pickle")
    with pytest.raises(SaveLoadError, match="is a pickle .*save_inference_model"):
        static.load(main, str(tmp_path / "m"))
    with pytest.raises(SaveLoadError, match="no directory"):
        static.load(main, str(tmp_path / "absent"))


def test_serialized_program_and_persistables_round_trip():
    main, x, y, scope = _model()
    data = static.serialize_program([x], [y], program=main)
    program = static.deserialize_program(data)
    ops = [op.type for op in program.global_block().ops]
    assert ops == ["feed", "mul", "elementwise_add", "relu", "scale", "fetch"]
    blob = static.serialize_persistables([x], [y], static.Executor(), program=main, scope=scope)
    fresh = pd.Scope()
    static.deserialize_persistables(program, blob, static.Executor(), scope=fresh)
    feed = {"x": np.ones((2, 3), "float32")}
    want = static.Executor().run(main, feed=feed, fetch_list=[y], scope=scope)
    fetch = [op.input("X")[0] for op in program.global_block().ops if op.type == "fetch"]
    got = static.Executor().run(program, feed=feed, fetch_list=fetch, scope=fresh)
    np.testing.assert_allclose(got[0], want[0])
    with pytest.raises(SaveLoadError, match="bytes are left"):
        static.deserialize_persistables(program, blob + b"xx", static.Executor(), scope=fresh)


def test_inference_model_needs_a_file_prefix(tmp_path):
    main, x, y, scope = _model()
    with pytest.raises(SaveLoadError, match="path_prefix"):
        static.save_inference_model(str(tmp_path) + "/", [x], [y], static.Executor(),
                                    program=main)
    static.save_inference_model(str(tmp_path / "m"), x, y, static.Executor(), program=main,
                                scope=scope)
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"),
                                                          static.Executor(), scope=pd.Scope())
    assert feeds == ["x"] and fetches[0].name == "save_infer_model/scale_0.tmp_0"
