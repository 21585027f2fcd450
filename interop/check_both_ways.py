"""Check paddle_nb against PaddlePaddle 2.6.2, both ways, each in its own process.

    .venv/bin/python interop/check_both_ways.py --fixtures build/interop/paddle26

1. **paddle_nb runs PaddlePaddle's files** (``nb`` side, run with paddle_nb's ``.venv``): for
   each model that ``interop/make_fixtures.py`` wrote, the inference model
   (``<model>.pdmodel`` + ``.pdiparams``, loaded by its path prefix) gives PaddlePaddle's
   outputs, and the training program (``<model>.main.pb``, after PaddlePaddle's startup program
   and the ``init:`` parameters) gives PaddlePaddle's losses and parameters after each step.
   Every program also parses and serializes back to PaddlePaddle's bytes, before and after
   running. Then paddle_nb builds the tour and test models of ``interop/nb_models.py`` (MLPs,
   CNNs, shape, math and logic ops, IfElse, ``cond``, While, StaticRNN, the design doc's RNN and
   IfElse: every forward op it registers, which one row checks) and saves each with
   ``pd.io.save_inference_model`` in three layouts: the path prefix (``<name>.pdmodel`` /
   ``.pdiparams``), a directory with named files, and the 1.x layout (``__model__`` + one
   file per variable), with its own outputs (for two inputs, so that control flow takes both
   ways) beside them. The files hold the ops as PaddlePaddle 2.6 writes them
   (``paddle_nb/io/export26.py``).
2. **PaddlePaddle runs paddle_nb's files** (``paddle`` side, run with ``.venv-interop``): each
   of those models loads with ``paddle.static.load_inference_model`` and gives paddle_nb's
   outputs; so does the path-prefix one in Paddle Inference's predictor (``paddle.inference``,
   with its IR fusion passes). paddle_nb's training programs of the MLP and the CNN (forward,
   backward and ``sgd`` ops, saved with ``pd.io.save`` and ``pd.io.save_persistables``) train
   three steps in PaddlePaddle (``paddle.static.deserialize_program`` /
   ``deserialize_persistables``) to paddle_nb's losses and parameters. And the MLP rebuilt with
   ``paddle.static.nn.fc``, given paddle_nb's ``pd.io.save_params`` files through
   ``paddle.static.load_program_state`` / ``set_program_state`` (the way to a program of
   PaddlePaddle's own, such as one Fleet distributes), gives paddle_nb's outputs. (Training
   programs with control flow do not run there: paddle_nb's backward writes its own
   ``while_grad`` / ``conditional_block_grad`` conventions, which PaddlePaddle's kernels do
   not read.)

Each side runs in its own process with its own venv (paddle_nb's NumPy 2 and protobuf
beside PaddlePaddle's NumPy 1.x), so the default command (``all``) imports neither: it runs the
two sides as
subprocesses, each writing a JSON report into ``--work``, then prints one table and exits
non-zero when anything differs by more than rtol 1e-4 (atol 1e-6) or failed to load or run.
"""

import json
import pathlib
import sys
import traceback

import numpy as np

try:                  # imported as interop.check_both_ways (the corpus test does)
    from interop import nb_export, nb_models, sides
except ImportError:   # run as a script: interop/ is sys.path[0]
    import nb_export  # paddle_nb's side of the export check
    import nb_models
    import sides

RTOL, ATOL = 1e-4, 1e-6
ROOT = pathlib.Path(__file__).resolve().parents[1]
LAYOUTS = ("prefix", "dir", "vars")     # how paddle_nb saves each of its models


def compare(got, want):
    """{"rel", "abs", "ok"}: the largest relative error (where |want| >= 1e-3) and absolute one.

    A 0-D value and a one-element [1] value compare equal: PaddlePaddle 2.x's means are 0-D,
    paddle_nb's (as fluid 1.8's) have shape [1].
    """
    got, want = np.asarray(got, "float64"), np.asarray(want, "float64")
    if got.shape != want.shape and got.size == want.size == 1:
        got, want = got.reshape(1), want.reshape(1)
    if got.shape != want.shape:
        return {"rel": float("inf"), "abs": float("inf"), "ok": False,
                "error": f"shape {list(got.shape)}, expected {list(want.shape)}"}
    diff = np.abs(got - want)
    big = np.abs(want) >= 1e-3
    rel = float(np.max(diff[big] / np.abs(want[big]))) if big.any() else 0.0
    ok = bool(np.all(diff <= ATOL + RTOL * np.abs(want)))
    return {"rel": rel, "abs": float(diff.max()) if diff.size else 0.0, "ok": ok}


