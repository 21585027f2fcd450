"""pd.io.export_training: the folder, the programs' 2.6 op forms, and train.py without PaddlePaddle.

``make interop`` (``interop/export/check_export.py``) trains these folders in PaddlePaddle 2.6.2
and compares the losses step by step; here: what is written, that paddle_nb reads it back and
trains to the same losses, and the parts of train.py that need no PaddlePaddle.
"""

import json
import types

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.io.train_script import TRAIN_PY
from interop.export import models

FILES = {"main.pdmodel", "startup.pdmodel", "forward.pdmodel", "forward_startup.pdmodel",
         "export.json", "train.py", "params"}


def export(tmp_path, name, **options):
    build, batches = models.programs()[name]
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        loss = build(pd)
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    manifest = pd.io.export_training(str(tmp_path / "out"), main, startup, scope=scope,
                                     **options)
    feeds = [batches(np.random.default_rng(k)) for k in range(2)]
    return main, loss, exe, scope, manifest, feeds


def ops_of(path, block=None):
    program = pd.io.load_program(str(path))
    blocks = program.blocks if block is None else [program.block(block)]
    return [op for b in blocks for op in b.ops]


def test_folder_and_manifest(tmp_path):
    main, loss, _, _, manifest, _ = export(tmp_path, "mlp_momentum")
    assert {p.name for p in (tmp_path / "out").iterdir()} == FILES
    assert json.loads((tmp_path / "out/export.json").read_text()) == manifest
    assert manifest["feeds"] == ["x", "label"] and manifest["loss"] == loss.name
    optimizer = manifest["optimizer"]
    assert optimizer["type"] == "momentum" and optimizer["learning_rate"] == pytest.approx(0.05)
    assert optimizer["settings"]["mu"] == pytest.approx(0.9)
    assert manifest["parameters"] == sorted(p.name for p in main.all_parameters())
    assert all(n.endswith("_velocity_0") for n in manifest["optimizer_state"])
    saved = {p.name for p in (tmp_path / "out/params").iterdir()}
    assert saved == set(manifest["persistables"]) and "learning_rate_0" in saved


def test_exported_program_trains_here_like_the_original(tmp_path):
    """paddle_nb reads its export back (program and params) and takes the same steps."""
    main, loss, exe, scope, manifest, feeds = export(tmp_path, "lenet_bn")
    program = pd.Program.parse((tmp_path / "out/main.pdmodel").read_bytes())
    scope2 = pd.Scope()
    pd.io.load_persistables(exe, str(tmp_path / "out/params"), program, scope=scope2)
    for feed in feeds:
        want = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]
        got = exe.run(program, feed=feed, fetch_list=[manifest["loss"]], scope=scope2)[0]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_forward_part_has_no_backward(tmp_path):
    _, loss, _, _, manifest, _ = export(tmp_path, "mlp_adam")
    forward = pd.io.load_program(str(tmp_path / "out/forward.pdmodel"))
    block = forward.global_block()
    assert [op.role for op in block.ops] == [0] * len(block.ops)
    assert block.ops[-1].output_arg_names == [loss.name]
    names = {v.name for v in forward.list_vars()}
    assert not any("@GRAD" in n for n in names)
    assert not names & set(manifest["optimizer_state"]) and "learning_rate_0" not in names
    startup = ops_of(tmp_path / "out/forward_startup.pdmodel")
    assert {n for op in startup for n in op.output_arg_names} == set(manifest["parameters"])


def test_batch_norm_in_26_training_form(tmp_path):
    export(tmp_path, "lenet_bn")
    ops = {op.type: op for op in ops_of(tmp_path / "out/main.pdmodel")}
    reserve = ops["batch_norm"].output("ReserveSpace")
    assert len(reserve) == 1
    grad = ops["batch_norm_grad"]
    assert "Mean" not in grad.inputs and "Variance" not in grad.inputs
    assert grad.input("MeanOut") == ops["batch_norm"].output("MeanOut")
    assert grad.input("ReserveSpace") == reserve and not grad.has_attr("fuse_with_relu")


