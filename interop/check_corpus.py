"""PaddlePaddle runs the corpus as paddle_nb writes it: the corpus's second direction.

    .venv/bin/python interop/check_corpus.py --corpus build/interop/paddle26/corpus

The first direction, paddle_nb running PaddlePaddle's corpus, is ``tools/paddle_coverage.py``
(and ``tests/compat/test_paddle26_corpus.py``). Here paddle_nb writes each corpus program as
its own files, and PaddlePaddle 2.6.2 runs them:

1. ``nb`` side (paddle_nb's venv): each inference model parsed and serialized again
   (``<name>.pdmodel``) with its synthesized parameters saved by
   ``pd.io.save_persistables(..., filename="<name>.pdiparams")``, PaddlePaddle's path-prefix
   layout; each training program whose startup ops paddle_nb registers serialized again, with
   the persistables paddle_nb's startup program and ``synth`` give (optimizer state included).
   No op needs to run in paddle_nb but the startup's: this checks the writers.
2. ``paddle`` side (``.venv-interop``): ``paddle.static.load_inference_model`` of each model
   gives the corpus's outputs; ``deserialize_program`` + ``deserialize_persistables`` of each
   training program train three steps to the corpus's losses (the learning rate written before
   each step, as PaddlePaddle's executor does for a scheduler).

The default command runs both sides as subprocesses (each in its own venv), prints one
line per program and exits non-zero when anything differs (rtol 1e-4, atol 1e-6) or failed.
"""

import json
import pathlib
import sys
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interop import sides, synth                                   # noqa: E402
from interop.check_both_ways import compare                        # noqa: E402


def _feeds(corpus, name, entry, io):
    """The inference feeds PaddlePaddle ran with (stored, or synthesized when large)."""
    return {f["name"]: io[f"in/{f['name']}"] if f["stored"] else
            synth.synth_input(f"{name}/{f['name']}", f["shape"], f["dtype"], f["high"])
            for f in entry["feeds"]}


# -- side 1: paddle_nb writes ---------------------------------------------------------------------
def nb_side(corpus, work):
    import paddle_nb as pd
    from interop import run_corpus
    from paddle_nb.ops.machinery import registry
    written = {}
    for name, entry in run_corpus.manifest(corpus).items():
        try:
            if entry["kind"] == "inference":
                written[name] = _nb_write_inference(pd, run_corpus, corpus, name, entry, work)
            elif all(registry.exists(t) for b in entry["startup_blocks"] for t in b):
                written[name] = _nb_write_training(pd, run_corpus, corpus, name, entry, work)
            else:
                written[name] = {"skipped": "paddle_nb does not register its startup ops"}
        except Exception:                                           # noqa: BLE001 - reported
            written[name] = {"error": traceback.format_exc(limit=3)}
    (work / "written.json").write_text(json.dumps(written, indent=1) + "\n")


