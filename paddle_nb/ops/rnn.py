"""PaddlePaddle's fused ``rnn`` op (LSTM, GRU, RNN_TANH, RNN_RELU) run as step scopes.

``paddle.nn.LSTM``/``GRU``/``SimpleRNN`` write one ``rnn`` op: time-major ``Input``
[T, batch, input], initial states ``PreState`` [layers * directions, batch, hidden]
(h, and c for an LSTM), and ``WeightList``: every (layer, direction)'s W_ih, W_hh
first, then every b_ih, b_hh. Here it runs the way "Design Doc: Block and Scope" describes: for each
layer and direction, each time step gets a kid scope of the running scope
("layer 0 fwd step 2") holding the step's input row, h_prev (and c_prev), the
gates and the new state. The ``Reserve`` output (PaddlePaddle's opaque buffer for
the backward pass) holds those scopes, in the order they ran, until ``rnn_grad``
has read them; they go with the run's scope. With ``SequenceLength``, a step past
a sequence's end keeps its state and writes zeros to ``Out``, as PaddlePaddle does.

It computes the way a one-thread CPU library does (rnn_cells.py): per layer, the input
projection of every step and both directions is one GEMM before the loop, and a step is
one stacked GEMM for both directions plus gate activations in place; the step scopes
hold views of the layer's buffers, made after its loop. The weights are laid out once
per set of weight arrays. A test-mode run (``is_test``) that nobody watches keeps no
step scopes (``RawContext.run_unwatched``): no backward pass reads them, and nobody could
see them; a watched run (the explorer's, a recorded one) has them all.
"""
import numpy

from paddle_nb.core.scope import StepScopes
from paddle_nb.ops.machinery.grad import OpSpec
from paddle_nb.ops.machinery.registry import EMPTY_VAR, Attr, Meta, OpDef, Slot, fail, register
from paddle_nb.ops.rnn_cells import CELLS
from paddle_nb.ops.rnn_layout import gate_buffer, stacked_w_hh, weight_positions, weights_laid_out

__all__ = ["step_layout"]

DIRECTIONS = ("fwd", "bwd")


def _mode_check(mode):
    return None if mode in CELLS else f"expected one of {list(CELLS)}"


def _positive(v):
    return None if v > 0 else "must be > 0"


def _probability(p):
    return None if 0 <= p < 1 else "must be in [0, 1)"


# PaddlePaddle 2.6.2's attributes and defaults of rnn (and rnn_grad, which copies them)
RNN_ATTRS = {
    "mode": Attr("str", "LSTM", _mode_check), "num_layers": Attr("int", 1, _positive),
    "is_bidirec": Attr("bool", False), "hidden_size": Attr("int", 100, _positive),
    "input_size": Attr("int", 10), "dropout_prob": Attr("float", 0.0, _probability),
    "seed": Attr("int", 0, comment="0: the run's generator draws dropout masks"),
    "is_test": Attr("bool", False, comment="True: no dropout"),
}


def step_layout(attrs):
    """(directions, the names one step scope holds, in order) for the op's attributes."""
    cell = CELLS[attrs["mode"]]
    prev = ("x", "h_prev") + (("c_prev",) if cell.has_c else ())
    return (2 if attrs["is_bidirec"] else 1), prev + cell.names


# -- shape inference -------------------------------------------------------------------------------
def _check_shape(slot, shape, want):
    if len(shape) != len(want):
        fail(f"{slot} must have shape {tuple(want)}, got {tuple(shape)}")
    for g, w in zip(shape, want):
        if g != -1 and w != -1 and g != w:
            fail(f"{slot} must have shape {tuple(want)}, got {tuple(shape)}")


def _check_weights(weights, mode, layers, dirs, hidden, input_dim):
    n = layers * dirs
    if len(weights) != 4 * n:
        fail(f"WeightList must hold {4 * n} tensors ({n} layer-directions x W_ih, W_hh, b_ih, "
             f"b_hh) for mode {mode}, got {len(weights)}")
    rows = CELLS[mode].gates * hidden
    for k in range(n):
        width = input_dim if k < dirs else dirs * hidden
        _check_shape(f"WeightList[{2 * k}] (W_ih of layer {k // dirs})", weights[2 * k].shape,
                     (rows, width))
        _check_shape(f"WeightList[{2 * k + 1}] (W_hh of layer {k // dirs})",
                     weights[2 * k + 1].shape, (rows, hidden))
        for j in (2 * n + 2 * k, 2 * n + 2 * k + 1):
            _check_shape(f"WeightList[{j}] (a bias)", weights[j].shape, (rows,))


