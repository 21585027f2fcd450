"""``paddle.optimizer.lr``: learning-rate schedulers, plain Python objects counting steps.

A scheduler holds ``last_epoch`` (the steps taken: 0 after construction) and
``last_lr``, the value for that step, which ``scheduler()`` returns. ``step()``
moves one step on. Given to an optimizer as its ``learning_rate``, a scheduler
becomes the program's ``lr_scheduler``: the optimizer makes the learning-rate
variable as usual, and before each run the Executor writes ``scheduler()``
into it, so ``scheduler.step()`` between runs changes what the next run uses::

    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    paddle.optimizer.SGD(sched).minimize(loss)
    for batch in data:
        exe.run(main, feed=batch)      # learning_rate_0 = sched() = 0.1, 0.1, 0.05, ...
        sched.step()

The formulas are PaddlePaddle 2.6's (tests/api/test_optim_api.py compares 30
steps of each with numbers recorded from PaddlePaddle).
"""

from __future__ import annotations

import inspect
import math
import numbers
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

__all__ = ["LRScheduler", "LinearLR", "CosineAnnealingWarmRestarts", "StepDecay",
           "MultiStepDecay", "PiecewiseDecay", "ExponentialDecay",
           "NaturalExpDecay", "InverseTimeDecay", "CosineAnnealingDecay", "LinearWarmup",
           "NoamDecay", "PolynomialDecay", "OneCycleLR", "LambdaDecay", "MultiplicativeDecay",
           "CyclicLR", "ReduceOnPlateau"]


def _number(value: float, label: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{label} must be a number, got {value!r}")
    return float(value)


def _positive_int(value: int, label: str) -> int:
    if not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{label} must be a positive integer, got {value!r}")
    return int(value)


class LRScheduler:
    """Base class: a subclass says ``get_lr()``, the value at step ``last_epoch``.

    >>> s = StepDecay(0.5, step_size=2, gamma=0.1)
    >>> values = []
    >>> for _ in range(5):
    ...     values.append(round(s(), 4))
    ...     s.step()
    >>> values
    [0.5, 0.5, 0.05, 0.05, 0.005]
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> LRScheduler:
        """Remember the arguments the scheduler is made with, by name (``init_args``; None
        when they do not fit its signature): ``pd.io.export_training`` writes them so that the
        exported ``train.py`` makes PaddlePaddle's own scheduler of the same class."""
        self = super().__new__(cls)
        try:
            bound = inspect.signature(cls.__init__).bind(self, *args, **kwargs)
        except TypeError:
            self.init_args = None
        else:
            bound.apply_defaults()
            self.init_args = dict(list(bound.arguments.items())[1:])
        return self

    #: the arguments it was made with, by name (None when they did not fit its signature)
    init_args: dict[str, Any] | None

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1, verbose: bool = False
                ) -> None:
        self.base_lr = _number(learning_rate, "learning_rate")
        self.last_lr = self.base_lr
        self.last_epoch = int(last_epoch)
        self.verbose = verbose
        self.step()

    def __call__(self) -> float:
        """The learning rate of the current step."""
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """One step on (or to step ``epoch``): ``last_lr`` becomes that step's value."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = int(epoch)
            closed = getattr(self, "closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's numbers (what PaddlePaddle saves with a checkpoint)."""
        return {k: v for k, v in vars(self).items()
                if isinstance(v, (numbers.Number, bool)) and not k.startswith("_")}

    def set_state_dict(self, state: Mapping[str, Any]) -> None:
        for key, value in state.items():
            setattr(self, key, value)

    set_dict = set_state_dict

    def __repr__(self) -> Any:
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


class StepDecay(LRScheduler):
    """``learning_rate * gamma ** (epoch // step_size)``."""

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not gamma < 1.0:
            raise ValueError(f"StepDecay: gamma must be less than 1.0, got {gamma!r}")
        self.step_size = _positive_int(step_size, "step_size")
        self.gamma = _number(gamma, "gamma")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """``learning_rate * gamma ** (the number of milestones passed)``."""

    def __init__(self, learning_rate: float, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        milestones = list(milestones)
        if any(b <= a for a, b in zip(milestones, milestones[1:])):
            raise ValueError(f"MultiStepDecay: milestones must increase, got {milestones}")
        self.milestones, self.gamma = milestones, _number(gamma, "gamma")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``epoch < boundaries[i]``; the last value after the last boundary."""

    def __init__(self, boundaries: Sequence[int], values: Sequence[float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: expected len(values) == len(boundaries) + 1, got "
                             f"{len(values)} values and {len(boundaries)} boundaries")
        self.boundaries, self.values = list(boundaries), [float(v) for v in values]
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self) -> float:
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class ExponentialDecay(LRScheduler):
    """``learning_rate * gamma ** epoch``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = _number(gamma, "gamma")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class NaturalExpDecay(LRScheduler):
    """``learning_rate * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = _number(gamma, "gamma")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``learning_rate / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = _number(gamma, "gamma")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """From ``learning_rate`` to ``end_lr`` along ``(1 - epoch / decay_steps) ** power``;
    ``cycle`` restarts with decay_steps stretched to the next multiple past ``epoch``."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.decay_steps = _positive_int(decay_steps, "decay_steps")
        self.end_lr, self.power = _number(end_lr, "end_lr"), _number(power, "power")
        self.cycle = bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = steps * max(1, math.ceil(epoch / steps))
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - epoch / steps) ** self.power + self.end_lr