class Report:
    """Rows of (check, what, result); a failure is a row with ok False and an error."""

    def __init__(self, side):
        self.side, self.rows = side, []

    def add(self, check, what, result):
        self.rows.append({"side": self.side, "check": check, "what": what, **result})

    def fail(self, check, what, error):
        self.add(check, what, {"rel": None, "abs": None, "ok": False, "error": error})

    def write(self, path):
        pathlib.Path(path).write_text(json.dumps(self.rows, indent=1) + "\n")


# -- side 1: paddle_nb runs PaddlePaddle's files ---------------------------------------------------
def nb_side(fixtures, work):
    import paddle_nb as pd
    report = Report("paddle_nb runs PaddlePaddle's")
    manifest = json.loads((fixtures / "manifest.json").read_text())
    for name, entry in manifest.items():
        io = dict(np.load(fixtures / f"{name}_io.npz"))
        for check, run in (("inference", _nb_inference), ("training", _nb_training)):
            try:
                run(pd, fixtures, name, entry, io, report)
            except Exception:                                       # noqa: BLE001 - reported
                report.fail(f"{name} {check}", "", traceback.format_exc(limit=4))
    exports = work / "nb_models"
    exports.mkdir(parents=True, exist_ok=True)
    models = {}
    for name, build in nb_models.MODELS.items():
        try:
            models[f"nb_{name}"] = nb_export.export(pd, f"nb_{name}", build, exports)
        except Exception:                                           # noqa: BLE001 - reported
            report.fail(f"nb_{name} export", "", traceback.format_exc(limit=4))
    (exports / "models.json").write_text(json.dumps(models, indent=1) + "\n")
    nb_export.coverage(pd, models, report)
    trainings = {}
    for name, build in (("nb_mlp_train", nb_models.mlp), ("nb_cnn_train", nb_models.cnn)):
        try:
            trainings[name] = nb_export.export_training(pd, name, build, exports)
        except Exception:                                           # noqa: BLE001 - reported
            report.fail(f"{name} export", "", traceback.format_exc(limit=4))
    (exports / "trainings.json").write_text(json.dumps(trainings, indent=1) + "\n")
    return report


def _nb_inference(pd, fixtures, name, entry, io, report):
    data = (fixtures / f"{name}.pdmodel").read_bytes()
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    program, feeds, fetches = pd.io.load_inference_model(str(fixtures / name), exe, scope=scope)
    assert feeds == entry["infer"]["feeds"], (feeds, entry["infer"]["feeds"])
    assert [v.name for v in fetches] == entry["infer"]["fetches"]
    outputs = exe.run(program, feed={f: io[f"infer/{f}"] for f in feeds}, fetch_list=fetches,
                      scope=scope)
    for var, value in zip(fetches, outputs):
        report.add(f"{name} inference", var.name, compare(value, io[f"infer/{var.name}"]))
    report.add(f"{name} inference", "program bytes kept after running",
               _same(program.serialize() == data))


def _nb_training(pd, fixtures, name, entry, io, report):
    main_bytes = (fixtures / f"{name}.main.pb").read_bytes()
    startup_bytes = (fixtures / f"{name}.startup.pb").read_bytes()
    main, startup = pd.Program.parse(main_bytes), pd.Program.parse(startup_bytes)
    report.add(f"{name} training", "parse -> serialize is byte for byte",
               _same(main.serialize() == main_bytes and startup.serialize() == startup_bytes))
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for p in entry["params"]:          # paddle_nb's random initializers draw other numbers
        scope.find_var(p).get_tensor().set(io[f"init:{p}"], pd.CPUPlace())
    keys = ("loss", "loss0")
    for k in range(entry["steps"]):
        feed = {f: io[f"step{k}/{f}"] for f in entry["feeds"]}
        losses = exe.run(main, feed=feed, fetch_list=entry["losses"], scope=scope)
        for key, var, value in zip(keys, entry["losses"], losses):
            report.add(f"{name} training", f"step {k}: {key} ({var})", compare(value, io[key][k]))
        for p in entry["params"]:
            report.add(f"{name} training", f"step {k}: {p}",
                       compare(scope.find_var(p).get_tensor().numpy(), io[f"step{k}:{p}"]))
    report.add(f"{name} training", "program bytes kept after training",
               _same(main.serialize() == main_bytes))


def _same(flag):
    return {"rel": 0.0 if flag else None, "abs": None, "ok": bool(flag),
            **({} if flag else {"error": "differs"})}


