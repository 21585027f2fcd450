"""``paddle.optimizer.lr`` against closed-form NumPy references (PaddlePaddle's own values are
compared in tests/api/test_optim_api.py)."""

import math

import numpy as np
import pytest

from paddle_nb.optimizer import lr

T = np.arange(25)


def values(scheduler, steps=25):
    out = []
    for _ in range(steps):
        out.append(scheduler())
        scheduler.step()
    return np.array(out)


@pytest.mark.parametrize("make, formula", [
    (lambda: lr.StepDecay(0.5, step_size=4, gamma=0.3), lambda t: 0.5 * 0.3 ** (t // 4)),
    (lambda: lr.MultiStepDecay(0.5, [3, 10], gamma=0.2),
     lambda t: 0.5 * 0.2 ** ((t >= 3).astype(int) + (t >= 10))),
    (lambda: lr.PiecewiseDecay([5, 12], [1.0, 0.1, 0.01]),
     lambda t: np.where(t < 5, 1.0, np.where(t < 12, 0.1, 0.01))),
    (lambda: lr.ExponentialDecay(0.5, 0.8), lambda t: 0.5 * 0.8 ** t),
    (lambda: lr.NaturalExpDecay(0.5, 0.3), lambda t: 0.5 * np.exp(-0.3 * t)),
    (lambda: lr.InverseTimeDecay(0.5, 0.3), lambda t: 0.5 / (1 + 0.3 * t)),
    (lambda: lr.PolynomialDecay(0.5, 10, end_lr=0.05, power=1.5),
     lambda t: 0.45 * (1 - np.minimum(t, 10) / 10) ** 1.5 + 0.05),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=25, eta_min=0.1),
     lambda t: 0.1 + 0.4 * (1 + np.cos(np.pi * t / 25)) / 2),
    (lambda: lr.NoamDecay(16, warmup_steps=8), lambda t: 16 ** -0.5 * np.minimum(
        np.where(t == 0, 1.0, np.maximum(t, 1) ** -0.5), 8 ** -1.5 * t)),
    (lambda: lr.LinearWarmup(0.4, warmup_steps=5, start_lr=0.0, end_lr=0.2),
     lambda t: np.where(t < 5, 0.2 * t / 5, 0.4)),
    (lambda: lr.LambdaDecay(0.5, lambda e: 1 / (1 + e)), lambda t: 0.5 / (1 + t)),
    (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9), lambda t: 0.5 * 0.9 ** t),
    (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=4),
     lambda t: 0.1 + 0.4 * (1 - np.abs(t / 4 - 2 * (t // 8) - 1))),
])
def test_schedules_follow_their_formula(make, formula):
    np.testing.assert_allclose(values(make()), formula(T), rtol=1e-12, atol=1e-15)


def test_step_to_an_epoch_uses_the_closed_form():
    cosine = lr.CosineAnnealingDecay(1.0, T_max=10)
    cosine.step(epoch=5)
    assert cosine() == pytest.approx(0.5) and cosine.last_epoch == 5


def test_warmup_hands_over_to_the_wrapped_scheduler():
    inner = lr.StepDecay(0.4, step_size=2, gamma=0.5)
    warm = lr.LinearWarmup(inner, warmup_steps=3, start_lr=0.1, end_lr=0.4)
    np.testing.assert_allclose(values(warm, 8), [0.1, 0.2, 0.3, 0.4, 0.4, 0.2, 0.2, 0.1])


def test_one_cycle_rises_to_its_maximum_then_falls_to_its_end():
    got = values(lr.OneCycleLR(1.0, total_steps=20, end_learning_rate=0.001), 20)
    top = int(np.argmax(got))
    assert got[0] == pytest.approx(1.0 / 25) and got[top] == pytest.approx(1.0)
    assert top == math.floor(0.3 * 20 - 1) and got[-1] == pytest.approx(0.001)
    assert (np.diff(got[:top + 1]) > 0).all() and (np.diff(got[top:]) < 0).all()


def test_reduce_on_plateau_waits_patience_steps_then_cools_down():
    plateau = lr.ReduceOnPlateau(1.0, factor=0.5, patience=1, cooldown=1)
    seen = []
    for metric in [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0]:
        plateau.step(metric)
        seen.append(plateau())
    # bad steps: 1, 2 (> patience: halve), cooldown, 1, 2 (halve), then an improvement
    assert seen == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]


def test_bad_settings_name_themselves():
    with pytest.raises(ValueError, match="gamma must be less than 1.0"):
        lr.StepDecay(0.1, step_size=2, gamma=1.5)
    with pytest.raises(ValueError, match="len\\(values\\) == len\\(boundaries\\) \\+ 1"):
        lr.PiecewiseDecay([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="anneal_strategy"):
        lr.OneCycleLR(0.1, total_steps=10, anneal_strategy="exp")
    with pytest.raises(TypeError, match="LinearWarmup: learning_rate"):
        lr.LinearWarmup("0.1", warmup_steps=2, start_lr=0.0, end_lr=0.1)
