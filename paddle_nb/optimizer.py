"""Optimizers: the last program transformation, from gradients to parameter updates.

``opt.minimize(loss)`` appends two things to the loss's program: the backward
pass (``append_backward``, which gives ``(param, param@GRAD)`` pairs) and, for
each pair, an update op (``sgd``, ``momentum``, ``adam``) whose ``ParamOut``
is the parameter itself, so that every run of the program takes one step::

    forward ops ... mean            (op_role forward)
    grad ops    ... fc_0.w_0@GRAD   (op_role backward)
    sgd(Param=fc_0.w_0, Grad=fc_0.w_0@GRAD, LearningRate=learning_rate_0)
        -> ParamOut=fc_0.w_0        (op_role optimize)

What the update needs to remember between steps (the learning rate, a
velocity, Adam's moments) is held in persistable variables of the global
block, initialized like parameters: by the startup program when
``program_guard`` was given one, otherwise by the main program's preamble,
which runs once per scope. So optimizer state lives in the user's scope next
to the parameters, and a later run never re-initializes it.
"""

import numbers
import weakref

from paddle_nb.backward import append_backward
from paddle_nb.framework.initializer import Constant
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.variable import Variable
from paddle_nb.ops.registry import known_product
from paddle_nb.regularizer import L2Decay, WeightDecayRegularizer

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "SGDOptimizer", "MomentumOptimizer",
           "AdamOptimizer"]


class Optimizer:
    """Base class: turns ``(param, grad)`` pairs into update ops.

    A subclass names its update op in ``_append_update`` and its state in
    ``_accumulator_specs``; everything else (the learning-rate variable,
    per-parameter learning-rate scales, regularization, op roles) is here.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[3])
    ...     loss = pd.layers.mean(pd.layers.fc(x, 1))
    ...     ops, pairs = pd.optimizer.SGD(learning_rate=0.1).minimize(loss)
    >>> [(op.type, op.input("Param"), op.input("Grad"), op.output("ParamOut")) for op in ops]
    [('sgd', ['fc_0.w_0'], ['fc_0.w_0@GRAD'], ['fc_0.w_0']), ('sgd', ['fc_0.b_0'], ['fc_0.b_0@GRAD'], ['fc_0.b_0'])]
    """

    def __init__(self, learning_rate, regularization=None, name=None):
        if isinstance(learning_rate, Variable):
            if known_product(learning_rate.shape) not in (1, -1):
                raise ValueError(f"learning_rate: a Variable learning rate must hold one value, "
                                 f"got shape {learning_rate.shape}")
        elif not isinstance(learning_rate, numbers.Real) or isinstance(learning_rate, bool) \
                or not learning_rate > 0:
            raise ValueError(f"learning_rate must be a positive number or a Variable, got "
                             f"{learning_rate!r}")
        if regularization is not None and not isinstance(regularization, WeightDecayRegularizer):
            raise TypeError(f"regularization must be a regularizer such as L2Decay(1e-4), got "
                            f"{regularization!r}")
        self._learning_rate = learning_rate
        self.regularization = regularization
        self.name = name
        self._state = weakref.WeakKeyDictionary()   # program -> {"lr": var, (acc, param): var}

    # -- the public steps ------------------------------------------------------------------------
    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """Append the backward pass and the updates; return ``(update_ops, [(param, grad)])``.

        ``startup_program``, when given, receives the initializers of the
        optimizer's state (otherwise: program_guard's startup program, or the
        main program's preamble).
        """
        if not isinstance(loss, Variable):
            raise TypeError(f"minimize: expected the loss Variable, got {loss!r}")
        program = loss.block.program
        with program.initializers_to(startup_program):
            params_grads = append_backward(loss, parameter_list, no_grad_set)
            optimize_ops = self.apply_gradients(params_grads)
        return optimize_ops, params_grads

    def apply_gradients(self, params_grads):
        """Append regularization and one update op per trainable ``(param, grad)``; return the
        update ops."""
        pairs = [(p, g) for p, g in params_grads if g is not None and getattr(p, "trainable", True)]
        if not pairs:
            return []
        program = pairs[0][0].block.program
        block = program.global_block()
        lr = self._global_learning_rate(program)       # state first: its initializers are
        for param, _ in pairs:                         # not optimize ops
            self._create_accumulators(program, param)
        ops = []
        with program.role_guard(OpRole.OPTIMIZE):
            for param, grad in pairs:
                grad, attrs = self._regularize(block, param, grad)
                attrs["op_role_var"] = [param.name, grad.name]
                ops.append(self._append_update(block, param, grad, self._param_lr(block, param, lr),
                                               attrs))
        return ops

    # -- the learning rate -----------------------------------------------------------------------
    def _global_learning_rate(self, program):
        """The program's learning-rate variable (``learning_rate_0``), made on first use."""
        state = self._state.setdefault(program, {})
        if "lr" not in state:
            if isinstance(self._learning_rate, Variable):
                state["lr"] = self._learning_rate
            else:
                state["lr"] = self._persistable(program, program.unique_name("learning_rate"),
                                                (1,), "float32", float(self._learning_rate))
        return state["lr"]

    def _param_lr(self, block, param, lr):
        """``lr`` times the parameter's own scale (``ParamAttr(learning_rate=...)``)."""
        scale = float(param.optimize_attr.get("learning_rate", 1.0))
        if scale == 1.0:
            return lr
        scaled = block.create_var(name=block.program.unique_name(f"{param.name}.learning_rate"),
                                  shape=lr.shape, dtype=lr.dtype)
        block.append_op("scale", inputs={"X": lr}, outputs={"Out": scaled}, attrs={"scale": scale})
        return scaled

    # -- state -----------------------------------------------------------------------------------
    def _accumulator_specs(self, param):
        """``[(name, shape, fill_value)]``: the state this optimizer keeps per parameter."""
        return []

    def _create_accumulators(self, program, param):
        state = self._state.setdefault(program, {})
        for name, shape, fill in self._accumulator_specs(param):
            if (name, param.name) not in state:
                var_name = program.unique_name(f"{param.name}_{name}")
                state[(name, param.name)] = self._persistable(program, var_name, shape,
                                                              param.dtype, fill)

    def _accumulator(self, name, param):
        return self._state[param.block.program][(name, param.name)]

    @staticmethod
    def _persistable(program, name, shape, dtype, value):
        """A persistable variable of the global block, initialized to ``value`` like a parameter."""
        var = program.global_block().create_var(name=name, shape=shape, dtype=dtype,
                                                persistable=True, stop_gradient=True)
        program.initialize(var, Constant(value))
        return var

    # -- per-parameter ops -------------------------------------------------------------------------
    def _regularizer_of(self, param):
        return getattr(param, "regularizer", None) or self.regularization

    def _regularize(self, block, param, grad):
        """The gradient with its decay term added, and extra attrs for the update op."""
        regularizer = self._regularizer_of(param)
        if regularizer is not None:
            grad = regularizer.append_ops(block, param, grad)
        return grad, {}

    def _append_update(self, block, param, grad, lr, attrs):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self._learning_rate!r})"


