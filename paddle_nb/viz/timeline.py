"""Memory over a run: bytes in use on each place, op by op.

The replay of a run (``viz.replay.RunReplay``) knows every tensor's state at
every position; summing the allocated ones per place gives the memory in
use. Allocations are marked above the curve, releases below: a temporary's
memory comes back right after its last use, and everything left in the run
scope comes back when the run ends. ``memory_timeline(record)`` draws it as
an inline SVG inside a small widget.
"""

import html

import traitlets

from paddle_nb.viz.replay import RunReplay
from paddle_nb.viz.widget_base import PaddleWidget, format_bytes, jsonable

__all__ = ["memory_series", "timeline_svg", "TimelineWidget", "memory_timeline"]

PLACE_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b"]
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 760, 200, 78, 16, 26, 96


def memory_series(replay):
    """``(series, marks)``: bytes in use per place at every position, and the marks.

    ``series[place][p]`` is the sum of the allocated tensors' bytes at position ``p``;
    a mark is ``{"pos", "kind", "scope", "var", "nbytes", "place"}`` with kind
    "alloc", "free" or "rewrite" (freed and allocated again by the same op).
    """
    totals, series = {}, {}
    cells = {k: v for k, v in replay.before.items() if v is not None}
    for state, nbytes, place in cells.values():
        if state == "allocated":
            totals[place] = totals.get(place, 0) + nbytes
    for p, frame in enumerate(replay.frames):
        for sid, name, state, nbytes, place in frame:
            old = cells.get((sid, name))
            if old is not None and old[0] == "allocated":
                totals[old[2]] = totals.get(old[2], 0) - old[1]
            if state == "allocated":
                totals[place] = totals.get(place, 0) + nbytes
            cells[(sid, name)] = (state, nbytes, place)
        for place, total in totals.items():
            series.setdefault(place, [0] * len(replay.frames))[p] = total
    return series, _marks(replay)


def _marks(replay):
    marks = []
    for pos, kind, sid, name, nbytes, place in replay.marks:
        last = marks[-1] if marks else None
        if (kind == "alloc" and last and last["kind"] == "free" and last["pos"] == pos
                and last["var"] == name and last["scope"] == sid):
            last["kind"] = "rewrite"
            last["nbytes"] = nbytes
            continue
        marks.append({"pos": pos, "kind": kind, "scope": sid, "var": name, "nbytes": nbytes,
                      "place": place})
    return marks


def timeline_svg(series, marks, titles, labels=None):
    """An inline SVG: a step line per place, ▲ allocations, ▼ releases, one column per position."""
    n = max(len(titles), 1)
    labels = labels or titles
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max([max(v) for v in series.values()] + [1])
    x = lambda p: LEFT + plot_w * (p + 0.5) / n                         # noqa: E731
    y = lambda b: TOP + plot_h * (1 - b / top)                          # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="pnb-timeline" width="{WIDTH}" '
           f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" '
           f'font-size="10">']
    for frac in (0, 0.5, 1):
        yy = y(top * frac)
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" '
                   f'stroke="#ddd"/><text x="{LEFT - 4}" y="{yy + 3:.1f}" text-anchor="end">'
                   f'{format_bytes(int(top * frac))}</text>')
    for p, title in enumerate(titles):
        out.append(f'<rect class="pnb-col" data-pos="{p}" x="{x(p) - plot_w / n / 2:.1f}" '
                   f'y="{TOP}" width="{plot_w / n:.1f}" height="{plot_h}" fill="transparent">'
                   f'<title>{html.escape(title)}</title></rect>')
        if n <= 40 or p % (n // 40 + 1) == 0:
            label = html.escape(labels[p])
            out.append(f'<text x="{x(p):.1f}" y="{HEIGHT - BOTTOM + 12}" text-anchor="end" '
                       f'transform="rotate(-50 {x(p):.1f} {HEIGHT - BOTTOM + 12})">{label}</text>')
    for i, (place, values) in enumerate(series.items()):
        colour = PLACE_COLOURS[i % len(PLACE_COLOURS)]
        points = []
        for p, b in enumerate(values):
            points += [f"{x(p) - plot_w / n / 2:.1f},{y(b):.1f}", f"{x(p) + plot_w / n / 2:.1f},{y(b):.1f}"]
        out.append(f'<polyline data-place="{html.escape(place)}" fill="none" stroke="{colour}" '
                   f'stroke-width="2" points="{" ".join(points)}"/>')
        peak = max(values)
        out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP - 8 - 12 * i}" text-anchor="end" '
                   f'fill="{colour}">{html.escape(place)}: peak {format_bytes(peak)}</text>')
    for m in marks:
        up = m["kind"] == "alloc"
        colour = {"alloc": "#2e7d32", "free": "#c62828", "rewrite": "#f9a825"}[m["kind"]]
        cx, cy = x(m["pos"]), (TOP + 4 if up else TOP + plot_h - 4)
        tri = (f"{cx - 4:.1f},{cy + 3:.1f} {cx + 4:.1f},{cy + 3:.1f} {cx:.1f},{cy - 4:.1f}" if up
               else f"{cx - 4:.1f},{cy - 3:.1f} {cx + 4:.1f},{cy - 3:.1f} {cx:.1f},{cy + 4:.1f}")
        state = "allocated" if m["kind"] != "free" else "freed"
        out.append(f'<polygon class="pnb-mark" data-pos="{m["pos"]}" data-var="{html.escape(m["var"])}" '
                   f'data-scope="{m["scope"]}" data-state="{state}" data-mark="{m["kind"]}" '
                   f'points="{tri}" fill="{colour}" fill-opacity="0.75"><title>'
                   f'{m["kind"]} {html.escape(m["var"])} ({format_bytes(m["nbytes"])})</title></polygon>')
    out.append("</svg>")
    return "".join(out)


class TimelineWidget(PaddleWidget):
    """Bytes in use per place over the positions of a run; hovering a column names its changes.

    >>> import numpy as np, paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[2]); y = pd.layers.relu(pd.layers.relu(x))
    >>> exe, records = pd.Executor(), []
    >>> _ = exe.subscribe(records.append)
    >>> _ = exe.run(prog, feed={"x": np.ones((4, 2), "float32")}, fetch_list=[y])
    >>> memory_timeline(records[-1]).series
    {'CPUPlace()': [32, 32, 32, 0]}
    """

    series = traitlets.Dict().tag(sync=True)
    marks = traitlets.List().tag(sync=True)
    positions = traitlets.List().tag(sync=True)
    peak = traitlets.Dict().tag(sync=True)
    svg = traitlets.Unicode("").tag(sync=True)
    position = traitlets.Int(-1).tag(sync=True)     # the column the pointer is on (-1: none)

    def __init__(self, record, **kwargs):
        super().__init__(kind="timeline", **kwargs)
        replay = RunReplay(record)
        series, marks = memory_series(replay)
        positions = replay.positions()
        titles, labels = [p["title"] for p in positions], [p["short"] for p in positions]
        self.series = jsonable(series)
        self.marks = jsonable(marks)
        self.positions = jsonable(replay.positions())
        self.peak = {place: {"nbytes": max(v), "pos": v.index(max(v))}
                     for place, v in self.series.items()}
        self.svg = timeline_svg(series, marks, titles, labels)
        if not series:
            self.message = "No tensor was allocated in this run."


def memory_timeline(run_record):
    """Bytes in use per place over the ops of ``run_record``, with allocations and releases."""
    return TimelineWidget(run_record)
