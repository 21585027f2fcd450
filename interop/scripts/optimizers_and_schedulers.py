"""Every 2.x optimizer, and each learning-rate schedule, on one small regression model."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

paddle.enable_static()
lr = paddle.optimizer.lr


SETTINGS = [
    ("SGD", lambda ps: paddle.optimizer.SGD(0.1, parameters=ps), None),
    ("Momentum", lambda ps: paddle.optimizer.Momentum(0.1, 0.9, parameters=ps), None),
    ("Adam", lambda ps: paddle.optimizer.Adam(0.05, parameters=ps), None),
    ("AdamW", lambda ps: paddle.optimizer.AdamW(0.05, parameters=ps, weight_decay=0.1), None),
    ("Adamax", lambda ps: paddle.optimizer.Adamax(0.05, parameters=ps), None),
    ("Adagrad", lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps), None),
    ("RMSProp", lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps, centered=True,
                                                    momentum=0.5), None),
    ("Lamb", lambda ps: paddle.optimizer.Lamb(0.05, parameters=ps), None),
    ("Adadelta", lambda ps: paddle.optimizer.Adadelta(1.0, parameters=ps), None),
    ("ClipGradByValue", lambda ps: paddle.optimizer.SGD(
        0.1, parameters=ps, grad_clip=nn.ClipGradByValue(0.05)), None),
    ("ClipGradByNorm", lambda ps: paddle.optimizer.Adam(
        0.05, parameters=ps, grad_clip=nn.ClipGradByNorm(0.1)), None),
    ("StepDecay", None, lambda: lr.StepDecay(0.1, step_size=2, gamma=0.5)),
    ("MultiStepDecay", None, lambda: lr.MultiStepDecay(0.1, [1, 3])),
    ("PiecewiseDecay", None, lambda: lr.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01])),
    ("ExponentialDecay", None, lambda: lr.ExponentialDecay(0.1, 0.8)),
    ("CosineAnnealingDecay", None, lambda: lr.CosineAnnealingDecay(0.1, T_max=4)),
    ("NoamDecay", None, lambda: lr.NoamDecay(4, 3)),
    ("PolynomialDecay", None, lambda: lr.PolynomialDecay(0.1, 5)),
    ("OneCycleLR", None, lambda: lr.OneCycleLR(0.1, 6)),
    ("ReduceOnPlateau", None, lambda: lr.ReduceOnPlateau(0.1, patience=0)),
]

rng = np.random.RandomState(10)
data = [(rng.randn(4, 3).astype("float32"), rng.randn(4, 1).astype("float32")) for _ in range(5)]
for name, make_optimizer, make_schedule in SETTINGS:
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.data("y", [None, 1], "float32")
        model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
        loss = F.mse_loss(model(x), y)
        schedule = make_schedule() if make_schedule else None
        opt = make_optimizer(model.parameters()) if make_optimizer else \
            paddle.optimizer.SGD(schedule, parameters=model.parameters())
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    for step, (xv, yv) in enumerate(data):
        value, = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
        if isinstance(schedule, lr.ReduceOnPlateau):
            schedule.step(float(value))
        elif schedule is not None:
            schedule.step()
        print(name, step, float(value))
