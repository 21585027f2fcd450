"""The fused ``rnn`` op (``paddle.nn.LSTM``/``GRU``) against the same network written by hand in
NumPy, at several shapes (issue 28 item 3).

For each shape a program holds one ``rnn`` op (weights persistable in the scope, Input and the
initial states fed) and is run by ``exe.run(..., fetch_list=[Out])``: in test mode
(``is_test=True``, inference: no step scopes in a run nobody watches) and in training mode's
forward (``is_test=False``: a step scope per layer, direction and time step kept for the
backward pass). The reference is the network written by hand in NumPy, the way one would:
per layer and direction the input projection of all steps in one GEMM, then per step
``xg[t] + h @ W_hh^T``, the gates' sigmoid as ``1 / (1 + exp(-x))``, the new state (with
``where`` for finished sequences when there are lengths). Outputs are checked equal first
(to 1e-4: float32 sums in another order, through up to 100 steps).
One thread; medians of interleaved repeats (bench/_common.py).

    python -m bench rnn_op
"""

from bench import _common  # noqa: F401  (one thread, before NumPy)
from bench._common import Table, busy_note, interleaved, us, x

import time  # noqa: E402

import numpy as np  # noqa: E402

import paddle_nb as pd  # noqa: E402

# (mode, layers, directions, batch, steps, input width, hidden, with sequence lengths)
SHAPES = [
    ("LSTM", 2, 2, 2, 5, 8, 6, False),        # the corpus model of bench_inference (lstm)
    ("LSTM", 1, 1, 1, 8, 32, 32, False),
    ("LSTM", 1, 1, 32, 100, 64, 128, False),
    ("LSTM", 2, 2, 32, 50, 128, 256, False),
    ("LSTM", 1, 1, 1, 100, 512, 512, False),
    ("LSTM", 1, 2, 16, 40, 32, 64, True),
    ("GRU", 1, 2, 32, 50, 64, 128, False),
    ("GRU", 2, 1, 1, 20, 32, 64, False),
]
GATES = {"LSTM": 4, "GRU": 3}


def _inputs(mode, layers, dirs, batch, steps, width, hidden, lengths, rng):
    """(Input, [h0, (c0)], weights in PaddlePaddle's WeightList order, lengths or None)."""
    n, rows, bound = layers * dirs, GATES[mode] * hidden, hidden ** -0.5   # (Paddle's init)
    arr = lambda *s: rng.uniform(-bound, bound, s).astype(np.float32)  # noqa: E731
    weights = []
    for k in range(n):
        weights += [arr(rows, width if k < dirs else dirs * hidden), arr(rows, hidden)]
    weights += [arr(rows) for _ in range(2 * n)]
    states = [arr(n, batch, hidden) for _ in range(2 if mode == "LSTM" else 1)]
    seq = rng.integers(1, steps + 1, batch).astype(np.int64) if lengths else None
    return arr(steps, batch, width), states, weights, seq


