"""Coverage of PaddlePaddle's programs: which corpus programs run here, and how close they come.

    .venv/bin/python tools/paddle_coverage.py [--corpus DIR] [--out docs/paddle_coverage.md]

Runs every program of the corpus (``tests/fixtures/paddle26/corpus``, or the one
``interop/make_corpus.py`` wrote into ``--corpus``) with paddle_nb, as
``tests/compat/test_paddle26_corpus.py`` does (``interop/run_corpus.py``), and writes a
Markdown page: one row per program (kind, number of ops, op types, those paddle_nb does not
register, whether it runs to PaddlePaddle's outputs, the largest relative and absolute
difference, PaddlePaddle's and paddle_nb's median inference times), then one row per op type
(the programs using it, registered or not). PaddlePaddle's times are what ``make_corpus.py
--time`` measured in its own venv; paddle_nb's are measured here, so both come from the same
machine when the two scripts run one after the other (``make interop`` does). A program with
unregistered op types is not run. ``--missing FILE`` also writes the missing op types with one
example of each as PaddlePaddle wrote it (from the corpus's ``op_examples.json``).
"""

import argparse
import datetime
import json
import pathlib
import re
import statistics
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import paddle_nb as pd                                    # noqa: E402
from interop import run_corpus                            # noqa: E402
from paddle_nb.ops.machinery import registry                        # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "paddle26" / "corpus"


def _worst(rows):
    """The largest relative and absolute differences of ``rows``, and whether all agree."""
    rels = [r["rel"] for _, r in rows if r.get("rel") is not None]
    abss = [r["abs"] for _, r in rows if r.get("abs") is not None]
    return max(rels, default=0.0), max(abss, default=0.0), all(r["ok"] for _, r in rows)


def _median_ms(run, repeat):
    run()                                                   # warm-up: plans, caches
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds) * 1000.0


def measure(corpus, name, entry, repeat):
    """A row of the table: does ``name`` run, and how close to PaddlePaddle's numbers."""
    row = {"name": name, "kind": entry["kind"], "ops": sum(map(len, entry["blocks"])),
           "types": entry["op_types"], "missing": run_corpus.missing_ops(entry, registry),
           "paddle_ms": entry.get("paddle_ms"), "nb_ms": None, "rel": None, "abs": None}
    if row["missing"]:
        row["runs"] = "no"
        return row
    try:
        if entry["kind"] == "inference":
            model = run_corpus.Inference(pd, corpus, name, entry)
            rows = model.rows(model.run())
            if repeat:
                row["nb_ms"] = _median_ms(model.run, repeat)
        else:
            rows = run_corpus.train(pd, corpus, name, entry)
    except Exception as err:                                # noqa: BLE001 - it is the report
        first = traceback.format_exception_only(type(err), err)[-1].strip().splitlines()[0]
        # the op and the message, without where it was built (corpus programs carry no stack)
        first = re.sub(r",? built at an unknown place \(the op carries no op_callstack\)", "",
                       first)
        row["runs"] = "error: " + first.replace("paddle_nb.errors.", "")[:200]
        return row
    row["rel"], row["abs"], ok = _worst(rows)
    row["runs"] = "yes" if ok else "differs"
    return row


def _num(value, fmt):
    return "" if value is None else format(value, fmt)


def _types(types, missing):
    return ", ".join(f"**{t}**" if t in missing else t for t in types)


def program_table(rows):
    lines = ["| program | kind | ops (main) | runs here | max rel diff | max abs diff | "
             "PaddlePaddle ms | paddle_nb ms | missing op types | op types |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['kind']} | {r['ops']} | {r['runs'].replace('|', '/')} | "
            f"{_num(r['rel'], '.1e')} | {_num(r['abs'], '.1e')} | "
            f"{_num(r['paddle_ms'], '.1f')} | {_num(r['nb_ms'], '.1f')} | "
            f"{', '.join(r['missing'])} | {_types(r['types'], r['missing'])} |")
    return lines


def op_table(rows):
    users = {}
    for r in rows:
        for t in r["types"]:
            users.setdefault(t, []).append(r["name"])
    lines = ["| op type | registered | programs |", "|---|---|---|"]
    for t in sorted(users):
        lines.append(f"| {t} | {'yes' if registry.exists(t) else '**no**'} | "
                     f"{len(users[t])}: {', '.join(users[t])} |")
    return lines


def _ratio(rows):
    """The median of paddle_nb's time over PaddlePaddle's, over the models timed by both."""
    ratios = [r["nb_ms"] / r["paddle_ms"] for r in rows if r["nb_ms"] and r["paddle_ms"]]
    if not ratios:
        return ""
    return (f"Over the {len(ratios)} models timed by both, paddle_nb takes "
            f"{statistics.median(ratios):.1f} times PaddlePaddle's time (median).")


