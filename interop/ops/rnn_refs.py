"""Reference files for the fused ``rnn`` op, written by PaddlePaddle 2.6.2 itself.

Run with the interop environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/rnn_refs.py --out tests/fixtures/paddle26/ops

It writes, in static mode on the CPU with fixed seeds:

- ``rnn_<net>.pdmodel`` / ``.pdiparams`` and ``rnn_<net>_io.npz``: ``save_inference_model``
  of a 2-layer bidirectional ``paddle.nn.LSTM`` (``lstm``), ``GRU`` (``gru``) and
  ``SimpleRNN`` with relu (``rnn``), batch-major, with ``sequence_length``, initial states
  fed; ``lstm_zero`` leaves the initial states to PaddlePaddle (``shape``, ``slice``,
  ``fill_constant`` with ``ShapeTensorList`` make zeros). The npz holds the feeds and outputs.
- ``rnn_grads.npz``: for LSTM, GRU, RNN_TANH (2 layers, time-major; bidirectional without
  lengths, forward with lengths, bidirectional with lengths): inputs, weights (in WeightList
  order) and PaddlePaddle's gradients of ``sum(Out * w_out) + sum(h * w_h) (+ sum(c * w_c))``
  for Input, PreState and WeightList, keyed ``<mode>-D<dirs>-<len|full>/...``.
- ``rnn_train.main.pb`` / ``.startup.pb`` / ``rnn_train_io.npz``: ids -> embedding -> LSTM ->
  [mean over time of Out, h, c] -> fc -> softmax cross entropy, SGD(0.5), three steps: initial
  parameters, feeds, losses and the parameters after each step; ``rnn_train_bi``: the same
  with a 2-layer bidirectional LSTM (no lengths) and Adam(0.05).
"""

import argparse
import json
import pathlib

import numpy as np

SEED = 2026
T, B, IN, H = 4, 3, 3, 2


def _paddle():
    import paddle
    paddle.enable_static()
    return paddle


def _net(paddle, kind, layers=2, direction="bidirect", time_major=False):
    kw = dict(num_layers=layers, direction=direction, time_major=time_major)
    if kind in ("lstm", "lstm_zero"):
        return paddle.nn.LSTM(IN, H, **kw)
    if kind == "gru":
        return paddle.nn.GRU(IN, H, **kw)
    return paddle.nn.SimpleRNN(IN, H, activation="relu" if kind == "rnn" else "tanh", **kw)


def _states(paddle, kind, n):
    h0 = paddle.static.data("h0", [n, -1, H], "float32")
    if kind == "lstm":
        return (h0, paddle.static.data("c0", [n, -1, H], "float32")), ["h0", "c0"]
    return h0, ["h0"]


def make_inference(paddle, kind, out, rng):
    """Save ``kind``'s inference model and PaddlePaddle's outputs for one feed."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [-1, T, IN], "float32")
        lengths = paddle.static.data("lengths", [-1], "int64")
        init, names = (None, []) if kind == "lstm_zero" else _states(paddle, kind, 4)
        feeds = [x, lengths] + [main.global_block().var(n) for n in names]
        y, final = _net(paddle, kind)(x, init, sequence_length=lengths)
        targets = [y] + (list(final) if isinstance(final, (tuple, list)) else [final])
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        prefix = str(out / f"rnn_{kind}")
        paddle.static.save_inference_model(prefix, feeds, targets, exe, program=main)
        program, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
        feed = {"x": rng.standard_normal((B, T, IN)).astype("float32"),
                "lengths": np.array([4, 2, 3], "int64")}
        for n in names:
            feed[n] = (0.5 * rng.standard_normal((4, B, H))).astype("float32")
        values = exe.run(program, feed=feed, fetch_list=fetches)
    arrays = {f"feed/{n}": feed[n] for n in feed_names}
    arrays.update({f"fetch/{v.name}": np.asarray(a) for v, a in zip(fetches, values)})
    np.savez(out / f"rnn_{kind}_io.npz", **arrays)
    return {"feeds": list(feed_names), "fetches": [v.name for v in fetches],
            "ops": [op.type for op in program.global_block().ops]}


def make_grads(paddle, mode, direction, with_lengths, rng):
    """PaddlePaddle's rnn_grad for one 2-layer time-major net: {key: array}."""
    kind = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "tanh"}[mode]
    dirs = 2 if direction == "bidirect" else 1
    key = f"{mode}-D{dirs}-{'len' if with_lengths else 'full'}"
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [T, B, IN], "float32")
        x.stop_gradient = False
        lengths = paddle.static.data("lengths", [B], "int64")
        names = ["h0", "c0"] if mode == "LSTM" else ["h0"]
        states = [paddle.static.data(n, [2 * dirs, B, H], "float32") for n in names]
        for s in states:
            s.stop_gradient = False
        y, final = _net(paddle, kind, direction=direction, time_major=True)(
            x, tuple(states) if mode == "LSTM" else states[0],
            sequence_length=lengths if with_lengths else None)
        outs = [y] + (list(final) if mode == "LSTM" else [final])
        seeds = [paddle.static.data(f"seed{k}", o.shape, "float32") for k, o in enumerate(outs)]
        loss = paddle.add_n([paddle.sum(o * s) for o, s in zip(outs, seeds)])
        (op,) = [op for op in main.global_block().ops if op.type == "rnn"]
        weights = [main.global_block().var(n) for n in op.input("WeightList")]
        grads = paddle.static.gradients([loss], [x] + states + weights)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        feed = {"x": rng.standard_normal((T, B, IN)).astype("float32"),
                "lengths": np.array([4, 1, 3], "int64")}
        for n in names:
            feed[n] = (0.5 * rng.standard_normal((2 * dirs, B, H))).astype("float32")
        for k, o in enumerate(outs):
            feed[f"seed{k}"] = rng.standard_normal(o.shape).astype("float32")
        params = [np.array(scope.find_var(w.name).get_tensor()) for w in weights]
        got = exe.run(main, feed=feed, fetch_list=outs + grads)
    if not with_lengths:
        del feed["lengths"]
    arrays = {f"{key}/{k}": v for k, v in feed.items()}
    arrays.update({f"{key}/w{j}": p for j, p in enumerate(params)})
    for k, v in enumerate(got[:len(outs)]):
        arrays[f"{key}/out{k}"] = v
    labels = ["Input"] + [f"PreState{j}" for j in range(len(states))] + \
        [f"WeightList{j}" for j in range(len(weights))]
    arrays.update({f"{key}/grad:{name}": g for name, g in zip(labels, got[len(outs):])})
    return arrays