def _program(mode, layers, dirs, hidden, x, states, weights, seq, is_test):
    """(program, scope, feed, Out's name): one rnn op, the weights persistable in the scope."""
    prog, scope = pd.Program(), pd.Scope()
    block = prog.global_block()
    feed = {"x": x, **{f"s{k}": s for k, s in enumerate(states)}}
    if seq is not None:
        feed["len"] = seq
    for name, value in feed.items():
        block.create_var(name=name, shape=value.shape, dtype=value.dtype)
    for k, w in enumerate(weights):
        block.create_var(name=f"w{k}", shape=w.shape, dtype=w.dtype, persistable=True)
        scope.var(f"w{k}").get_tensor().set(w, pd.CPUPlace())
    ins = {"Input": ["x"], "PreState": [f"s{k}" for k in range(len(states))],
           "WeightList": [f"w{k}" for k in range(len(weights))]}
    if seq is not None:
        ins["SequenceLength"] = ["len"]
    block.append_op("rnn", ins, {"Out": ["out"], "State": ["h_n", "c_n"][:len(states)],
                                 "Reserve": ["reserve"], "DropoutState": ["drop"]},
                    {"mode": mode, "num_layers": layers, "is_bidirec": dirs == 2,
                     "hidden_size": hidden, "input_size": x.shape[-1], "is_test": is_test})
    return prog, scope, feed


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_direction(mode, xs, h, c, w_ih, w_hh, b_ih, b_hh, alive, reverse):
    """One layer-direction by hand: [T, batch, hidden]."""
    steps, batch, width = xs.shape
    n = h.shape[-1]
    xg = (xs.reshape(-1, width) @ w_ih.T + b_ih).reshape(steps, batch, -1)
    if mode == "LSTM":
        xg += b_hh
    out = np.zeros((steps, batch, n), np.float32)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        if mode == "LSTM":
            gates = xg[t] + h @ w_hh.T
            s = _sigmoid(gates)
            c_new = s[:, n:2 * n] * c + s[:, :n] * np.tanh(gates[:, 2 * n:3 * n])
            h_new = s[:, 3 * n:] * np.tanh(c_new)
        else:
            hg = h @ w_hh.T + b_hh
            rz = _sigmoid(xg[t, :, :2 * n] + hg[:, :2 * n])
            cand = np.tanh(xg[t, :, 2 * n:] + rz[:, :n] * hg[:, 2 * n:])
            h_new, c_new = rz[:, n:] * h + (1 - rz[:, n:]) * cand, None
        if alive is not None:
            h_new = np.where(alive[t], h_new, h)
            c_new = np.where(alive[t], c_new, c) if c is not None else None
            out[t] = np.where(alive[t], h_new, 0)
        else:
            out[t] = h_new
        h, c = h_new, c_new
    return out


def numpy_rnn(mode, layers, dirs, x, states, weights, seq):
    """The whole network by hand: Out [T, batch, dirs * hidden]."""
    n = layers * dirs
    alive = None if seq is None else (np.arange(x.shape[0])[:, None] < seq)[:, :, None]
    layer_in = x
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            c0 = states[1][k] if mode == "LSTM" else None
            outs.append(_numpy_direction(
                mode, layer_in, states[0][k], c0, weights[2 * k], weights[2 * k + 1],
                weights[2 * n + 2 * k], weights[2 * n + 2 * k + 1], alive, d == 1))
        layer_in = outs[0] if dirs == 1 else np.concatenate(outs, axis=-1)
    return layer_in


def _label(mode, layers, dirs, batch, steps, width, hidden, lengths):
    return (f"{mode} L{layers} {'bi' if dirs == 2 else 'uni'} B{batch} T{steps} "
            f"in{width} H{hidden}" + (" +len" if lengths else ""))


def main():
    table = Table("the rnn op: one exe.run (feed, rnn, fetch) vs the network by hand in NumPy "
                  "(1 thread; medians)")
    rng = np.random.default_rng(0)
    exe = pd.Executor(pd.CPUPlace())
    for shape in SHAPES:
        mode, layers, dirs, batch, steps, width, hidden, lengths = shape
        xs, states, weights, seq = _inputs(*shape[:7], lengths, rng)
        runs = []
        for is_test in (True, False):
            prog, scope, feed = _program(mode, layers, dirs, hidden, xs, states, weights, seq,
                                         is_test)
            runs.append(lambda p=prog, s=scope, f=feed: exe.run(p, feed=f, fetch_list=["out"],
                                                                scope=s)[0])
        want = numpy_rnn(mode, layers, dirs, xs, states, weights, seq)
        for run in runs:
            # (float32 sums of up to 512 products in another order, through 100 steps)
            if not np.allclose(run(), want, rtol=1e-3, atol=1e-4):
                raise AssertionError(f"{_label(*shape)}: paddle_nb's Out differs from NumPy's")
        number = max(1, int(2e-3 // max(_time_once(runs[0]), 1e-6)))
        test, train, ref = interleaved(
            runs + [lambda: numpy_rnn(mode, layers, dirs, xs, states, weights, seq)],
            number=number, repeat=7)
        table.row(_label(*shape), f"{us(test)} (train fwd {us(train)})", us(ref),
                  f"{x(test / ref)} (train fwd {x(train / ref)})")
    note = busy_note()
    if note:
        table.note(note)
    return table


def _time_once(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    print(main())
