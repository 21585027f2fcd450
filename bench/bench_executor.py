"""Running programs: the Executor's cost per op and per run, against hand-written NumPy.

(a) Interpretation cost. A chain of 1,000 tiny adds, ``y = y + x`` with ``x`` of shape [4]
    float32, run by ``exe.run(prog, feed={"x": ...}, fetch_list=[y])``, against the same
    1,000 ``numpy.add`` calls written by hand (what an interpreter of this program cannot
    beat). Also: the marginal cost of one more op, ``(T(1,000 ops) - T(1 op)) / 999``, and the
    fixed cost of a run, ``T(exe.run of a 1-op program) - T(one numpy.add)``.
(b) A training step. MLP 784-256-10 (fc+relu, fc, softmax_with_cross_entropy, mean,
    append_backward, SGD) at batch 64, float32, through
    ``exe.run(main, feed, fetch_list=[loss])``, against the same forward, backward and SGD
    update written by hand in NumPy (in-place updates, as one would write them), from the
    same initial weights; the two losses are checked to agree before anything is timed.
    Also the peak memory one step adds (tracemalloc, which NumPy reports its buffers to).
(c) Watching. (a)'s chain, (b)'s step and bench_cnn's ResNet-18 inference (batch 2) with a
    listener subscribed (``exe.subscribe``: every run recorded, as a notebook's Dashboard
    does), against the same runs unwatched, timed in turn.

Each figure is the median of several repeats after a warm-up, the framework and NumPy timed
back to back in turn (see ``bench/_common.py``). PyTorch eager is included when it imports
(it is never installed by the project; the peers' figures in the notes were measured on this
machine with one thread).
"""

import importlib.util

from bench import _common  # noqa: F401  (one thread, set before NumPy is imported)
from bench._common import Table, busy_note, interleaved, ms, peak_bytes, torch_or_none, us, x

import numpy

import paddle_nb as pd

CHAIN = 1000
BATCH, IN, HIDDEN, OUT = 64, 784, 256, 10
LR = 0.01
GOAL_PER_OP = 3.0        # x NumPy
GOAL_FIXED_US = 50.0
GOAL_STEP = 1.10         # x NumPy
GOAL_WATCHED_CHAIN = 5.0     # x the same run unwatched
GOAL_WATCHED = 1.2           # x unwatched: the MLP step and ResNet-18 inference


# ---- (a) a chain of tiny adds ---------------------------------------------------------------

def chain_program(n):
    prog = pd.Program()
    with pd.program_guard(prog):
        xv = pd.layers.data("x", shape=[4], append_batch_size=False)
        y = xv
        for _ in range(n):
            y = y + xv
    return prog, y


def numpy_chain(xv, n):
    def run():
        y = xv
        add = numpy.add
        for _ in range(n):
            y = add(y, xv)
        return y
    return run


def _ignore(record):
    pass


def _read(record):
    """A listener that reads the whole record, as a viewer does (ops, events, scopes)."""
    return len(record.ops), len(record.events), record.scopes


def watched(exe, run, listener=_ignore):
    """``run`` with ``listener`` subscribed to ``exe`` (every run recorded), as a notebook's
    Dashboard watches: subscribed before the run, unsubscribed after."""
    def run_watched():
        unsubscribe = exe.subscribe(listener)
        try:
            return run()
        finally:
            unsubscribe()
    return run_watched


def executor_chain(exe, prog, y, xv, scope):
    feed = {"x": xv}
    fetch = [y]

    def run():
        return exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)[0]
    return run


def torch_chain(torch, xv, n):
    xt = torch.from_numpy(xv.copy())

    def run():
        y = xt
        for _ in range(n):
            y = y + xt
        return y
    return run


