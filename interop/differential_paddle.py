"""The differential harness's programs, run by PaddlePaddle 2.6.2 too.

    .venv/bin/python interop/differential_paddle.py --count 30

``tests/executor/test_differential.py`` checks that paddle_nb's three paths agree with each
other. This script checks that they agree with PaddlePaddle: the ``nb`` side (paddle_nb's
venv) draws ``--count`` programs from the same Hypothesis strategy (derandomized, so the
sample is the same every time), runs each three times on the fast path, and writes the
program's bytes (``Program.serialize``), its persistables' initial values, the feeds and
paddle_nb's fetches and persistables after each run into ``--work``. The ``paddle`` side
(``.venv-interop``) parses each program with ``paddle.static.Program.parse_from_string``,
puts the persistables in a fresh scope, runs the same feeds with
``paddle.static.Executor`` and compares (rtol 1e-5, atol 1e-6: the kernels differ by ulps).
Each side runs in its own venv's process, so the default command (``all``) runs each
side as a subprocess and prints one line per program; it exits non-zero on any difference.
"""

import contextlib
import json
import pathlib
import sys
import traceback

import numpy as np

try:                  # imported as interop.differential_paddle
    from interop import sides
except ImportError:   # run as a script: interop/ is sys.path[0]
    import sides

ROOT = pathlib.Path(__file__).resolve().parents[1]
RTOL, ATOL = 1e-5, 1e-6
# op types paddle_nb writes that PaddlePaddle 2.6.2 no longer registers: StaticRNN's step
# copies (PaddlePaddle 1.8's layer wrote them; 2.6 has no StaticRNN), so such programs are skipped
MISSING_IN_PADDLE = {"rnn_memory_helper"}


# -- the paddle_nb side ----------------------------------------------------------------------------
def nb_side(work, count):
    sys.path.insert(0, str(ROOT))
    from hypothesis import HealthCheck, given, settings
    from tests.executor.test_differential import run_executor
    from tests.strategies import build, program_specs

    specs = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(program_specs())
    def collect(spec):
        specs.append(spec)
    collect()
    index = []
    for k, spec in enumerate(specs[:count]):
        program, fetch = build(spec)
        with _one_sided_splits(program) as one_sided:
            results = run_executor(spec, observed=False)
        (work / f"program{k}.pb").write_bytes(program.serialize())
        arrays = {f"init:{n}": v for n, v in spec.initial.items()}
        for r, (feed, (fetched, state)) in enumerate(zip(spec.runs, results)):
            arrays.update({f"run{r}/feed:{n}": v for n, v in feed.items()})
            arrays.update({f"run{r}/fetch{i}": v for i, v in enumerate(fetched)})
            arrays.update({f"run{r}/state:{n}": v for n, v in state.items()})
        np.savez(work / f"program{k}.npz", **arrays)
        index.append({"fetch": [v.name for v in fetch], "runs": len(spec.runs),
                      "ops": sorted({op.type for b in program.blocks for op in b.ops}),
                      "spec": repr(spec.ops), "one_sided_split": bool(one_sided)})
    (work / "index.json").write_text(json.dumps(index, indent=1))


@contextlib.contextmanager
def _one_sided_splits(program):
    """A list that gets an entry whenever a split_lod_tensor of ``program`` sends no row to
    a branch. PaddlePaddle leaves that branch's outputs as they were, and on a re-run its
    merge_lod_tensor merges what they kept from an earlier run (seen in 2.6.2: a [2, 3] batch
    all on one side comes out [3, 3]), so such programs are reported apart."""
    from paddle_nb.core.events import EVENTS
    names = {n for block in program.blocks for op in block.ops
             if op.type == "split_lod_tensor" for n in op.output_arg_names}
    seen = []

    def listener(event):
        if event.kind == "tensor_allocated" and event.name in names and event.shape[0] == 0:
            seen.append(event.name)
    with EVENTS.listening(listener):
        yield seen


