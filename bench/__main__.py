"""Runs every `bench/bench_*.py` module's `main()`, in file-name order, and prints its table.

A `main()` may print its table itself or return it (any object whose str() is the table).
"""
import importlib
import pathlib
import sys


def bench_modules(folder: pathlib.Path) -> list[str]:
    """The names of the benchmark modules in `folder`, sorted: bench_a, bench_b, ..."""
    return [path.stem for path in sorted(folder.glob("bench_*.py"))]


def main() -> int:
    names = bench_modules(pathlib.Path(__file__).resolve().parent)
    if not names:
        print("no benchmarks yet: add bench/bench_<topic>.py modules with a main()")
        return 0
    for name in names:
        print(f"== {name} ==", flush=True)
        table = importlib.import_module(f"bench.{name}").main()
        if table is not None:
            print(table)
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
