"""Files written by PaddlePaddle 2.6.2 run here as they ran there (``tests/fixtures/paddle26``).

``make interop`` made the fixtures with PaddlePaddle itself (see their README); these tests
check the paddle_nb side without PaddlePaddle installed:

- the ``mlp``, ``cnn`` and ``ctrl`` inference models, loaded by their path prefix, give
  PaddlePaddle's outputs;
- the three training programs, after PaddlePaddle's startup program and its initial
  parameters, give PaddlePaddle's losses and parameters after each of three SGD steps (rtol
  1e-4). ``ctrl`` trains through ``while`` / ``while_grad`` (``paddle.static.nn.while_loop``)
  and ``conditional_block`` / ``conditional_block_grad`` + ``select_input`` /
  ``select_output`` (``paddle.static.nn.cond``), as PaddlePaddle 2.6 writes their descs;
- parse -> serialize is byte for byte, before and after running.
"""

import json
import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.machinery import registry

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26"
MODELS = ["mlp", "cnn", "ctrl"]
RTOL, ATOL = 1e-4, 1e-6


def path(name):
    found = FIXTURES / name
    if not found.is_file():
        pytest.fail(f"PaddlePaddle 2.6 fixture {found} is absent (make interop "
                    "INTEROP_FIXTURES=tests/fixtures/paddle26 writes it)")
    return found


@pytest.fixture(scope="module")
def manifest():
    return json.loads(path("manifest.json").read_text())


def io(model):
    return dict(np.load(path(f"{model}_io.npz")))


def close(got, want, what):
    """Values within tolerance, and PaddlePaddle's dtype and shape exactly (a 0-D mean too)."""
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), what
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


# -- the programs as PaddlePaddle wrote them -------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_the_blocks_hold_the_op_types_of_the_manifest_and_each_is_registered(model, manifest):
    entry = manifest[model]
    main = pd.Program.parse(path(f"{model}.main.pb").read_bytes())
    assert [[op.type for op in b.ops] for b in main.blocks] == entry["main_blocks"]
    assert main.desc.version.version == 2006002 and entry["paddle"] == "2.6.2"
    infer = pd.Program.parse(path(f"{model}.pdmodel").read_bytes())
    assert [[op.type for op in b.ops] for b in infer.blocks] == entry["infer"]["blocks"]
    types = {t for blocks in (entry["main_blocks"], entry["infer"]["blocks"]) for b in blocks
             for t in b} | set(entry["startup_ops"])
    assert sorted(t for t in types if t not in registry._REGISTRY) == []


@pytest.mark.parametrize("name", [f"{m}.{kind}" for m in MODELS
                                  for kind in ("main.pb", "startup.pb", "pdmodel")])
def test_parse_then_serialize_is_byte_for_byte(name):
    data = path(name).read_bytes()
    assert pd.Program.parse(data).serialize() == data


def test_paddles_while_grad_and_conditional_block_grad_descs_are_the_ones_the_kernels_read():
    program = pd.Program.parse(path("ctrl.main.pb").read_bytes())
    glob = program.global_block()
    (while_grad,) = [op for op in glob.ops if op.type == "while_grad"]
    # no paddle_nb `inner_grads`: the outer x@GRAD is linked into each step under the name of
    # original_output_grad; the grad block overwrites it (matmul_v2_grad's X@GRAD), and that
    # is the gradient the previous step starts from
    assert not while_grad.attr("inner_grads")
    assert while_grad.input("Out@GRAD") == ["x@GRAD"] == while_grad.attr("original_output_grad")
    grad_block = program.block(while_grad.attr("sub_block"))
    assert grad_block.desc.forward_block_idx == 1
    writes = {n for op in grad_block.ops for n in op.output_arg_names}
    assert "x@GRAD" in writes and "x@GRAD" not in grad_block.vars
    # parameters: gradients local to the grad block, summed over the steps
    assert {"ctrl_w@GRAD", "ctrl_b@GRAD"} <= set(grad_block.vars)
    xs, grads = while_grad.input("X"), while_grad.output("X@GRAD")
    assert {x: g for x, g in zip(xs, grads) if g != "@EMPTY@"} == \
        {"x": "x@GRAD", "ctrl_w": "ctrl_w@GRAD", "ctrl_b": "ctrl_b@GRAD"}
    conds = [op for op in glob.ops if op.type == "conditional_block_grad"]
    assert len(conds) == 2 and not any(op.attr("inner_grads") for op in conds)
    assert sorted(n for op in conds for n in op.output("Input@GRAD")) == \
        ["mean_0.tmp_0@GRAD@RENAME@block0@0", "mean_0.tmp_0@GRAD@RENAME@block0@1"]


