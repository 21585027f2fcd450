"""Optimizer and clipping ops against PaddlePaddle 2.6.2's own numbers.

``interop/ops/optim_refs.py`` (run with PaddlePaddle) wrote, in
``tests/fixtures/paddle26/ops``: small training programs, each minimized by one
``paddle.optimizer`` (AdamW with a learning-rate scheduler and global-norm
clipping, Nesterov Momentum with L2 decay, Adam with ClipGradByNorm or
ClipGradByValue, RMSProp, Adagrad, Lamb, Adamax, SGD with L1 decay, Adadelta), with the
losses and parameters of three steps; and single ops run on small inputs with
the attributes those programs leave at their defaults. Here paddle_nb parses
PaddlePaddle's programs, runs them the same three steps and must agree to 1e-5.
"""

import json

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.ops.machinery import registry
from tests.ops import harness, paddle26

PROGRAMS = ["adamw", "momentum", "adam_clipnorm", "adam_clipvalue", "rmsprop", "adagrad", "lamb",
            "adamax", "sgd_l1", "adadelta"]
RTOL, ATOL = 1e-5, 1e-7


def _load(name):
    return paddle26.fixture(name, "interop/ops/optim_refs.py")


def _missing_ops(types):
    return sorted({t for t in types if not registry.exists(t)})


def train(name):
    """Three steps of PaddlePaddle's program in paddle_nb: [(loss, {param: value})]."""
    values = dict(np.load(_load(f"optim_{name}.npz")))
    main = pd.Program.parse(_load(f"optim_{name}.main.pb").read_bytes())
    startup = pd.Program.parse(_load(f"optim_{name}.startup.pb").read_bytes())
    missing = _missing_ops(op.type for op in main.global_block().ops)
    assert not missing, f"optim_{name} needs ops paddle_nb does not register: {missing}"
    params, lr_var = list(values["meta:params"]), str(values["meta:lr_var"])
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for p in params:        # paddle_nb's random initializers draw other numbers
        scope.find_var(p).get_tensor().set(values[f"init:{p}"], pd.CPUPlace())
    history = []
    for k in range(len(values["loss"])):
        # what PaddlePaddle's executor does from Python when the program has a scheduler
        lr = scope.find_var(lr_var).get_tensor()
        lr.set(np.full(lr.numpy().shape, values["lr"][k], np.float32), pd.CPUPlace())
        (loss,) = exe.run(main, feed={f: values[f"step{k}/{f}"] for f in ("x", "y")},
                          fetch_list=[str(values["meta:loss"])], scope=scope)
        history.append((loss, {p: scope.find_var(p).get_tensor().numpy().copy()
                               for p in params}))
    return values, history


@pytest.mark.parametrize("name", PROGRAMS)
def test_three_steps_give_paddles_losses_and_parameters(name):
    values, history = train(name)
    for k, (loss, params) in enumerate(history):
        np.testing.assert_allclose(np.asarray(loss).reshape(-1)[0], values["loss"][k],
                                   rtol=RTOL, atol=ATOL, err_msg=f"{name} step {k}: loss")
        for p, value in params.items():
            np.testing.assert_allclose(value, values[f"step{k}:{p}"], rtol=RTOL, atol=ATOL,
                                       err_msg=f"{name} step {k}: {p}")
            assert not np.array_equal(value, values[f"step{k - 1}:{p}" if k else f"init:{p}"])


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_programs_hold_paddles_optimizer_ops_and_keep_their_bytes(name):
    data = _load(f"optim_{name}.main.pb").read_bytes()
    main = pd.Program.parse(data)
    ops = [op.type for op in main.global_block().ops]
    assert ops == list(np.load(_load(f"optim_{name}.npz"))["meta:ops"])
    assert _missing_ops(ops) in ([], ["clip"])     # `clip` (ClipGradByValue) is another family's
    assert main.serialize() == data


def _op_cases():
    path = paddle26.FIXTURES / "optim_ops.npz"
    if not path.is_file():
        return []
    values = np.load(path)
    return sorted({k.split("/")[0] for k in values.files})


@pytest.mark.parametrize("case", _op_cases())
def test_each_op_alone_gives_paddles_outputs(case):
    values = np.load(_load("optim_ops.npz"))
    prefix = f"{case}/in/"
    inputs = {k[len(prefix):]: values[k] for k in values.files if k.startswith(prefix)}
    got = harness.forward(str(values[f"{case}/type"]), inputs,
                          json.loads(str(values[f"{case}/attrs"])))
    prefix = f"{case}/out/"
    wanted = [k for k in values.files if k.startswith(prefix)]
    assert wanted
    for key in wanted:
        slot = key[len(prefix):]
        np.testing.assert_allclose(np.asarray(got[slot]).reshape(values[key].shape),
                                   values[key], rtol=RTOL, atol=ATOL, err_msg=f"{case}: {slot}")


def test_paddles_squared_l2_norm_grad_runs_and_gives_paddles_gradient():
    values = np.load(_load("optim_sqnorm_grad.npz"))
    data = _load("optim_sqnorm_grad.main.pb").read_bytes()
    main = pd.Program.parse(data)
    (grad_op,) = [op for op in main.global_block().ops if op.type == "squared_l2_norm_grad"]
    assert sorted(v.parameter for v in grad_op.desc.inputs) == ["Out@GRAD", "X"]
    assert [v.parameter for v in grad_op.desc.outputs] == ["X@GRAD"]
    norm, dx = pd.Executor(pd.CPUPlace()).run(main, feed={k: values[k] for k in ("x", "dloss")},
                                              fetch_list=list(values["meta:fetch"]),
                                              scope=pd.Scope())
    np.testing.assert_allclose(norm, values["norm"], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(dx, values["dx"], rtol=RTOL, atol=ATOL)
    assert main.serialize() == data
