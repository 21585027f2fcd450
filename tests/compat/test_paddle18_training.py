"""A training program written by PaddlePaddle 1.8.5 trains here as it did there.

The fixture (StaticRNN -> slice -> IfElse -> square/mean -> cond -> SGD) runs PaddlePaddle's
own forward, grad and optimizer ops: ``recurrent`` / ``recurrent_grad`` with
``rnn_memory_helper(_grad)``, ``split_lod_tensor`` / ``merge_lod_tensor`` around two
non-scalar ``conditional_block`` ops, ``select_input`` / ``select_output`` around two scalar
ones, their ``conditional_block_grad`` ops (whose grad blocks write ``x@GRAD`` and are summed
through ``@RENAME@block0@k`` names), and ``sgd``. Losses and parameters after each of three
steps must match PaddlePaddle's to rtol 1e-4.
"""

import json
import math

import numpy as np
import pytest
from google.protobuf import text_format

import paddle_nb as pd
from paddle_nb.ops.machinery import registry
from paddle_nb.proto import framework_pb2
from tests.compat import F18, F18_LOSS, F18_LOSS0, F18_PARAMS, fixture, fixture_bytes

RTOL = 1e-4


@pytest.fixture(scope="module")
def io():
    return dict(np.load(fixture(f"{F18}_io.npz")))


@pytest.fixture(scope="module")
def main_bytes():
    return fixture_bytes(f"{F18}.main.pb")


def parse(name):
    return pd.Program.parse(fixture_bytes(name))


def set_params(scope, io, prefix="init"):
    for name in F18_PARAMS:
        scope.find_var(name).get_tensor().set(io[f"{prefix}:{name}"], pd.CPUPlace())


def rel_err(got, want):
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-6)))


# -- the program as PaddlePaddle wrote it ----------------------------------------------------------
def test_the_blocks_hold_the_op_types_of_the_manifest_and_each_is_registered():
    manifest = json.loads(fixture("f18_manifest.json").read_text())[F18]
    program = parse(f"{F18}.main.pb")
    assert [[op.type for op in block.ops] for block in program.blocks] == manifest["blocks"]
    types = {t for block in manifest["blocks"] for t in block}
    assert sorted(t for t in types if t not in registry._REGISTRY) == []
    assert program.desc.version.version == 1008005


def test_the_text_dump_is_the_binary_program(main_bytes):
    text = fixture(f"{F18}.main.txt").read_text()
    desc = text_format.Parse(text, framework_pb2.ProgramDesc())
    assert desc.SerializeToString() == main_bytes


def test_the_fetch_targets_are_the_select_input_output_and_the_mean():
    glob = parse(f"{F18}.main.pb").global_block()
    assert glob.var(F18_LOSS).writer.type == "select_input"
    assert glob.var(F18_LOSS0).writer.type == "reduce_mean"
    assert not any(op.type in ("feed", "fetch") for op in glob.ops)   # a training program: none


def test_paddles_grad_blocks_are_named_the_way_the_kernels_read_them():
    program = parse(f"{F18}.main.pb")
    glob = program.global_block()
    grads = [op for op in glob.ops if op.type == "conditional_block_grad"]
    assert len(grads) == 4 and not any(op.has_attr("inner_grads") for op in grads)
    forward = {op.output("Scope")[0]: op.attr("sub_block") for op in glob.ops
               if op.type == "conditional_block"}
    for op in grads:       # the grad block writes x@GRAD for each Input x; the op renames it
        block = program.block(op.attr("sub_block"))
        written = {n for o in block.ops for n in o.output_arg_names}
        assert {f"{x}@GRAD" for x in op.input("Input")} <= written <= set(block.vars)
        assert block.desc.forward_block_idx == forward[op.input("Scope")[0]]
    assert sorted(n for op in grads for n in op.output("Input@GRAD") if "@RENAME@" in n) == \
        ["reduce_mean_0.tmp_0@GRAD@RENAME@block0@0", "reduce_mean_0.tmp_0@GRAD@RENAME@block0@1"]
    rnn_grad = next(op for op in glob.ops if op.type == "recurrent_grad")
    step_grad = program.block(rnn_grad.attr("sub_block"))
    assert step_grad.desc.forward_block_idx == 1
    local = set(step_grad.vars)
    # memories: the grad of ex_state (static_rnn_0@mem_0) links to the grad of state
    # (static_rnn_0.tmp_1) one step earlier; parameter grads are local to the grad block
    assert {"static_rnn_0@mem_0@GRAD", "rnn_Wx@GRAD", "rnn_Wh@GRAD", "rnn_b@GRAD",
            "x@GRAD"} <= local
    assert rnn_grad.attr("ex_states") == ["static_rnn_0@mem_0"]
    assert rnn_grad.attr("states") == ["static_rnn_0.tmp_1"]
    assert "tanh_0.tmp_0@GRAD@RENAME@block1@0" in local