# -- side 2: PaddlePaddle runs paddle_nb's files ---------------------------------------------------
def paddle_side(work):
    import paddle
    paddle.enable_static()
    report = Report(f"PaddlePaddle {paddle.__version__} runs paddle_nb's")
    exports = work / "nb_models"
    models = json.loads((exports / "models.json").read_text())
    exe = paddle.static.Executor(paddle.CPUPlace())
    for name, entry in models.items():
        io = dict(np.load(exports / f"{name}_io.npz"))
        for layout, args in nb_export.layouts(exports, name).items():
            check = f"{name} ({layout})"
            try:
                scope = paddle.static.Scope()
                with paddle.static.scope_guard(scope):
                    # load_inference_model(path_prefix, exe) or, in PaddlePaddle's words, the
                    # "old way": a directory with model_filename= and params_filename=
                    program, feeds, fetches = paddle.static.load_inference_model(
                        args["path"], exe, **args["kwargs"])
                    assert list(feeds) == entry["feeds"], (feeds, entry["feeds"])
                    for k in range(entry["runs"]):
                        outputs = exe.run(program, feed={f: io[f"feed{k}/{f}"] for f in feeds},
                                          fetch_list=fetches)
                        for target, value in zip(entry["targets"], outputs):
                            report.add(check, f"input {k}: {target}",
                                       compare(value, io[f"out{k}/{target}"]))
            except Exception:                                       # noqa: BLE001 - reported
                report.fail(check, "", traceback.format_exc(limit=6))
        check = f"{name} (Paddle Inference predictor)"
        try:         # Paddle Inference, the deployment engine: IR fusion passes, oneDNN kernels
            predictor = _predictor(paddle, str(exports / name))
            for k in range(entry["runs"]):
                outputs = _predict(predictor, io, k)
                for target, value in zip(entry["targets"], outputs):
                    report.add(check, f"input {k}: {target}",
                               compare(value, io[f"out{k}/{target}"]))
        except Exception:                                           # noqa: BLE001 - reported
            report.fail(check, "", traceback.format_exc(limit=6))
    check = "nb_mlp (rebuilt in PaddlePaddle, parameters by name)"
    try:
        _paddle_rebuilt_mlp(paddle, exports, models["nb_mlp"], report, check)
    except Exception:                                               # noqa: BLE001 - reported
        report.fail(check, "", traceback.format_exc(limit=6))
    trainings = json.loads((exports / "trainings.json").read_text())
    for name, entry in trainings.items():
        check = f"{name} (training program)"
        try:
            _paddle_train(paddle, exports, name, entry, report, check)
        except Exception:                                           # noqa: BLE001 - reported
            report.fail(check, "", traceback.format_exc(limit=6))
    return report


def _paddle_rebuilt_mlp(paddle, exports, entry, report, check):
    """How a model moves to a PaddlePaddle program of its own (e.g. one that Fleet rewrites for
    many GPUs): the same network built with paddle.static.nn, then paddle_nb's
    ``save_params`` files read by ``load_program_state`` and set by ``set_program_state``."""
    io = dict(np.load(exports / "nb_mlp_io.npz"))
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 16], "float32")
        hidden = paddle.static.nn.fc(x, 32, activation="relu", name="fc_0")
        logits = paddle.static.nn.fc(hidden, 10, name="fc_1")
        prob = paddle.nn.functional.softmax(logits)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        state = paddle.static.load_program_state(str(exports / "nb_mlp_params"))
        assert sorted(state) == sorted(p.name for p in main.all_parameters()), sorted(state)
        paddle.static.set_program_state(main, state)
        for k in range(entry["runs"]):
            outputs = exe.run(main, feed={"x": io[f"feed{k}/x"]}, fetch_list=[logits, prob])
            for target, value in zip(entry["targets"], outputs):
                report.add(check, f"input {k}: {target}", compare(value, io[f"out{k}/{target}"]))


def _paddle_train(paddle, exports, name, entry, report, check):
    """PaddlePaddle runs paddle_nb's forward, backward and SGD ops from where paddle_nb began."""
    io = dict(np.load(exports / f"{name}_io.npz"))
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        program = paddle.static.deserialize_program((exports / f"{name}.pdmodel").read_bytes())
        paddle.static.deserialize_persistables(
            program, (exports / f"{name}.pdiparams").read_bytes(), exe)
        for k in range(entry["steps"]):
            (loss,) = exe.run(program, feed={f: io[f"step{k}/{f}"] for f in entry["feeds"]},
                              fetch_list=[entry["loss"]])
            report.add(check, f"step {k}: loss", compare(loss, io[f"loss{k}"]))
            for p in entry["params"]:
                report.add(check, f"step {k}: {p}",
                           compare(np.array(scope.find_var(p).get_tensor()),
                                   io[f"step{k}:{p}"]))


