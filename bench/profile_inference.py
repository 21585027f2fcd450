"""Where inference time goes: cProfile over runs of the zoo models (with the passes), summed
per op kind (the kernel functions of ``paddle_nb/ops/*.py``) and per function.

    python bench/profile_inference.py [model ...]      # default: every zoo model

Prints, per model and over all models, the kernels' share of the run (cumulative time of each
registered op's kernel, so helpers count to their op) and the top functions by own time.
"""

import cProfile
import os
import pathlib
import pstats
import sys

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import paddle_nb as pd  # noqa: E402
from interop import run_corpus  # noqa: E402
from paddle_nb import passes  # noqa: E402
from paddle_nb.ops import registry  # noqa: E402

ZOO = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "paddle26" / "zoo"


def kernel_codes():
    """{kernel code object: op type} for every registered forward op."""
    out = {}
    for op_type in registry.types():
        kernel = getattr(registry.get(op_type), "kernel", None)
        if kernel is not None and hasattr(kernel, "__code__"):
            out.setdefault(kernel.__code__, op_type)
    return out


def profile(name, runs=20):
    model = run_corpus.Inference(pd, ZOO, name, run_corpus.manifest(ZOO)[name])
    fast = passes.apply_passes(model.program, model.scope)
    run = lambda: model.exe.run(fast, feed=model.feed, fetch_list=model.fetches,  # noqa: E731
                                scope=model.scope)
    run()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        run()
    prof.disable()
    return pstats.Stats(prof)


def per_op(stats, codes):
    """{op type: cumulative seconds} and the total seconds of the profiled runs."""
    total, by_op = 0.0, {}
    for (path, line, func), (_, _, tt, ct, _) in stats.stats.items():
        total += tt
        for code, op_type in codes.items():
            if code.co_filename == path and code.co_firstlineno == line:
                by_op[op_type] = by_op.get(op_type, 0.0) + ct
    return by_op, total


def main(names):
    codes = kernel_codes()
    overall = {}
    for name in names:
        by_op, total = per_op(profile(name), codes)
        top = sorted(by_op.items(), key=lambda kv: -kv[1])[:6]
        print(f"{name}: " + ", ".join(f"{t} {s / total:.0%}" for t, s in top))
        for t, s in by_op.items():
            overall[t] = overall.get(t, 0.0) + s / total / len(names)
    print("mean share over the models: " + ", ".join(
        f"{t} {s:.1%}" for t, s in sorted(overall.items(), key=lambda kv: -kv[1])[:15]))


if __name__ == "__main__":
    main(sys.argv[1:] or list(run_corpus.manifest(ZOO)))
