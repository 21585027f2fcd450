"""Drawing big programs: seconds from a Program to its folded graph and to its SVG.

What it draws, with ``pd.viz.graph`` defaults (a program of more than 60 nodes is drawn
compact, parameters in the labels of their ops and intermediates as named edges, then folded
until it has at most 60 nodes):

- the 1,000-op program ``bench_build`` builds (100 units of ``relu, y + x, scale, fc(16),
  relu, elementwise_mul, scale, y - x, tanh``);
- a training program of about 1,000 ops: 120 ``fc(16, relu)`` layers, their backward ops and
  240 ``sgd`` updates;
- ResNet-18 and ResNet-50 inference programs saved by PaddlePaddle 2.6.2
  (``tests/fixtures/paddle26/draw/*.pdmodel``, made by ``interop/make_draw_fixtures.py``).

Timed in wall-clock seconds (``dot`` is another process, so CPU time would miss it), the
median of 5 after one warm-up: ``graph(program)`` (reading the program, finding repeats,
folding, writing DOT) and ``display.svg_of`` (Graphviz's ``dot`` laying it out; left out
when ``dot`` is missing). The goal is absolute: under 3 s from Program to SVG, what a user
waits for. There is no NumPy equivalent; the table gives the node count instead.
"""

import pathlib
import shutil
import statistics
import time

from bench import _common  # noqa: F401  (one thread, set before NumPy is imported)
from bench._common import Table, busy_note
from bench.bench_build import build

GOAL_S = 3.0
FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "paddle26" / "draw"


def programs():
    """(name, Program) pairs to draw."""
    from paddle_nb.io import load_program
    import paddle_nb as pd
    main, _ = build()
    yield f"{sum(len(b.ops) for b in main.blocks)}-op program (bench_build)", main
    train, startup = pd.Program(), pd.Program()
    with pd.program_guard(train, startup):
        h = pd.layers.data("x", shape=[16])
        for _ in range(120):
            h = pd.layers.fc(h, 16, act="relu")
        pd.optimizer.SGD(0.1).minimize(pd.layers.mean(h))
    yield f"{sum(len(b.ops) for b in train.blocks)}-op training MLP", train
    for name in ("resnet18", "resnet50"):
        path = FIXTURES / f"{name}.pdmodel"
        if path.is_file():
            yield f"{name} (PaddlePaddle 2.6.2 .pdmodel)", load_program(str(path))


def wall_median(fn, repeat):
    """The median wall-clock time of ``fn()`` over ``repeat`` calls, after one warm-up."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(repeat=5):
    from paddle_nb.viz import graph
    from paddle_nb.viz.display import svg_of
    has_dot = shutil.which("dot") is not None
    table = Table(f"draw: pd.viz.graph(program) with its defaults, median of {repeat}",
                  reference="nodes")
    figures = {}
    for name, program in programs():
        n_ops = sum(len(b.ops) for b in program.blocks)
        dot = graph(program)
        t_graph = wall_median(lambda: graph(program), repeat)
        t_dot = wall_median(lambda: svg_of(dot), repeat) if has_dot else 0.0
        total = t_graph + t_dot
        table.row(f"{name}: graph + dot", f"{total:.2f} s", f"{len(dot.paddle_nodes)}",
                  "", f"< {GOAL_S:.0f} s")
        table.row("  graph (fold, DOT) / dot (layout)",
                  f"{t_graph:.2f} s / {t_dot:.2f} s" if has_dot else f"{t_graph:.2f} s / -")
        figures[name] = {"ops": n_ops, "nodes": len(dot.paddle_nodes), "graph_s": t_graph,
                         "dot_s": t_dot, "total_s": total, "note": dot.paddle_note}
    if not has_dot:
        table.note("graphviz's `dot` is missing: only the folding and DOT writing are timed.")
    table.note(busy_note() or "wall-clock medians; a busy machine makes them longer.")
    worst = max(f["total_s"] for f in figures.values())
    verdict = "met" if worst < GOAL_S else "NOT met"
    table.note(f"goal (every drawing under {GOAL_S:.0f} s): {verdict}.")
    print(table)
    return figures


if __name__ == "__main__":
    main()
