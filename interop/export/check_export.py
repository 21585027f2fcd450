"""Exported training programs train in PaddlePaddle 2.6.2 to paddle_nb's losses, step by step.

Run by ``make interop`` with paddle_nb's python::

    python interop/export/check_export.py --paddle-python .venv-interop/bin/python \
        --work build/interop/export [--fleet-python build/fleet-venv/bin/python]

For each program of ``models.py``: paddle_nb builds it, runs its startup, and
``pd.io.export_training`` writes the folder; paddle_nb then trains STEPS steps on the batch
files; ``train.py`` trains the same steps from the same exported values in PaddlePaddle
(``--paddle-python``, a separate process) and saves the persistables, which paddle_nb loads back
with ``pd.io.load_persistables``. Losses agree to 1e-4 and every persistable to 1e-4 (relative)
or the row says how they differ. With ``--fleet-python`` (PaddlePaddle with protobuf 4.x) the
MLP trains under ``paddle.distributed.launch`` with 1 parameter server and 2 CPU workers
(``fleet_run.py``). The table goes to ``--work``/table.md; the exit status is 1 when a row fails.
With ``--fixture FILE`` PaddlePaddle's losses and a digest of the weights it saved
(``digest``) are written, per program, to FILE (``tests/fixtures/paddle26/export/losses.json``),
which ``tests/io/test_export_paddle_losses.py`` compares paddle_nb's run with, without
PaddlePaddle.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import paddle_nb as pd                                   # noqa: E402
from interop.export import models                        # noqa: E402

STEPS, TOL = 5, 1e-4


def nb_train(name, build, batches, folder):
    """Build and export ``name``; train it STEPS steps in paddle_nb. Returns losses, values."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup), pd.utils.unique_name.guard():
        loss = build(pd)
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    manifest = pd.io.export_training(str(folder / "model"), main, startup, scope=scope)
    rng = np.random.default_rng(5)
    files, losses = [], []
    for k in range(STEPS):
        batch = batches(rng)
        files.append(str(folder / f"batch{k}.npz"))
        np.savez(files[-1], **batch)
        feed = {n: batch[n] for n in manifest["feeds"]}
        (value,) = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        losses.append(float(np.asarray(value).reshape(-1)[0]))
        if main.lr_scheduler is not None:
            main.lr_scheduler.step()
    values = {n: scope.find_var(n).get_tensor().numpy() for n in manifest["persistables"]}
    return main, manifest, files, losses, values


def paddle_train(python, folder, files, out):
    command = [python, str(folder / "model/train.py"), "--steps", str(STEPS), "--save", str(out)]
    for path in files:
        command += ["--data", path]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip()
                           else f"exit {done.returncode}")
    return [line["loss"] for line in lines]


def digest(values):
    """A digest of trained persistables that a test can compare with a tolerance: per variable
    its shape, its sum and the sum of its absolute values (float64)."""
    return {n: {"shape": list(v.shape), "sum": float(np.sum(v, dtype="float64")),
                "abs_sum": float(np.sum(np.abs(v), dtype="float64"))}
            for n, v in sorted(values.items())}


def loaded_back(main, names, out):
    """The persistables ``train.py --save`` wrote, read by ``pd.io.load_persistables``."""
    scope = pd.Scope()
    pd.io.load_persistables(pd.Executor(pd.CPUPlace()), str(out), main, scope=scope)
    return {n: scope.find_var(n).get_tensor().numpy() for n in names}


def check_one(name, build, batches, work, python):
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    main, manifest, files, nb_losses, nb_values = nb_train(name, build, batches, folder)
    scheduled = manifest["optimizer"].get("lr_scheduler")
    row = {"program": name, "optimizer": manifest["optimizer"]["type"]
           + (f" + {scheduled['type']}" if scheduled else ""),
           "ops": len({op.type for op in pd.io.load_program(str(folder / "model/main.pdmodel"))
                       .global_block().ops}), "nb": nb_losses}
    try:
        row["paddle"] = paddle_train(python, folder, files, folder / "trained")
    except Exception as err:                                    # noqa: BLE001 - reported
        row.update(ok=False, why=f"PaddlePaddle: {err}"[:300])
        return row
    loss_diff = max(abs(a - b) for a, b in zip(nb_losses, row["paddle"])) \
        if len(row["paddle"]) == STEPS else float("inf")
    back = loaded_back(main, list(nb_values), folder / "trained")
    worst, where = 0.0, ""
    for n, want in nb_values.items():
        got = back[n]
        diff = float(np.max(np.abs(got.astype("float64") - want) / (1.0 + np.abs(want)))) \
            if got.size else 0.0
        if got.shape != want.shape:
            diff = float("inf")
        if diff > worst:
            worst, where = diff, n
    row["digest"] = digest(back)
    row.update(loss_diff=loss_diff, weight_diff=worst, worst=where,
               ok=loss_diff <= TOL and worst <= TOL,
               why="" if loss_diff <= TOL and worst <= TOL else
               f"losses differ by {loss_diff:.3g}; weights by {worst:.3g} ({where})")
    return row


def write_fixture(path, rows):
    """PaddlePaddle's losses and weight digests of the programs that agree (a program that
    does not is left out, and its test with it)."""
    found = {r["program"]: {"steps": STEPS, "losses": r["paddle"], "weights": r["digest"]}
             for r in rows if r["ok"]}
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(path).write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")


def table(rows):
    lines = ["| program | optimizer | losses (paddle_nb) | max loss diff | max weight diff | "
             "agree |", "|---|---|---|---|---|---|"]
    for r in rows:
        losses = " ".join(f"{v:.4f}" for v in r["nb"])
        lines.append(f"| {r['program']} | {r['optimizer']} | {losses} | "
                     f"{r.get('loss_diff', float('nan')):.2g} | "
                     f"{r.get('weight_diff', float('nan')):.2g} | "
                     f"{'yes' if r['ok'] else 'NO: ' + r['why']} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paddle-python", required=True)
    parser.add_argument("--fleet-python")
    parser.add_argument("--work", default="build/interop/export")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--fixture", help="write PaddlePaddle's losses and weight digests here")
    args = parser.parse_args(argv)
    work = pathlib.Path(args.work).resolve()
    rows = []
    for name, (build, batches) in models.programs().items():
        if args.only and name not in args.only:
            continue
        start = time.time()
        try:
            rows.append(check_one(name, build, batches, work, args.paddle_python))
        except Exception as err:                                # noqa: BLE001 - reported
            rows.append({"program": name, "optimizer": "?", "nb": [], "ok": False,
                         "why": f"paddle_nb: {type(err).__name__}: {err}"[:300]})
        print(f"{name}: {'agrees' if rows[-1]['ok'] else 'DIFFERS: ' + rows[-1]['why']} "
              f"({time.time() - start:.1f} s)", flush=True)
    text = table(rows)
    if args.fixture:
        write_fixture(args.fixture, rows)
    if args.fleet_python:
        from interop.export import fleet_run
        fleet = fleet_run.run(pd, args.fleet_python, work / "fleet")
        text += "\n\n" + fleet_run.describe(fleet)
        rows.append({"ok": fleet["ok"]})
    (work / "table.md").write_text(text + "\n")
    print(text)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