def _rnn_infer(x, pre_state, weights, seq_len, *, mode, num_layers, is_bidirec, hidden_size,
               input_size, **_):
    if len(x.shape) != 3:
        fail(f"Input must be rank 3 [time, batch, input_size] (time-major), got shape {x.shape}")
    steps, batch, width = x.shape
    if width != -1 and width != input_size:
        fail(f"Input's last dim must equal attribute input_size = {input_size}, got {width} "
             f"(Input shape {x.shape})")
    dirs = 2 if is_bidirec else 1
    wanted_states = 2 if CELLS[mode].has_c else 1
    if len(pre_state) != wanted_states:
        fail(f"PreState must hold {wanted_states} tensors for mode {mode}, got {len(pre_state)}")
    state_shape = (num_layers * dirs, batch, hidden_size)
    for k, s in enumerate(pre_state):
        _check_shape(f"PreState[{k}]", s.shape, state_shape)
    _check_weights(weights, mode, num_layers, dirs, hidden_size, width)
    if seq_len is not None:
        if len(seq_len.shape) != 1 or seq_len.dtype.kind not in "iu":
            fail(f"SequenceLength must be a 1-D int tensor [batch], got {seq_len.dtype}"
                 f"{list(seq_len.shape)}")
        _check_shape("SequenceLength", seq_len.shape, (batch,))
    out = Meta((steps, batch, dirs * hidden_size), x.dtype)
    opaque = Meta((0,), numpy.dtype(numpy.uint8))
    return out, [Meta(state_shape, x.dtype)] * wanted_states, opaque, opaque


# -- the forward pass ------------------------------------------------------------------------------
def _weights(ctx, k, dirs, layers):
    """(W_ih, W_hh, b_ih, b_hh) of layer-direction k."""
    names = ctx.input_names("WeightList")
    return [ctx.tensor(names[j]).array() for j in weight_positions(k, layers * dirs)]


def _alive(ctx, steps):
    """[T, batch, 1] bools: is step t within sequence b? None without SequenceLength."""
    names = ctx.input_names("SequenceLength")
    if not names:
        return None
    xp = ctx.xp
    lengths = ctx.tensor(names[0]).array()
    return (xp.arange(steps)[:, None] < lengths[None, :])[:, :, None]


def _step_masks(xp, alive, dirs):
    """(alive by step [S, D, batch, 1], per step None or where a sequence has ended)."""
    if alive is None:
        return None, None
    by_step = xp.stack([alive, alive[::-1]][:dirs], axis=1)
    ended = ~by_step
    any_ended = ended.any(axis=(1, 2, 3)).tolist()
    return by_step, [e if a else None for e, a in zip(ended, any_ended)]


def _layer_out(xp, hs, alive, dirs):
    """The layer's output [T, batch, D * hidden] from the sweep's h [S, D, batch, hidden]:
    zeros past each sequence's end, as PaddlePaddle writes."""
    steps, _, batch, hidden = hs.shape
    out = xp.empty((steps, batch, dirs * hidden), dtype=hs.dtype)
    for d in range(dirs):
        src, dst = (hs[:, 0] if d == 0 else hs[::-1, 1]), out[:, :, d * hidden:(d + 1) * hidden]
        if alive is None:
            xp.copyto(dst, src)
        else:
            xp.multiply(src, alive, out=dst)
    return out


def _keep_steps(ctx, kept, columns, layout, label, made, reverse):
    """Append one direction's step scopes to ``kept``, in the order its steps ran: step s
    holds the s-th entry of each column (name -> list of arrays, in run order); ``made``:
    the bytes of one step's own values."""
    index = {name: k for k, name in enumerate(layout)}
    rows = zip(*[columns[name] for name in layout])
    steps, new = len(columns["x"]), ctx.new_scope_holding
    times = range(steps - 1, -1, -1) if reverse else range(steps)
    for t, row in zip(times, rows):
        kept.append(new(f"{label} step {t}", index, list(row), made))


