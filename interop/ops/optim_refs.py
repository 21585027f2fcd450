"""Reference training runs for the optimizer and clipping ops, made by PaddlePaddle 2.6.2 itself.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2), never with paddle_nb's:

    .venv-interop/bin/python interop/ops/optim_refs.py --out tests/fixtures/paddle26/ops

Each program is the same tiny regression MLP (``x[N,8] -> fc(16, relu) -> fc(4)``, loss
``mean(square(out - y))``) minimized by one optimizer of ``paddle.optimizer`` (with its
gradient clipping, weight decay or learning-rate scheduler), so that the main program holds the
optimizer ops exactly as PaddlePaddle writes them. Per program ``<name>`` it writes:

- ``optim_<name>.main.pb`` / ``optim_<name>.startup.pb``: the serialized programs, with the
  ``op_callstack`` attributes removed (they hold this machine's paths and most of the bytes);
- ``optim_<name>.npz``: ``init:<param>`` after the startup program, per step k the feeds
  ``step<k>/x``, ``step<k>/y``, the learning rate PaddlePaddle's executor wrote into the
  learning-rate variable ``lr[k]`` (a scheduler's value, set from Python before each run), the
  loss ``loss[k]`` and the parameters after the step ``step<k>:<param>``; and ``meta:params``,
  ``meta:lr_var``, ``meta:loss``, ``meta:ops`` (the op types of the main program).

It also runs each op alone on small inputs, with the attributes and dispensable inputs the
programs above leave at their defaults (``SkipUpdate``, ``Beta1Tensor``, ``lr_ratio``,
``centered``, ...), into ``optim_ops.npz``: ``<case>/type``, ``<case>/attrs`` (JSON),
``<case>/in/<slot>`` and ``<case>/out/<slot>``. Each state output is written in place over its
input, as the programs do (``Moment1Out`` over ``Moment1``), and read back after the run.
Last, ``optim_sqnorm_grad.main.pb`` / ``.npz``: ``squared_l2_norm`` differentiated by
PaddlePaddle's backward (``squared_l2_norm_grad``), with its input and both results.
"""

import argparse
import json
import pathlib

import numpy as np

STEPS = 3
SEED = 2026


def _optimizer(paddle, name):
    """The optimizer of program ``name``: the ops under test come from its ``minimize``."""
    opt, nn, reg = paddle.optimizer, paddle.nn, paddle.regularizer
    if name == "adamw":
        lr = opt.lr.LinearWarmup(opt.lr.StepDecay(0.01, step_size=2, gamma=0.5),
                                 warmup_steps=2, start_lr=0.002, end_lr=0.01)
        return opt.AdamW(learning_rate=lr, weight_decay=0.01,
                         apply_decay_param_fun=lambda n: n.endswith("w_0"),
                         grad_clip=nn.ClipGradByGlobalNorm(1.0)), lr
    table = {
        "momentum": lambda: opt.Momentum(0.05, momentum=0.9, use_nesterov=True,
                                         weight_decay=reg.L2Decay(1e-4)),
        "adam_clipnorm": lambda: opt.Adam(0.01, grad_clip=nn.ClipGradByNorm(0.5)),
        "adam_clipvalue": lambda: opt.Adam(0.01, beta1=0.8, grad_clip=nn.ClipGradByValue(0.1)),
        "rmsprop": lambda: opt.RMSProp(0.01, rho=0.9, momentum=0.5, centered=True),
        "adagrad": lambda: opt.Adagrad(0.1),
        "lamb": lambda: opt.Lamb(0.01, lamb_weight_decay=0.01),
        "adamax": lambda: opt.Adamax(0.02),
        "sgd_l1": lambda: opt.SGD(0.1, weight_decay=reg.L1Decay(1e-3)),
        "adadelta": lambda: opt.Adadelta(0.5, rho=0.9),
    }
    return table[name](), None


NAMES = ["adamw", "momentum", "adam_clipnorm", "adam_clipvalue", "rmsprop", "adagrad", "lamb",
         "adamax", "sgd_l1", "adadelta"]


def _build(paddle, name):
    x = paddle.static.data("x", [None, 8], "float32")
    y = paddle.static.data("y", [None, 4], "float32")
    hidden = paddle.static.nn.fc(x, 16, activation="relu", name="fc1")
    out = paddle.static.nn.fc(hidden, 4, name="fc2")
    loss = paddle.mean(paddle.square(out - y))
    optimizer, scheduler = _optimizer(paddle, name)
    optimizer.minimize(loss)
    return loss, scheduler


def _without_callstacks(program):
    for block in program.blocks:
        for op in block.ops:
            if op.desc.has_attr("op_callstack"):
                op.desc.remove_attr("op_callstack")
    return program.desc.serialize_to_string()