# -- the PaddlePaddle side -------------------------------------------------------------------------
def paddle_side(work):
    import paddle
    paddle.enable_static()
    index = json.loads((work / "index.json").read_text())
    report = []
    for k, entry in enumerate(index):
        missing = sorted(set(entry["ops"]) & MISSING_IN_PADDLE)
        if missing:
            report.append({"program": k, "worst": None, "error": None, "skipped": missing})
            continue
        try:
            worst = _paddle_runs(paddle, work, k, entry)
            report.append({"program": k, "worst": worst, "error": None})
        except Exception:
            report.append({"program": k, "worst": None, "error": traceback.format_exc()})
    (work / "paddle.json").write_text(json.dumps(report, indent=1))


def _paddle_runs(paddle, work, k, entry):
    """Run program k as paddle_nb did; return the worst (name, relative error) seen."""
    data = dict(np.load(work / f"program{k}.npz"))
    program = paddle.static.Program.parse_from_string((work / f"program{k}.pb").read_bytes())
    place = paddle.CPUPlace()
    scope = paddle.static.Scope()
    for key, value in data.items():
        if key.startswith("init:"):
            scope.var(key[5:]).get_tensor().set(value, place)
    exe = paddle.static.Executor(place)
    worst = ("", 0.0)
    with paddle.static.scope_guard(scope):
        for r in range(entry["runs"]):
            prefix = f"run{r}/"
            feed = {key[len(prefix) + 5:]: v for key, v in data.items()
                    if key.startswith(prefix + "feed:")}
            got = exe.run(program, feed=feed, fetch_list=entry["fetch"])
            pairs = [(f"run {r} fetch {name}", g, data[f"{prefix}fetch{i}"])
                     for i, (name, g) in enumerate(zip(entry["fetch"], got))]
            pairs += [(f"run {r} {key[len(prefix) + 6:]}",
                       np.array(scope.find_var(key[len(prefix) + 6:]).get_tensor()), v)
                      for key, v in data.items() if key.startswith(prefix + "state:")]
            for what, g, want in pairs:
                worst = max(worst, (what, _rel(g, want)), key=lambda p: p[1])
    return worst


def _rel(got, want):
    got, want = np.asarray(got, "float64"), np.asarray(want, "float64")
    if got.shape != want.shape:
        return float("inf")
    if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
        return float("inf") if got.size == 0 else float(
            np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-3)))
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-3))) if got.size else 0.0


# -- both ------------------------------------------------------------------------------------------
def main(argv=None):
    parser = sides.parser(__doc__, work=ROOT / "build/interop/differential")
    parser.add_argument("--count", type=int, default=30)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.side == "nb":
        return nb_side(args.work, args.count)
    if args.side == "paddle":
        return paddle_side(args.work)
    for side, python in sides.sides(args):
        sides.run_side(__file__, side, python,
                       ["--work", str(args.work), "--count", str(args.count)])
    return _print_report(args.work)


def _print_report(work):
    index = json.loads((work / "index.json").read_text())
    failed = skipped = 0
    for row in json.loads((work / "paddle.json").read_text()):
        entry = index[row["program"]]
        if row.get("skipped"):
            skipped += 1
            status = f"skipped: PaddlePaddle 2.6.2 has no {', '.join(row['skipped'])} op"
        elif row["error"] is not None:
            failed += 1
            status = "FAILED  " + row["error"].strip().splitlines()[-1][:150]
        else:
            what, rel = row["worst"]
            ok = rel != float("inf")
            known = not ok and entry["one_sided_split"]
            failed += not (ok or known)
            status = f"{'ok' if ok else 'DIFFERS'}  worst rel {rel:.1e} ({what})"
            if known:
                status += ("\n    (known: an IfElse branch got no row; PaddlePaddle's "
                           "merge_lod_tensor then merges the branch's value of an earlier run)")
        print(f"program {row['program']:>3} [{', '.join(entry['ops'])}]\n    {status}")
    print(f"\n{len(index) - failed - skipped} of {len(index) - skipped} programs agree with "
          f"PaddlePaddle 2.6.2 (or differ only where it is known to be wrong); {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
