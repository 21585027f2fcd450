"""Where inference time goes: cProfile over runs of the zoo models (with the passes), summed
per op kind (the kernel functions of ``paddle_nb/ops/*.py``) and per function.

    python bench/profile_inference.py [model ...]      # default: every zoo model
    python bench/profile_inference.py resnet18 lstm    # corpus models by name too
    python bench/profile_inference.py --convs resnet18 # time per convolution shape

Prints, per model and over all models, the kernels' share of the run (cumulative time of each
registered op's kernel, so helpers count to their op) and the top functions by own time.
``--convs`` times ``conv.conv_forward`` per call instead (no cProfile: its overhead would
swamp the small ones) and prints the shapes that cost most: input, filter (and whether it is
laid channels last), strides, groups, calls per run and milliseconds per run.
"""

import cProfile
import os
import pathlib
import pstats
import sys
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import paddle_nb as pd  # noqa: E402
from interop import run_corpus  # noqa: E402
from paddle_nb import passes  # noqa: E402
from paddle_nb.ops import conv  # noqa: E402
from paddle_nb.ops.machinery import registry  # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "paddle26"
ZOO, CORPUS = FIXTURES / "zoo", FIXTURES / "corpus"


def kernel_codes():
    """{kernel code object: op type} for every registered forward op; a kernel that several
    op types share (the activations' one) is named by them all."""
    names = {}
    for op_type in registry.types():
        kernel = getattr(registry.get(op_type), "kernel", None)
        if kernel is not None and hasattr(kernel, "__code__") and not op_type.endswith("_grad"):
            names.setdefault(kernel.__code__, []).append(op_type)
    return {code: ts[0] if len(ts) == 1 else f"{ts[0]}|{len(ts) - 1} more (one kernel)"
            for code, ts in names.items()}


def optimized_run(name):
    """A function running model ``name`` once as the passes rewrote it."""
    where = ZOO if name in run_corpus.manifest(ZOO) else CORPUS
    model = run_corpus.Inference(pd, where, name, run_corpus.manifest(where)[name])
    fast = passes.apply_passes(model.program, model.scope)
    return lambda: model.exe.run(fast, feed=model.feed, fetch_list=model.fetches,
                                 scope=model.scope)


def conv_shapes(name, runs=20, count=12):
    """Milliseconds per run and calls per run of conv.conv_forward, per shape, most first."""
    run, plain = optimized_run(name), conv.conv_forward
    spent: dict = {}

    def timed(xp, x, w, strides, pads, dil, o_hw, groups):
        start = time.perf_counter()
        out = plain(xp, x, w, strides, pads, dil, o_hw, groups)
        key = (tuple(x.shape), tuple(w.shape), conv.channels_last(xp, w), tuple(strides), groups)
        total, calls = spent.get(key, (0.0, 0))
        spent[key] = (total + time.perf_counter() - start, calls + 1)
        return out
    run()
    conv.conv_forward = timed
    try:
        for _ in range(runs):
            run()
    finally:
        conv.conv_forward = plain
    print(f"{name}: conv_forward {sum(t for t, _ in spent.values()) / runs * 1e3:.2f} ms a run")
    for (x, w, last, strides, groups), (t, calls) in sorted(spent.items(),
                                                           key=lambda kv: -kv[1][0])[:count]:
        print(f"    {t / runs * 1e3:6.3f} ms  {calls // runs}x  x{list(x)} w{list(w)}"
              f"{' (channels last)' if last else ''} strides {list(strides)} groups {groups}")


def profile(name, runs=20):
    run = optimized_run(name)
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


def top_functions(stats, total, count=4):
    """The functions of paddle_nb/ops with the most own time (NumPy calls count to them)."""
    rows = [(tt, f"{pathlib.Path(path).stem}.{func}") for (path, _, func), (_, _, tt, _, _)
            in stats.stats.items() if f"paddle_nb{os.sep}ops" in path]
    return ", ".join(f"{where} {tt / total:.0%}" for tt, where in sorted(rows)[::-1][:count])


def main(names):
    codes = kernel_codes()
    overall = {}
    for name in names:
        stats = profile(name)
        by_op, total = per_op(stats, codes)
        top = sorted(by_op.items(), key=lambda kv: -kv[1])[:5]
        print(f"{name}: " + ", ".join(f"{t} {s / total:.0%}" for t, s in top))
        print(f"    own time: {top_functions(stats, total)}")
        for t, s in by_op.items():
            overall[t] = overall.get(t, 0.0) + s / total / len(names)
    print("mean share over the models: " + ", ".join(
        f"{t} {s:.1%}" for t, s in sorted(overall.items(), key=lambda kv: -kv[1])[:15]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--convs"]:
        for model_name in sys.argv[2:] or list(run_corpus.manifest(ZOO)):
            conv_shapes(model_name)
    else:
        main(sys.argv[1:] or list(run_corpus.manifest(ZOO)))
