"""PaddlePaddle 2.x training scripts, run unchanged under PaddlePaddle and under paddle_nb.

Each script in ``interop/scripts/`` is written as a PaddlePaddle 2.6 user writes a static-mode
training script (``import paddle``, ``paddle.nn``, ``paddle.optimizer``...). This driver runs
one under either framework and records every ``Executor.run``: the op types of the program
run (every block), its persistable names, and the values fetched. Under paddle_nb, ``paddle``
and its submodules are paddle_nb's (``import paddle.nn as nn`` gives ``paddle_nb.nn``). Both
sides start from the same parameters: before a program's first run, each of its parameters
that this run has not yet written is overwritten with ``synth.synth_params`` (a buffer that
``coalesce_tensor`` fuses parameters into first), so the two frameworks train the same model
from the same values and the losses can be compared step by step.

    .venv-interop/bin/python interop/run_scripts.py paddle --out tests/fixtures/paddle26/scripts
    .venv/bin/python interop/run_scripts.py nb --out build/interop/scripts [--script NAME]
    .venv/bin/python interop/run_scripts.py compare --out build/interop/scripts

``tests/api/test_scripts.py`` runs each script under paddle_nb against PaddlePaddle's
committed report.
"""

import argparse
import contextlib
import io
import json
import pathlib
import runpy
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interop import synth  # noqa: E402

SCRIPTS = ROOT / "interop" / "scripts"
# scripts whose last program's checkpoint PaddlePaddle saves and paddle_nb loads (Linear, Conv2D,
# BatchNorm2D, LSTM, shared weights; the larger ones are left out to keep the fixtures small)
CHECKPOINTED = {"mlp_adam", "lenet_momentum", "resnet_block_l2", "lstm_classifier_clip",
                "shared_weights"}
RTOL, ATOL = 1e-4, 1e-5


def alias_paddle_nb():
    """Make ``import paddle`` (and ``paddle.nn``, ``paddle.static.nn``, ...) import paddle_nb."""
    import importlib
    import pkgutil
    import paddle_nb
    for info in pkgutil.walk_packages(paddle_nb.__path__, "paddle_nb."):
        if ".viz" not in info.name:
            importlib.import_module(info.name)
    for name, module in list(sys.modules.items()):
        if name == "paddle_nb" or name.startswith("paddle_nb."):
            sys.modules["paddle" + name[len("paddle_nb"):]] = module
    return paddle_nb


def _float(var):
    try:
        return np.dtype(str(var.dtype).replace("paddle.", "").replace("fp32", "float32")
                        .replace("fp64", "float64")).kind == "f"
    except TypeError:
        return False


class Recorder:
    """Wraps ``Executor.run``: writes synthesized parameters, records what each run did."""

    def __init__(self, paddle):
        self.paddle = paddle
        self.last = None          # (executor, program, scope) of the last run
        self.paused = False
        self.runs = []
        self.written = set()
        self.fused = set()

    def install(self):
        executor = self.paddle.static.Executor
        original = executor.run
        recorder = self

        def run(exe, program=None, feed=None, fetch_list=None, *args, **kwargs):
            if recorder.paused:         # (the checkpoint's own save program)
                return original(exe, program, feed, fetch_list, *args, **kwargs)
            program = program if program is not None else \
                recorder.paddle.static.default_main_program()
            target = getattr(program, "_program", None) or program     # a CompiledProgram
            scope = kwargs.get("scope") or recorder.paddle.static.global_scope()
            recorder.before(target, scope)
            result = original(exe, program, feed, fetch_list, *args, **kwargs)
            recorder.after(target, result)
            recorder.last = (exe, target, scope)
            return result
        executor.run = run

    def before(self, program, scope):
        """Overwrite the parameters this program reads that no run has written yet."""
        block = program.global_block()
        self.fused |= {n for op in block.ops if op.type == "coalesce_tensor"
                       for n in op.output("FusedOutput")}
        params = sorted(program.all_parameters(), key=lambda p: p.name not in self.fused)
        for param in params:
            if param.name in self.written or not _float(param):
                continue
            found = scope.find_var(param.name)
            if found is None:
                continue
            value = synth.synth_params(param.name, [int(d) for d in param.shape],
                                       str(param.dtype).replace("paddle.", "")
                                       .replace("fp32", "float32").replace("fp64", "float64"))
            found.get_tensor().set(value, self.paddle.CPUPlace())
            self.written.add(param.name)

    def after(self, program, result):
        self.runs.append({
            "op_types": [op.type for block in program.blocks for op in block.ops],
            "persistables": sorted(v.name for v in program.list_vars() if v.persistable
                                   and not v.name.startswith(("feed", "fetch"))),
            "fetch": [np.asarray(v).tolist() for v in (result or [])],
            "fetch_dtypes": [str(np.asarray(v).dtype) for v in (result or [])],
        })