def test_while_grad_in_26_linked_form(tmp_path):
    export(tmp_path, "while")
    program = pd.io.load_program(str(tmp_path / "out/main.pdmodel"))
    ops = {op.type: op for op in program.global_block().ops}
    forward, grad = ops["while"], ops["while_grad"]
    assert grad.input("Out") == forward.output("Out")
    assert not grad.has_attr("inner_grads")
    inside = grad.attr("original_output_grad")
    assert len(inside) == len(grad.input("Out@GRAD"))
    block = program.block(grad.attr("sub_block"))
    declared = set(block.vars)
    assert not declared & set(inside)
    assert not any("@INNER" in n for op in block.ops for n in op.output_arg_names)


def test_recurrent_grad_in_26_form(tmp_path):
    export(tmp_path, "static_rnn")
    types_ = {op.type for op in ops_of(tmp_path / "out/main.pdmodel")}
    assert "rnn_memory_helper" not in types_ and "rnn_memory_helper_grad" not in types_
    grad = next(op for op in ops_of(tmp_path / "out/main.pdmodel") if op.type == "recurrent_grad")
    for slot in ("inputs", "initial_states", "parameters"):
        assert len(grad.output(slot + "@GRAD")) == len(grad.input(slot))


@pytest.mark.parametrize("name", ["static_rnn", "while", "cond", "ifelse"])
def test_control_flow_export_runs_here(tmp_path, name):
    """The 2.6 forms stay programs paddle_nb runs: one step, the same loss."""
    main, loss, exe, scope, manifest, feeds = export(tmp_path, name)
    program = pd.Program.parse((tmp_path / "out/main.pdmodel").read_bytes())
    scope2 = pd.Scope()
    pd.io.load_persistables(exe, str(tmp_path / "out/params"), program, scope=scope2)
    feed = {n: feeds[0][n] for n in manifest["feeds"]}
    for _ in range(2):
        want = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]
        got = exe.run(program, feed=feed, fetch_list=[manifest["loss"]], scope=scope2)[0]
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_refusals(tmp_path):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        pd.layers.mean(pd.layers.fc(pd.layers.data("x", shape=[3]), 2))
    with pytest.raises(ValueError, match="minimize"):
        pd.io.export_training(str(tmp_path / "a"), main, startup)
    with pytest.raises(TypeError, match="main_program must be a Program"):
        pd.io.export_training(str(tmp_path / "b"), "main", startup)
    assert not (tmp_path / "a").exists()


def test_scheduler_in_manifest(tmp_path):
    """A scheduler is exported as its class, arguments and steps taken (an inner one too)."""
    manifest = export(tmp_path, "mlp_lr_warmup_piecewise")[4]
    assert manifest["optimizer"]["lr_scheduler"] == {
        "type": "LinearWarmup", "last_epoch": 0,
        "args": {"warmup_steps": 2, "start_lr": 0.0, "end_lr": 0.1,
                 "learning_rate": {"type": "PiecewiseDecay", "last_epoch": 0,
                                   "args": {"boundaries": [3], "values": [0.1, 0.02]}}}}
    resumed = export(tmp_path / "b", "mlp_lr_cosine_adam")[4]["optimizer"]["lr_scheduler"]
    assert resumed["type"] == "CosineAnnealingDecay" and resumed["last_epoch"] == 3


def test_scheduler_refusals(tmp_path):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        loss = pd.layers.mean(pd.layers.fc(pd.layers.data("x", shape=[3]), 2))
        pd.optimizer.SGD(pd.optimizer.lr.LambdaDecay(0.1, lambda k: 0.9 ** k)).minimize(loss)
    with pytest.raises(ValueError, match="LambdaDecay.*lr_lambda is a Python function"):
        pd.io.export_training(str(tmp_path / "a"), main, startup)


