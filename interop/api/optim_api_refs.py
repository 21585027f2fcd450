"""Reference numbers for ``paddle.optimizer``, ``paddle.optimizer.lr`` and clipping, from
PaddlePaddle 2.6.2 itself.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2):

    .venv-interop/bin/python interop/api/optim_api_refs.py --out tests/fixtures/paddle26/api

For each case of ``CASES`` it builds the same small MLP (``x[N,4] -> relu(x @ w1 + b1) @ w2
+ b2``, loss ``mean(square(out - y))``) from plain ops, serializes the forward program and
its startup program, then lets the case's optimizer ``minimize`` the loss and records what
PaddlePaddle wrote (the op types of the main program, its persistable names, the startup
program's ops and outputs, the attributes of every optimize op) and five training steps from
fixed parameters (the loss of each step, the parameters at the end). tests/api/test_optim_api.py
parses the forward program, lets paddle_nb's optimizer of the same case (``CASES`` is shared:
each entry is a function of the ``paddle`` module) minimize it, and requires the same.
``SCHEDULERS``: 30 values of each learning-rate scheduler. Everything goes into one
``optim_api.npz``.
"""

import argparse
import json
import pathlib

import numpy as np

STEPS, SCHEDULE_STEPS, SEED = 5, 30, 2026
PARAMS = {"w1": [4, 8], "b1": [8], "w2": [8, 2], "b2": [2]}


def _opt(paddle):
    return paddle.optimizer


# Each case: (make(paddle) -> (optimizer, scheduler or None), parameter attributes).
CASES = {
    "sgd": (lambda p: (_opt(p).SGD(0.1), None), {}),
    "sgd_l2_param_l1": (lambda p: (_opt(p).SGD(0.1, weight_decay=0.01), None),
                        {"w1": {"regularizer": ("L1Decay", 0.02)}}),
    "momentum": (lambda p: (_opt(p).Momentum(0.05, momentum=0.9, use_nesterov=True,
                                             weight_decay=1e-3), None),
                 {"w2": {"learning_rate": 0.5}, "b1": {"regularizer": ("L2Decay", 0.1)}}),
    "adam": (lambda p: (_opt(p).Adam(0.01, beta1=0.8), None), {}),
    "adam_global_clip": (lambda p: (_opt(p).Adam(0.01, grad_clip=p.nn.ClipGradByGlobalNorm(0.2)),
                                    None), {"b2": {"need_clip": False}}),
    "adam_norm_clip": (lambda p: (_opt(p).Adam(0.01, grad_clip=p.nn.ClipGradByNorm(0.1)), None),
                       {}),
    "sgd_value_clip": (lambda p: (_opt(p).SGD(0.1, grad_clip=p.nn.ClipGradByValue(0.05)), None),
                       {}),
    "adamw": (lambda p: (_opt(p).AdamW(0.01, weight_decay=0.05,
                                       apply_decay_param_fun=lambda n: n.startswith("w")), None),
              {}),
    "adamax": (lambda p: (_opt(p).Adamax(0.02), None), {}),
    "adagrad": (lambda p: (_opt(p).Adagrad(0.1, initial_accumulator_value=0.1), None), {}),
    "rmsprop": (lambda p: (_opt(p).RMSProp(0.01, rho=0.9, momentum=0.5, centered=True), None), {}),
    "lamb": (lambda p: (_opt(p).Lamb(0.01, lamb_weight_decay=0.02,
                                     exclude_from_weight_decay_fn=lambda q: q.name.startswith("b")),
                        None), {}),
    "adadelta": (lambda p: (_opt(p).Adadelta(0.5, rho=0.9), None), {}),
}


def _scheduled(paddle, make_scheduler, make_optimizer):
    scheduler = make_scheduler(paddle.optimizer.lr)
    return make_optimizer(paddle.optimizer, scheduler), scheduler


CASES.update({
    "sgd_step_decay": (lambda p: _scheduled(p, lambda lr: lr.StepDecay(0.1, step_size=2, gamma=0.5),
                                            lambda o, s: o.SGD(s)), {}),
    "adam_warmup_cosine": (lambda p: _scheduled(
        p, lambda lr: lr.LinearWarmup(lr.CosineAnnealingDecay(0.01, T_max=4), warmup_steps=2,
                                      start_lr=0.001, end_lr=0.01),
        lambda o, s: o.Adam(s)), {}),
})

