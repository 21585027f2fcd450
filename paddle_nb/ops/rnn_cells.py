"""The cells of PaddlePaddle's fused ``rnn`` op: every time step forward, one step backward.

A cell's ``sweep`` runs one layer over all its time steps, both directions at once
(stacked on an axis D: the forward direction's step s is time s, the backward's is
time T-1-s, and neither depends on the other). It starts from the gate buffer
``g`` [S, gates, D, batch, hidden] that already holds every step's input
projection ``x W_ih^T`` plus the biases that can go there (one GEMM before the
loop, rnn_layout.py), and per step adds ``h_prev W_hh^T`` (one matmul for both
directions and every gate) and applies the gate activations in place on its
contiguous gate blocks. Nothing is allocated per step: the new states go into
buffers made once, and the values a step scope holds (the gates, the new state)
are views of them. Gate blocks sit in PaddlePaddle's weights in its order
(checked against 2.6.2):

- LSTM: i, f, c~, o;  c = f * c_prev + i * c~,  h = o * tanh(c)
- GRU:  r, z, c~;     c~ = tanh(xc + r * (W_hc h_prev + b_hc)),  h = z * h_prev + (1 - z) * c~
- RNN_TANH / RNN_RELU: h = act(xg + W_hh h_prev + b_hh)

The LSTM's sweep wants them as i, f, o, c~ (``order``): the three sigmoids are then one
call on one block. ``back`` reads one step's values and returns the gradients of the
step's pre-activations in PaddlePaddle's order: ``(d_xg, d_hg, dh_prev_direct,
dc_prev)``, where ``d_xg`` feeds W_ih, b_ih and the input, and ``d_hg`` W_hh, b_hh
and ``h_prev``.
"""

import contextlib
import functools
import itertools

import numpy

from paddle_nb.ops.activation_param import scipy_special, sigmoid_into

__all__ = ["CELLS", "Cell", "sigmoid_for"]


# SciPy's expit is one ufunc call but not vectorized: below this many values per call it
# is the faster (0.6 against 1.7 us on 72 float32), above the four-ufunc chain is (5 against
# 15 us on 4,096, 62 against 244 on 65,536), measured with NumPy 2.4 and SciPy 1.17
EXPIT_BELOW = 512


def sigmoid_for(xp, size):
    """A function ``(x, out)`` writing the logistic sigmoid of x (``size`` values) into out:
    SciPy's ``expit`` for NumPy arrays when SciPy is there and the arrays are small, else
    four ``xp`` ufuncs (whose exp overflows to inf for x < -88 in float32: 1 / inf = 0 is
    right, so callers silence that warning)."""
    special = scipy_special() if xp.__name__ == "numpy" and size < EXPIT_BELOW else None
    return special.expit if special is not None else functools.partial(sigmoid_into, xp)


def _quiet(xp):
    """NumPy's overflow warnings off (the sigmoid chain's exp), nothing on other ``xp``."""
    return numpy.errstate(over="ignore") if xp is numpy else contextlib.nullcontext()


class Cell:
    """A mode's step rule: ``gates`` weight blocks, the names a step scope holds, the order
    of the gate blocks its sweep wants (None: PaddlePaddle's), and whether b_hh can be
    added to the input projection before the loop (``fold_hh_bias``)."""

    order: tuple[int, ...] | None = None
    fold_hh_bias = True

    def __init__(self, mode, gates, names, has_c):
        self.mode, self.gates, self.names, self.has_c = mode, gates, names, has_c

    def sweep(self, xp, g, h, c, w_hh, b_hh, dead):
        """Run every step; {name: [S, D, batch, hidden] array} of the step scopes' values.

        ``g`` [S, gates, D, batch, hidden]: the gate buffer (written in place; a step's gate
        block is contiguous, so each ufunc runs on contiguous memory); ``h``, ``c``: the
        initial states [D, batch, hidden] (c None without one); ``w_hh``: W_hh^T per gate
        [gates, D, hidden, hidden] (one broadcast matmul gives a step's every gate block) or
        stacked [D, hidden, gates * hidden] (one GEMM per direction; rnn_layout.stacked_w_hh);
        ``b_hh`` [gates, D, 1, hidden], or None when folded into g; ``dead``: per step
        None or a [D, batch, 1] bool array, True where a sequence has ended (it keeps its
        state)."""
        raise NotImplementedError

    def back(self, xp, v, dh, dc):
        """Gradients of the pre-activations from dh (and dc) of the new state."""
        raise NotImplementedError


def _deads(dead):
    return dead if dead is not None else itertools.repeat(None)


def _product(xp, w_hh, shape, dtype):
    """(the buffer a step's ``h_prev @ w_hh`` goes into, that buffer as [gates, D, batch,
    hidden]) for ``w_hh`` per gate [gates, D, hidden, hidden] (the same array) or stacked
    [D, hidden, gates * hidden] (a transposed view of a [D, batch, gates * hidden] one)."""
    gates, dirs, batch, hidden = shape
    if w_hh.ndim == 4:
        out = xp.empty(shape, dtype=dtype)
        return out, out
    out = xp.empty((dirs, batch, gates * hidden), dtype=dtype)
    return out, out.reshape(dirs, batch, gates, hidden).transpose(2, 0, 1, 3)


