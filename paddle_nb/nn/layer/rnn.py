"""Recurrent layers of paddle.nn: the cells (SimpleRNNCell, LSTMCell, GRUCell), called on one
time step, and the layers (SimpleRNN, LSTM, GRU) that run whole sequences through
PaddlePaddle's fused ``rnn`` op (paddle_nb/ops/rnn.py runs it as step scopes).

A cell holds ``weight_ih`` [gates * hidden, input], ``weight_hh`` [gates * hidden, hidden],
``bias_ih`` and ``bias_hh`` (``lstm_cell_0.w_0``, ``.w_1``, ``.b_0``, ``.b_1``), all uniform
in +-1/sqrt(hidden); one step is two ``matmul_v2`` (transposed weights), bias additions and
the gates' activations, as PaddlePaddle 2.6 writes it. A layer makes one cell per layer and
direction, registered again under PaddlePaddle's names (``weight_ih_l0``,
``bias_hh_l1_reverse``: the names its state dict uses), a flat parameter ``lstm_0.w_0`` that
the startup program's ``coalesce_tensor`` packs every weight into, and one ``rnn`` op between
two ``transpose2`` (unless ``time_major``).

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> main, startup = pd.Program(), pd.Program()
>>> with unique_name.guard(), pd.program_guard(main, startup):
...     x = pd.layers.data("x", [2, 5, 3], append_batch_size=False)
...     out, (h, c) = LSTM(3, 4, direction="bidirect")(x)
>>> [op.type for op in main.global_block().ops], out.shape, h.shape
(['fill_constant', 'fill_constant', 'transpose2', 'rnn', 'transpose2'], (2, 5, 8), (2, 2, 4))
>>> [op.type for op in startup.global_block().ops][-2:]
['fill_constant', 'coalesce_tensor']
"""

from __future__ import annotations

import math

from paddle_nb.framework import unique_name
from paddle_nb.framework.context import default_main_program, default_startup_program
from paddle_nb.framework.initializer import Constant, Uniform
from paddle_nb.nn.functional import compose
from paddle_nb.nn.layer.container import LayerList
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU", "RNN", "BiRNN",
           "RNNCellBase"]


def zero_states(ref: Tensor, shapes: Sequence[list[Any]], batch_dim: int,
                dtype: DTypeLike = "float32") -> list[Tensor]:
    """Zeros of each of ``shapes``, whose -1 is ``ref``'s batch size (dimension ``batch_dim``
    of ``ref``): ``fill_constant``s, reading that size at run time (``shape``, ``slice``) when
    it is unknown when building, as PaddlePaddle 2.6 does."""
    batch = ref.shape[batch_dim]
    if batch >= 0:
        return [compose.full([batch if d == -1 else d for d in shape], 0.0, dtype)
                for shape in shapes]
    size, = compose.dims_of(ref, [batch_dim])
    return [compose.full_dims([size if d == -1 else d for d in shape], 0.0, dtype)
            for shape in shapes]


