"""The cells of PaddlePaddle's fused ``rnn`` op: one time step, forward and backward.

A cell turns the step's input projection ``xg = x @ W_ih^T + b_ih`` (computed for
every step at once, before the loop) and the previous state into the step's named
values: its gates and its new state, exactly the tensors a step scope holds. Gate
blocks sit in the weights in PaddlePaddle's order (checked against 2.6.2):

- LSTM: i, f, c~, o;  c = f * c_prev + i * c~,  h = o * tanh(c)
- GRU:  r, z, c~;     c~ = tanh(xc + r * (W_hc h_prev + b_hc)),  h = z * h_prev + (1 - z) * c~
- RNN_TANH / RNN_RELU: h = act(xg + W_hh h_prev + b_hh)

``back`` reads those same values and returns the gradients of the step's
pre-activations: ``(d_xg, d_hg, dh_prev_direct, dc_prev)``, where ``d_xg`` feeds
W_ih, b_ih and the input, and ``d_hg`` feeds W_hh, b_hh and ``h_prev``.
"""

__all__ = ["CELLS", "Cell"]


def _sigmoid_of(xp, x):
    """1 / (1 + exp(-x)) in a new array, computed in place in it (the same roundings)."""
    s = xp.negative(x)
    xp.exp(s, out=s)
    s += 1
    return xp.reciprocal(s, out=s)


class Cell:
    """A mode's step rule: ``gates`` weight blocks, the names a step scope holds."""

    def __init__(self, mode, gates, names, has_c):
        self.mode, self.gates, self.names, self.has_c = mode, gates, names, has_c

    def step(self, xp, xg, h_prev, c_prev, w_hh, b_hh):
        """{name: array} of the step: gates and the new c (LSTM) and h."""
        raise NotImplementedError

    def back(self, xp, v, dh, dc):
        """Gradients of the pre-activations from dh (and dc) of the new state."""
        raise NotImplementedError


class LSTMCell(Cell):
    def step(self, xp, xg, h_prev, c_prev, w_hh, b_hh):
        gates = h_prev @ w_hh.T              # xg + h W^T + b, added in that order, in place
        gates += xg
        gates += b_hh
        n = gates.shape[-1] // 4
        s = _sigmoid_of(xp, gates)           # every block's sigmoid at once: 4 ufuncs, not 12,
        cc = s[..., 2 * n:3 * n]             # then c~'s block overwritten with its tanh
        xp.tanh(gates[..., 2 * n:3 * n], out=cc)
        i, f, o = s[..., :n], s[..., n:2 * n], s[..., 3 * n:]
        c = f * c_prev
        c += i * cc
        return {"i": i, "f": f, "c~": cc, "o": o, "c": c, "h": o * xp.tanh(c)}

    def back(self, xp, v, dh, dc):
        i, f, cc, o = v["i"], v["f"], v["c~"], v["o"]
        tc = xp.tanh(v["c"])
        dc = dc + dh * o * (1 - tc * tc)
        d_gates = xp.concatenate([dc * cc * i * (1 - i), dc * v["c_prev"] * f * (1 - f),
                                  dc * i * (1 - cc * cc), dh * tc * o * (1 - o)], axis=-1)
        return d_gates, d_gates, None, dc * f


class GRUCell(Cell):
    def step(self, xp, xg, h_prev, c_prev, w_hh, b_hh):
        hg = h_prev @ w_hh.T
        hg += b_hh
        n = hg.shape[-1] // 3
        rz = _sigmoid_of(xp, xg[..., :2 * n] + hg[..., :2 * n])
        r, z, hc = rz[..., :n], rz[..., n:], hg[..., 2 * n:]
        cc = r * hc
        cc += xg[..., 2 * n:]
        xp.tanh(cc, out=cc)
        # hc (W_hc h_prev + b_hc) is kept: the gradient of r needs it ("reset after")
        return {"r": r, "z": z, "c~": cc, "hc": hc, "h": z * h_prev + (1 - z) * cc}

    def back(self, xp, v, dh, dc):
        r, z, cc = v["r"], v["z"], v["c~"]
        d_cpre = dh * (1 - z) * (1 - cc * cc)
        dr = d_cpre * v["hc"] * r * (1 - r)
        dz = dh * (v["h_prev"] - cc) * z * (1 - z)
        d_xg = xp.concatenate([dr, dz, d_cpre], axis=-1)
        d_hg = xp.concatenate([dr, dz, d_cpre * r], axis=-1)
        return d_xg, d_hg, dh * z, None


class SimpleCell(Cell):
    def step(self, xp, xg, h_prev, c_prev, w_hh, b_hh):
        pre = xg + h_prev @ w_hh.T + b_hh
        return {"h": xp.tanh(pre) if self.mode == "RNN_TANH" else xp.maximum(pre, 0)}

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