def bench_chain(torch):
    xv = numpy.full(4, 0.001, "float32")
    exe = pd.Executor(pd.CPUPlace())
    scope = pd.Scope()
    prog, y = chain_program(CHAIN)
    one, y1 = chain_program(1)
    run_chain = executor_chain(exe, prog, y, xv, scope)
    run_one = executor_chain(exe, one, y1, xv, scope)
    np_chain, np_one = numpy_chain(xv, CHAIN), numpy_chain(xv, 1)
    numpy.testing.assert_allclose(run_chain(), np_chain(), rtol=1e-5)
    t_chain, t_np_chain = interleaved([run_chain, np_chain], number=1, repeat=31, warmup=3)
    t_one, t_np_one = interleaved([run_one, np_one], number=100, repeat=31, warmup=3)

    t_rec, t_np_rec, t_unrec, t_read = interleaved(
        [watched(exe, run_chain), np_chain, run_chain, watched(exe, run_chain, _read)],
        number=1, repeat=15, warmup=2)
    out = {"chain_s": t_chain, "chain_numpy_s": t_np_chain, "chain_ratio": t_chain / t_np_chain,
           "one_op_run_s": t_one, "numpy_op_s": t_np_one,
           "fixed_run_us": (t_one - t_np_one) * 1e6,
           "marginal_op_us": (t_chain - t_one) / (CHAIN - 1) * 1e6,
           "numpy_op_us": t_np_chain / CHAIN * 1e6,
           "recorded_chain_s": t_rec, "recorded_chain_numpy_s": t_np_rec,
           "recorded_chain_ratio": t_rec / t_np_rec, "recorded_chain_vs_unwatched": t_rec / t_unrec,
           "recorded_chain_read_vs_unwatched": t_read / t_unrec}
    if torch is not None:
        t_torch, t_np = interleaved([torch_chain(torch, xv, CHAIN), np_chain], number=1,
                                    repeat=31, warmup=3)
        out.update(torch_chain_s=t_torch, torch_chain_numpy_s=t_np,
                   torch_chain_ratio=t_torch / t_np)
    return out


# ---- (b) an MLP training step ---------------------------------------------------------------

def _has_optimizer():
    try:
        return importlib.util.find_spec("paddle_nb.optimizer") is not None
    except ImportError:
        return False


def _append_sgd(main, startup, loss, lr):
    """``pd.optimizer.SGD(lr).minimize(loss)`` when it exists, else the same ops by hand:
    append_backward, a persistable learning rate set by the startup program, one sgd op per
    (parameter, gradient)."""
    if _has_optimizer():
        from paddle_nb import optimizer
        optimizer.SGD(lr).minimize(loss)
        return "pd.optimizer.SGD"
    pairs = pd.append_backward(loss)
    name = "learning_rate_0"
    lr_var = main.global_block().create_var(name=name, shape=[1], dtype="float32",
                                            persistable=True)
    sblock = startup.global_block()
    sblock.create_var(name=name, shape=[1], dtype="float32", persistable=True)
    sblock.append_op("fill_constant", outputs={"Out": name},
                     attrs={"shape": [1], "value": float(lr), "dtype": "float32"})
    for param, grad in pairs:
        main.global_block().append_op(
            "sgd", {"Param": param, "LearningRate": lr_var, "Grad": grad}, {"ParamOut": param},
            {"op_role": 2})                    # OpRole.OPTIMIZE
    return "append_backward + sgd ops"


def mlp_program():
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        xv = pd.layers.data("x", shape=[IN])
        label = pd.layers.data("label", shape=[1], dtype="int64")
        hidden = pd.layers.fc(xv, HIDDEN, act="relu")
        logits = pd.layers.fc(hidden, OUT)
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
        how = _append_sgd(main, startup, loss, LR)
    return main, startup, loss, how


def _param_names(main):
    params = main.global_block().all_parameters()
    weights = sorted(p.name for p in params if len(p.shape) == 2)
    biases = sorted(p.name for p in params if len(p.shape) == 1)
    return weights, biases


class NumpyMLP:
    """The same model, forward + backward + SGD, written by hand (in CuPy too: bench_gpu
    gives it ``xp=cupy`` and device arrays)."""

    def __init__(self, w1, b1, w2, b2, xp=numpy):
        self.xp = xp
        self.w1, self.b1, self.w2, self.b2 = (a.copy() for a in (w1, b1, w2, b2))

    def step(self, xv, label):
        xp = self.xp
        w1, b1, w2, b2 = self.w1, self.b1, self.w2, self.b2
        n = xv.shape[0]
        h = xp.maximum(xv @ w1 + b1, 0)
        logits = h @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = xp.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        rows = xp.arange(n)
        cls = label[:, 0]
        loss = (xp.log(s[:, 0]) - shifted[rows, cls]).mean()
        d = e / s
        d[rows, cls] -= 1
        d /= n
        dw2 = h.T @ d
        db2 = d.sum(axis=0)
        dh = d @ w2.T
        dh *= h > 0
        dw1 = xv.T @ dh
        db1 = dh.sum(axis=0)
        w1 -= LR * dw1
        b1 -= LR * db1
        w2 -= LR * dw2
        b2 -= LR * db2
        return loss