def _columns(cell, values, layer_in, h0, c0, masks, drop, d):
    """Direction d's step values as columns in run order: {name: [array per step]}."""
    rows = (lambda a: list(a)) if d == 0 else (lambda a: list(a[::-1]))  # noqa: E731
    cols = {name: list(values[name][:, d]) for name in cell.names}
    cols["x"] = rows(layer_in)
    cols["h_prev"] = [h0[d]] + cols["h"][:-1]
    if c0 is not None:
        cols["c_prev"] = [c0[d]] + cols["c"][:-1]
    if masks is not None:
        cols["mask"] = list(masks[:, d])
    if drop is not None:
        cols["dropout"] = rows(drop)
    return cols


def _dropout(ctx, shape, dtype):
    """Between layers while training: keep each value with probability 1 - p, scaled by
    1 / (1 - p) (PaddlePaddle's upscale_in_train; checked against 2.6.2). None otherwise."""
    p = ctx.attrs["dropout_prob"]
    if p == 0 or ctx.attrs["is_test"]:
        return None
    keep = ctx.generator(ctx.attrs["seed"]).random(shape) >= p
    return ctx.to_device((keep / (1 - p)).astype(dtype))


def _rnn(ctx):
    attrs, xp = ctx.attrs, ctx.xp
    cell, layers = CELLS[attrs["mode"]], attrs["num_layers"]
    dirs, names = step_layout(attrs)
    layer_in = ctx.tensor(ctx.input_names("Input")[0]).array()
    states = [ctx.tensor(n).array() for n in ctx.input_names("PreState")]
    alive = _alive(ctx, layer_in.shape[0])
    masks, dead = _step_masks(xp, alive, dirs)
    names += ("mask",) if alive is not None else ()
    stacked = stacked_w_hh(layer_in.shape[1], states[0].shape[-1])
    layouts = weights_laid_out(ctx, cell, dirs, layers, stacked)
    # a test-mode run nobody watches keeps no step scopes: no rnn_grad reads them, and no one
    # could see them (a watched run, the explorer's, has them all)
    keep = not (attrs["is_test"] and ctx.run_unwatched())
    kept, drop = StepScopes(), None
    finals: tuple[list, list] = ([], [])       # each layer's last h (and c)
    for layer, (w_ih_t, bias, w_hh_t, b_hh) in enumerate(layouts):
        if layer > 0:
            drop = _dropout(ctx, layer_in.shape, layer_in.dtype)
            layer_in = layer_in if drop is None else layer_in * drop
        here = slice(layer * dirs, (layer + 1) * dirs)
        h0, c0 = states[0][here], (states[1][here] if cell.has_c else None)
        g = gate_buffer(xp, layer_in, w_ih_t, bias, dirs)
        values = cell.sweep(xp, g, h0, c0, w_hh_t, b_hh, dead)
        if keep:
            _keep_layer(ctx, kept, cell, values, (layer_in, h0, c0, masks, drop), names, layer)
        finals[0].append(values["h"][-1] if len(g) else h0)
        if c0 is not None:
            finals[1].append(values["c"][-1] if len(g) else c0)
        layer_in = _layer_out(xp, values["h"], alive, dirs)
    _write_outputs(ctx, layer_in, [xp.concatenate(f) for f in finals if f], kept, drop)


def _keep_layer(ctx, kept, cell, values, inputs, names, layer):
    """Append one layer's step scopes to ``kept``: each direction's, in the order they ran.
    ``inputs``: (the layer's input, h0, c0, the step masks, the dropout scale or None)."""
    layer_in, h0, c0, masks, drop = inputs
    layout = names + (("dropout",) if drop is not None else ())
    made = sum([values[name][0, 0].nbytes for name in cell.names]) if len(layer_in) else 0
    for d in range(len(h0)):
        columns = _columns(cell, values, layer_in, h0, c0, masks, drop, d)
        _keep_steps(ctx, kept, columns, layout, f"layer {layer} {DIRECTIONS[d]}", made, d == 1)


def _write_outputs(ctx, out, finals, kept, drop):
    """Out, State, Reserve and DropoutState, each a new array held without a copy."""
    xp, place, out_tensor = ctx.xp, ctx.place, ctx.out_tensor
    out_tensor(ctx.output_names("Out")[0]).hold(out, place)
    for name, values in zip(ctx.output_names("State"), finals):
        out_tensor(name).hold(values, place)
    reserve = ctx.output_names("Reserve")[0]
    (ctx.scope.find_var(reserve) or ctx.scope.var(reserve)).set_value(kept)
    # like PaddlePaddle, the last dropout mask (kept values as 1); empty without dropout
    for name in ctx.output_names("DropoutState"):
        mask = xp.zeros((0,), dtype=xp.uint8) if drop is None else (drop > 0).astype(xp.uint8)
        out_tensor(name).hold(mask, place)


