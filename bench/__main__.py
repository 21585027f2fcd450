"""Runs every `bench/bench_*.py` module's `main()`, in file-name order, and prints its table.

A `main()` may print its table itself or return it (any object whose str() is the table); a
returned dict holds the module's figures and is not printed (`--json FILE` writes them all).

    python -m bench                      # every benchmark
    python -m bench executor             # only the modules whose name contains "executor"
    python -m bench --json figures.json  # also write {module: figures} as JSON
"""
import os

# One thread for every BLAS and OpenMP pool, set before anything imports NumPy: the ratios
# compare interpreters, not thread pools (bench/_common.py sets the same, for direct runs).
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse   # noqa: E402
import importlib  # noqa: E402
import json       # noqa: E402
import pathlib    # noqa: E402
import sys        # noqa: E402
import time       # noqa: E402


def bench_modules(folder: pathlib.Path) -> list[str]:
    """The names of the benchmark modules in `folder`, sorted: bench_a, bench_b, ..."""
    return [path.stem for path in sorted(folder.glob("bench_*.py"))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="run only modules whose name contains one of these")
    parser.add_argument("--json", metavar="FILE", help="write every module's figures to FILE")
    args = parser.parse_args(argv)
    names = bench_modules(pathlib.Path(__file__).resolve().parent)
    if args.only:
        names = [n for n in names if any(word in n for word in args.only)]
    if not names:
        print("no benchmarks yet: add bench/bench_<topic>.py modules with a main()")
        return 0
    figures = {}
    for name in names:
        print(f"== {name} ==", flush=True)
        start = time.perf_counter()
        table = importlib.import_module(f"bench.{name}").main()
        if isinstance(table, dict):
            figures[name] = table
        elif table is not None:
            print(table)
        print(f"({time.perf_counter() - start:.1f} s)", flush=True)
        print(flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
