"""Optimizers: the last program transformation, from gradients to parameter updates.

``opt.minimize(loss)`` appends two things to the loss's program: the backward
pass (``append_backward``, which gives ``(param, param@GRAD)`` pairs) and, for
each pair, an update op (``sgd``, ``momentum``, ``adam``...) whose ``ParamOut``
is the parameter itself, so that every run of the program takes one step::

    forward ops ... mean            (op_role forward)
    grad ops    ... fc_0.w_0@GRAD   (op_role backward)
    clip ops, decay ops             (op_role optimize; grad_clip, weight_decay)
    sgd(Param=fc_0.b_0, Grad=fc_0.b_0@GRAD, LearningRate=learning_rate_0)
        -> ParamOut=fc_0.b_0        (op_role optimize; parameters in name order)

What the update must remember between steps (the learning rate, a velocity,
Adam's moments) is held in persistable variables of the global block,
initialized like parameters: by the startup program when ``program_guard``
was given one, otherwise by the main program's preamble, which runs once per
scope. So optimizer state lives in the user's scope next to the parameters.

As PaddlePaddle 2.6 writes it: the learning rate is a 0-D ``learning_rate_N``;
each accumulator is ``{param}_{kind}_N`` (``fc_0.w_0_moment1_0``); pairs are
sorted by parameter name; gradient clipping, then weight decay, then the
updates. A learning-rate scheduler (``paddle.optimizer.lr``) is remembered by
the program (``program.lr_scheduler``), and the Executor writes its current
value into the learning-rate variable before each run.
"""

from __future__ import annotations

import numbers
import weakref
from typing import Any

from paddle_nb.backward import append_backward
from paddle_nb.framework import unique_name
from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.variable import Parameter, Variable
from paddle_nb.ops.machinery.registry import known_product
from paddle_nb.optimizer.master import FLOAT16, new_master
from paddle_nb.regularizer import L2Decay, WeightDecayRegularizer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.program import Program
    from paddle_nb.optimizer.lr import LRScheduler

__all__ = ["Optimizer"]


def _check_learning_rate(learning_rate: Any) -> None:
    """A positive number, a one-value Variable, or a scheduler (anything with ``step`` and
    ``last_lr``, i.e. ``paddle.optimizer.lr.LRScheduler``)."""
    if isinstance(learning_rate, Variable):
        if known_product(learning_rate.shape) not in (1, -1):
            raise ValueError(f"learning_rate: a Variable learning rate must hold one value, "
                             f"got shape {learning_rate.shape}")
    elif hasattr(learning_rate, "step") and hasattr(learning_rate, "last_lr"):
        return
    elif not isinstance(learning_rate, numbers.Real) or isinstance(learning_rate, bool) \
            or not float(learning_rate) > 0:
        raise ValueError(f"learning_rate must be a positive number, an LRScheduler or a "
                         f"Variable, got {learning_rate!r}")


def _regularizer(weight_decay: float | None, label: str) -> Any:
    """``weight_decay`` as a regularizer: a float is an L2Decay coefficient (PaddlePaddle 2.x)."""
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, numbers.Real) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    raise TypeError(f"{label} must be a float (an L2Decay coefficient) or a regularizer such "
                    f"as L2Decay(1e-4), got {weight_decay!r}")


def _flat_parameters(parameters: Any) -> Any:
    """The parameters as a list: ``layer.parameters()``, or param groups (dicts with a
    ``params`` list, no per-group options)."""
    if parameters is None:
        return None
    if isinstance(parameters, WeightDecayRegularizer) or not hasattr(parameters, "__iter__"):
        raise TypeError(f"parameters: expected a list of Parameters (layer.parameters()), got "
                        f"{parameters!r}; a regularizer goes in weight_decay= (or the Fluid-1.8 "
                        "keyword regularization=)")
    flat = []
    for item in parameters:
        if isinstance(item, dict):
            extra = sorted(set(item) - {"params"})
            if extra:
                raise NotImplementedError(
                    f"parameters: paddle_nb takes param groups without per-group options; "
                    f"got {extra}. Make one optimizer per group instead")
            flat.extend(item["params"])
        elif isinstance(item, Parameter):
            flat.append(item)
        else:
            raise TypeError(f"parameters: expected Parameters (layer.parameters()) or param "
                            f"groups, got {item!r}")
    return flat


