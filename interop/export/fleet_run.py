"""An exported MLP trained by Fleet's parameter servers: 1 server, 2 CPU worker processes.

``run(pd, python, work)`` exports the MLP (SGD) with paddle_nb, writes 4 batch files of a task
it can learn (labels from a fixed linear teacher), and runs::

    PADDLE_WITH_GLOO=1 python -m paddle.distributed.launch --server_num=1 --worker_num=2 \
        --log_dir LOGS \
        model/train.py --data b0.npz ... --data b3.npz --steps STEPS --save trained

with ``python`` a PaddlePaddle 2.6.2 whose protobuf is 4.x (Fleet fails with 7.x: see the
README's "When a notebook is not enough"). It passes when both workers finish, each worker's
loss falls (the mean of its last three steps under the mean of its first three), and the
parameters worker 0 saved load back into paddle_nb (``pd.io.load_params``), differ from the
exported ones and from those of one process trained on worker 0's files alone (the workers
shared the servers' parameters). Then synchronous mode (``--ps-mode sync``, which train.py
drives by hand: see its ``sync_steps``): both workers finish and their losses equal, step by
step (1e-4), paddle_nb's answer for synchronous data parallelism (``sync_reference``).
"""

import json
import pathlib
import os
import subprocess
import time

import numpy as np

try:
    from interop.export import models
except ImportError:                           # run from interop/export/
    import models

STEPS, WORKERS, FILES = 20, 2, 4


def export(pd, folder):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup), pd.utils.unique_name.guard():
        build, _ = models.mlp(models.OPTIMIZERS["sgd"])
        build(pd)
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    pd.io.export_training(str(folder / "model"), main, startup, scope=scope)
    rng = np.random.default_rng(0)
    teacher = rng.standard_normal((models.D, models.CLASSES))
    files = []
    for k in range(FILES):
        x = rng.standard_normal((32, models.D)).astype("float32")
        files.append(str(folder / f"b{k}.npz"))
        np.savez(files[-1], x=x, label=(x @ teacher).argmax(1)[:, None].astype("int64"))
    initial = {p.name: scope.find_var(p.name).get_tensor().numpy()
               for p in main.all_parameters()}
    return main, files, initial


def launch(python, folder, files, mode, timeout=300):
    logs = folder / f"logs_{mode}"
    command = [os.path.abspath(python), "-m", "paddle.distributed.launch", "--server_num=1",
               f"--worker_num={WORKERS}", "--log_dir", str(logs), str(folder / "model/train.py"),
               "--steps", str(STEPS), "--save", str(folder / f"trained_{mode}"),
               "--ps-mode", mode]
    for path in files:
        command += ["--data", path]
    start = time.time()
    # gloo: without it Fleet's barriers do nothing, and a worker may pull the parameters from
    # the servers before worker 0 has pushed the exported ones (it then starts from zeros)
    env = {**os.environ, "PADDLE_WITH_GLOO": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          cwd=folder, env=env)
    seconds = time.time() - start
    curves = {}
    for k in range(WORKERS):
        log = logs / f"workerlog.{k}"
        lines = log.read_text(errors="replace").splitlines() if log.is_file() else []
        curves[k] = [json.loads(x)["loss"] for x in lines if x.startswith('{"worker"')]
    return done.returncode, seconds, curves


def run(pd, python, work):
    work.mkdir(parents=True, exist_ok=True)
    main, files, initial = export(pd, work)
    result = {"steps": STEPS, "workers": WORKERS}
    rc, seconds, curves = launch(python, work, files, "async")
    falls = {k: len(c) == STEPS and np.mean(c[-3:]) < np.mean(c[:3]) for k, c in curves.items()}
    result.update(rc=rc, seconds=seconds, curves=curves, falls=falls)
    try:
        scope = pd.Scope()
        pd.io.load_params(pd.Executor(pd.CPUPlace()), str(work / "trained_async"), main,
                          scope=scope)
        moved = {n: float(np.max(np.abs(scope.find_var(n).get_tensor().numpy() - v)))
                 for n, v in initial.items()}
        result["loaded"] = moved
    except Exception as err:                                    # noqa: BLE001 - reported
        result["loaded"] = f"{type(err).__name__}: {err}"
    result["exchanged"] = exchanged(python, work, files)
    rc_sync, seconds_sync, curves_sync = launch(python, work, files, "sync")
    want = sync_reference(pd, work, files)
    diff = max((abs(a - b) for k in want for a, b in zip(want[k], curves_sync[k])),
               default=float("inf"))
    if any(len(curves_sync[k]) != STEPS for k in want):
        diff = float("inf")
    result["sync"] = {"rc": rc_sync, "seconds": seconds_sync, "curves": curves_sync,
                      "diff": diff, "ok": rc_sync == 0 and diff <= 1e-4}
    result["ok"] = rc == 0 and all(falls.values()) and isinstance(result["loaded"], dict) \
        and all(v > 0 for v in result["loaded"].values()) and result["exchanged"] \
        and result["sync"]["ok"]
    return result