def _classifier(paddle, bidirect):
    """ids -> embedding -> LSTM -> [mean over time of Out, h, c] -> fc -> cross entropy."""
    n = 4 if bidirect else 1
    ids = paddle.static.data("ids", [-1, T], "int64")
    lengths = None if bidirect else paddle.static.data("lengths", [-1], "int64")
    label = paddle.static.data("label", [-1, 1], "int64")
    h0 = paddle.static.data("h0", [n, -1, H], "float32")
    c0 = paddle.static.data("c0", [n, -1, H], "float32")
    emb = paddle.nn.Embedding(10, IN)(ids)
    lstm = paddle.nn.LSTM(IN, H, num_layers=2, direction="bidirect") if bidirect \
        else paddle.nn.LSTM(IN, H)
    y, (h, c) = lstm(emb, (h0, c0), sequence_length=lengths)
    feat = paddle.concat([paddle.mean(y, axis=1), h[0], c[0]], axis=-1)
    logits = paddle.static.nn.fc(feat, 3)
    return paddle.mean(paddle.nn.functional.cross_entropy(logits, label))


def make_training(paddle, out, rng, name, bidirect, steps=3):
    """Train a tiny LSTM classifier 3 steps; save programs, feeds, losses and parameters.

    ``rnn_train``: one layer with sequence lengths, SGD(0.5); ``rnn_train_bi``: 2 layers,
    bidirectional, no lengths (2.6.2's rnn_grad is wrong for bidirectional with lengths),
    Adam(0.05).
    """
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = SEED
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        loss = _classifier(paddle, bidirect)
        optimizer = paddle.optimizer.Adam(0.05) if bidirect else paddle.optimizer.SGD(0.5)
        optimizer.minimize(loss)
    params = sorted(p.name for p in main.all_parameters())
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    arrays = {}
    main_bytes = main.desc.serialize_to_string()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        arrays.update({f"init:{p}": np.array(scope.find_var(p).get_tensor()) for p in params})
        losses = []
        for k in range(steps):
            n = 4 if bidirect else 1
            feed = {"ids": rng.integers(0, 10, (B, T)).astype("int64"),
                    "lengths": np.array([4, 2, 3], "int64"),
                    "label": rng.integers(0, 3, (B, 1)).astype("int64"),
                    "h0": np.zeros((n, B, H), "float32"), "c0": np.zeros((n, B, H), "float32")}
            if bidirect:
                del feed["lengths"]
            arrays.update({f"step{k}/{n}": v for n, v in feed.items()})
            (value,) = exe.run(main, feed=feed, fetch_list=[loss])
            losses.append(float(np.asarray(value).reshape(-1)[0]))
            arrays.update({f"step{k}:{p}": np.array(scope.find_var(p).get_tensor())
                           for p in params})
    arrays["loss"] = np.float32(losses)
    (out / f"{name}.main.pb").write_bytes(main_bytes)
    (out / f"{name}.startup.pb").write_bytes(startup.desc.serialize_to_string())
    np.savez(out / f"{name}_io.npz", **arrays)
    return {"params": params, "loss": loss.name, "feeds": sorted(feed), "losses": losses,
            "ops": [op.type for op in main.global_block().ops]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/interop/paddle26/ops")
    args = parser.parse_args(argv)
    paddle = _paddle()
    paddle.seed(SEED)
    rng = np.random.default_rng(SEED)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {kind: make_inference(paddle, kind, out, rng)
                for kind in ("lstm", "gru", "rnn", "lstm_zero")}
    grads = {}
    for mode in ("LSTM", "GRU", "RNN_TANH"):
        for direction, with_lengths in (("bidirect", False), ("forward", True),
                                        ("bidirect", True)):
            grads.update(make_grads(paddle, mode, direction, with_lengths, rng))
    np.savez(out / "rnn_grads.npz", **grads)
    manifest["train"] = make_training(paddle, out, rng, "rnn_train", bidirect=False)
    manifest["train_bi"] = make_training(paddle, out, rng, "rnn_train_bi", bidirect=True)
    manifest["paddle"] = paddle.__version__
    (out / "rnn_manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"rnn_refs: wrote {len(list(out.glob('rnn_*')))} files to {out}")


if __name__ == "__main__":
    main()