def make(paddle, name, out):
    paddle.seed(SEED)
    rng = np.random.default_rng(SEED)
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        loss, scheduler = _build(paddle, name)
    params = sorted(p.name for p in main.all_parameters())
    lr_var = main.lr_scheduler._var_name if scheduler is not None else "learning_rate_0"
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    value = lambda n: np.array(scope.find_var(n).get_tensor())    # noqa: E731
    arrays = {}
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        arrays.update({f"init:{p}": value(p) for p in params})
        losses, lrs = [], []
        for k in range(STEPS):
            feed = {"x": rng.standard_normal((4, 8)).astype("float32"),
                    "y": rng.standard_normal((4, 4)).astype("float32")}
            arrays.update({f"step{k}/{n}": v for n, v in feed.items()})
            (got,) = exe.run(main, feed=feed, fetch_list=[loss])
            lrs.append(value(lr_var).reshape(-1)[0])      # what the executor wrote this step
            losses.append(np.asarray(got).reshape(-1)[0])
            arrays.update({f"step{k}:{p}": value(p) for p in params})
            if scheduler is not None:
                scheduler.step()
    arrays.update({"loss": np.float32(losses), "lr": np.float32(lrs),
                   "meta:params": np.array(params), "meta:lr_var": np.array(lr_var),
                   "meta:loss": np.array(loss.name),
                   "meta:ops": np.array([op.type for op in main.global_block().ops])})
    (out / f"optim_{name}.main.pb").write_bytes(_without_callstacks(main))
    (out / f"optim_{name}.startup.pb").write_bytes(_without_callstacks(startup))
    np.savez(out / f"optim_{name}.npz", **arrays)
    optimizer_ops = sorted({op.type for op in main.global_block().ops
                            if op.attr("op_role") == 2})
    print(f"optim_refs: {name}: losses {losses}, lr {lrs}, optimizer ops {optimizer_ops}")


def _op_cases():
    """(name, op type, inputs, attrs): each op alone, on what the programs do not reach."""
    rng = np.random.default_rng(SEED)
    f = lambda *shape: rng.standard_normal(shape).astype("float32")     # noqa: E731
    one = lambda v: np.float32([v])                                     # noqa: E731

    def adam_ins(step=3):
        return {"Param": f(3, 4), "Grad": f(3, 4), "LearningRate": one(0.01),
                "Moment1": f(3, 4) * 0.1, "Moment2": np.abs(f(3, 4)) * 0.1,
                "Beta1Pow": one(0.9 ** step), "Beta2Pow": one(0.999 ** step)}
    lamb_ins = adam_ins
    return [
        ("sgd", "sgd", {"Param": f(5), "LearningRate": one(0.3), "Grad": f(5)}, {}),
        ("momentum_rescale", "momentum", {"Param": f(2, 3), "Grad": f(2, 3),
         "Velocity": f(2, 3), "LearningRate": one(0.1)}, {"mu": 0.7, "rescale_grad": 2.0}),
        ("adam_tensors", "adam", dict(adam_ins(), Beta1Tensor=one(0.8), Beta2Tensor=one(0.99),
                                      EpsilonTensor=one(1e-3)), {}),
        ("adam_skip", "adam", dict(adam_ins(), SkipUpdate=np.array([True])), {}),
        ("adam_global_pow", "adam", adam_ins(), {"use_global_beta_pow": True, "epsilon": 1e-4}),
        ("adamw_ratio", "adamw", adam_ins(), {"with_decay": True, "coeff": 0.2, "lr_ratio": 0.5}),
        ("adamw_no_decay", "adamw", adam_ins(), {"with_decay": False, "coeff": 0.2}),
        ("adamax", "adamax", {"Param": f(3, 4), "Grad": f(3, 4), "LearningRate": one(0.02),
         "Moment": f(3, 4) * 0.1, "InfNorm": np.abs(f(3, 4)) * 0.5, "Beta1Pow": one(0.9 ** 3)},
         {"beta1": 0.8, "epsilon": 1e-3}),
        ("adagrad", "adagrad", {"Param": f(6), "Grad": f(6), "Moment": np.abs(f(6)),
         "LearningRate": one(0.1)}, {"epsilon": 1e-3}),
        ("rmsprop_plain", "rmsprop", {"Param": f(2, 5), "MeanSquare": np.abs(f(2, 5)),
         "Grad": f(2, 5), "Moment": f(2, 5) * 0.1, "LearningRate": one(0.01)},
         {"momentum": 0.3, "epsilon": 1e-4, "decay": 0.8}),
        ("lamb_decay", "lamb", lamb_ins(), {"weight_decay": 0.1, "epsilon": 1e-4}),
        ("lamb_no_decay", "lamb", lamb_ins(), {"weight_decay": 0.0}),
        ("lamb_always_adapt", "lamb", lamb_ins(), {"weight_decay": 0.0, "always_adapt": True}),
        ("lamb_skip", "lamb", dict(lamb_ins(), SkipUpdate=np.array([True])),
         {"weight_decay": 0.1}),
        ("squared_l2_norm", "squared_l2_norm", {"X": f(3, 4)}, {}),
        ("clip_by_norm_clipped", "clip_by_norm", {"X": f(4, 3)}, {"max_norm": 1.0}),
        ("clip_by_norm_kept", "clip_by_norm", {"X": f(2, 3) * 0.1}, {"max_norm": 5.0}),
        ("adadelta", "adadelta", {"Param": f(3, 4), "Grad": f(3, 4),
         "AvgSquaredGrad": np.abs(f(3, 4)), "AvgSquaredUpdate": np.abs(f(3, 4)) * 0.1,
         "LearningRate": one(0.5)}, {"rho": 0.9, "epsilon": 1e-4}),
        ("adadelta_defaults", "adadelta", {"Param": f(5), "Grad": f(5),
         "AvgSquaredGrad": np.abs(f(5)), "AvgSquaredUpdate": np.abs(f(5)) * 0.1,
         "LearningRate": one(1.0)}, {}),
    ]