# -- inference -------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_the_inference_model_gives_paddles_outputs(model, manifest):
    entry, values = manifest[model], io(model)
    data = path(f"{model}.pdmodel").read_bytes()
    path(f"{model}.pdiparams")
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    # PaddlePaddle 2.x's path-prefix form: <prefix>.pdmodel and <prefix>.pdiparams
    program, feeds, fetches = pd.io.load_inference_model(str(FIXTURES / model), exe, scope=scope)
    assert feeds == entry["infer"]["feeds"]
    assert [v.name for v in fetches] == entry["infer"]["fetches"]
    outputs = exe.run(program, feed={f: values[f"infer/{f}"] for f in feeds},
                      fetch_list=fetches, scope=scope)
    for var, value in zip(fetches, outputs):
        close(value, values[f"infer/{var.name}"], f"{model}: {var.name}")
    assert program.serialize() == data


def test_the_directory_form_with_file_names_reads_the_same_model(manifest):
    values = io("mlp")
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    program, feeds, fetches = pd.io.load_inference_model(
        FIXTURES, exe, model_filename="mlp.pdmodel", params_filename="mlp.pdiparams",
        scope=scope)
    (x,) = feeds
    logits, prob = exe.run(program, feed={x: values[f"infer/{x}"]}, fetch_list=fetches,
                           scope=scope)
    close(prob, values[f"infer/{fetches[1].name}"], "prob")