class TorchMLP:
    def __init__(self, torch, w1, b1, w2, b2):
        self.torch = torch
        self.params = [torch.tensor(a, requires_grad=True) for a in (w1, b1, w2, b2)]

    def step(self, xt, lt):
        torch = self.torch
        w1, b1, w2, b2 = self.params
        h = torch.relu(xt @ w1 + b1)
        loss = torch.nn.functional.cross_entropy(h @ w2 + b2, lt)
        loss.backward()
        with torch.no_grad():
            for p in self.params:
                p -= LR * p.grad
                p.grad = None
        return loss.item()


def bench_mlp(torch):
    main, startup, loss, how = mlp_program()
    exe = pd.Executor(pd.CPUPlace())
    scope = pd.Scope()
    exe.run(startup, scope=scope)
    (w1n, w2n), (b1n, b2n) = _param_names(main)
    values = [scope.find_var(n).get_tensor().numpy() for n in (w1n, b1n, w2n, b2n)]
    assert values[0].shape == (IN, HIDDEN) and values[2].shape == (HIDDEN, OUT)
    ref = NumpyMLP(*values)

    rng = numpy.random.default_rng(0)
    xv = rng.standard_normal((BATCH, IN)).astype("float32")
    label = rng.integers(0, OUT, (BATCH, 1)).astype("int64")
    feed = {"x": xv, "label": label}
    fetch = [loss]

    def fw_step():
        return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)[0]

    def np_step():
        return ref.step(xv, label)

    for _ in range(3):        # same weights, same data: the losses must agree step by step
        got, want = float(fw_step()), float(np_step())
        assert abs(got - want) <= 1e-4 * max(1.0, abs(want)), (got, want)

    t_fw, t_np = interleaved([fw_step, np_step], number=2, repeat=31, warmup=3)
    t_unw, t_w = interleaved([fw_step, watched(exe, fw_step)], number=2, repeat=21, warmup=2)
    out = {"mlp_step_s": t_fw, "mlp_step_numpy_s": t_np, "mlp_step_ratio": t_fw / t_np,
           "mlp_watched_s": t_w, "mlp_watched_ratio": t_w / t_unw,
           "mlp_sgd": how, "mlp_ops": len(main.global_block().ops),
           "mlp_peak_bytes": peak_bytes(fw_step), "mlp_peak_numpy_bytes": peak_bytes(np_step)}
    if torch is not None:
        model = TorchMLP(torch, *values)
        xt, lt = torch.from_numpy(xv), torch.from_numpy(label[:, 0].copy())
        t_torch, t_np = interleaved([lambda: model.step(xt, lt), np_step], number=2,
                                    repeat=31, warmup=3)
        out.update(torch_step_s=t_torch, torch_step_numpy_s=t_np,
                   torch_step_ratio=t_torch / t_np)
    return out


# ---- (c) ResNet-18 inference, watched --------------------------------------------------------

def bench_resnet_watched():
    """ResNet-18 inference at batch 2 (bench_cnn's program and weights) watched and not."""
    from bench.bench_cnn import resnet18_program, resnet18_weights
    main, startup, logits = resnet18_program()
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for name, value in resnet18_weights().items():
        scope.find_var(name).get_tensor().set(value, pd.CPUPlace())
    xv = numpy.random.default_rng(1).standard_normal((2, 3, 224, 224)).astype("float32")

    def fw():
        return exe.run(main, feed={"x": xv}, fetch_list=[logits], scope=scope)[0]
    numpy.testing.assert_array_equal(fw(), watched(exe, fw)())
    t_unw, t_w = interleaved([fw, watched(exe, fw)], number=1, repeat=7, warmup=1)
    return {"resnet_unwatched_s": t_unw, "resnet_watched_s": t_w,
            "resnet_watched_ratio": t_w / t_unw}