def _run_op(paddle, op_type, inputs, attrs):
    """Run one op of ``op_type`` with state outputs in place; {out slot: value}."""
    main = paddle.static.Program()
    block = main.global_block()
    proto = paddle.base.framework.OpProtoHolder.instance().get_op_proto(op_type)
    variables = {slot: block.create_var(name=f"in_{slot}", shape=value.shape, persistable=True,
                                        dtype=str(value.dtype))
                 for slot, value in inputs.items()}
    outputs = {}
    for out in proto.outputs:
        base = out.name[:-3] if out.name.endswith("Out") else None
        if base in variables:                      # in place, as optimizers write their state
            outputs[out.name] = variables[base]
        elif not out.dispensable:
            outputs[out.name] = block.create_var(name=f"out_{out.name}", dtype="float32",
                                                 persistable=True)
    block.append_op(type=op_type, inputs=variables, outputs=outputs, attrs=attrs)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        for slot, value in inputs.items():
            scope.var(f"in_{slot}").get_tensor().set(value, paddle.CPUPlace())
        paddle.static.Executor(paddle.CPUPlace()).run(main)
        tensors = {slot: scope.find_var(var.name).get_tensor() for slot, var in outputs.items()}
        # an output the kernel leaves unwritten (rmsprop's MeanGradOut when not centered)
        return {slot: np.array(t) for slot, t in tensors.items() if t._is_initialized()}


def make_op_cases(paddle, out):
    arrays = {}
    for name, op_type, inputs, attrs in _op_cases():
        arrays[f"{name}/type"] = np.array(op_type)
        arrays[f"{name}/attrs"] = np.array(json.dumps(attrs))
        arrays.update({f"{name}/in/{slot}": value for slot, value in inputs.items()})
        results = _run_op(paddle, op_type, inputs, attrs)
        arrays.update({f"{name}/out/{slot}": value for slot, value in results.items()})
    np.savez(out / "optim_ops.npz", **arrays)
    print(f"optim_refs: {len(_op_cases())} single-op cases")


def make_grad_program(paddle, out):
    """``squared_l2_norm`` and its grad op as PaddlePaddle's backward writes them (the
    optimizers never differentiate it): ``optim_sqnorm_grad.main.pb`` and its values."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 3], "float32")
        x.stop_gradient = False
        helper = paddle.base.layer_helper.LayerHelper("squared_l2_norm")
        norm = helper.create_variable_for_type_inference("float32")
        helper.append_op(type="squared_l2_norm", inputs={"X": x}, outputs={"Out": norm})
        loss = paddle.sum(norm * 3.0)
        dloss = paddle.static.data("dloss", [], "float32")     # fed: no fill_any_like op
        (dx,) = paddle.static.gradients([loss], [x], target_gradients=[dloss])
    feed = {"x": np.random.default_rng(SEED).standard_normal((4, 3)).astype("float32"),
            "dloss": np.float32(0.5)}
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        got_norm, got_dx = exe.run(main, feed=feed, fetch_list=[norm, dx])
    (out / "optim_sqnorm_grad.main.pb").write_bytes(_without_callstacks(main))
    np.savez(out / "optim_sqnorm_grad.npz", x=feed["x"], dloss=feed["dloss"], norm=got_norm,
             dx=got_dx,
             **{"meta:fetch": np.array([norm.name, dx.name]),
                "meta:ops": np.array([op.type for op in main.global_block().ops])})
    print(f"optim_refs: sqnorm_grad: ops {[op.type for op in main.global_block().ops]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/interop/paddle26/ops", help="output directory")
    parser.add_argument("names", nargs="*", default=NAMES, help="which programs")
    args = parser.parse_args(argv)
    import paddle
    paddle.enable_static()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        make(paddle, name, out)
    make_op_cases(paddle, out)
    make_grad_program(paddle, out)


if __name__ == "__main__":
    main()
