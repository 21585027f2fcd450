"""Inference of real models: paddle_nb without and with its passes, against PaddlePaddle 2.6.2's
Inference predictor and its static Executor (issue 28).

The models are the model zoo's (``tests/fixtures/paddle26/zoo``: PaddleClas, PaddleDetection,
PaddleSeg, PaddleNLP, tiny sizes, synthesized weights) and a few corpus programs (ResNet-18,
MobileNetV2, a transformer encoder, an LSTM). For each: paddle_nb runs the program as loaded and
as ``paddle_nb.passes.INFERENCE_PASSES`` rewrote it; PaddlePaddle (``bench/inference_paddle26.py``
in the interop venv's python, one process per model) runs the same program file with the same
parameters and inputs. The outputs are checked equal first (rtol 1e-4, atol 1e-5: the passes on
either side change the rounding); a model whose outputs differ is reported, not timed.

Times: medians (bench/_common.py), one thread everywhere. Each program is timed in its own
block of runs after a warm-up, as PaddlePaddle's predictor is in its process (the optimized
program alone, its weights warm in the caches, as a deployment runs it). On a shared machine the
load moves between paddle_nb's timings and PaddlePaddle's (another process, a few seconds later):
``BENCH_ROUNDS=3`` times each model in 3 rounds (paddle_nb, then PaddlePaddle, then again) and
shows the median of each figure and of the per-round ratios. Peak memory: paddle_nb's is the peak
of the NumPy buffers one run allocates (tracemalloc), PaddlePaddle's the growth of the process's
peak resident set while its predictor is made and run (weights included): not the same measure,
shown for scale. PaddlePaddle's columns are left out when its venv is not there.

    python -m bench inference            # DEFAULT: one model of each kind (about 40 s)
    BENCH_MODELS=all python -m bench inference          # the 16 zoo models and 4 corpus ones
    BENCH_MODELS=ppcls_vit,resnet18 python -m bench inference
    BENCH_ROUNDS=3 BENCH_MODELS=all python -m bench inference   # steadier ratios, 3x the time
"""

from bench import _common  # noqa: F401  (one thread, before NumPy)
from bench._common import Table, busy_note, median_time, ms, peak_bytes, x

import json        # noqa: E402
import os          # noqa: E402
import pathlib     # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys         # noqa: E402
import tempfile    # noqa: E402

import numpy as np  # noqa: E402

import paddle_nb as pd  # noqa: E402
from interop import run_corpus  # noqa: E402
from paddle_nb import passes  # noqa: E402
from paddle_nb.io.params import combined_writer, is_persistable, select_vars, values_from_scope

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "paddle26"
CORPUS_MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder", "lstm", "gru"]
INTEROP = pathlib.Path(os.environ.get("PADDLE26_PYTHON") or ROOT / ".venv-interop" / "bin"
                       / "python")
REPEAT = int(os.environ.get("BENCH_REPEAT", "7"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "1"))


# `make bench`'s set (one of each kind, within its time budget); BENCH_MODELS=all: every model
DEFAULT = ["ppcls_pplcnet_x0_25", "ppcls_svtr", "ppdet_picodet_xs_nms", "paddleseg_pp_liteseg_t",
           "paddlenlp_ernie", "resnet18", "mobilenet_v2", "transformer_encoder", "lstm", "gru"]


def models():
    """[(where, name, entry)] of the models benched: DEFAULT, or BENCH_MODELS=a,b (or all)."""
    chosen = [m for m in os.environ.get("BENCH_MODELS", "").split(",") if m] or DEFAULT
    out = [(FIXTURES / "zoo", n, e) for n, e in run_corpus.manifest(FIXTURES / "zoo").items()]
    corpus = run_corpus.manifest(FIXTURES / "corpus")
    out += [(FIXTURES / "corpus", n, corpus[n]) for n in CORPUS_MODELS if n in corpus]
    return [m for m in out if chosen == ["all"] or m[1] in chosen]