def _rnn_grad_maker(g):
    ins = {slot: g.input(slot) for slot in ("Input", "PreState", "WeightList", "SequenceLength")
           if g.input(slot)}
    ins.update({slot: g.output(slot) for slot in ("Out", "Reserve", "DropoutState")
                if g.output(slot)})
    ins.update({"Out@GRAD": g.output_grad("Out"), "State@GRAD": g.output_grad("State")})
    outs = {f"{slot}@GRAD": g.input_grad(slot) for slot in ("Input", "PreState", "WeightList")}
    return [OpSpec("rnn_grad", ins, outs, dict(g.attrs))]


register(OpDef(
    "rnn", inputs=["Input", Slot("PreState", duplicable=True), Slot("WeightList", duplicable=True),
                   Slot("SequenceLength", dispensable=True,
                        comment="int [batch]: each sequence's length")],
    outputs=["Out", Slot("State", duplicable=True),
             Slot("Reserve", comment="the step scopes, kept for rnn_grad"),
             Slot("DropoutState", dispensable=True)],
    attrs=RNN_ATTRS, infer=_rnn_infer, kernel=_rnn, raw=True, grad=_rnn_grad_maker,
    doc="a multi-layer (bidirectional) LSTM/GRU/simple RNN over time-major Input, one step "
        "scope per layer, direction and time step"))


# -- the backward pass: back through time, reading the step scopes ---------------------------------
def _grad_or_none(ctx, slot, k):
    names = ctx.input_names(slot)
    return ctx.find_array(names[k]) if k < len(names) and names[k] != EMPTY_VAR else None


def _kept_scopes(ctx, count):
    name = ctx.input_names("Reserve")[0]
    var = ctx.scope.find_var(name)
    kept = var.holder_type() if var is not None else None
    if kept is StepScopes and not var.get(StepScopes) and ctx.attrs["is_test"]:
        raise ValueError(f"rnn_grad: the rnn op ran with is_test=True, which keeps no step "
                         f"scopes for a backward pass (Reserve '{name}' is empty); build the "
                         "network in training mode (is_test=False) to take gradients")
    if kept is not StepScopes or len(var.get(StepScopes)) != count:
        raise ValueError(f"rnn_grad: Reserve '{name}' holds no step scopes of this run's rnn op "
                         f"(it holds {kept.__name__ if kept else 'nothing'}); run rnn and "
                         "rnn_grad in the same Executor.run")
    return var.get(StepScopes)


def _back_direction(ctx, cell, scopes, times, weights, d_out, dh, dc):
    """Back through one layer-direction's steps, last first: weight grads, d(input), dh0, dc0.

    ``scopes[s]`` is the step that ran s-th, at time ``times[s]``; ``d_out`` is the
    gradient of this direction's output [T, batch, hidden].
    """
    xp, local_array = ctx.xp, ctx.local_array
    w_ih, w_hh = weights[0], weights[1]
    steps = len(scopes)
    d_xg, d_hg, xs, hs = [None] * steps, [None] * steps, [None] * steps, [None] * steps
    names = ctx.local_names(scopes[0])
    for s in range(steps - 1, -1, -1):
        v, t = {name: local_array(scopes[s], name) for name in names}, times[s]
        dh_new, dc_new, mask = dh + d_out[t], dc, v.get("mask")
        if mask is not None:                 # a finished sequence passes its gradient through
            dh_new, dh_keep = xp.where(mask, dh_new, 0), xp.where(mask, 0, dh)
            if dc is not None:
                dc_new, dc_keep = xp.where(mask, dc, 0), xp.where(mask, 0, dc)
        gx, gh, dh_direct, dc = cell.back(xp, v, dh_new, dc_new)
        dh = gh @ w_hh + (dh_direct if dh_direct is not None else 0)
        if mask is not None:
            dh = dh + dh_keep
            dc = dc + dc_keep if dc is not None else None
        d_xg[t], d_hg[t], xs[t], hs[t] = gx, gh, v["x"], v["h_prev"]
    gx, gh, x, h = xp.stack(d_xg), xp.stack(d_hg), xp.stack(xs), xp.stack(hs)
    grads = [_flat(gx).T @ _flat(x), _flat(gh).T @ _flat(h), gx.sum(axis=(0, 1)),
             gh.sum(axis=(0, 1))]
    d_x = gx @ w_ih
    if "dropout" in names:                   # x was the layer below's output times this
        d_x = d_x * xp.stack([local_array(scopes[s], "dropout") for s in _by_time(times)])
    return grads, d_x, dh, dc