class Optimizer:
    """Base class: turns ``(param, grad)`` pairs into update ops.

    A subclass names its update op in ``_append_update`` and its state in
    ``_accumulator_specs``; everything else (the learning-rate variable,
    per-parameter learning-rate scales, clipping, weight decay, op roles) is here.
    The Fluid-1.8 keywords ``regularization=`` (constructor) and ``parameter_list=``
    (``minimize``) are still taken; with ``regularization=`` each decay term goes to a
    new ``{grad}@REGULARIZED_N`` variable just before its update, as before.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[3])
    ...     loss = pd.layers.mean(pd.layers.fc(x, 1))
    ...     ops, pairs = pd.optimizer.SGD(learning_rate=0.1).minimize(loss)
    >>> [(op.type, op.input("Param"), op.input("Grad")) for op in ops]
    [('sgd', ['fc_0.b_0'], ['fc_0.b_0@GRAD']), ('sgd', ['fc_0.w_0'], ['fc_0.w_0@GRAD'])]
    """

    keeps_master = False        # True: multi_precision keeps a float32 master weight

    def __init__(self, learning_rate: float | LRScheduler | Variable,
                 parameters: Sequence[Variable | Mapping[Any, Any]] | None = None,
                 weight_decay: float | None = None, grad_clip: Any = None, name: str | None = None,
                 *, regularization: L2Decay | None = None, multi_precision: bool = False) -> None:
        _check_learning_rate(learning_rate)
        if regularization is not None and not isinstance(regularization, WeightDecayRegularizer):
            raise TypeError(f"regularization must be a regularizer such as L2Decay(1e-4), got "
                            f"{regularization!r}")
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError(f"grad_clip must be a paddle.nn.ClipGradBy* object, got {grad_clip!r}")
        self._learning_rate: Any = learning_rate     # a number, an LRScheduler or a Variable
        self._parameter_list = _flat_parameters(parameters)
        self.fluid_decay = regularization is not None     # the Fluid-1.8 way of appending decay
        self.regularization = regularization if regularization is not None else \
            _regularizer(weight_decay, "weight_decay")
        self._grad_clip = grad_clip
        self.multi_precision = bool(multi_precision)
        self.name = name
        # program -> {"lr": var, (acc, param): var}
        self._state: weakref.WeakKeyDictionary[Any, dict[Any, Variable]] = \
            weakref.WeakKeyDictionary()

    # -- the public steps ------------------------------------------------------------------------
    def minimize(self, loss: Variable, startup_program: Program | None = None,
                 parameters: Any = None, no_grad_set: Any = None, parameter_list: Any = None
                ) -> tuple[list[Any], ...]:
        """Append the backward pass and the updates; return ``(update_ops, [(param, grad)])``.

        ``startup_program``, when given, receives the initializers of the
        optimizer's state (otherwise: program_guard's startup program, or the
        main program's preamble). ``parameters`` (or the constructor's) limits
        which parameters are updated.
        """
        if not isinstance(loss, Variable):
            raise TypeError(f"minimize: expected the loss Variable, got {loss!r}")
        chosen = _flat_parameters(parameters if parameters is not None else parameter_list)
        if chosen is None:
            chosen = self._parameter_list
        program = loss.block.program
        with program.initializers_to(startup_program):
            params_grads = append_backward(loss, chosen, no_grad_set)
            optimize_ops = self.apply_gradients(params_grads)
        return optimize_ops, params_grads

    def apply_gradients(self, params_grads: Sequence[tuple[Any, ...]]) -> list[Operator]:
        """Clip, decay, and append one update op per trainable ``(param, grad)`` (in parameter
        name order, as PaddlePaddle does); return the update ops."""
        pairs = sorted(((p, g) for p, g in params_grads
                        if g is not None and getattr(p, "trainable", True)),
                       key=lambda pair: pair[0].name)
        if not pairs:
            return []
        program = pairs[0][0].block.program
        block = program.global_block()
        lr = self._global_learning_rate(program)       # state first: its initializers are
        for param, _ in pairs:                         # not optimize ops
            self._create_accumulators(program, param)
        with program.role_guard(OpRole.OPTIMIZE):
            if self._grad_clip is not None:
                pairs = list(self._grad_clip(pairs))
            extra = {}          # PaddlePaddle 2.x: every decay term before the first update
            if not self.fluid_decay:
                extra = {p.name: self._regularize(block, p, g, in_place=True)[1] for p, g in pairs}
            ops = [self._update_one(block, param, grad, lr, extra) for param, grad in pairs]
            self._finish_update(block, pairs)
        return ops

    def _update_one(self, block: Any, param: Parameter, grad: Variable, lr: Variable, extra: Any
                   ) -> Any:
        """The update op of one parameter (after its decay ops, the Fluid-1.8 way)."""
        attrs = extra.get(param.name, {})
        if self.fluid_decay:
            grad, attrs = self._regularize(block, param, grad, in_place=False)
        attrs["op_role_var"] = [param.name, grad.name]
        return self._append_update(block, param, grad, self._param_lr(block, param, lr), attrs)

    def step(self) -> Any:
        """PaddlePaddle's dygraph step: not in static mode."""
        raise RuntimeError(f"{type(self).__name__}.step() works in dynamic mode only; paddle_nb "
                           "runs static programs: call minimize(loss) while building, then run "
                           "the program with an Executor")

    def clear_grad(self, set_to_zero: bool = True) -> Any:
        """PaddlePaddle's dygraph clear_grad: not in static mode."""
        raise RuntimeError(f"{type(self).__name__}.clear_grad() works in dynamic mode only; in "
                           "a static program each run computes fresh gradients")

    clear_gradients = clear_grad

    def get_lr(self) -> float:
        """The learning rate now: a scheduler's current value, or the float given."""
        if hasattr(self._learning_rate, "last_lr"):
            return float(self._learning_rate())
        if isinstance(self._learning_rate, Variable):
            raise TypeError("get_lr: the learning rate is a Variable; read its value from the "
                            "scope after a run")
        return float(self._learning_rate)

    # -- the learning rate -----------------------------------------------------------------------
    def _global_learning_rate(self, program: Any) -> Variable:
        """The program's learning-rate variable (a 0-D ``learning_rate_0``), made on first use.
        A scheduler's is remembered by the program, whose Executor refreshes it each run."""
        state = self._state.setdefault(program, {})
        if "lr" not in state:
            if isinstance(self._learning_rate, Variable):
                state["lr"] = self._learning_rate
                return state["lr"]
            scheduled = hasattr(self._learning_rate, "last_lr")
            value = self._learning_rate() if scheduled else self._learning_rate
            state["lr"] = self._persistable(program, unique_name.generate("learning_rate"),
                                            (), "float32", float(value))
            if scheduled:
                program.lr_scheduler = self._learning_rate
                program.lr_var_name = state["lr"].name
        return state["lr"]

    def _param_lr(self, block: Any, param: Parameter, lr: Variable) -> Variable:
        """``lr`` times the parameter's own scale (``ParamAttr(learning_rate=...)``)."""
        scale = float(param.optimize_attr.get("learning_rate", 1.0))
        if scale == 1.0:
            return lr
        scaled = block.create_var(name=unique_name.generate(f"{param.name}.learning_rate"),
                                  shape=lr.shape, dtype=lr.dtype)
        # PaddlePaddle marks it a learning-rate op of the optimizer (op_role 0x12)
        with block.program.role_guard(OpRole.LRSCHED | OpRole.OPTIMIZE):
            block.append_op("scale", inputs={"X": lr}, outputs={"Out": scaled},
                            attrs={"scale": scale})
        return scaled

    # -- state -----------------------------------------------------------------------------------
    def _accumulator_specs(self, param: Variable) -> Any:
        """``[(name, shape, fill_value)]``: the state this optimizer keeps per parameter, of
        the parameter's dtype; ``(name, shape, fill_value, dtype)`` names another."""
        return []

    def _create_accumulators(self, program: Any, param: Variable) -> None:
        state = self._state.setdefault(program, {})
        # the master weight first, and the state named after it, as PaddlePaddle 2.6 makes them
        # (a master weight is made from its parameter by a startup program; a preamble runs
        # only initializers that read nothing, so without one there is no master weight)
        owner = self.master(param)
        if owner is None and self.keeps_master and self.multi_precision and \
                param.dtype == FLOAT16 and program.startup_program is not None:
            owner = state[("master", param.name)] = new_master(program, param)
        owner = owner or param
        for name, shape, fill, *dtype in self._accumulator_specs(param):
            if (name, param.name) not in state:
                var_name = unique_name.generate(f"{owner.name}_{name}")
                state[(name, param.name)] = self._persistable(
                    program, var_name, shape, dtype[0] if dtype else owner.dtype, fill)

    def master(self, param: Variable) -> Variable | None:
        """The float32 master weight of a float16 ``param`` (``multi_precision``), or None."""
        return self._state.get(param.block.program, {}).get(("master", param.name))

    def master_slots(self, param: Variable, ins: dict[str, Any], outs: dict[str, Any]
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``ins`` / ``outs`` of an update op, with ``MasterParam`` / ``MasterParamOut`` when
        ``param`` has a master weight."""
        master = self.master(param)
        if master is not None:
            ins["MasterParam"], outs["MasterParamOut"] = master, master
        return ins, outs

    def accumulator(self, name: str, param: Variable) -> Variable:
        """The state variable ``name`` (``"moment1"``) this optimizer keeps for ``param``."""
        return self._state[param.block.program][(name, param.name)]

    @staticmethod
    def _persistable(program: Any, name: str, shape: Any, dtype: Any, value: float) -> Variable:
        """A persistable variable of the global block, initialized to ``value`` like a parameter."""
        var = program.global_block().create_var(name=name, shape=shape, dtype=dtype,
                                                persistable=True, stop_gradient=True)
        program.initialize(var, Constant(value))
        return var

    # -- weight decay ------------------------------------------------------------------------------
    def regularizer_of(self, param: Variable) -> WeightDecayRegularizer | None:
        """A parameter's own regularizer wins over the optimizer's."""
        return getattr(param, "regularizer", None) or self.regularization

    def _regularize(self, block: Any, param: Variable, grad: Variable, in_place: bool) -> Any:
        """The gradient with its decay term added (summed into ``grad`` itself when
        ``in_place``, as PaddlePaddle 2.x writes it), and extra attrs for the update op."""
        regularizer = self.regularizer_of(param)
        if regularizer is not None:
            grad = regularizer.append_ops(block, param, grad, in_place=in_place)
        return grad, {}

    # -- per-parameter ops -------------------------------------------------------------------------
    def _append_update(self, block: Any, param: Any, grad: Any, lr: Any, attrs: Any) -> Any:
        raise NotImplementedError

    def _finish_update(self, block: Any, pairs: Any) -> None:
        """Ops after all the updates (Adamax advances its beta1 powers here)."""

    def __repr__(self) -> Any:
        return f"{type(self).__name__}(learning_rate={self._learning_rate!r})"