# -- the startup program ---------------------------------------------------------------------------
def minstd_normal(seed, n, mean, std):
    """PaddlePaddle 1.8's CPU gaussian_random: std::minstd_rand(seed) feeding libstdc++'s
    std::normal_distribution<float> (Marsaglia's polar method, pairs, second value first)."""
    f32 = np.float32
    state = seed % 2147483647 or 1

    def canonical():
        nonlocal state
        state = state * 48271 % 2147483647
        value = f32(f32(state - 1) / f32(2147483646))
        return value if value < 1 else np.nextafter(f32(1), f32(0))

    out, saved = [], None
    while len(out) < n:
        if saved is not None:
            value, saved = saved, None
        else:
            while True:
                x, y = f32(2.0 * float(canonical()) - 1.0), f32(2.0 * float(canonical()) - 1.0)
                r2 = f32(x * x + y * y)
                if 0.0 < r2 <= 1.0:
                    break
            mult = f32(math.sqrt(float(f32(f32(f32(-2) * f32(math.log(float(r2)))) / r2))))
            saved, value = f32(x * mult), f32(y * mult)
        out.append(f32(value * f32(std) + f32(mean)))
    return np.array(out, dtype="float32")


def test_the_startup_program_runs_and_differs_from_paddle_only_by_its_random_engine(io):
    startup = parse(f"{F18}.startup.pb")
    assert [op.type for op in startup.global_block().ops] == \
        ["fill_constant", "fill_constant", "gaussian_random", "gaussian_random"]
    scope = pd.Scope()
    pd.Executor(pd.CPUPlace()).run(startup, scope=scope)
    value = {n: scope.find_var(n).get_tensor().numpy() for n in F18_PARAMS + ["learning_rate_0"]}
    np.testing.assert_array_equal(value["rnn_b"], io["init:rnn_b"])          # fill_constant 0
    np.testing.assert_array_equal(value["learning_rate_0"], np.float32([0.1]))
    for name in ("rnn_Wx", "rnn_Wh"):
        assert value[name].shape == io[f"init:{name}"].shape
        assert value[name].dtype == io[f"init:{name}"].dtype
    # PaddlePaddle's values come from its own engine, reproduced here bit for bit; paddle_nb's
    # gaussian_random draws from NumPy, so the training test sets the parameters from the npz.
    for op in startup.global_block().ops[2:]:
        name, attrs = op.output("Out")[0], op.attrs
        want = minstd_normal(attrs["seed"], int(np.prod(attrs["shape"])), attrs["mean"],
                             attrs["std"]).reshape(attrs["shape"])
        np.testing.assert_array_equal(want, io[f"init:{name}"])


# -- three training steps --------------------------------------------------------------------------
def train(io, steps=3):
    main, startup = parse(f"{F18}.main.pb"), parse(f"{F18}.startup.pb")
    scope = pd.Scope()
    exe = pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    set_params(scope, io)
    history = []
    for k in range(steps):
        loss, loss0 = exe.run(main, feed={"x": io["x"], "thr": io["thr"][k:k + 1]},
                              fetch_list=[F18_LOSS, F18_LOSS0], scope=scope)
        params = {n: scope.find_var(n).get_tensor().numpy().copy() for n in F18_PARAMS}
        history.append((loss, loss0, params))
    return main, history


@pytest.fixture(scope="module")
def trained(io):
    return train(io)


@pytest.mark.parametrize("step", [0, 1, 2])
def test_each_step_reproduces_paddles_losses_and_parameters(trained, io, step):
    _, history = trained
    loss, loss0, params = history[step]
    assert loss.shape == (1,) and loss0.shape == (1,)
    np.testing.assert_allclose(loss[0], io["loss"][step], rtol=RTOL)
    np.testing.assert_allclose(loss0[0], io["loss0"][step], rtol=RTOL)
    for name in F18_PARAMS:
        np.testing.assert_allclose(params[name], io[f"step{step}:{name}"], rtol=RTOL,
                                   err_msg=f"step {step}: parameter {name}")


def test_cond_takes_the_branch_paddle_took(trained, io):
    # thr: step 0 and 2 take cond's true branch (loss = 2 loss0), step 1 the false one (x0.5)
    _, history = trained
    for (loss, loss0, _), thr in zip(history, io["thr"]):
        factor = 2.0 if loss0[0] > thr else 0.5
        np.testing.assert_allclose(loss, factor * loss0, rtol=1e-6)
    assert [loss0[0] > thr for (_, loss0, _), thr in zip(history, io["thr"])] == \
        [True, False, True]


def test_every_parameter_moves_every_step(trained, io):
    _, history = trained
    before = {n: io[f"init:{n}"] for n in F18_PARAMS}
    for _, _, params in history:
        for name in F18_PARAMS:
            assert not np.array_equal(params[name], before[name]), name
        before = params


def test_training_leaves_the_program_byte_for_byte_as_paddle_wrote_it(trained, main_bytes):
    main, _ = trained
    assert main.serialize() == main_bytes


def test_the_same_program_and_state_give_the_same_step_twice(io):
    _, first = train(io, steps=1)
    _, again = train(io, steps=1)
    np.testing.assert_array_equal(first[0][0], again[0][0])
    for name in F18_PARAMS:
        np.testing.assert_array_equal(first[0][2][name], again[0][2][name])


def test_a_missing_feed_is_a_clear_error_and_changes_nothing(io):
    main, startup = parse(f"{F18}.main.pb"), parse(f"{F18}.startup.pb")
    scope = pd.Scope()
    exe = pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    set_params(scope, io)
    with pytest.raises(pd.errors.FeedError, match="thr"):
        exe.run(main, feed={"x": io["x"]}, fetch_list=[F18_LOSS], scope=scope)
    for name in F18_PARAMS:
        np.testing.assert_array_equal(scope.find_var(name).get_tensor().numpy(),
                                      io[f"init:{name}"])