def _by_time(times):
    """The positions of steps run at ``times`` (run order), sorted by time."""
    return sorted(range(len(times)), key=lambda s: times[s])


def _flat(a):
    """[T, batch, n] -> [T * batch, n]: a sum over steps and batch as one matmul."""
    return a.reshape(-1, a.shape[-1])


def _rnn_grad(ctx):
    attrs, xp = ctx.attrs, ctx.xp
    cell, layers = CELLS[attrs["mode"]], attrs["num_layers"]
    dirs, _ = step_layout(attrs)
    x = ctx.tensor(ctx.input_names("Input")[0]).array()
    states = [ctx.tensor(n).array() for n in ctx.input_names("PreState")]
    steps, hidden = x.shape[0], states[0].shape[-1]
    kept = _kept_scopes(ctx, layers * dirs * steps)
    d_out = _grad_or_none(ctx, "Out@GRAD", 0)
    if d_out is None:
        d_out = xp.zeros(x.shape[:2] + (dirs * hidden,), dtype=x.dtype)
    d_final = [_grad_or_none(ctx, "State@GRAD", j) for j in range(len(states))]
    weight_grads = [None] * (4 * layers * dirs)
    pre_grads = [[None] * (layers * dirs) for _ in states]
    for layer in range(layers - 1, -1, -1):
        d_in = 0
        for d in range(dirs):
            k = layer * dirs + d
            dh = _final_grad(xp, d_final[0], states[0], k)
            dc = _final_grad(xp, d_final[1], states[1], k) if cell.has_c else None
            weights = _weights(ctx, k, dirs, layers)
            times = range(steps - 1, -1, -1) if d == 1 else range(steps)
            grads, d_layer_in, dh, dc = _back_direction(
                ctx, cell, kept[k * steps:(k + 1) * steps], times, weights,
                d_out[:, :, d * hidden:(d + 1) * hidden], dh, dc)
            d_in = d_in + d_layer_in
            for j, g in zip(weight_positions(k, layers * dirs), grads):
                weight_grads[j] = g
            pre_grads[0][k] = dh
            if dc is not None:
                pre_grads[1][k] = dc
        d_out = d_in
    _write_grads(ctx, d_out, [xp.stack(p) for p in pre_grads], weight_grads)


def _final_grad(xp, grad, state, k):
    """The gradient reaching layer-direction k's final state (zeros when none was given)."""
    return grad[k] if grad is not None else xp.zeros_like(state[k])


def _write_grads(ctx, d_input, d_pre, d_weights):
    place = ctx.place
    pairs = [(ctx.output_names("Input@GRAD")[:1], [d_input]),
             (ctx.output_names("PreState@GRAD"), d_pre),
             (ctx.output_names("WeightList@GRAD"), d_weights)]
    for names, values in pairs:
        for name, value in zip(names, values):
            if name != EMPTY_VAR:       # (arrays this op made: held, not copied)
                ctx.out_tensor(name).hold(value, place)


register(OpDef(
    "rnn_grad",
    inputs=["Input", Slot("PreState", duplicable=True), Slot("WeightList", duplicable=True),
            Slot("SequenceLength", dispensable=True), "Out", "Reserve",
            Slot("DropoutState", dispensable=True), Slot("Out@GRAD", dispensable=True),
            Slot("State@GRAD", duplicable=True, dispensable=True)],
    outputs=[Slot("Input@GRAD", dispensable=True),
             Slot("PreState@GRAD", duplicable=True, dispensable=True),
             Slot("WeightList@GRAD", duplicable=True, dispensable=True)],
    attrs=RNN_ATTRS, kernel=_rnn_grad, raw=True,
    doc="back through time from the step scopes rnn kept: gradients of Input, PreState and "
        "WeightList"))