def run_script(side, path, checkpoint=None):
    """Run one script under ``side``; its report (runs, printed text, or the error). With a
    ``checkpoint`` folder, also the checkpoint round trip (``_checkpoint``)."""
    if side == "nb":
        paddle = alias_paddle_nb()
    else:
        import paddle
    recorder = Recorder(paddle)
    recorder.install()
    printed = io.StringIO()
    report = {"script": path.name}
    try:
        with contextlib.redirect_stdout(printed):
            runpy.run_path(str(path), run_name="__main__")
    except Exception as error:
        report["error"] = f"{type(error).__name__}: {error}"
    report["runs"] = recorder.runs
    report["printed"] = printed.getvalue()[-2000:]
    if recorder.last is not None and checkpoint is not None and "error" not in report:
        recorder.paused = True
        report["checkpoint"] = _checkpoint(side, paddle, recorder.last, checkpoint)
    return report


def _checkpoint(side, paddle, last, folder):
    """PaddlePaddle saves the last program's persistables (one file each, its tensor format)
    into ``folder``; paddle_nb loads that checkpoint into the same script's program in a
    fresh scope. Either way: {name: [shape, sha256 of the bytes]} of what is in the scope."""
    import hashlib
    exe, program, scope = last
    if side == "paddle":
        import paddle.distributed.io as dio
        with paddle.static.scope_guard(scope):
            dio.save_persistables(exe, str(folder), main_program=program)
        loaded = scope
    else:
        loaded = paddle.Scope()
        paddle.io.load_persistables(exe, str(folder), main_program=program, scope=loaded)
    values = {}
    for var in program.list_vars():
        found = loaded.find_var(var.name) if var.persistable else None
        if found is not None and not var.name.startswith(("feed", "fetch")):
            array = np.ascontiguousarray(np.asarray(found.get_tensor()))
            values[var.name] = [list(array.shape), hashlib.sha256(array.tobytes()).hexdigest()]
    return values


def compare(mine, theirs):
    """The first difference between paddle_nb's report and PaddlePaddle's, or None."""
    if "error" in mine:
        return f"paddle_nb failed: {mine['error']}"
    if len(mine["runs"]) != len(theirs["runs"]):
        return f"{len(mine['runs'])} runs here, {len(theirs['runs'])} in PaddlePaddle"
    for k, (a, b) in enumerate(zip(mine["runs"], theirs["runs"])):
        if a["op_types"] != b["op_types"]:
            i = next((i for i, (x, y) in enumerate(zip(a["op_types"], b["op_types"])) if x != y),
                     min(len(a["op_types"]), len(b["op_types"])))
            return (f"run {k}: op types differ from op {i} on ({len(a['op_types'])} ops here, "
                    f"{len(b['op_types'])} in PaddlePaddle):\n  here:   {a['op_types'][i:i + 6]}"
                    f"\n  paddle: {b['op_types'][i:i + 6]}")
        if a["persistables"] != b["persistables"]:
            only_here = sorted(set(a["persistables"]) - set(b["persistables"]))
            only_there = sorted(set(b["persistables"]) - set(a["persistables"]))
            return (f"run {k}: persistables differ: only here {only_here}, "
                    f"only in PaddlePaddle {only_there}")
        for j, (x, y) in enumerate(zip(a["fetch"], b["fetch"])):
            x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
            if x.shape != y.shape or not np.allclose(x, y, rtol=RTOL, atol=ATOL):
                return (f"run {k}: fetch {j} differs: {x.ravel()[:6]} here, "
                        f"{y.ravel()[:6]} in PaddlePaddle")
    if "checkpoint" in theirs and mine.get("checkpoint") != theirs["checkpoint"]:
        return ("PaddlePaddle's checkpoint of the last program does not load here as it saved it: "
                f"{sorted(set(theirs['checkpoint']) ^ set(mine.get('checkpoint') or {}))[:8]}")
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("side", choices=("nb", "paddle", "compare"))
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "build/interop/scripts")
    parser.add_argument("--reference", type=pathlib.Path,
                        default=ROOT / "tests/fixtures/paddle26/scripts")
    parser.add_argument("--script", default=None, help="one script's name (without .py)")
    args = parser.parse_args(argv)
    names = [args.script] if args.script else sorted(p.stem for p in SCRIPTS.glob("*.py"))
    if args.side == "compare":        # fails when a script tests/api/test_scripts.py expects
        from tests.api.test_scripts import RUNNING          # to agree differs
        problems = 0
        for name in names:
            mine = json.loads((args.out / f"{name}.nb.json").read_text())
            theirs = json.loads((args.reference / f"{name}.json").read_text())
            problem = compare(mine, theirs)
            problems += problem is not None and name in RUNNING
            known = "" if name in RUNNING else " (known: not yet expected to agree)"
            print(f"{name}: {'agrees' if problem is None else problem}{known}")
        sys.exit(1 if problems else 0)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.script:           # each script in a process of its own: names start from 0
        for name in names:
            subprocess.run([sys.executable, __file__, args.side, "--out", str(args.out),
                            "--script", name], check=True)
        return
    checkpoint = (args.reference if args.side == "nb" else args.out) / f"{args.script}.ckpt"
    if args.script not in CHECKPOINTED or (args.side == "nb" and not checkpoint.is_dir()):
        checkpoint = None
    report = run_script(args.side, SCRIPTS / f"{args.script}.py", checkpoint)
    suffix = ".json" if args.side == "paddle" else ".nb.json"
    (args.out / f"{args.script}{suffix}").write_text(json.dumps(report) + "\n")
    print(f"{args.script}: {len(report['runs'])} runs"
          + (f", {report['error']}" if "error" in report else ""))


if __name__ == "__main__":
    main()