def _predictor(paddle, prefix):
    if pathlib.Path(f"{prefix}.pdiparams").is_file():
        config = paddle.inference.Config(f"{prefix}.pdmodel", f"{prefix}.pdiparams")
    else:                                   # a model without parameters: no params file
        config = paddle.inference.Config()
        config.set_prog_file(f"{prefix}.pdmodel")
    config.disable_gpu()
    return paddle.inference.create_predictor(config)


def _predict(predictor, io, k):
    for name in predictor.get_input_names():
        handle = predictor.get_input_handle(name)
        handle.reshape(io[f"feed{k}/{name}"].shape)
        handle.copy_from_cpu(io[f"feed{k}/{name}"])
    predictor.run()
    return [predictor.get_output_handle(n).copy_to_cpu() for n in predictor.get_output_names()]


# -- both ------------------------------------------------------------------------------------------
def run_side(python, side, args):
    """Run one side as a subprocess: (its report's rows, its seconds)."""
    seconds = sides.run_side(pathlib.Path(__file__).resolve(), side, python,
                             ["--fixtures", str(args.fixtures), "--work", str(args.work)])
    out = args.work / f"{side}.json"
    if not out.is_file():
        raise SystemExit(f"check_both_ways: the {side} side ({python}) wrote no {out}")
    return json.loads(out.read_text()), seconds


def print_table(rows):
    width = max(len(f"{r['check']}: {r['what']}") for r in rows)
    side = None
    for r in rows:
        if r["side"] != side:
            side = r["side"]
            print(f"\n{side} files:")
        label = f"{r['check']}: {r['what']}"
        if r.get("error") and r["rel"] is None:
            first = r["error"].strip().splitlines()[-1]
            print(f"  {label:<{width}}  FAILED  {first}")
            continue
        rel = "" if r["rel"] is None else f"rel {r['rel']:.1e}"
        abs_ = "" if r["abs"] is None else f"abs {r['abs']:.1e}"
        print(f"  {label:<{width}}  {'ok' if r['ok'] else 'DIFFERS':<7} {rel:<12} {abs_}")


def print_summary(rows):
    """One Markdown row per model that PaddlePaddle ran (docs/paddle_compat.md shows it)."""
    models = {}
    for r in rows:
        if r["side"].startswith("PaddlePaddle"):
            models.setdefault(r["check"].split(" (")[0], []).append(r)
    print("\n| paddle_nb model | checks agreeing | largest relative error |\n|---|---|---|")
    for name, group in models.items():
        ok = sum(r["ok"] for r in group)
        worst = max((r["rel"] or 0.0) for r in group)
        print(f"| {name} | {ok} of {len(group)} | {worst:.1e} |")


def main(argv=None):
    parser = sides.parser(__doc__, work=ROOT / "build/interop/work")
    parser.add_argument("--fixtures", type=pathlib.Path, default=ROOT / "build/interop/paddle26",
                        help="what interop/make_fixtures.py wrote")
    args = parser.parse_args(argv)
    args.fixtures, args.work = args.fixtures.resolve(), args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.side != "all":
        report = nb_side(args.fixtures, args.work) if args.side == "nb" else \
            paddle_side(args.work)
        report.write(args.work / f"{args.side}.json")
        return 0
    nb_rows, nb_s = run_side(args.nb_python, "nb", args)
    pd_rows, pd_s = run_side(args.paddle_python, "paddle", args)
    rows = nb_rows + pd_rows
    print_table(rows)
    print_summary(rows)
    bad = [r for r in rows if not r["ok"]]
    worst = {s: max((r["rel"] or 0.0) for r in rows if r["side"] == s)
             for s in dict.fromkeys(r["side"] for r in rows)}
    print(f"\n{len(rows) - len(bad)} of {len(rows)} checks agree (rtol {RTOL:g}, atol {ATOL:g}); "
          f"paddle_nb side {nb_s:.1f} s, PaddlePaddle side {pd_s:.1f} s")
    for side, value in worst.items():
        print(f"  largest relative error, {side} files: {value:.1e}")
    if bad:
        for r in bad:
            sys.stderr.write(f"DIFFERS: {r['side']}: {r['check']}: {r['what']}\n"
                             f"{r.get('error', '')}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