# Each scheduler: make(lr module) -> scheduler; ReduceOnPlateau steps on METRICS.
SCHEDULERS = {
    "step": lambda lr: lr.StepDecay(0.5, step_size=3, gamma=0.7),
    "multistep": lambda lr: lr.MultiStepDecay(0.5, milestones=[2, 5, 11], gamma=0.5),
    "piecewise": lambda lr: lr.PiecewiseDecay([3, 8, 20], [1.0, 0.5, 0.2, 0.05]),
    "exponential": lambda lr: lr.ExponentialDecay(0.5, gamma=0.9),
    "natural_exp": lambda lr: lr.NaturalExpDecay(0.5, gamma=0.1),
    "inverse_time": lambda lr: lr.InverseTimeDecay(0.5, gamma=0.2),
    "cosine": lambda lr: lr.CosineAnnealingDecay(0.5, T_max=7, eta_min=0.01),
    "warmup_float": lambda lr: lr.LinearWarmup(0.3, warmup_steps=5, start_lr=0.0, end_lr=0.3),
    "warmup_step": lambda lr: lr.LinearWarmup(lr.StepDecay(0.4, step_size=4), warmup_steps=6,
                                              start_lr=0.01, end_lr=0.4),
    "noam": lambda lr: lr.NoamDecay(d_model=64, warmup_steps=10, learning_rate=2.0),
    "polynomial": lambda lr: lr.PolynomialDecay(0.5, decay_steps=12, end_lr=0.01, power=2.0),
    "polynomial_cycle": lambda lr: lr.PolynomialDecay(0.5, decay_steps=7, cycle=True),
    "one_cycle": lambda lr: lr.OneCycleLR(1.0, total_steps=31),
    "one_cycle_linear3": lambda lr: lr.OneCycleLR(0.8, total_steps=40, anneal_strategy="linear",
                                                  three_phase=True, phase_pct=0.2),
    "lambda": lambda lr: lr.LambdaDecay(0.5, lambda e: 0.95 ** e),
    "multiplicative": lambda lr: lr.MultiplicativeDecay(0.5, lambda e: 0.9 if e % 2 else 1.0),
    "cyclic": lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=4, step_size_down=3),
    "cyclic_tri2": lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=3, mode="triangular2"),
    "cyclic_exp": lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=5, mode="exp_range",
                                         exp_gamma=0.95),
    "linear_lr": lambda lr: lr.LinearLR(0.5, total_steps=7, start_factor=0.2, end_factor=0.9),
    "warm_restarts": lambda lr: lr.CosineAnnealingWarmRestarts(0.5, T_0=3, eta_min=0.01),
    "warm_restarts_mult": lambda lr: lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=3),
    "plateau": lambda lr: lr.ReduceOnPlateau(1.0, factor=0.5, patience=2, cooldown=1),
    "plateau_max_abs": lambda lr: lr.ReduceOnPlateau(1.0, mode="max", factor=0.3, patience=1,
                                                     threshold=0.05, threshold_mode="abs"),
}
METRICS = [5.0, 4.0, 4.0, 4.1, 3.9, 3.95, 3.99, 4.2, 3.0, 3.0, 3.0, 3.0, 2.0, 2.5, 2.6, 2.7,
           2.8, 1.0, 1.0, 1.0, 1.1, 1.2, 1.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]


def schedule(lr_module, name):
    """The first SCHEDULE_STEPS values of scheduler ``name`` (``scheduler()`` then ``step``)."""
    scheduler = SCHEDULERS[name](lr_module)
    values = []
    for k in range(SCHEDULE_STEPS):
        values.append(float(scheduler()))
        if name.startswith("plateau"):
            scheduler.step(METRICS[k] if "max" not in name else -METRICS[k])
        else:
            scheduler.step()
    return values


def initial_values():
    rng = np.random.default_rng(SEED)
    return {n: (rng.standard_normal(s) * 0.5).astype("float32") for n, s in PARAMS.items()}