class RNNCellBase(Layer):
    """A cell's parameters: W_ih, W_hh, b_ih, b_hh for ``gates`` gates of ``hidden_size``."""

    gates = 1

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None, bias_hh_attr: Any = None
                ) -> None:
        super().__init__()
        if hidden_size <= 0:
            raise compose.argument_error(
                f"{type(self).__name__}: hidden_size must be > 0, got {hidden_size}")
        self.input_size, self.hidden_size = input_size, hidden_size
        init = Uniform(-1.0 / math.sqrt(hidden_size), 1.0 / math.sqrt(hidden_size))
        rows = self.gates * hidden_size
        self.weight_ih = self.create_parameter([rows, input_size], weight_ih_attr,
                                               default_initializer=init)
        self.weight_hh = self.create_parameter([rows, hidden_size], weight_hh_attr,
                                               default_initializer=init)
        self.bias_ih = self.create_parameter([rows], bias_ih_attr, is_bias=True,
                                             default_initializer=init)
        self.bias_hh = self.create_parameter([rows], bias_hh_attr, is_bias=True,
                                             default_initializer=init)

    def _projections(self, inputs: Tensor, h: Tensor) -> Any:
        """(x @ W_ih^T + b_ih, h @ W_hh^T) with PaddlePaddle's op order and names."""
        i2h = compose.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            i2h = compose.operator("elementwise_add", i2h, self.bias_ih)
        return i2h, compose.matmul(h, self.weight_hh, transpose_y=True)

    def _zeros(self, inputs: Tensor, count: int = 1) -> Any:
        return zero_states(inputs, [[-1, self.hidden_size]] * count, 0, inputs.dtype)

    def extra_repr(self) -> Any:
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(RNNCellBase):
    """``h = act(x @ W_ih^T + b_ih + h_prev @ W_hh^T + b_hh)``, act tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, name: str | None = None) -> None:
        if activation not in ("tanh", "relu"):
            raise compose.argument_error(f"SimpleRNNCell: activation must be 'tanh' or 'relu', got "
                             f"{activation!r}")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr)
        self.activation = activation

    @property
    def state_shape(self) -> Any:
        return (self.hidden_size,)

    def forward(self, inputs: Tensor, states: Any = None) -> tuple[Tensor, ...]:
        h_prev = self._zeros(inputs)[0] if states is None else states
        i2h, h2h = self._projections(inputs, h_prev)
        if self.bias_hh is not None:
            h2h = compose.operator("elementwise_add", h2h, self.bias_hh)
        h = compose.unary(self.activation, compose.operator("elementwise_add", i2h, h2h))
        return h, h


class LSTMCell(RNNCellBase):
    """Gates i, f, g, o from ``x @ W_ih^T + b_ih + h_prev @ W_hh^T + b_hh``;
    ``c = f * c_prev + i * tanh(g)``, ``h = o * tanh(c)``. States are (h, c)."""

    gates = 4

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None, bias_hh_attr: Any = None,
                 proj_size: int = 0, name: str | None = None) -> None:
        if proj_size:
            raise compose.not_available("LSTMCell: proj_size is not available in paddle_nb; "
                                      "project h with a Linear layer instead")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self) -> Any:
        return ((self.hidden_size,), (self.hidden_size,))

    def forward(self, inputs: Tensor, states: Any = None) -> tuple[Tensor | tuple[Any, ...], ...]:
        if states is None:
            states = self._zeros(inputs, 2)
        h_prev, c_prev = states
        i2h, h2h = self._projections(inputs, h_prev)
        gates = compose.operator("elementwise_add", i2h, h2h)
        if self.bias_hh is not None:
            gates = compose.operator("elementwise_add", gates, self.bias_hh)
        i, f, g, o = compose.split(gates, 4, len(gates.shape) - 1)
        i, f, o = (compose.unary("sigmoid", t) for t in (i, f, o))
        kept = compose.operator("elementwise_mul", f, c_prev)
        c = compose.operator("elementwise_add", kept,
                             compose.operator("elementwise_mul", i, compose.unary("tanh", g)))
        h = compose.operator("elementwise_mul", o, compose.unary("tanh", c))
        return h, (h, c)


class GRUCell(RNNCellBase):
    """Reset r and update z gates; ``c = tanh(x_c + r * (h_prev @ W_hc^T + b_hc))``,
    ``h = (h_prev - c) * z + c``."""

    gates = 3

    @property
    def state_shape(self) -> Any:
        return (self.hidden_size,)

    def forward(self, inputs: Tensor, states: Tensor | None = None) -> tuple[Tensor, ...]:
        h_prev = self._zeros(inputs)[0] if states is None else states
        x_gates, h_gates = self._projections(inputs, h_prev)
        if self.bias_hh is not None:
            h_gates = compose.operator("elementwise_add", h_gates, self.bias_hh)
        axis = len(x_gates.shape) - 1
        x_r, x_z, x_c = compose.split(x_gates, 3, axis)
        h_r, h_z, h_c = compose.split(h_gates, 3, axis)
        r = compose.unary("sigmoid", compose.operator("elementwise_add", x_r, h_r))
        z = compose.unary("sigmoid", compose.operator("elementwise_add", x_z, h_z))
        c = compose.unary("tanh", compose.operator(
            "elementwise_add", x_c, compose.operator("elementwise_mul", r, h_c)))
        moved = compose.operator("elementwise_mul",
                                 compose.operator("elementwise_sub", h_prev, c), z)
        h = compose.operator("elementwise_add", moved, c)
        return h, h


class RNN(Layer):
    """Not available: PaddlePaddle 2.6 unrolls a cell with a ``while`` loop over tensor arrays
    (``write_to_array``, ``tensor_array_to_tensor``), which paddle_nb does not have."""

    def __init__(self, cell: Any, is_reverse: bool = False, time_major: bool = False) -> None:
        raise compose.not_available(
            "paddle.nn.RNN (a cell run over a sequence) is not available in paddle_nb: "
            "PaddlePaddle builds it from a while loop over tensor arrays. Use nn.SimpleRNN, "
            "nn.LSTM or nn.GRU (one fused rnn op), or call the cell on each step yourself")


class BiRNN(Layer):
    """Not available, for the reason RNN is not (see RNN)."""

    def __init__(self, cell_fw: Any, cell_bw: Any, time_major: bool = False) -> None:
        raise compose.not_available(
            "paddle.nn.BiRNN is not available in paddle_nb: PaddlePaddle builds it from while "
            "loops over tensor arrays. Use nn.SimpleRNN, nn.LSTM or nn.GRU with "
            "direction='bidirect'")


class _Directions(Layer):
    """The holder of one layer's cells: ``cell`` (one direction) or ``cell_fw`` and ``cell_bw``,
    as PaddlePaddle's RNN and BiRNN wrappers hold them (and counted under their names, ``rnn_N``
    and ``bi_rnn_N``, so the names that follow are PaddlePaddle's)."""

    def __init__(self, cells: Sequence[GRUCell | LSTMCell | SimpleRNNCell]) -> None:
        super().__init__(name_scope="rnn" if len(cells) == 1 else "bi_rnn")
        if len(cells) == 1:
            self.cell = cells[0]
        else:
            self.cell_fw, self.cell_bw = cells