def main():
    torch = torch_or_none()
    a = bench_chain(torch)
    b = bench_mlp(torch)
    c = bench_resnet_watched()

    table = Table("executor: (a) 1,000 adds of float32[4], (b) MLP 784-256-10 step at batch 64")
    table.row("(a) exe.run, 1,000-op chain", ms(a["chain_s"]), ms(a["chain_numpy_s"]),
              x(a["chain_ratio"]), f"<= {GOAL_PER_OP:.0f}x")
    table.row("(a)   per op (chain / 1,000)", us(a["chain_s"] / CHAIN), us(a["numpy_op_us"] / 1e6),
              x(a["chain_ratio"]))
    table.row("(a)   marginal per op", f"{a['marginal_op_us']:.1f} us", us(a["numpy_op_us"] / 1e6),
              x(a["marginal_op_us"] / a["numpy_op_us"]))
    table.row("(a) exe.run, 1-op program", us(a["one_op_run_s"]), us(a["numpy_op_s"]),
              f"+{a['fixed_run_us']:.1f} us", f"<= +{GOAL_FIXED_US:.0f} us")
    table.row("(a) same chain, run recorded", ms(a["recorded_chain_s"]),
              ms(a["recorded_chain_numpy_s"]), x(a["recorded_chain_ratio"]))
    table.row("(a)   recorded / unwatched", "-", "-", x(a["recorded_chain_vs_unwatched"]),
              f"<= {GOAL_WATCHED_CHAIN:.0f}x")
    table.row("(a)   the same, record read", "-", "-",
              x(a["recorded_chain_read_vs_unwatched"]), "-")
    table.row("(b) MLP train step", ms(b["mlp_step_s"]), ms(b["mlp_step_numpy_s"]),
              x(b["mlp_step_ratio"]), f"<= {GOAL_STEP:.2f}x")
    table.row("(b)   watched / unwatched", ms(b["mlp_watched_s"]), "-",
              x(b["mlp_watched_ratio"]), f"<= {GOAL_WATCHED:.1f}x")
    table.row("(b)   peak memory a step adds", f"{b['mlp_peak_bytes'] / 2**20:.2f} MiB",
              f"{b['mlp_peak_numpy_bytes'] / 2**20:.2f} MiB",
              x(b["mlp_peak_bytes"] / b["mlp_peak_numpy_bytes"]))
    table.row("(c) ResNet-18 inference, watched", ms(c["resnet_watched_s"]),
              ms(c["resnet_unwatched_s"]), x(c["resnet_watched_ratio"]),
              f"<= {GOAL_WATCHED:.1f}x")
    if torch is not None:
        table.row(f"(a) PyTorch {torch.__version__} eager chain", ms(a["torch_chain_s"]),
                  ms(a["torch_chain_numpy_s"]),
                  x(a["torch_chain_ratio"]))
        table.row(f"(b) PyTorch {torch.__version__} eager step", ms(b["torch_step_s"]),
                  ms(b["torch_step_numpy_s"]),
                  x(b["torch_step_ratio"]))
    else:
        table.note("PyTorch is not importable: its rows are left out.")
    table.note("ratio = paddle_nb / NumPy timed back to back in this process, one thread; "
               "(a)'s fixed cost = 1-op run - one numpy.add; 'run recorded' = with a listener "
               "subscribed (exe.subscribe), as a notebook's dashboard does; 'record read' = the "
               "listener reads its ops, events and scopes, which a run on an env writes out "
               "only then.")
    table.note(f"(b): {b['mlp_ops']} ops in the main program, SGD by {b['mlp_sgd']}; losses "
               "checked equal to NumPy's for 3 steps first.")
    table.note("peers on this machine, one thread: per-op PyTorch eager 3.9x, Paddle 2.6 "
               "dygraph 6.8x, 1.8 static 6.5x, 2.6 static 27-32x; MLP step PyTorch 1.3x, "
               "Paddle 2.6 static 1.9x.")
    table.note("(c): bench_cnn's ResNet-18 at batch 2; the reference column is the same run "
               "unwatched.")
    goals = [("per-op", a["chain_ratio"] <= GOAL_PER_OP),
             ("fixed", a["fixed_run_us"] <= GOAL_FIXED_US),
             ("MLP step", b["mlp_step_ratio"] <= GOAL_STEP),
             ("watched chain", a["recorded_chain_vs_unwatched"] <= GOAL_WATCHED_CHAIN),
             ("watched MLP", b["mlp_watched_ratio"] <= GOAL_WATCHED),
             ("watched ResNet", c["resnet_watched_ratio"] <= GOAL_WATCHED)]
    busy = busy_note()
    if busy:
        table.note(busy)
    table.note("goals: " + ", ".join(f"{n} {'met' if ok else 'NOT met'}" for n, ok in goals) + ".")
    print(table)
    a.update(b)
    a.update(c)
    a["torch"] = torch.__version__ if torch is not None else None
    return a


if __name__ == "__main__":
    main()