def feeds():
    rng = np.random.default_rng(SEED + 1)
    return [{"x": rng.standard_normal((6, 4)).astype("float32"),
             "y": rng.standard_normal((6, 2)).astype("float32")} for _ in range(STEPS)]


# ---- PaddlePaddle's side ---------------------------------------------------------------------

def _param_attr(paddle, name, attrs):
    kw = attrs.get(name, {})
    reg = kw.get("regularizer")
    regularizer = getattr(paddle.regularizer, reg[0])(reg[1]) if reg else None
    return paddle.ParamAttr(name=name, learning_rate=kw.get("learning_rate", 1.0),
                            need_clip=kw.get("need_clip", True), regularizer=regularizer)


def _forward(paddle, attrs):
    x = paddle.static.data("x", [None, 4], "float32")
    y = paddle.static.data("y", [None, 2], "float32")
    p = {n: paddle.static.create_parameter(s, "float32", attr=_param_attr(paddle, n, attrs),
                                           is_bias=n.startswith("b")) for n, s in PARAMS.items()}
    hidden = paddle.nn.functional.relu(paddle.matmul(x, p["w1"]) + p["b1"])
    out = paddle.matmul(hidden, p["w2"]) + p["b2"]
    return paddle.mean(paddle.square(out - y))


def _bytes(program):
    for block in program.blocks:
        for op in block.ops:
            if op.desc.has_attr("op_callstack"):
                op.desc.remove_attr("op_callstack")
    return np.frombuffer(program.desc.serialize_to_string(), np.uint8)


IGNORED_ATTRS = {"op_callstack", "op_namescope", "op_device", "with_quant_attr", "use_mkldnn",
                 "mkldnn_data_type", "use_quantizer", "op_role_var"}


def optimize_attrs(ops):
    """[(type, {attr: value})] of the ops with the optimize role (op_role 2)."""
    out = []
    for op in ops:
        if op.attr("op_role") != 2:
            continue
        attrs = {k: op.attr(k) for k in op.attr_names if k not in IGNORED_ATTRS}
        out.append((op.type, {k: v for k, v in attrs.items()
                              if isinstance(v, (bool, int, float, str, list))}))
    return out


def make_case(paddle, name, arrays):
    make, attrs = CASES[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        loss = _forward(paddle, attrs)
        arrays[f"{name}/fwd_main"], arrays[f"{name}/fwd_startup"] = _bytes(main), _bytes(startup)
        optimizer, scheduler = make(paddle)
        optimizer.minimize(loss)
    arrays[f"{name}/loss_name"] = np.array(loss.name)
    arrays[f"{name}/ops"] = np.array([op.type for op in main.global_block().ops])
    arrays[f"{name}/persistables"] = np.array(sorted(
        v.name for v in main.global_block().vars.values() if v.persistable))
    arrays[f"{name}/startup"] = np.array([f"{op.type}:{','.join(op.output_arg_names)}"
                                          for op in startup.global_block().ops])
    arrays[f"{name}/optimize_attrs"] = np.array(json.dumps(optimize_attrs(main.global_block().ops)))
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    losses = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for n, value in initial_values().items():
            scope.find_var(n).get_tensor().set(value, paddle.CPUPlace())
        for feed in feeds():
            (got,) = exe.run(main, feed=feed, fetch_list=[loss])
            losses.append(float(np.asarray(got).reshape(-1)[0]))
            if scheduler is not None:
                scheduler.step()
        for n in PARAMS:
            arrays[f"{name}/final/{n}"] = np.array(scope.find_var(n).get_tensor())
    arrays[f"{name}/losses"] = np.float32(losses)
    print(f"optim_api_refs: {name}: losses {np.round(losses, 5).tolist()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import paddle
    paddle.enable_static()
    arrays = {}
    for name in CASES:
        make_case(paddle, name, arrays)
    for name in SCHEDULERS:
        arrays[f"schedule/{name}"] = np.float64(schedule(paddle.optimizer.lr, name))
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out / "optim_api.npz", **arrays)
    print(f"optim_api_refs: wrote {args.out / 'optim_api.npz'}")


if __name__ == "__main__":
    main()