def test_parameter_servers_refusals(tmp_path):
    with pytest.raises(ValueError, match="momentum, and the servers update dense parameters "
                                         "with sgd or adam only"):
        export(tmp_path / "a", "mlp_momentum", parameter_servers="sync")
    with pytest.raises(ValueError, match="geo mode exchanges sparse tables only, and fc_0"):
        export(tmp_path / "b", "mlp_sgd", parameter_servers="geo")
    with pytest.raises(ValueError, match="gradient clipping or weight decay"):
        export(tmp_path / "c", "mlp_clip_decay", parameter_servers="async")
    with pytest.raises(ValueError, match="on parameter servers it must be fixed"):
        export(tmp_path / "d", "mlp_lr_step_decay", parameter_servers="async")
    with pytest.raises(ValueError, match="one of async, sync, geo"):
        export(tmp_path / "e", "mlp_sgd", parameter_servers="ring")
    assert export(tmp_path / "f", "mlp_adam", parameter_servers="sync")[4][
        "parameter_servers"] == "sync"


# -- train.py, without PaddlePaddle ----------------------------------------------------------
@pytest.fixture(name="script")
def fixture_script(tmp_path):
    namespace = {"__name__": "train", "__file__": str(tmp_path / "train.py")}
    exec(compile(TRAIN_PY, "train.py", "exec"), namespace)       # noqa: S102 - our own text
    return types.SimpleNamespace(**namespace)


def test_train_py_arguments(script):
    args = script.parse_args(["--data", "a.npz", "--data", "b.npz", "--steps", "3"])
    assert args.data == ["a.npz", "b.npz"] and args.steps == 3 and args.save is None
    assert args.ps_mode == "async" and args.k_steps == 1
    with pytest.raises(SystemExit):
        script.parse_args(["--steps", "3"])                # --data is required
    with pytest.raises(SystemExit):
        script.parse_args(["--data", "a.npz", "--steps", "0"])


def test_train_py_files_per_worker_and_mode(script):
    files = ["f0", "f1", "f2", "f3", "f4"]
    assert script.worker_files(files, 4, 0, 1) == ["f0", "f1", "f2", "f3"]
    assert script.worker_files(files, 4, 1, 2) == ["f1", "f3", "f1", "f3"]
    assert script.worker_files(files, 3, 0, 2) == ["f0", "f2", "f4"]
    with pytest.raises(SystemExit, match="no data file"):
        script.worker_files(files[:1], 2, 1, 2)
    assert script.mode({}) == "single"
    assert script.mode({"TRAINING_ROLE": "PSERVER"}) == "ps"
    assert script.mode({"PADDLE_TRAINERS_NUM": "2"}) == "collective"


def test_train_py_batches_and_report(script, tmp_path, capsys):
    path = tmp_path / "b.npz"
    np.savez(path, x=np.ones((2, 3), "float32"))
    assert script.read_batch(str(path), ["x"])["x"].shape == (2, 3)
    with pytest.raises(SystemExit, match="no array named label"):
        script.read_batch(str(path), ["x", "label"])
    script.report(1, 4, np.array([0.5], "float32"))
    assert json.loads(capsys.readouterr().out) == {"worker": 1, "step": 4, "loss": 0.5}


