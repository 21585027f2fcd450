"""Exported programs trained by Fleet's parameter servers: 1 server, 2 CPU worker processes.

``run(pd, python, work)`` exports the MLP (SGD) with paddle_nb, writes 4 batch files of a task
it can learn (labels from a fixed linear teacher), and runs::

    PADDLE_WITH_GLOO=1 python -m paddle.distributed.launch --server_num=1 --worker_num=2 \
        --log_dir LOGS \
        model/train.py --data b0.npz ... --data b3.npz --steps STEPS --save trained

with ``python`` a PaddlePaddle 2.6.2 whose protobuf is 4.x (Fleet fails with 7.x: see the
README's "When a notebook is not enough"). Asynchronous mode (the default) passes when both
workers finish, each worker's loss falls (the mean of its last three steps under the mean of
its first three), and the parameters worker 0 saved load back into paddle_nb
(``pd.io.load_params``), differ from the exported ones and from those of one process trained
on worker 0's files alone (the workers shared the servers' parameters). Synchronous mode
(``--ps-mode sync``, which train.py drives by hand: see its ``sync_steps``) passes when both
workers' losses equal, step by step (1e-4), paddle_nb's synchronous data parallelism
(``sync_reference``): for the MLP and for the control-flow programs of ``models.py`` (IfElse,
While, cond, StaticRNN), whose batches are not all batch-major (StaticRNN's are time-major,
cond's threshold is one number), so that asynchronous mode's dataset cannot carry them.
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
# the control-flow programs trained synchronously (each with SGD), and their steps
CONTROL_FLOW, CONTROL_FLOW_STEPS = ("ifelse", "while", "cond", "static_rnn"), 6


def export(pd, folder, name="mlp_sgd"):
    """Export ``models.py``'s program ``name`` into ``folder``/model and write FILES batch
    files (the MLP's from a linear teacher); returns the program, the files, the parameters."""
    build, batches = models.programs()[name]
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup), pd.utils.unique_name.guard():
        build(pd)
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    pd.io.export_training(str(folder / "model"), main, startup, scope=scope)
    rng = np.random.default_rng(0)
    teacher = rng.standard_normal((models.D, models.CLASSES))
    files = []
    for k in range(FILES):
        files.append(str(folder / f"b{k}.npz"))
        if name == "mlp_sgd":
            x = rng.standard_normal((32, models.D)).astype("float32")
            np.savez(files[-1], x=x, label=(x @ teacher).argmax(1)[:, None].astype("int64"))
        else:
            np.savez(files[-1], **batches(rng))
    initial = {p.name: scope.find_var(p.name).get_tensor().numpy()
               for p in main.all_parameters()}
    return main, files, initial


def launch(python, folder, files, mode, steps=STEPS, timeout=300):
    logs = folder / f"logs_{mode}"
    command = [os.path.abspath(python), "-m", "paddle.distributed.launch", "--server_num=1",
               f"--worker_num={WORKERS}", "--log_dir", str(logs), str(folder / "model/train.py"),
               "--steps", str(steps), "--save", str(folder / f"trained_{mode}"),
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
    result["sync"] = {"mlp": synchronous(pd, python, work, files, STEPS)}
    for name in CONTROL_FLOW:
        folder = work / name
        folder.mkdir(exist_ok=True)
        try:
            _, cf_files, _ = export(pd, folder, name)
            result["sync"][name] = synchronous(pd, python, folder, cf_files, CONTROL_FLOW_STEPS)
        except Exception as err:                                # noqa: BLE001 - reported
            result["sync"][name] = {"ok": False, "why": f"{type(err).__name__}: {err}"[:300]}
    result["ok"] = rc == 0 and all(falls.values()) and isinstance(result["loaded"], dict) \
        and all(v > 0 for v in result["loaded"].values()) and result["exchanged"] \
        and all(r["ok"] for r in result["sync"].values())
    return result


def synchronous(pd, python, folder, files, steps):
    """Train ``folder``'s export in Fleet's synchronous mode; compare with paddle_nb."""
    rc, seconds, curves = launch(python, folder, files, "sync", steps)
    want = sync_reference(pd, folder, files, steps)
    diff = max((abs(a - b) for k in want for a, b in zip(want[k], curves[k])),
               default=float("inf"))
    if any(len(curves[k]) != steps for k in want):
        diff = float("inf")
    return {"rc": rc, "seconds": seconds, "steps": steps, "curves": curves, "diff": diff,
            "ok": rc == 0 and diff <= 1e-4,
            "why": "" if rc == 0 and diff <= 1e-4 else f"exit {rc}, loss diff {diff:.3g}"}


def sync_reference(pd, folder, files, steps):
    """paddle_nb's losses for synchronous data parallelism with SGD: each step, every worker's
    loss at the same parameters (the exported training program run on its batch from them),
    then the parameters become the mean of the workers' updated ones. SGD is linear in the
    gradient, so that mean is one step on the mean gradient, which is what the servers apply
    (they average the workers' gradients); it needs no batch layout."""
    model = pathlib.Path(folder) / "model"
    spec = json.loads((model / "export.json").read_text())
    main = pd.io.load_program(str(model / "main.pdmodel"))
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    pd.io.load_persistables(exe, str(model / "params"), main, scope=scope)
    values = {n: scope.find_var(n).get_tensor().numpy() for n in spec["persistables"]}
    curves = {k: [] for k in range(WORKERS)}
    for step in range(steps):
        moved = []
        for k in range(WORKERS):
            mine = files[k::WORKERS]
            with np.load(mine[step % len(mine)]) as data:
                feed = {n: data[n] for n in spec["feeds"]}
            own = pd.Scope()
            for name, value in values.items():
                own.var(name).get_tensor().set(value, pd.CPUPlace())
            (loss,) = exe.run(main, feed=feed, fetch_list=[spec["loss"]], scope=own)
            curves[k].append(float(np.asarray(loss).reshape(-1)[0]))
            moved.append({n: own.find_var(n).get_tensor().numpy() for n in spec["parameters"]})
        for name in spec["parameters"]:
            values[name] = np.mean([m[name] for m in moved], axis=0).astype(values[name].dtype)
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
    for name, sync in result["sync"].items():
        if "curves" not in sync:
            lines.append(f"\n{name}, synchronous mode: FAILS ({sync['why']})")
            continue
        lines.append(f"\n{name}, synchronous mode (a_sync = False, train.py's sync_steps), "
                     f"{sync['steps']} steps: exit {sync['rc']}, {sync['seconds']:.1f} s wall; "
                     f"losses against paddle_nb's synchronous SGD (mean gradient): max diff "
                     f"{sync['diff']:.2g}; {'passes' if sync['ok'] else 'FAILS'}")
        for k, curve in sync["curves"].items():
            lines.append(f"- worker {k}: loss " + " ".join(f"{v:.3f}" for v in curve))
    return "\n".join(lines)
