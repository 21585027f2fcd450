"""What every benchmark shares: one thread, median timings, and the table it prints.

Import this module before NumPy (``bench/__main__.py`` and each ``bench_*.py`` do): it pins
the BLAS and OpenMP pools to one thread, so that ratios compare interpreters, not thread pools.
Setting the variables after NumPy was imported would do nothing, hence the order.
"""

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import gc          # noqa: E402  (after the thread variables, on purpose)
import statistics  # noqa: E402
import time        # noqa: E402
import tracemalloc  # noqa: E402

__all__ = ["median_time", "interleaved", "busy_note", "Table", "torch_or_none", "us", "ms", "x",
           "peak_bytes"]


BUSY = {"samples": 0, "kept": 0, "all": 0}   # timings, those on the CPU, medians of all


def _once(fn, number):
    """(wall seconds per call, CPU seconds per call) of ``number`` calls of ``fn``."""
    cpu0 = time.process_time()
    start = time.perf_counter()
    for _ in range(number):
        fn()
    wall = time.perf_counter() - start
    return wall / number, (time.process_time() - cpu0) / number


def _median_on_cpu(samples):
    """The median wall time of the samples during which this process kept the CPU (its CPU
    time at least 90% of the wall time). On a shared machine another process can take the
    core in the middle of a timing; such a sample measures the neighbour, not the code.

    With fewer than 3 such samples, the median CPU time of all samples stands in for the
    wall time (the code timed is single-threaded, so the two agree on a quiet machine)."""
    kept = [wall for wall, cpu in samples if cpu >= 0.9 * wall]
    BUSY["samples"] += len(samples)
    BUSY["kept"] += len(kept)
    if len(kept) >= 3:
        return statistics.median(kept)
    BUSY["all"] += 1
    return statistics.median(cpu for _, cpu in samples)


def median_time(fn, number=1, repeat=7, warmup=1):
    """Seconds per call of ``fn``: the median of ``repeat`` timings of ``number`` calls each,
    after ``warmup`` untimed timings (see :func:`_median_on_cpu`)."""
    for _ in range(warmup):
        _once(fn, number)
    gc.collect()
    return _median_on_cpu([_once(fn, number) for _ in range(repeat)])


def interleaved(fns, number=1, repeat=7, warmup=1):
    """Like :func:`median_time` for several functions timed back to back, one repeat of each
    in turn, so that a slow moment of the machine hits them all alike. Returns a list."""
    for _ in range(warmup):
        for fn in fns:
            _once(fn, number)
    gc.collect()
    samples = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, samples):
            out.append(_once(fn, number))
    return [_median_on_cpu(s) for s in samples]


def busy_note():
    """A line saying how many timings since the last call lost the CPU to another process,
    or None when none did."""
    lost, total, unfiltered = BUSY["samples"] - BUSY["kept"], BUSY["samples"], BUSY["all"]
    BUSY["samples"] = BUSY["kept"] = BUSY["all"] = 0
    if lost == 0:
        return None
    text = (f"machine busy: {lost} of {total} timings lost the CPU to another process "
            "(CPU time < 90% of wall time) and were left out of the medians")
    if unfiltered:
        text += (f"; {unfiltered} figure(s) had fewer than 3 timings left and are medians "
                 "of CPU time instead")
    return text + "."


def torch_or_none():
    """The ``torch`` module set to one thread, or None when it is not installed.

    PyTorch is never a dependency of paddle_nb; a benchmark includes it when importable.
    """
    try:
        import torch
    except Exception:          # not installed, or a broken install: leave it out
        return None
    torch.set_num_threads(1)
    return torch


class Table:
    """Rows of (metric, paddle_nb, reference, ratio, goal), printed as aligned text."""

    def __init__(self, title, reference="NumPy"):
        self.title = title
        self.header = ("metric", "paddle_nb", reference, "ratio", "goal")
        self.rows = []
        self.notes = []

    def row(self, metric, ours, ref="-", ratio="-", goal="-"):
        self.rows.append(tuple(str(c) for c in (metric, ours, ref, ratio, goal)))

    def note(self, text):
        self.notes.append(text)

    def __str__(self):
        rows = [self.header] + self.rows
        widths = [max(len(r[k]) for r in rows) for k in range(len(self.header))]
        line = lambda r: "  ".join(c.ljust(w) if k == 0 else c.rjust(w)   # noqa: E731
                                   for k, (c, w) in enumerate(zip(r, widths))).rstrip()
        out = [self.title, line(self.header), line(tuple("-" * w for w in widths))]
        out += [line(r) for r in self.rows]
        out += [f"  {n}" for n in self.notes]
        return "\n".join(out)


def us(seconds):
    """Seconds as microseconds text."""
    return f"{seconds * 1e6:.1f} us"


def ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


def x(ratio):
    return f"{ratio:.2f}x"


def peak_bytes(fn):
    """Bytes one call of ``fn`` adds at its peak over what was allocated before it (tracemalloc,
    to which NumPy reports its buffers); one untimed call first, so caches are warm."""
    fn()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
