"""paddle_nb's benchmarks: each `bench/bench_*.py` module has a `main()` that prints its table
and returns its figures (a dict).

Run them all with `make bench` (or `python -m bench`); see bench/README.md.
"""