class SGD(Optimizer):
    """``param -= learning_rate * grad`` (the ``sgd`` op)."""

    def __init__(self, learning_rate, regularization=None, name=None):
        super().__init__(learning_rate, regularization, name)

    def _append_update(self, block, param, grad, lr, attrs):
        return block.append_op("sgd", inputs={"Param": param, "Grad": grad, "LearningRate": lr},
                               outputs={"ParamOut": param}, attrs=attrs)


class Momentum(Optimizer):
    """``velocity = momentum * velocity + grad; param -= learning_rate * velocity``.

    The velocity is a persistable ``{param}_velocity_0``, zero at first. An
    L2Decay is folded into the ``momentum`` op's own attributes
    (``regularization_method="l2_decay"``), as PaddlePaddle does; other
    regularizers append their ops.
    """

    def __init__(self, learning_rate, momentum, use_nesterov=False, regularization=None,
                 name=None):
        super().__init__(learning_rate, regularization, name)
        if not isinstance(momentum, numbers.Real) or not 0 <= momentum < 1:
            raise ValueError(f"momentum must be a number in [0, 1), got {momentum!r}")
        self._momentum = float(momentum)
        self._use_nesterov = bool(use_nesterov)

    def _accumulator_specs(self, param):
        return [("velocity", param.shape, 0.0)]

    def _regularize(self, block, param, grad):
        regularizer = self._regularizer_of(param)
        if type(regularizer) is L2Decay:
            return grad, {"regularization_method": "l2_decay",
                          "regularization_coeff": regularizer.coeff}
        return super()._regularize(block, param, grad)

    def _append_update(self, block, param, grad, lr, attrs):
        velocity = self._accumulator("velocity", param)
        attrs.update(mu=self._momentum, use_nesterov=self._use_nesterov)
        return block.append_op(
            "momentum",
            inputs={"Param": param, "Grad": grad, "Velocity": velocity, "LearningRate": lr},
            outputs={"ParamOut": param, "VelocityOut": velocity}, attrs=attrs)


class Adam(Optimizer):
    """Adam (Kingma and Ba): steps scaled by running means of the gradient and its square.

    State per parameter: ``{param}_moment1_0`` and ``{param}_moment2_0`` (zeros),
    ``{param}_beta1_pow_acc_0`` and ``{param}_beta2_pow_acc_0`` (beta1 and beta2:
    beta ** step for the first step; the ``adam`` op multiplies them by beta
    after each step).
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 regularization=None, name=None, lazy_mode=False):
        super().__init__(learning_rate, regularization, name)
        for label, beta in (("beta1", beta1), ("beta2", beta2)):
            if not isinstance(beta, numbers.Real) or not 0 <= beta < 1:
                raise ValueError(f"{label} must be a number in [0, 1), got {beta!r}")
        if not isinstance(epsilon, numbers.Real) or not epsilon > 0:
            raise ValueError(f"epsilon must be a positive number, got {epsilon!r}")
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)
        self._lazy_mode = bool(lazy_mode)

    def _accumulator_specs(self, param):
        return [("moment1", param.shape, 0.0), ("moment2", param.shape, 0.0),
                ("beta1_pow_acc", (1,), self._beta1), ("beta2_pow_acc", (1,), self._beta2)]

    def _append_update(self, block, param, grad, lr, attrs):
        acc = {name: self._accumulator(name, param)
               for name in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")}
        attrs.update(beta1=self._beta1, beta2=self._beta2, epsilon=self._epsilon,
                     lazy_mode=self._lazy_mode)
        return block.append_op(
            "adam",
            inputs={"Param": param, "Grad": grad, "LearningRate": lr,
                    "Moment1": acc["moment1"], "Moment2": acc["moment2"],
                    "Beta1Pow": acc["beta1_pow_acc"], "Beta2Pow": acc["beta2_pow_acc"]},
            outputs={"ParamOut": param, "Moment1Out": acc["moment1"],
                     "Moment2Out": acc["moment2"], "Beta1PowOut": acc["beta1_pow_acc"],
                     "Beta2PowOut": acc["beta2_pow_acc"]},
            attrs=attrs)


SGDOptimizer, MomentumOptimizer, AdamOptimizer = SGD, Momentum, Adam   # fluid's longer names