def paddle26(model):
    """PaddlePaddle's figures and outputs for ``model``, or None (no venv, or it failed)."""
    if not INTEROP.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        (pathlib.Path(tmp) / "model.pdmodel").write_bytes(model.data)
        values = values_from_scope(select_vars(model.program, predicate=is_persistable),
                                   model.scope)
        with open(os.path.join(tmp, "model.pdiparams"), "wb") as f:
            combined_writer(values)(f)
        np.savez(os.path.join(tmp, "feed.npz"), **model.feed)
        env = dict(os.environ, CPU_NUM="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   GLOG_minloglevel="3")
        env.pop("PYTHONPATH", None)
        script = pathlib.Path(__file__).with_name("inference_paddle26.py")
        done = subprocess.run([str(INTEROP), str(script), tmp, str(REPEAT)], env=env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            print(f"{model.name}: PaddlePaddle failed:\n{done.stderr[-1500:]}", file=sys.stderr)
            return None
        res = json.loads((pathlib.Path(tmp) / "out.json").read_text())
        for kind in ("predictor", "executor"):
            arrays = np.load(os.path.join(tmp, f"{kind}.npz"))
            res[f"{kind}_outs"] = [arrays[f"arr_{k}"] for k in range(len(arrays.files))]
        return res


def same(outs, wants):
    return len(outs) == len(wants) and all(
        np.shape(o) == np.shape(w) and np.allclose(o, w, rtol=1e-4, atol=1e-5, equal_nan=True)
        for o, w in zip(outs, wants))


def bench_one(where, name, entry):
    """{figures} for one model: each the median over ROUNDS rounds, and "ratio" the median of
    the rounds' passes / predictor."""
    model = run_corpus.Inference(pd, where, name, entry)
    results = []
    fast = passes.apply_passes(model.program, model.scope, results=results)
    run = lambda program: (lambda: model.exe.run(  # noqa: E731
        program, feed=model.feed, fetch_list=model.fetches, scope=model.scope))
    plain_outs, fast_outs = run(model.program)(), run(fast)()
    row = {"ops": len(model.program.global_block().ops), "ops_passes": len(fast.global_block().ops),
           "ok": same(fast_outs, plain_outs)}
    row["peak"], row["peak_passes"] = peak_bytes(run(model.program)), peak_bytes(run(fast))
    rounds = []
    for _ in range(ROUNDS):
        # each program timed in its own block of runs, as the predictor is (interleaved, each
        # run found the caches holding the other program's weights: ResNet-18 +12%)
        one = {"passes": median_time(run(fast), repeat=REPEAT),
               "plain": median_time(run(model.program), repeat=REPEAT)}
        ref = paddle26(model)
        if ref is not None:
            row["ok_paddle"] = same(fast_outs, ref["predictor_outs"]) and same(
                plain_outs, ref["executor_outs"])
            one.update({k: ref[k] for k in ("predictor", "executor", "predictor_peak")})
            one["ratio"] = one["passes"] / one["predictor"]
        rounds.append(one)
    row.update({k: statistics.median(r[k] for r in rounds) for k in rounds[0]})
    return row


def mib(n):
    return f"{n / 2**20:.1f} MiB"


def table(rows):
    t = Table("paddle_nb inference, without and with passes, vs PaddlePaddle 2.6.2 (1 thread"
              + (f"; medians of {ROUNDS} rounds)" if ROUNDS > 1 else ")"))
    t.header = ("model", "ops", "plain", "passes", "Pd predictor", "passes/pred",
                "Pd executor", "peak nb", "peak pred")
    for name, r in rows.items():
        pred = r.get("predictor")
        t.rows.append((name, f"{r['ops']}->{r['ops_passes']}", ms(r["plain"]), ms(r["passes"]),
                       ms(pred) if pred else "-", x(r["ratio"]) if pred else "-",
                       ms(r["executor"]) if pred else "-", mib(r["peak_passes"]),
                       mib(r["predictor_peak"]) if pred else "-")
                      + (() if r["ok"] and r.get("ok_paddle", True) else ("OUTPUTS DIFFER",)))
    ratios = [r["ratio"] for r in rows.values() if r.get("predictor")]
    if ratios:
        t.note(f"median passes/predictor {statistics.median(ratios):.2f}x, worst "
               f"{max(ratios):.2f}x (goal: median <= 1.0x, none above 1.5x)")
    else:
        t.note(f"PaddlePaddle columns left out: no interop python at {INTEROP}")
    busy = busy_note()     # paddle_nb's timings only: PaddlePaddle's ran in other processes
    if busy:
        t.note(busy)
    return t


def main():
    rows = {}
    for where, name, entry in models():
        rows[name] = bench_one(where, name, entry)
        print(f"  {name}: done", file=sys.stderr, flush=True)
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