class CosineAnnealingDecay(LRScheduler):
    """Half a cosine from ``learning_rate`` down to ``eta_min`` over ``T_max`` steps, then
    back up (SGDR without restarts), computed step by step from the last value."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.T_max = _positive_int(T_max, "T_max")
        self.eta_min = _number(eta_min, "eta_min")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        if t == 0:
            return self.base_lr
        if (t - 1 - T) % (2 * T) == 0:
            return self.last_lr + (self.base_lr - lo) * (1 - math.cos(math.pi / T)) / 2
        return (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T)) * \
            (self.last_lr - lo) + lo

    def closed_form_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LinearWarmup(LRScheduler):
    """From ``start_lr`` to ``end_lr`` linearly over ``warmup_steps``; then ``learning_rate``
    (a float, or a scheduler that starts stepping when the warm-up ends)."""

    def __init__(self, learning_rate: CosineAnnealingDecay | StepDecay | float, warmup_steps: int,
                 start_lr: float, end_lr: float, last_epoch: int = -1, verbose: bool = False
                ) -> None:
        if not isinstance(learning_rate, (numbers.Real, LRScheduler)):
            raise TypeError(f"LinearWarmup: learning_rate must be a float or an LRScheduler, "
                            f"got {learning_rate!r}")
        self.learning_rate = learning_rate
        self.warmup_steps = _positive_int(warmup_steps, "warmup_steps")
        self.start_lr, self.end_lr = _number(start_lr, "start_lr"), _number(end_lr, "end_lr")
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * self.last_epoch / self.warmup_steps + \
                self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)


class NoamDecay(LRScheduler):
    """The Transformer's schedule: ``lr * d_model**-0.5 * min(epoch**-0.5,
    epoch * warmup_steps**-1.5)`` (step 0 counts as 1 in the first term)."""

    def __init__(self, d_model: int, warmup_steps: int, learning_rate: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.d_model = _number(d_model, "d_model")
        self.warmup_steps = _number(warmup_steps, "warmup_steps")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        t = self.last_epoch
        a = 1 if t == 0 else t ** -0.5
        b = self.warmup_steps ** -1.5 * t
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class LambdaDecay(LRScheduler):
    """``learning_rate * lr_lambda(epoch)``."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[..., Any], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: lr_lambda must be a function, got {lr_lambda!r}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """The last value times ``lr_lambda(epoch)`` at each step."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[..., Any], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: lr_lambda must be a function, got "
                            f"{lr_lambda!r}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        value = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            value = value * self.lr_lambda(epoch)
        return value


def _anneal(kind: str, start: float, end: float, pct: float) -> float:
    if kind == "cos":
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
    return (end - start) * pct + start


class OneCycleLR(LRScheduler):
    """Smith's one cycle: up from ``max_learning_rate / divide_factor`` to the maximum over
    ``phase_pct`` of ``total_steps``, then down to ``end_learning_rate`` (``three_phase``:
    down to the start first, then to the end), by cosine or linear annealing."""

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3,
                 anneal_strategy: str = "cos", three_phase: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"OneCycleLR: phase_pct must be in [0, 1], got {phase_pct!r}")
        self.total_steps = _positive_int(total_steps, "total_steps")
        top = _number(max_learning_rate, "max_learning_rate")
        start, end = top / _number(divide_factor, "divide_factor"), \
            _number(end_learning_rate, "end_learning_rate")
        up = float(phase_pct * total_steps) - 1
        if three_phase:
            self._ends = [0, up, 2 * up, total_steps - 1]
            self._lrs = [(start, top), (top, start), (start, end)]
        else:
            self._ends = [0, up, total_steps - 1]
            self._lrs = [(start, top), (top, end)]
        self.anneal_strategy = anneal_strategy
        super().__init__(start, last_epoch, verbose)

    def get_lr(self) -> float:
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {t} times, past total_steps "
                             f"{self.total_steps}")
        phases = len(self._lrs)
        for i, (lo, hi) in enumerate(self._lrs):
            if t <= self._ends[i + 1] or i == phases - 1:
                pct = (t - self._ends[i]) / (self._ends[i + 1] - self._ends[i])
                return _anneal(self.anneal_strategy, lo, hi, pct)
        raise AssertionError("OneCycleLR: the last phase always answers")


