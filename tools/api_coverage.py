"""Coverage of PaddlePaddle 2.6.2's public API: which names paddle_nb has, which op types run.

    .venv/bin/python tools/api_coverage.py [--sweep DIR] [--gaps FILE] [--check]

Reads the API sweep (``interop/sweep/make_sweep.py`` ran every public callable of
PaddlePaddle's namespaces on small inputs; committed in ``tests/fixtures/paddle26/sweep``),
runs each case in paddle_nb at both levels (``interop/sweep/check.py``: PaddlePaddle's own
programs op by op, and the same call through paddle_nb's API) and writes:

- ``docs/api_coverage.md``: per namespace, how many of PaddlePaddle's public names paddle_nb
  has and how many of those agree with PaddlePaddle in the sweep (same op types, persistable
  names, outputs and gradients) or in a dedicated test (``tests/api``: a module's
  ``COVERED`` list), and every name it lacks;
- the op-type table of ``docs/paddle_coverage.md`` (between its ``sweep`` markers): every op
  type the public API writes, whether paddle_nb registers it, and how its cases fare;
- ``tests/api/sweep_gaps.json``: the cases that do not pass yet, with why. The sweep's test
  (``tests/api/test_sweep.py``) requires every other case to pass, and each listed one to
  still fail (a fixed gap must leave the list), so the list only shrinks.

``--check`` writes nothing and fails when the results differ from the committed gap list.
"""

import argparse
import collections
import datetime
import importlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interop.sweep import check  # noqa: E402

GAPS = ROOT / "tests/api/sweep_gaps.json"
API_DOC = ROOT / "docs/api_coverage.md"
OPS_DOC = ROOT / "docs/paddle_coverage.md"
BEGIN, END = "<!-- sweep: written by tools/api_coverage.py -->", "<!-- /sweep -->"
DYNAMIC_ONLY = ("only support", "dynamic graph mode", "in dynamic mode")

# names left out of paddle_nb on purpose, and why; they do not count against coverage
_COMPLEX = "making and taking apart complex tensors: paddle_nb's ops compute on real and " \
    "integer dtypes (eig's complex results are the one exception)"
_DYNAMIC = "dynamic (eager) mode only, in PaddlePaddle too; paddle_nb is static only"
_PICKLE = "PaddlePaddle's pickle files: paddle_nb never reads pickle " \
    "(use paddle.static.save/load or paddle_nb.io)"
_DEVICE = "other devices and distributed training: IPU, XPU, data parallel"
_LOD = "LoD (variable-length) sequences: PaddlePaddle 1.x's ragged batches, out of scope"
_HAPI = "the high-level training API and its data loaders, outside static programs"
_PROCESS = "process-wide settings of PaddlePaddle's C++ core"
_IO = "image file reading and JPEG decoding"
OUT_OF_SCOPE = {
    **{f"paddle.{n}": _COMPLEX for n in ("complex", "as_complex", "as_real", "real", "imag",
                                         "angle", "polar", "is_complex")},
    **{f"paddle.{n}": _DYNAMIC for n in ("tolist", "cauchy_", "geometric_", "normal_",
                                         "uniform_", "exponential_", "bernoulli_", "view",
                                         "view_as", "DataParallel", "LazyGuard")},
    "paddle.optimizer.LBFGS": _DYNAMIC,
    "paddle.save": _PICKLE, "paddle.load": _PICKLE,
    **{f"paddle.static.{n}": _DEVICE for n in ("IpuCompiledProgram", "IpuStrategy",
                                               "ipu_shard_guard", "set_ipu_shard", "xpu_places",
                                               "ctr_metric_bundle")},
    **{f"paddle.static.nn.{n}": _LOD for n in (
        "sequence_concat", "sequence_conv", "sequence_enumerate", "sequence_expand",
        "sequence_expand_as", "sequence_first_step", "sequence_last_step", "sequence_pad",
        "sequence_pool", "sequence_reshape", "sequence_reverse", "sequence_scatter",
        "sequence_slice", "sequence_softmax", "sequence_unpad")},
    **{f"paddle.{n}": _HAPI for n in ("Model", "batch", "summary", "flops")},
    **{f"paddle.{n}": _PROCESS for n in ("set_flags", "get_flags", "get_rng_state",
                                         "set_rng_state", "get_cuda_rng_state",
                                         "set_cuda_rng_state", "disable_signal_handler",
                                         "set_printoptions")},
    **{f"paddle.vision.ops.{n}": _IO for n in ("decode_jpeg", "read_file")},
}