class LSTMCell(Cell):
    order = (0, 1, 3, 2)                 # i, f, o, c~: one sigmoid call over i, f, o

    def sweep(self, xp, g, h, c, w_hh, b_hh, dead):
        cs = xp.empty(g.shape[:1] + g.shape[2:], dtype=g.dtype)     # [S, D, batch, hidden]
        hs = xp.empty_like(cs)
        prod = xp.empty(cs.shape[1:], dtype=g.dtype)
        hw, hw_gates = _product(xp, w_hh, g.shape[1:], g.dtype)
        matmul, add, mul, tanh, copyto = xp.matmul, xp.add, xp.multiply, xp.tanh, xp.copyto
        sigmoid = sigmoid_for(xp, 3 * prod.size)
        with _quiet(xp):
            for gt, sg, ct, ht, dt in zip(g, g[:, :3], cs, hs, _deads(dead)):
                i, f, o, cc = gt
                matmul(h, w_hh, out=hw)
                add(gt, hw_gates, out=gt)
                sigmoid(sg, out=sg)
                tanh(cc, out=cc)
                mul(f, c, out=ct)
                mul(i, cc, out=prod)
                add(ct, prod, out=ct)
                tanh(ct, out=ht)
                mul(ht, o, out=ht)
                if dt is not None:           # past its length a sequence keeps its state
                    copyto(ct, c, where=dt)
                    copyto(ht, h, where=dt)
                h, c = ht, ct
        return {"i": g[:, 0], "f": g[:, 1], "c~": g[:, 3], "o": g[:, 2], "c": cs, "h": hs}

    def back(self, xp, v, dh, dc):
        i, f, cc, o = v["i"], v["f"], v["c~"], v["o"]
        tc = xp.tanh(v["c"])
        dc = dc + dh * o * (1 - tc * tc)
        d_gates = xp.concatenate([dc * cc * i * (1 - i), dc * v["c_prev"] * f * (1 - f),
                                  dc * i * (1 - cc * cc), dh * tc * o * (1 - o)], axis=-1)
        return d_gates, d_gates, None, dc * f


class GRUCell(Cell):
    fold_hh_bias = False                 # b_hc sits inside r * (W_hc h_prev + b_hc)

    def sweep(self, xp, g, h, c, w_hh, b_hh, dead):
        hg = xp.empty_like(g)            # h_prev W_hh^T + b_hh of every step (hc is kept)
        hs = xp.empty(g.shape[:1] + g.shape[2:], dtype=g.dtype)
        prod = xp.empty(hs.shape[1:], dtype=g.dtype)
        hw, hw_gates = _product(xp, w_hh, g.shape[1:], g.dtype)
        matmul, add, sub, mul, tanh, copyto = (xp.matmul, xp.add, xp.subtract, xp.multiply,
                                               xp.tanh, xp.copyto)
        sigmoid = sigmoid_for(xp, 2 * prod.size)
        with _quiet(xp):
            for gt, hgt, grz, hrz, ht, dt in zip(g, hg, g[:, :2], hg[:, :2], hs, _deads(dead)):
                r, z, cc = gt
                hc = hgt[2]
                matmul(h, w_hh, out=hw if hw.ndim == 3 else hgt)
                add(hw_gates if hw.ndim == 3 else hgt, b_hh, out=hgt)
                add(grz, hrz, out=grz)
                sigmoid(grz, out=grz)
                mul(r, hc, out=prod)
                add(cc, prod, out=cc)
                tanh(cc, out=cc)
                sub(h, cc, out=ht)       # z * h_prev + (1 - z) * c~ = c~ + z * (h_prev - c~)
                mul(ht, z, out=ht)
                add(ht, cc, out=ht)
                if dt is not None:
                    copyto(ht, h, where=dt)
                h = ht
        return {"r": g[:, 0], "z": g[:, 1], "c~": g[:, 2], "hc": hg[:, 2], "h": hs}

    def back(self, xp, v, dh, dc):
        r, z, cc = v["r"], v["z"], v["c~"]
        d_cpre = dh * (1 - z) * (1 - cc * cc)
        dr = d_cpre * v["hc"] * r * (1 - r)
        dz = dh * (v["h_prev"] - cc) * z * (1 - z)
        d_xg = xp.concatenate([dr, dz, d_cpre], axis=-1)
        d_hg = xp.concatenate([dr, dz, d_cpre * r], axis=-1)
        return d_xg, d_hg, dh * z, None


class SimpleCell(Cell):
    def sweep(self, xp, g, h, c, w_hh, b_hh, dead):
        hw, hw_gates = _product(xp, w_hh, g.shape[1:], g.dtype)
        matmul, add, copyto = xp.matmul, xp.add, xp.copyto
        relu = self.mode == "RNN_RELU"
        for gt, ht, dt in zip(g, g[:, 0], _deads(dead)):
            matmul(h, w_hh, out=hw)
            add(gt, hw_gates, out=gt)
            if relu:
                xp.maximum(ht, 0, out=ht)
            else:
                xp.tanh(ht, out=ht)
            if dt is not None:
                copyto(ht, h, where=dt)
            h = ht
        return {"h": g[:, 0]}

    def back(self, xp, v, dh, dc):
        h = v["h"]
        d_pre = dh * (1 - h * h) if self.mode == "RNN_TANH" else dh * (h > 0)
        return d_pre, d_pre, None, None


CELLS = {
    "LSTM": LSTMCell("LSTM", 4, ("i", "f", "c~", "o", "c", "h"), True),
    "GRU": GRUCell("GRU", 3, ("r", "z", "c~", "hc", "h"), False),
    "RNN_TANH": SimpleCell("RNN_TANH", 1, ("h",), False),
    "RNN_RELU": SimpleCell("RNN_RELU", 1, ("h",), False),
}