def sync_reference(pd, folder, files):
    """paddle_nb's losses for synchronous data parallelism: each step, every worker's loss at
    the same parameters, then one optimizer step on the mean of their gradients, which is one
    step on their batches stacked (the loss is a mean over rows; the batches are the same
    size). Run on the exported programs and values, read back by paddle_nb."""
    model = pathlib.Path(folder) / "model"
    spec = json.loads((model / "export.json").read_text())
    main = pd.io.load_program(str(model / "main.pdmodel"))
    forward = pd.io.load_program(str(model / "forward.pdmodel"))
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    pd.io.load_persistables(exe, str(model / "params"), main, scope=scope)
    curves = {k: [] for k in range(WORKERS)}
    for step in range(STEPS):
        batches = []
        for k in range(WORKERS):
            mine = files[k::WORKERS]
            with np.load(mine[step % len(mine)]) as data:
                batches.append({n: data[n] for n in spec["feeds"]})
            (loss,) = exe.run(forward, feed=batches[-1], fetch_list=[spec["loss"]], scope=scope)
            curves[k].append(float(np.asarray(loss).reshape(-1)[0]))
        stacked = {n: np.concatenate([b[n] for b in batches]) for n in spec["feeds"]}
        exe.run(main, feed=stacked, fetch_list=[spec["loss"]], scope=scope)
    return curves


def exchanged(python, folder, files):
    """Did the servers change worker 0's parameters? Worker 0's saved values against one
    process trained on worker 0's files alone (the same steps, from the same values)."""
    command = [os.path.abspath(python), str(folder / "model/train.py"), "--steps", str(STEPS),
               "--save", str(folder / "alone")]
    for path in files[0::WORKERS]:
        command += ["--data", path]
    subprocess.run(command, capture_output=True, timeout=300, check=True)
    fleet, alone = folder / "trained_async", folder / "alone"
    return any((fleet / p.name).read_bytes() != p.read_bytes() for p in alone.iterdir())


def describe(result):
    lines = [f"Fleet, 1 parameter server + {result['workers']} CPU workers, asynchronous mode "
             f"(train_from_dataset), {result['steps']} steps: exit {result['rc']}, "
             f"{result['seconds']:.1f} s wall (launch included); "
             f"{'passes' if result['ok'] else 'FAILS'}"]
    for k, curve in result["curves"].items():
        shown = " ".join(f"{v:.3f}" for v in curve)
        trend = "falls" if result["falls"][k] else "NOT falling"
        lines.append(f"- worker {k}: loss {shown} ({trend})")
    loaded = result["loaded"]
    lines.append("- saved parameters load back into paddle_nb: " + (
        ", ".join(f"{n} moved {v:.3g}" for n, v in sorted(loaded.items()))
        if isinstance(loaded, dict) else loaded))
    lines.append("- worker 0's parameters " + (
        "differ from one process's trained on its files alone: the servers' updates reached it"
        if result["exchanged"] else "equal, byte for byte, one process's trained on its files "
        "alone: the workers did not share parameters"))
    sync = result["sync"]
    lines.append(f"\nFleet, synchronous mode (a_sync = False, train.py's sync_steps), "
                 f"{result['steps']} steps: exit {sync['rc']}, {sync['seconds']:.1f} s wall; "
                 f"losses against paddle_nb's synchronous SGD (mean gradient): max diff "
                 f"{sync['diff']:.2g}; {'passes' if sync['ok'] else 'FAILS'}")
    for k, curve in sync["curves"].items():
        lines.append(f"- worker {k}: loss " + " ".join(f"{v:.3f}" for v in curve))
    return "\n".join(lines)
