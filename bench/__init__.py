"""paddle_nb's benchmarks: each `bench/bench_*.py` module has a `main()` that prints or returns a table.

Run them all with `make bench` (or `python -m bench`).
"""