def run_sweep(folder):
    """{case id: (case, op-level Result, api-level Result)} for every case PaddlePaddle ran."""
    ran, cases, names, values = check.load(folder)
    results = {}
    for case in ran:
        results[case["id"]] = (case, check.op_level(case, values), check.api_level(case, values))
    return results, cases, names


def covered_by_tests():
    """Names the dedicated tests compare with PaddlePaddle (their modules' ``COVERED``)."""
    found = set()
    for folder in ("api", "static", "vision"):
        for path in sorted((ROOT / "tests" / folder).glob("test_*.py")):
            module = importlib.import_module(f"tests.{folder}.{path.stem}")
            found.update(getattr(module, "COVERED", ()))
    return found


def gaps_of(results):
    return {"op_level": {k: f"{r.status}: {r.detail}" for k, (_, r, _a) in results.items()
                         if r.status != "ok"},
            "api_level": {k: f"{a.status}: {a.detail}" for k, (_, _r, a) in results.items()
                          if a.status not in ("ok", "absent")}}


def name_rows(results, cases, names, tested_elsewhere):
    """Per namespace: [(name, kind, present, tested, why not)]."""
    by_name = collections.defaultdict(list)
    for case in cases:
        by_name[case["name"]].append(case)
    rows = {}
    for namespace, kinds in names.items():
        rows[namespace] = []
        for name, kind in kinds.items():
            if kind in ("module", "other"):
                continue
            dotted = f"{namespace}.{name}"
            if dotted in OUT_OF_SCOPE:
                rows[namespace].append((name, kind, None, None, OUT_OF_SCOPE[dotted]))
                continue
            present = check.has_name(dotted)
            outcomes = [results[c["id"]][2] for c in by_name[dotted] if c["id"] in results]
            tested = dotted in tested_elsewhere or (bool(outcomes) and
                                                    all(o.status == "ok" for o in outcomes))
            why = _why(dotted, by_name[dotted], outcomes, present, tested)
            rows[namespace].append((name, kind, present, tested, why))
    return rows


def _why(dotted, cases, outcomes, present, tested):
    if tested:
        return ""
    refused = [c["paddle"].get("error", "") for c in cases if not c["paddle"]["ok"]]
    if refused and any(w in refused[0] for w in DYNAMIC_ONLY):
        return "PaddlePaddle runs it in dynamic mode only"
    if not present:
        return "not in paddle_nb"
    bad = [o for o in outcomes if o.status != "ok"]
    if bad:
        return f"{bad[0].status}: {bad[0].detail[:160]}"
    if refused:
        return f"no sweep case PaddlePaddle runs ({refused[0][:100]})"
    return "no sweep case"