# -- training --------------------------------------------------------------------------------------
def train(model, entry, values):
    main = pd.Program.parse(path(f"{model}.main.pb").read_bytes())
    startup = pd.Program.parse(path(f"{model}.startup.pb").read_bytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for p in entry["params"]:       # paddle_nb's random initializers draw other numbers
        scope.find_var(p).get_tensor().set(values[f"init:{p}"], pd.CPUPlace())
    history = []
    for k in range(entry["steps"]):
        losses = exe.run(main, feed={f: values[f"step{k}/{f}"] for f in entry["feeds"]},
                         fetch_list=entry["losses"], scope=scope)
        params = {p: scope.find_var(p).get_tensor().numpy().copy() for p in entry["params"]}
        history.append((losses, params))
    return main, history


@pytest.fixture(scope="module")
def trained(manifest):
    return {m: train(m, manifest[m], io(m)) for m in MODELS}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("step", [0, 1, 2])
def test_each_step_gives_paddles_losses_and_parameters(model, step, manifest, trained):
    entry, values = manifest[model], io(model)
    losses, params = trained[model][1][step]
    for key, name, value in zip(("loss", "loss0"), entry["losses"], losses):
        close(value, values[key][step], f"{model} step {step}: {key} ({name})")
    for p in entry["params"]:
        close(params[p], values[f"step{step}:{p}"], f"{model} step {step}: {p}")


@pytest.mark.parametrize("model", MODELS)
def test_training_moves_every_parameter_and_keeps_paddles_bytes(model, manifest, trained):
    entry, values = manifest[model], io(model)
    main, history = trained[model]
    before = {p: values[f"init:{p}"] for p in entry["params"]}
    for _, params in history:
        for p in entry["params"]:
            assert not np.array_equal(params[p], before[p]), p
        before = params
    assert main.serialize() == path(f"{model}.main.pb").read_bytes()


def test_cond_takes_the_branch_paddle_took_and_the_untaken_one_gives_zero_gradient(trained):
    values = io("ctrl")
    thr = [values[f"step{k}/thr"][0] for k in range(3)]
    taken = []
    for (loss, loss0), _ in trained["ctrl"][1]:
        taken.append(bool(loss0.reshape(-1)[0] > thr[len(taken)]))
        factor = 2.0 if taken[-1] else 0.5
        close(loss, (factor * loss0.reshape(-1)[0]).astype(loss0.dtype), "cond's result")
    assert taken == [True, False, True]
    # in step 1 the true branch did not run: its conditional_block_grad wrote zeros (0-D in
    # PaddlePaddle, [1] here), which the `sum` of both branches' gradients adds to the other


def test_the_loop_runs_three_steps_and_its_grad_runs_in_each(manifest):
    entry, values = manifest["ctrl"], io("ctrl")
    main = pd.Program.parse(path("ctrl.main.pb").read_bytes())
    startup = pd.Program.parse(path("ctrl.startup.pb").read_bytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for p in entry["params"]:
        scope.find_var(p).get_tensor().set(values[f"init:{p}"], pd.CPUPlace())
    records = []
    exe.subscribe(records.append)
    exe.run(main, feed={f: values[f"step0/{f}"] for f in entry["feeds"]},
            fetch_list=entry["losses"], scope=scope)
    (run,) = records[-1].scopes.kids
    steps = [k for k in run.kids if k.label.startswith("step ")]
    assert [k.label for k in steps] == ["step 0", "step 1", "step 2"]
    assert all([g.label for g in k.kids] == ["grad"] for k in steps)


# -- paddle_nb's side of the files PaddlePaddle reads ---------------------------------------------
def _mlp():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[16])
        prob = pd.layers.softmax(pd.layers.fc(pd.layers.fc(x, 8, act="relu"), 10))
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    return main, exe, scope, prob


def test_save_inference_model_with_a_path_prefix_writes_paddles_2x_layout(tmp_path):
    # what `make interop` gives paddle.static.load_inference_model(path_prefix, exe)
    main, exe, scope, prob = _mlp()
    (tmp_path / "other.txt").write_text("kept")
    prefix = tmp_path / "export" / "mlp"
    targets = pd.io.save_inference_model(str(prefix), ["x"], [prob], exe, main, scope=scope,
                                         prefix=True)
    assert targets == [prob.name]
    assert sorted(p.name for p in (tmp_path / "export").iterdir()) == \
        ["mlp.pdiparams", "mlp.pdmodel"]
    assert (tmp_path / "other.txt").read_text() == "kept"
    x = np.random.default_rng(0).standard_normal((3, 16)).astype("float32")
    (want,) = exe.run(main, feed={"x": x}, fetch_list=[prob], scope=scope)
    for kwargs in ({}, {"prefix": True}):          # found by itself, or said
        fresh = pd.Scope()
        program, feeds, fetches = pd.io.load_inference_model(str(prefix), exe, scope=fresh,
                                                             **kwargs)
        (got,) = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches, scope=fresh)
        np.testing.assert_array_equal(got, want)
    # the same bytes as the directory form with PaddlePaddle's file names, but for where the
    # feed and fetch ops were built (op_callstack)
    pd.io.save_inference_model(str(tmp_path / "named"), ["x"], [prob], exe, main, scope=scope,
                               model_filename="mlp.pdmodel", params_filename="mlp.pdiparams")
    assert (tmp_path / "named" / "mlp.pdiparams").read_bytes() == \
        (tmp_path / "export" / "mlp.pdiparams").read_bytes()


def test_a_path_prefix_takes_no_file_names_and_is_not_a_directory(tmp_path):
    main, exe, scope, prob = _mlp()
    with pytest.raises(pd.errors.SaveLoadError, match="leave model_filename"):
        pd.io.save_inference_model(str(tmp_path / "m"), ["x"], [prob], exe, main, scope=scope,
                                   model_filename="m.pdmodel", prefix=True)
    with pytest.raises(pd.errors.SaveLoadError, match="is a directory"):
        pd.io.save_inference_model(str(tmp_path), ["x"], [prob], exe, main, scope=scope,
                                   prefix=True)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(pd.errors.SaveLoadError):        # neither a directory nor a prefix
        pd.io.load_inference_model(str(tmp_path / "absent"), exe, scope=pd.Scope())
