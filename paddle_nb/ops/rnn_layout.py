"""How the ``rnn`` op's weights and gate buffer are laid out for its sweep (rnn_cells.py).

PaddlePaddle's ``WeightList`` holds each layer-direction's W_ih [gates * hidden, width],
W_hh [gates * hidden, hidden], b_ih and b_hh, gate blocks in its order. A layer's sweep
wants both directions side by side: W_ih^T of both as one GEMM's right operand (every
step's input projection in one product), W_hh^T per gate or stacked per direction (one
product a step), the biases that can be added before the loop folded into one, the gate
blocks in the cell's order. That layout is made once per set of weight arrays and kept
(a small cache keyed on the op and its weight names, checked by the arrays' identity; never
for an array ``mutable_data`` handed out, whose values may change in place:
``core.tensor.written_in_place``).
"""

import operator

from paddle_nb.core.tensor import written_in_place

__all__ = ["gate_buffer", "stacked_w_hh", "weights_laid_out", "weight_positions"]

# the layouts last made: (the op, mode, directions, W_hh's form, weight names) -> (arrays,
# layouts). Keyed per op too: an op reads its weights once a run, and a later run's values
# are new arrays, even where a pass lets an op write a temporary over in place (reuse.py)
_LAYOUTS: dict = {}
_LAYOUTS_KEPT = 16


def stacked_w_hh(batch, hidden):
    """Whether a step's recurrent product is one [hidden, gates * hidden] GEMM per direction
    (True) or one [hidden, hidden] product per gate, broadcast over the gates (False).
    Measured (NumPy 2.4, OpenBLAS, one thread, float32): per gate is faster for 4-32 rows up
    to hidden 256 (22 against 55 us at batch 4, hidden 256: its gate blocks come out
    contiguous), the stacked GEMM for one row (NumPy's broadcast loop makes matrix-vector
    products slowly: 153 against 59 us at hidden 512) and from hidden 512."""
    return batch == 1 or hidden >= 512


def weights_laid_out(ctx, cell, dirs, layers, stacked):
    """Every layer's weights as its sweep wants them: [(W_ih^T [width, D * gates * hidden],
    the bias of the gate buffer [D, gates, 1, hidden], W_hh^T as [D, hidden, gates * hidden]
    when ``stacked`` else [gates, D, hidden, hidden], b_hh [gates, D, 1, hidden] or None
    where it is in the first bias)], every gate axis in the cell's ``order``. Laid out once
    per set of weight arrays: a kernel never writes into an array it was given
    (LoDTensor.hold), so the same array objects hold the same values (a new value is a new
    array); the cache holds the arrays, so their ids stay theirs."""
    names = ctx.input_names("WeightList")
    arrays = [ctx.find_array(name) for name in names]
    if any([a is None for a in arrays]):        # (the error that names what is missing)
        arrays = [ctx.tensor(name).array() for name in names]
    key = (id(ctx.op), cell.mode, dirs, stacked, tuple(names))
    hit, trusted = _LAYOUTS.get(key), not any(map(written_in_place, arrays))
    if hit is not None and trusted and all(map(operator.is_, hit[0], arrays)):
        return hit[1]
    n = layers * dirs
    layouts = [_lay_out(ctx.xp, cell, dirs, [arrays[j] for j in _layer_picks(layer, dirs, n)],
                        stacked) for layer in range(layers)]
    if not trusted:
        return layouts                      # (laid out again each run: never cached)
    if len(_LAYOUTS) >= _LAYOUTS_KEPT:       # (a few programs' worth; then start afresh)
        _LAYOUTS.clear()
    _LAYOUTS[key] = (arrays, layouts)
    return layouts


def weight_positions(k, n):
    """Where W_ih, W_hh, b_ih, b_hh of layer-direction k (of n) sit in WeightList:
    PaddlePaddle lists every (layer, direction)'s W_ih, W_hh first, then the biases."""
    return (2 * k, 2 * k + 1, 2 * n + 2 * k, 2 * n + 2 * k + 1)


def _layer_picks(layer, dirs, n):
    """Where a layer's W_ih, W_hh, b_ih, b_hh sit in WeightList (``dirs`` of each)."""
    each = [weight_positions(k, n) for k in range(layer * dirs, (layer + 1) * dirs)]
    return [positions[i] for i in range(4) for positions in each]


def _lay_out(xp, cell, dirs, arrays, stacked):
    """The layout of :func:`weights_laid_out` from the layer's W_ih, W_hh, b_ih, b_hh (each
    ``dirs`` of them, in that order)."""
    w_ih, w_hh, b_ih, b_hh = (arrays[j] if dirs == 1 else xp.concatenate(arrays[j:j + dirs])
                              for j in range(0, 4 * dirs, dirs))
    hidden, gates = w_hh.shape[-1], cell.gates
    if cell.fold_hh_bias:
        b_ih, b_hh = b_ih + b_hh, None
    if cell.order is not None:
        w_ih, w_hh, b_ih = (_reorder(xp, w, cell, dirs) for w in (w_ih, w_hh, b_ih))
    if stacked:      # W_hh's own rows, transposed in the GEMM: faster for few rows (107
        # against 176 us at batch 1, hidden 512, weights not in cache) than a transposed copy
        w_hh_t = xp.ascontiguousarray(w_hh).reshape(dirs, gates * hidden, hidden)
        w_hh_t = w_hh_t.transpose(0, 2, 1)
    else:
        w_hh_t = xp.ascontiguousarray(
            w_hh.reshape(dirs, gates, hidden, hidden).transpose(1, 0, 3, 2))
    if b_hh is not None:                 # [D, gates, ...] -> [gates, D, ...]
        b_hh = xp.ascontiguousarray(b_hh.reshape(dirs, gates, 1, hidden).transpose(1, 0, 2, 3))
    return w_ih.T, b_ih.reshape(dirs, gates, 1, hidden), w_hh_t, b_hh


def _reorder(xp, w, cell, dirs):
    """``w`` [D * gates * hidden, ...] with each direction's gate blocks in ``cell.order``
    (a block's rows are contiguous: hidden x width values)."""
    return xp.take(w.reshape(dirs, cell.gates, -1), list(cell.order), axis=1).reshape(w.shape)


def gate_buffer(xp, layer_in, w_ih_t, bias, dirs):
    """[S, gates, D, batch, hidden]: every step's input projection plus ``bias`` [D, gates, 1,
    hidden], in the order the directions run (the backward direction's step s is time
    T-1-s); one GEMM, then one strided copy per direction."""
    steps, batch, width = layer_in.shape
    gates, hidden = bias.shape[1], bias.shape[-1]
    xg = (layer_in.reshape(-1, width) @ w_ih_t).reshape(steps, batch, dirs, gates, hidden)
    g = xp.empty((steps, gates, dirs, batch, hidden), dtype=xg.dtype)
    for d in range(dirs):
        rows = xg[:, :, d] if d == 0 else xg[::-1, :, d]
        xp.add(rows.transpose(0, 2, 1, 3), bias[d], out=g[:, :, d])
    return g