class RNNBase(LayerList):
    """The layers over whole sequences: a LayerList of one ``_Directions`` per layer, a flat
    parameter the startup program packs every weight into, and one ``rnn`` op per call.

    ``forward(inputs, initial_states=None, sequence_length=None)`` takes ``inputs``
    [batch, time, input] ([time, batch, input] when ``time_major``) and returns
    ``(outputs, final_states)``: outputs [batch, time, directions * hidden]; final states
    [num_layers * directions, batch, hidden] (a pair (h, c) for LSTM).
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int,
                 direction: str, time_major: bool, dropout: float, attrs: Sequence[None],
                 make_cell: Callable[..., Any] | type) -> None:
        super().__init__()
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise compose.argument_error(f"{type(self).__name__}: direction must be 'forward' or "
                             f"'bidirect', got {direction!r}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = 1 if direction == "forward" else 2
        self.state_components = 2 if mode == "LSTM" else 1
        cells = []
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * self.num_directions
            pair = [make_cell(width, hidden_size, *attrs) for _ in range(self.num_directions)]
            cells += pair
            self.append(_Directions(pair))
            for cell, suffix in zip(pair, ("", "_reverse")):
                for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    self.add_parameter(f"{kind}_l{layer}{suffix}", getattr(cell, kind))
        self._all_weights = ([w for c in cells for w in (c.weight_ih, c.weight_hh)]
                             + [b for c in cells for b in (c.bias_ih, c.bias_hh)])
        self._flat_weight = [self._pack(self._all_weights)]

    def _pack(self, weights: Any) -> Tensor:
        """The flat parameter ``<layer>.w_0`` and the startup program's ``coalesce_tensor``
        that copies every weight into it (PaddlePaddle keeps them in one buffer)."""
        total = sum(math.prod(w.shape) for w in weights)
        flat = self.create_parameter([total], default_initializer=Constant(0.0))
        startup = default_startup_program().global_block()
        startup.append_op("coalesce_tensor", inputs={"Input": weights},
                          outputs={"Output": weights, "FusedOutput": flat},
                          attrs={"copy_data": True, "use_align": False, "dtype": flat.dtype})
        return flat

    def forward(self, inputs: Tensor, initial_states: Any = None,
                sequence_length: Tensor | None = None) -> tuple[Tensor | tuple[Any, ...], ...]:
        batch_dim = 1 if self.time_major else 0
        if initial_states is None:
            shape = [self.num_layers * self.num_directions, -1, self.hidden_size]
            initial_states = zero_states(inputs, [shape] * self.state_components, batch_dim,
                                         inputs.dtype)
        elif self.state_components == 1 and not isinstance(initial_states, (list, tuple)):
            initial_states = [initial_states]
        x = inputs if self.time_major else compose.transpose(inputs, [1, 0, 2])
        out, states = self._rnn_op(x, list(initial_states), sequence_length)
        if not self.time_major:
            out = compose.transpose(out, [1, 0, 2])
        return out, (tuple(states) if self.state_components == 2 else states[0])

    def _rnn_op(self, x: Tensor, states: Any, sequence_length: Tensor | None) -> Any:
        block = default_main_program().current_block()
        full = self.full_name()
        names = [unique_name.generate(f"{full}.tmp") for _ in range(len(states) + 2)]
        out, state_names, reserve = names[0], names[1:-1], names[-1]
        inputs = {"Input": x, "PreState": states, "WeightList": self._all_weights}
        if sequence_length is not None:
            inputs["SequenceLength"] = sequence_length
        block.append_op("rnn", inputs=inputs, outputs={
            "Out": out, "State": state_names, "Reserve": reserve,
            "DropoutState": f"{full}.dropout_state__non_persistable"}, attrs={
            "mode": self.mode, "num_layers": self.num_layers, "hidden_size": self.hidden_size,
            "input_size": self.input_size, "is_bidirec": self.num_directions == 2,
            "dropout_prob": float(self.dropout), "is_test": not self.training, "seed": 0})
        return block.var(out), [block.var(n) for n in state_names]

    def extra_repr(self) -> Any:
        return f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}"


class SimpleRNN(RNNBase):
    """A stack of SimpleRNNCells over whole sequences: one ``rnn`` op (RNN_TANH or RNN_RELU)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 activation: str = "tanh", weight_ih_attr: Any = None, weight_hh_attr: Any = None,
                 bias_ih_attr: Any = None, bias_hh_attr: Any = None, name: str | None = None
                ) -> None:
        if activation not in ("tanh", "relu"):
            raise compose.argument_error(
                f"SimpleRNN: activation must be 'tanh' or 'relu', got {activation!r}")
        super().__init__("RNN_" + activation.upper(), input_size, hidden_size, num_layers,
                         direction, time_major, dropout,
                         (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr),
                         lambda i, h, *attrs: SimpleRNNCell(i, h, activation, *attrs))


class LSTM(RNNBase):
    """A stack of LSTMCells over whole sequences: one ``rnn`` op (LSTM); states (h, c)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, proj_size: int = 0, name: str | None = None) -> None:
        if proj_size:
            raise compose.not_available("LSTM: proj_size is not available in paddle_nb")
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr),
                         LSTMCell)


class GRU(RNNBase):
    """A stack of GRUCells over whole sequences: one ``rnn`` op (GRU)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, name: str | None = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr),
                         GRUCell)
