"""Cases for paddle_nb/ops/rnn.py: the fused ``rnn`` op and ``rnn_grad``.

``rnn`` is a raw op (it makes step scopes), so the contract suite cannot call its
kernel alone; tests/ops/test_rnn_op.py runs these cases through a Program and an
Executor instead: forward against :func:`numpy_rnn` (a per-sequence loop, written
apart from the kernel), gradients against central differences in float64, and
the BAD shapes refused when the op is appended.
"""

import numpy as np

from paddle_nb.errors import ShapeError

F = np.float32
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def numpy_cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One step for one sequence, as PaddlePaddle 2.6.2 computes it (checked there)."""
    if mode == "LSTM":
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, -1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c
    if mode == "GRU":
        xr, xz, xc = np.split(x @ w_ih.T + b_ih, 3, -1)
        hr, hz, hc = np.split(h @ w_hh.T + b_hh, 3, -1)
        r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
        cand = np.tanh(xc + r * hc)
        return z * h + (1 - z) * cand, None
    pre = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def numpy_rnn(mode, x, states, weights, layers, dirs, lengths=None):
    """(Out, [h_n, (c_n)]) by looping over sequences, layers, directions and steps."""
    steps, batch, _ = x.shape
    n = layers * dirs
    h_n = np.zeros_like(states[0])
    c_n = np.zeros_like(states[0])
    layer_in = x
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = (weights[2 * k], weights[2 * k + 1],
                 weights[2 * n + 2 * k], weights[2 * n + 2 * k + 1])
            out = np.zeros((steps, batch, states[0].shape[-1]), x.dtype)
            for b in range(batch):
                length = steps if lengths is None else int(lengths[b])
                h = states[0][k, b]
                c = states[1][k, b] if mode == "LSTM" else None
                for t in (range(length) if d == 0 else range(length - 1, -1, -1)):
                    h, c = numpy_cell(mode, layer_in[t, b], h, c, *w)
                    out[t, b] = h
                h_n[k, b] = h
                if c is not None:
                    c_n[k, b] = c
            outs.append(out)
        layer_in = np.concatenate(outs, -1)
    return layer_in, ([h_n, c_n] if mode == "LSTM" else [h_n])


def make_inputs(mode, layers, dirs, steps=3, batch=2, width=3, hidden=2, lengths=None,
                seed=0, dtype=F):
    """Random Input, PreState and WeightList (PaddlePaddle's order) for one case."""
    rng = np.random.default_rng(seed)
    n, g = layers * dirs, GATES[mode] * hidden
    arr = lambda *s: (rng.uniform(-0.8, 0.8, s)).astype(dtype)  # noqa: E731
    ws = []
    for k in range(n):
        ws += [arr(g, width if k < dirs else dirs * hidden), arr(g, hidden)]
    ws += [arr(g) for _ in range(2 * n)]
    states = [arr(n, batch, hidden) for _ in range(2 if mode == "LSTM" else 1)]
    seq = None if lengths is None else np.asarray(lengths, np.int64)
    return {"Input": arr(steps, batch, width), "PreState": states, "WeightList": ws,
            "SequenceLength": seq}


def attrs_for(mode, layers, dirs, width=3, hidden=2):
    return {"mode": mode, "num_layers": layers, "is_bidirec": dirs == 2, "hidden_size": hidden,
            "input_size": width, "is_test": False}


# (mode, layers, directions, sequence lengths or None): forward and gradient cases
CASES_RNN = [
    ("LSTM", 1, 1, None), ("LSTM", 2, 2, [3, 2]), ("LSTM", 1, 2, [1, 3]),
    ("GRU", 1, 1, None), ("GRU", 2, 2, [2, 3]),
    ("RNN_TANH", 1, 2, None), ("RNN_TANH", 2, 1, [3, 1]),
    ("RNN_RELU", 1, 1, None), ("RNN_RELU", 2, 2, [2, 3]),
]


def _meta_case(mode="LSTM", layers=1, dirs=1, **change):
    ins = make_inputs(mode, layers, dirs)
    ins.update(change)
    return ins


# (inputs, attrs changes, expected message): each must fail when the op is appended
BAD_RNN = [
    (_meta_case(Input=np.zeros((3, 3), F)), {}, "Input must be rank 3"),
    (_meta_case(PreState=[np.zeros((1, 2, 2), F)]), {}, "PreState must hold 2 tensors"),
    (_meta_case(PreState=[np.zeros((1, 2, 3), F)] * 2), {}, r"PreState\[0\] must have shape"),
    (_meta_case(), {"hidden_size": 3}, "must have shape"),
    (_meta_case(), {"input_size": 5},
     "Input.s last dim must equal attribute input_size = 5, got 3"),
    (_meta_case(SequenceLength=np.zeros((2,), F)), {}, "SequenceLength must be a 1-D int"),
    (_meta_case(), {"num_layers": 2}, r"PreState\[0\] must have shape \(2, 2, 2\)"),
    (_meta_case(WeightList=make_inputs("LSTM", 1, 1)["WeightList"][:3]), {},
     "WeightList must hold 4 tensors"),
    (_meta_case(WeightList=make_inputs("GRU", 1, 1)["WeightList"]), {},
     r"WeightList\[0\] \(W_ih of layer 0\) must have shape \(8, 3\), got \(6, 3\)"),
]
BAD_ERROR = ShapeError

RAW = {
    "rnn": "tests/ops/test_rnn_op.py (NumPy loops, step scopes, bad shapes) and "
           "test_rnn_op_paddle.py (PaddlePaddle 2.6.2's outputs)",
    "rnn_grad": "tests/ops/test_rnn_op.py: central differences in float64 through Input, "
                "PreState and WeightList; test_rnn_op_paddle.py: PaddlePaddle's gradients",
}