def page(rows, manifest, corpus):
    running = sum(r["runs"] == "yes" for r in rows)
    timed_on = sorted({e.get("timed_on") for e in manifest.values() if e.get("timed_on")})
    types = {t for r in rows for t in r["types"]}
    missing = sorted({t for r in rows for t in r["missing"]})
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        where = corpus.resolve().relative_to(ROOT)
    except ValueError:
        where = corpus
    head = [
        "# PaddlePaddle 2.6.2 programs in paddle_nb",
        "",
        "Written by `tools/paddle_coverage.py` (do not edit): every program of the corpus "
        f"in `{where}` (made by PaddlePaddle 2.6.2 with `interop/make_corpus.py`; see "
        "`interop/README.md`), run by paddle_nb with the parameters PaddlePaddle ran with "
        "(`interop/synth.py`), compared with PaddlePaddle's outputs (inference) or its losses "
        "and parameters after each of 3 steps (training). \"runs here\" is *yes* when every "
        "value agrees within rtol 1e-4, atol 1e-6; *no* when paddle_nb does not register "
        "some of its op types (in **bold**), which `tests/compat/test_paddle26_corpus.py` "
        "reports as failures.",
        "",
        f"**{running} of {len(rows)} programs run to PaddlePaddle's results; "
        f"{len(types) - len(missing)} of their {len(types)} op types are registered.** "
        f"Generated {now}.",
        "",
        "Times: the median of a few inference runs, batch as in the corpus, one CPU thread "
        "or more as each framework chooses. PaddlePaddle's (its static `Executor`) were "
        f"measured by `make_corpus.py --time` on {', '.join(timed_on) or 'no date (not timed)'}"
        f"; paddle_nb's (its `Executor`) at {now}. The two are comparable only when one "
        "`make interop` measured both, minutes apart on one machine (a machine shared with other "
        f"work moves each by up to 2x). {_ratio(rows)}",
        "",
        "## Programs",
        "",
    ]
    return "\n".join(head + program_table(rows) + ["", "## Op types", ""] +
                     op_table(rows)) + "\n"


def missing_report(rows, corpus):
    """Each unregistered op type, its programs and one example of it as PaddlePaddle wrote it."""
    path = corpus / "op_examples.json"
    examples = json.loads(path.read_text()) if path.is_file() else {}
    users = {}
    for r in rows:
        for t in r["missing"]:
            users.setdefault(t, []).append(r["name"])
    lines = ["# Op types of the PaddlePaddle 2.6.2 corpus that paddle_nb does not register,",
             "# the programs using each and one example op as PaddlePaddle wrote it.",
             "# Written by tools/paddle_coverage.py --missing.", ""]
    noise = ("op_role", "op_role_var", "op_device", "with_quant_attr")
    for t in sorted(users):
        lines.append(f"{t}: {len(users[t])} programs: {', '.join(users[t])}")
        example = examples.get(t)
        if example:
            attrs = {k: v for k, v in example["attrs"].items() if k not in noise}
            lines += [f"  example (from {example['program']}):",
                      f"    inputs:  {json.dumps(example['inputs'])}",
                      f"    outputs: {json.dumps(example['outputs'])}",
                      f"    attrs:   {json.dumps(attrs)}"]
        lines.append("")
    failing = [r for r in rows if not r["missing"] and r["runs"] != "yes"]
    if failing:
        lines.append("# Programs whose op types are all registered but that do not run to "
                     "PaddlePaddle's results:")
        lines += [f"{r['name']}: {r['runs']}" + ("" if r["rel"] is None else
                                                   f" (max rel {r['rel']:.1e})")
                  for r in failing]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=CORPUS,
                        help="a corpus interop/make_corpus.py wrote (default: the committed one)")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "docs" / "paddle_coverage.md")
    parser.add_argument("--repeat", type=int, default=5,
                        help="timed runs per inference model (0: no timing)")
    parser.add_argument("--missing", type=pathlib.Path, help="also write the missing op types")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every program runs to PaddlePaddle's results")
    args = parser.parse_args(argv)
    manifest = run_corpus.manifest(args.corpus)
    rows = []
    for name, entry in manifest.items():
        rows.append(measure(args.corpus, name, entry, args.repeat))
        r = rows[-1]
        print(f"paddle_coverage: {name}: {r['runs']}"
              + (f" (missing {', '.join(r['missing'])})" if r["missing"] else "")
              + ("" if r["rel"] is None else f", max rel {r['rel']:.1e}"), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = page(rows, manifest, args.corpus)
    if args.out.is_file():      # keep the op-type table tools/api_coverage.py wrote there
        from tools.api_coverage import BEGIN, END
        old = args.out.read_text()
        if BEGIN in old and END in old:
            table = old[old.index(BEGIN):old.index(END) + len(END)]
            text = text.rstrip("\n") + "\n\n" + table + "\n"
    args.out.write_text(text)
    if args.missing:
        args.missing.write_text(missing_report(rows, args.corpus))
    running = sum(r["runs"] == "yes" for r in rows)
    print(f"paddle_coverage: {running} of {len(rows)} programs run to PaddlePaddle's results; "
          f"wrote {args.out}")
    return 1 if args.check and running < len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