def test_train_py_optimizer_and_strategy(script):
    made = {}
    stub = types.SimpleNamespace(optimizer=types.SimpleNamespace(
        Momentum=lambda **kw: made.update(kw) or "momentum"))
    spec = {"type": "momentum", "learning_rate": 0.05,
            "settings": {"mu": 0.9, "use_nesterov": True, "regularization_coeff": 0.0}}
    assert script.optimizer_from(stub, spec) == "momentum"
    assert made == {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True}
    with pytest.raises(SystemExit, match="lamb"):
        script.optimizer_from(stub, {"type": "lamb", "settings": {}, "learning_rate": 0.1})
    script.check_fleet({"optimizer": {"type": "adam"}}, True)
    script.check_fleet({"optimizer": spec}, False)
    with pytest.raises(SystemExit, match="SGD or Adam|sgd or adam"):
        script.check_fleet({"optimizer": spec}, True)
    with pytest.raises(SystemExit, match="gradient clipping or weight decay"):
        script.check_fleet({"optimizer": spec, "other_optimize_ops": ["scale"]}, False)
    with pytest.raises(SystemExit, match="StepDecay"):
        script.check_fleet({"optimizer": {"type": "sgd", "lr_scheduler": {"type": "StepDecay"}}},
                           True)

    class Refusing:                        # PaddlePaddle 2.6.2's setter under protobuf 7
        def __init__(self):
            self.strategy = types.SimpleNamespace(
                a_sync=True, a_sync_configs=types.SimpleNamespace(k_steps=-1))

        def __setattr__(self, key, value):
            if key != "strategy":
                raise TypeError("a_sync_configs is not a attribute of DistributedStrategy")
            object.__setattr__(self, key, value)

    strategy = Refusing()
    script.ps_mode(strategy, "sync", 4)
    assert strategy.strategy.a_sync is False and strategy.strategy.a_sync_configs.k_steps == 0
    script.ps_mode(strategy, "geo", 4)
    assert strategy.strategy.a_sync is True and strategy.strategy.a_sync_configs.k_steps == 4
    script.ps_mode(strategy, "async", 4)
    assert strategy.strategy.a_sync is True and strategy.strategy.a_sync_configs.k_steps == 0
    assert script.slot_text(np.array([[1.5, 2.0]], "float32")) == "2 1.5 2.0"
    assert script.slot_text(np.array([7], "int64")) == "1 7"


def test_train_py_scheduler(script):
    """scheduler_from makes PaddlePaddle's class from the manifest and steps it on (the outer
    one only: it steps the inner)."""
    made = []

    class Made:
        def __init__(self, **kwargs):
            self.kwargs, self.steps = kwargs, 0
            made.append(self)

        def step(self):
            self.steps += 1

    stub = types.SimpleNamespace(optimizer=types.SimpleNamespace(lr=types.SimpleNamespace(
        LinearWarmup=Made, PiecewiseDecay=Made)))
    spec = {"type": "LinearWarmup", "last_epoch": 2,
            "args": {"warmup_steps": 2, "learning_rate": {
                "type": "PiecewiseDecay", "last_epoch": 2, "args": {"boundaries": [3]}}}}
    outer = script.scheduler_from(stub, spec)
    inner = outer.kwargs["learning_rate"]
    assert outer.steps == 2 and inner.steps == 0 and inner.kwargs == {"boundaries": [3]}
    assert script.scheduler_from(stub, None) is None
    assert script.LearningRate(stub, {"learning_rate_var": "lr"}).scheduler is None


def test_train_py_async_check(script):
    """Asynchronous mode's dataset needs batch-major feeds and no while loop."""
    def program(shapes, ops=()):
        block = types.SimpleNamespace(var=lambda n: types.SimpleNamespace(shape=shapes[n]),
                                      ops=[types.SimpleNamespace(type=t) for t in ops])
        return types.SimpleNamespace(global_block=lambda: block, blocks=[block])

    spec = {"feeds": ["x", "thr"]}
    script.check_async(program({"x": (-1, 4), "thr": (-1, 1)}, ["mul"]), spec)
    with pytest.raises(SystemExit, match="the feeds thr have no batch dimension first"):
        script.check_async(program({"x": (-1, 4), "thr": (1,)}), spec)
    with pytest.raises(SystemExit, match="while loop's gradient; use --ps-mode sync"):
        script.check_async(program({"x": (-1, 4), "thr": (-1, 1)}, ["while"]), spec)