def api_page(rows, when):
    lines = ["# PaddlePaddle 2.6.2's public API in paddle_nb", "",
             "Written by `tools/api_coverage.py` (do not edit) from the API sweep "
             "(`interop/sweep/`, committed in `tests/fixtures/paddle26/sweep`): every public "
             "class and function of each namespace as PaddlePaddle 2.6.2 lists it. *present*: "
             "paddle_nb has the name; *tested*: the same call here appends the same op types, "
             "names the same persistables and computes the same outputs and gradients as "
             "PaddlePaddle (rtol 1e-4) in the sweep, or a test in `tests/api`, `tests/static` "
             "or `tests/vision` compares it with "
             f"PaddlePaddle. Generated {when}.", "",
             "Names left out on purpose (complex numbers, dynamic-mode-only APIs, pickle files, "
             "other devices, LoD sequences...) are listed as *out of scope* with why, and not "
             "counted.", "",
             "| namespace | names | out of scope | present | tested | tested % of the rest |",
             "|---|---|---|---|---|---|"]
    for namespace, items in rows.items():
        n, out = len(items), sum(r[2] is None for r in items)
        present, tested = sum(bool(r[2]) for r in items), sum(bool(r[3]) for r in items)
        lines.append(f"| `{namespace}` | {n} | {out} | {present} | {tested} | "
                     f"{100.0 * tested / max(n - out, 1):.0f}% |")
    for namespace, items in rows.items():
        lines += ["", f"## `{namespace}`", "", "| name | kind | present | tested | why not |",
                  "|---|---|---|---|---|"]
        for name, kind, present, tested, why in items:
            shown = ("out of scope", "—") if present is None else (
                "yes" if present else "**no**", "yes" if tested else "no")
            lines.append(f"| `{name}` | {kind} | {shown[0]} | {shown[1]} | "
                         f"{why.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def op_table(results, when):
    from paddle_nb.ops.machinery import registry
    per_type = collections.defaultdict(list)
    for case, op, _ in results.values():
        for t in sorted(set(case["paddle"]["op_types"]) | set(case["paddle"]["startup_types"])):
            per_type[t].append((case["id"], op))
    registered = sum(registry.exists(t) for t in per_type)
    lines = [BEGIN, "", "## Op types PaddlePaddle's public API writes", "",
             f"From the API sweep (`tools/api_coverage.py`, {when}): every op type in the "
             f"programs PaddlePaddle 2.6.2 builds for the sweep's {len(results)} cases "
             "(forward, grad and startup ops). *agree*: the cases using it whose programs "
             "paddle_nb runs to PaddlePaddle's outputs and gradients (rtol 1e-4); ops that draw "
             "random numbers are compared by dtype and shape only.", "",
             f"**{registered} of {len(per_type)} op types registered.**", "",
             "| op type | registered | cases | agree | first problem |", "|---|---|---|---|---|"]
    for t in sorted(per_type):
        uses = per_type[t]
        ok = sum(r.status == "ok" for _, r in uses)
        bad = next((f"{k}: {r.status} {r.detail[:90]}" for k, r in uses if r.status != "ok"), "")
        lines.append(f"| `{t}` | {'yes' if registry.exists(t) else '**no**'} | {len(uses)} | "
                     f"{ok} | {bad.replace('|', '/')} |")
    return "\n".join(lines + ["", END])


def splice(text, block):
    if BEGIN in text and END in text:
        return text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", type=pathlib.Path, default=check.FIXTURE)
    parser.add_argument("--gaps", type=pathlib.Path, default=GAPS)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    results, cases, names = run_sweep(args.sweep)
    gaps = gaps_of(results)
    if args.check:
        committed = json.loads(args.gaps.read_text())
        if committed != gaps:
            sys.exit("the sweep's results differ from the committed gap list; run "
                     "tools/api_coverage.py to rewrite it")
        return
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    args.gaps.write_text(json.dumps(gaps, indent=1, sort_keys=True) + "\n")
    rows = name_rows(results, cases, names, covered_by_tests())
    API_DOC.write_text(api_page(rows, when))
    OPS_DOC.write_text(splice(OPS_DOC.read_text(), op_table(results, when)))
    ok_op = sum(r.status == "ok" for _, r, _ in results.values())
    ok_api = sum(a.status == "ok" for _, _, a in results.values())
    print(f"api_coverage: {len(results)} cases; op level {ok_op} agree, API level {ok_api} agree; "
          f"wrote {API_DOC.relative_to(ROOT)}, {OPS_DOC.relative_to(ROOT)}, "
          f"{args.gaps.relative_to(ROOT)}")
    for namespace, items in rows.items():
        out = sum(r[2] is None for r in items)
        tested = sum(bool(r[3]) for r in items)
        print(f"  {namespace}: {sum(bool(r[2]) for r in items)} present, {tested} tested of "
              f"{len(items) - out} in scope ({100.0 * tested / max(len(items) - out, 1):.0f}%); "
              f"{out} out of scope")


if __name__ == "__main__":
    main()
