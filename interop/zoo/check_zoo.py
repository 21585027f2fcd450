"""paddle_nb runs the zoo (``interop/make_zoo.py``'s models) and says how each one fares.

Run with paddle_nb's venv, from the repository root:

    python -m interop.zoo.check_zoo --zoo build/interop/paddle26/zoo

One line per model: the op types paddle_nb does not register (then it is not run), or
whether it parsed, kept PaddlePaddle's bytes and gave PaddlePaddle's outputs (rtol 1e-4,
atol 1e-6; ``interop/run_corpus.py`` judges, as for the corpus). It fails when a model whose
op types are all registered does not run to PaddlePaddle's outputs; a model waiting for op
types is reported, not failed (``tests/compat/test_paddle26_zoo.py`` lists them).
"""

import argparse
import sys
import time

import paddle_nb as pd
from interop import run_corpus
from paddle_nb.ops.machinery import registry


def check(zoo, name, entry):
    """(ok, line) for model ``name``."""
    missing = run_corpus.missing_ops(entry, registry)
    if missing:
        return True, f"{name}: waits for {', '.join(missing)}"
    try:
        model = run_corpus.Inference(pd, zoo, name, entry)
        start = time.perf_counter()
        outputs = model.run()
        seconds = time.perf_counter() - start
    except Exception as error:          # a report line per model, not a stop at the first
        return False, f"{name}: FAILED {type(error).__name__}: {error}"
    bad = [f"{what} (rel {r['rel']:.1e}, abs {r['abs']:.1e})"
           for what, r in model.rows(outputs) if not r["ok"]]
    if bad:
        return False, f"{name}: DIFFERS {'; '.join(bad)}"
    return True, f"{name}: ok in {seconds * 1000:.0f} ms (PaddlePaddle " \
                 f"{entry.get('paddle_ms', '?')} ms)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", default="build/interop/paddle26/zoo", help="make_zoo's --out")
    args = parser.parse_args(argv)
    failed = 0
    for name, entry in run_corpus.manifest(args.zoo).items():
        ok, line = check(args.zoo, name, entry)
        failed += not ok
        print(line, flush=True)
    print(f"{failed} model(s) failed" if failed else "every model with registered ops ran")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