def _nb_write_inference(pd, run_corpus, corpus, name, entry, work):
    program = pd.Program.parse((corpus / f"{name}.pdmodel").read_bytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    run_corpus.set_synth_params(pd, scope, name, entry)
    (work / f"{name}.pdmodel").write_bytes(program.serialize())
    pd.io.save_persistables(exe, str(work), program, scope=scope, filename=f"{name}.pdiparams")
    return {"files": [f"{name}.pdmodel", f"{name}.pdiparams"]}


def _nb_write_training(pd, run_corpus, corpus, name, entry, work):
    main = pd.Program.parse((corpus / f"{name}.main.pb").read_bytes())
    startup = pd.Program.parse((corpus / f"{name}.startup.pb").read_bytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    run_corpus.set_synth_params(pd, scope, name, entry)
    (work / f"{name}.main.pb").write_bytes(main.serialize())
    pd.io.save_persistables(exe, str(work), main, scope=scope, filename=f"{name}.persistables")
    return {"files": [f"{name}.main.pb", f"{name}.persistables"]}


# -- side 2: PaddlePaddle runs --------------------------------------------------------------------
def paddle_side(corpus, work):
    import paddle
    paddle.enable_static()
    manifest = json.loads((corpus / "manifest.json").read_text())
    written = json.loads((work / "written.json").read_text())
    report = {}
    for name, entry in manifest.items():
        done = written.get(name, {"error": "not written"})
        if "files" not in done:
            report[name] = {k: v for k, v in done.items()}
            continue
        try:
            run = _paddle_inference if entry["kind"] == "inference" else _paddle_training
            report[name] = run(paddle, corpus, work, name, entry)
        except Exception:                                           # noqa: BLE001 - reported
            report[name] = {"error": traceback.format_exc(limit=4)}
    (work / "paddle.json").write_text(json.dumps(report, indent=1) + "\n")


def _paddle_inference(paddle, corpus, work, name, entry):
    io = dict(np.load(corpus / f"{name}_io.npz"))
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        program, feeds, fetches = paddle.static.load_inference_model(str(work / name), exe)
        outputs = exe.run(program, feed=_feeds(corpus, name, entry, io), fetch_list=fetches)
    return _worst([compare(got, io[f"out/{k}"]) for k, got in enumerate(outputs)])


def _paddle_training(paddle, corpus, work, name, entry):
    io = dict(np.load(corpus / f"{name}_io.npz"))
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    results = []
    with paddle.static.scope_guard(scope):
        program = paddle.static.deserialize_program((work / f"{name}.main.pb").read_bytes())
        paddle.static.deserialize_persistables(
            program, (work / f"{name}.persistables").read_bytes(), exe)
        for k in range(entry["steps"]):
            if entry["lr_var"]:
                lr = scope.find_var(entry["lr_var"]).get_tensor()
                lr.set(np.full(np.array(lr).shape, entry["lr"][k], "float32"),
                       paddle.CPUPlace())
            feed = {f["name"]: io[f"step{k}/{f['name']}"] for f in entry["feeds"]}
            (loss,) = exe.run(program, feed=feed, fetch_list=entry["losses"])
            results.append(compare(loss, io["loss"][k]))
            results += [compare(np.array(scope.find_var(p).get_tensor()), io[f"step{k}:{p}"])
                        for p in entry["params_checked"]]
    return _worst(results)


def _worst(results):
    return {"ok": all(r["ok"] for r in results),
            "rel": max((r["rel"] for r in results), default=0.0),
            "abs": max((r["abs"] for r in results), default=0.0)}


# -- both ------------------------------------------------------------------------------------------
def main(argv=None):
    parser = sides.parser(__doc__, work=ROOT / "build/interop/corpus_work")
    parser.add_argument("--corpus", type=pathlib.Path,
                        default=ROOT / "tests/fixtures/paddle26/corpus")
    args = parser.parse_args(argv)
    args.corpus, args.work = args.corpus.resolve(), args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.side != "all":
        (nb_side if args.side == "nb" else paddle_side)(args.corpus, args.work)
        return 0
    for side, python in sides.sides(args):
        sides.run_side(__file__, side, python,
                       ["--corpus", str(args.corpus), "--work", str(args.work)])
    report = json.loads((args.work / "paddle.json").read_text())
    for big in [*args.work.glob("*.pdiparams"), *args.work.glob("*.persistables")]:
        big.unlink()                  # VGG's and AlexNet's parameters: a gigabyte together
    bad = 0
    print("PaddlePaddle 2.6.2 runs the corpus as paddle_nb writes it:")
    for name, r in report.items():
        if "ok" in r:
            bad += not r["ok"]
            print(f"  {name:<26} {'ok' if r['ok'] else 'DIFFERS':<8} rel {r['rel']:.1e}  "
                  f"abs {r['abs']:.1e}")
        else:
            bad += "error" in r
            what = r.get("skipped") or r["error"].strip().splitlines()[-1]
            print(f"  {name:<26} {'skipped' if 'skipped' in r else 'FAILED':<8} {what}")
    print(f"check_corpus: {sum('ok' in r and r['ok'] for r in report.values())} of "
          f"{len(report)} programs agree (rtol 1e-4, atol 1e-6)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
