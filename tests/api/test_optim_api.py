"""``paddle.optimizer``, its schedulers and gradient clipping against PaddlePaddle 2.6.2.

``interop/api/optim_api_refs.py`` (run with PaddlePaddle) built a small MLP's forward program,
let each optimizer of its ``CASES`` minimize the loss and trained five steps; here the same
forward program, parsed, is minimized by paddle_nb's optimizer made by the same ``CASES``
entry (``paddle`` being paddle_nb), and must hold the same op types, persistable names,
startup ops and optimize-op attributes, and train to the same losses and parameters. The
learning-rate schedulers must give PaddlePaddle's 30 values.
"""

import json
import pathlib

import numpy as np
import pytest

import paddle_nb
from interop.api import optim_api_refs as refs
from paddle_nb.framework import unique_name


# the public names these tests compare with PaddlePaddle 2.6.2 (tools/api_coverage.py counts them)
COVERED = [
    "paddle.optimizer.SGD",
    "paddle.optimizer.Momentum",
    "paddle.optimizer.Adam",
    "paddle.optimizer.AdamW",
    "paddle.optimizer.Adamax",
    "paddle.optimizer.Adagrad",
    "paddle.optimizer.RMSProp",
    "paddle.optimizer.Lamb",
    "paddle.optimizer.Adadelta",
    "paddle.nn.ClipGradByGlobalNorm",
    "paddle.nn.ClipGradByNorm",
    "paddle.nn.ClipGradByValue",
    "paddle.regularizer.L1Decay",
    "paddle.regularizer.L2Decay",
    "paddle.optimizer.lr.StepDecay",
    "paddle.optimizer.lr.MultiStepDecay",
    "paddle.optimizer.lr.PiecewiseDecay",
    "paddle.optimizer.lr.ExponentialDecay",
    "paddle.optimizer.lr.NaturalExpDecay",
    "paddle.optimizer.lr.InverseTimeDecay",
    "paddle.optimizer.lr.CosineAnnealingDecay",
    "paddle.optimizer.lr.LinearWarmup",
    "paddle.optimizer.lr.NoamDecay",
    "paddle.optimizer.lr.PolynomialDecay",
    "paddle.optimizer.lr.OneCycleLR",
    "paddle.optimizer.lr.LambdaDecay",
    "paddle.optimizer.lr.MultiplicativeDecay",
    "paddle.optimizer.lr.CyclicLR",
    "paddle.optimizer.lr.ReduceOnPlateau",
    "paddle.optimizer.lr.LinearLR",
    "paddle.optimizer.lr.CosineAnnealingWarmRestarts",
    "paddle.optimizer.lr.LRScheduler",
    "paddle.optimizer.Optimizer",
]

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api" / \
    "optim_api.npz"
RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(scope="module")
def data():
    if not FIXTURE.is_file():
        pytest.fail(f"{FIXTURE} is absent (interop/api/optim_api_refs.py writes it)")
    return dict(np.load(FIXTURE))


def _set_param_attrs(program, attrs):
    """What ParamAttr gave the parameters in PaddlePaddle's script (the desc does not hold it)."""
    for name, kw in attrs.items():
        param = program.global_block().var(name)
        param.optimize_attr["learning_rate"] = kw.get("learning_rate", 1.0)
        param.need_clip = kw.get("need_clip", True)
        if "regularizer" in kw:
            kind, coeff = kw["regularizer"]
            param.regularizer = getattr(paddle_nb.regularizer, kind)(coeff)


def build(data, name):
    """PaddlePaddle's forward program minimized by paddle_nb: (main, startup, loss, scheduler)."""
    make, attrs = refs.CASES[name]
    main = paddle_nb.Program.parse(data[f"{name}/fwd_main"].tobytes())
    startup = paddle_nb.Program.parse(data[f"{name}/fwd_startup"].tobytes())
    _set_param_attrs(main, attrs)
    loss = main.global_block().var(str(data[f"{name}/loss_name"]))
    with unique_name.guard():
        optimizer, scheduler = make(paddle_nb)
        optimizer.minimize(loss, startup_program=startup)
    return main, startup, loss, scheduler


@pytest.mark.parametrize("name", list(refs.CASES))
def test_the_programs_hold_paddles_ops_and_persistable_names(data, name):
    main, startup, _, _ = build(data, name)
    assert [op.type for op in main.global_block().ops] == list(data[f"{name}/ops"])
    persistables = sorted(v.name for v in main.global_block().vars.values() if v.persistable)
    assert persistables == list(data[f"{name}/persistables"])
    assert [f"{op.type}:{','.join(op.output_arg_names)}" for op in startup.global_block().ops] \
        == list(data[f"{name}/startup"])
    lr = main.global_block().var("learning_rate_0")
    assert tuple(lr.shape) == () and lr.persistable


def _same_attr(mine, theirs):
    if isinstance(theirs, float):
        return np.float32(mine) == np.float32(theirs)
    return mine == theirs


@pytest.mark.parametrize("name", list(refs.CASES))
def test_the_optimize_ops_carry_paddles_attributes(data, name):
    main, _, _, _ = build(data, name)
    mine = [op for op in main.global_block().ops if op.attr("op_role") == 2]
    theirs = json.loads(str(data[f"{name}/optimize_attrs"]))
    assert [op.type for op in mine] == [t for t, _ in theirs]
    for op, (op_type, attrs) in zip(mine, theirs):
        for key, value in attrs.items():
            assert _same_attr(op.attr(key), value), (op_type, key, op.attr(key), value)


@pytest.mark.parametrize("name", list(refs.CASES))
def test_five_steps_give_paddles_losses_and_parameters(data, name):
    main, startup, loss, scheduler = build(data, name)
    exe, scope = paddle_nb.Executor(paddle_nb.CPUPlace()), paddle_nb.Scope()
    exe.run(startup, scope=scope)
    for param, value in refs.initial_values().items():
        scope.find_var(param).get_tensor().set(value, paddle_nb.CPUPlace())
    losses = []
    for feed in refs.feeds():
        (got,) = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        losses.append(float(np.asarray(got).reshape(-1)[0]))
        if scheduler is not None:      # the Executor writes its value before the next run
            scheduler.step()
    np.testing.assert_allclose(losses, data[f"{name}/losses"], rtol=RTOL, atol=ATOL)
    for param in refs.PARAMS:
        np.testing.assert_allclose(scope.find_var(param).get_tensor().numpy(),
                                   data[f"{name}/final/{param}"], rtol=RTOL, atol=ATOL,
                                   err_msg=f"{name}: {param}")


@pytest.mark.parametrize("name", list(refs.SCHEDULERS))
def test_schedulers_give_paddles_values(data, name):
    np.testing.assert_allclose(refs.schedule(paddle_nb.optimizer.lr, name),
                               data[f"schedule/{name}"], rtol=1e-12, atol=1e-15)