class CyclicLR(LRScheduler):
    """Between ``base_learning_rate`` and ``max_learning_rate`` in triangles of
    ``step_size_up + step_size_down`` steps; ``triangular2`` halves the height each cycle,
    ``exp_range`` scales it by ``exp_gamma ** step``; or a ``scale_fn`` of your own."""

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular",
                 exp_gamma: float = 1.0, scale_fn: Any = None, scale_mode: str = "cycle",
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or "
                             f"'exp_range', got {mode!r}")
        up = _positive_int(step_size_up, "step_size_up")
        down = up if step_size_down is None else _positive_int(step_size_down, "step_size_down")
        self.max_lr = _number(max_learning_rate, "max_learning_rate")
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            self.scale_fn, self.scale_mode = (lambda x: exp_gamma ** x), "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        t = self.last_epoch
        cycle = 1 + t // self.cycle_size
        pct = 1.0 + t / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            factor = pct / self.step_up_pct
        else:
            factor = (1 - pct) / (1 - self.step_up_pct)
        height = (self.max_lr - self.base_lr) * factor
        return self.base_lr + height * self.scale_fn(cycle if self.scale_mode == "cycle" else t)


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when ``metrics`` (given to ``step``) stopped improving
    for more than ``patience`` steps; wait ``cooldown`` steps after each reduction."""

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: int = 0, epsilon: float = 1e-8, verbose: bool = False
                ) -> None:
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max' and threshold_mode "
                             f"'rel' or 'abs', got {mode!r}, {threshold_mode!r}")
        if not factor < 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be less than 1.0, got {factor!r}")
        self.mode, self.threshold_mode = mode, threshold_mode
        self.factor, self.patience = float(factor), int(patience)
        self.threshold, self.cooldown = float(threshold), int(cooldown)
        self.min_lr, self.epsilon = float(min_lr), float(epsilon)
        self.best: float | None = None
        self.cooldown_counter, self.num_bad_epochs = 0, 0
        self.base_lr = self.last_lr = _number(learning_rate, "learning_rate")
        self.last_epoch, self.verbose = 0, verbose

    def step(self, metrics: float, epoch: Any = None) -> None:  # type: ignore[override]  # PaddlePaddle's signature
        """Take ``metrics`` (a number, or a one-value array) for this step."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        current = float(metrics.item() if hasattr(metrics, "item") else metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr

    def _better(self, current: float, best: float) -> bool:
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        return current < best - margin if self.mode == "min" else current > best + margin

    def get_lr(self) -> Any:
        return self.last_lr


class LinearLR(LRScheduler):
    """The rate scaled by a factor that moves linearly from ``start_factor`` to
    ``end_factor`` over ``total_steps`` steps, then stays at ``end_factor``."""

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, last_epoch: int = -1, verbose: bool = False) -> None:
        self.total_steps = _positive_int(total_steps, "total_steps")
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1] and end_factor in "
                             f"[0, 1], got {start_factor} and {end_factor}")
        self.start_factor, self.end_factor = float(start_factor), float(end_factor)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        done = min(max(self.last_epoch, 0), self.total_steps) / self.total_steps
        return self.base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Half a cosine from ``learning_rate`` down to ``eta_min`` over ``T_0`` steps, then a
    restart at the full rate; each cycle ``T_mult`` times longer than the one before (SGDR)."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1, eta_min: float = 0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.T_0 = _positive_int(T_0, "T_0")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, "
                             f"got {T_mult!r}")
        self.T_mult, self.eta_min = T_mult, _number(eta_min, "eta_min")
        self.T_i, self.T_cur = self.T_0, int(last_epoch)
        super().__init__(learning_rate, last_epoch, verbose)

    def step(self, epoch: Any = None) -> None:
        if epoch is None and self.last_epoch >= 0:        # one step on within the cycle
            self.T_cur += 1
            if self.T_cur >= self.T_i:                    # a restart: the next cycle is longer
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:                                             # to step ``epoch`` (0 at the start)
            self._place(0 if epoch is None else epoch)
        super().step(None if epoch is None else epoch)

    def _place(self, epoch: int) -> None:
        """The cycle step ``epoch`` falls in: its length T_i and the position T_cur in it."""
        if epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: epoch must be >= 0, got {epoch}")
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_i, self.T_cur = self.T_0, epoch % self.T_0
        else:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_i = self.T_0 * self.T_mult ** n
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    closed_form_lr = get_lr
