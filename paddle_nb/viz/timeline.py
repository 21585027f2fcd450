"""Memory over a run: bytes in use on each place, op by op.

The replay of a run (``viz.replay.RunReplay``) knows every tensor's state at
every position; summing the allocated ones per place gives the memory in
use. Allocations are marked above the curve, releases below: a temporary's
memory comes back right after its last use, and everything left in the run
scope comes back when the run ends. ``memory_timeline(record)`` draws it as
an inline SVG inside a small widget.
"""

import html
import math

import traitlets

from paddle_nb.viz.replay import RunReplay
from paddle_nb.viz.widget_base import PaddleWidget, format_bytes, jsonable

__all__ = ["memory_series", "timeline_svg", "TimelineWidget", "memory_timeline"]

PLACE_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b"]
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 760, 200, 78, 16, 26, 96
LABEL_ANGLE = 50             # degrees: column labels rise to the right, ending under their column
LABEL_GAP = 12               # px from the plot's bottom edge to a label's end
CHAR_PX = 6.0                # the widest mean advance of a 10 px sans-serif font's characters


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
    """An inline SVG: a step line per place, ▲ allocations, ▼ releases, one column a position."""
    chart = _Chart(len(titles), max([max(v) for v in series.values()] + [1]))
    body = (chart.axes() + chart.columns(titles, labels or titles) + chart.curves(series)
            + chart.marks(marks))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="pnb-timeline" width="{WIDTH}" '
            f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" '
            f'font-size="10">{"".join(body)}</svg>')


class _Chart:
    """Coordinates of the plot: one column per position, bytes from 0 to ``top``."""

    def __init__(self, n, top):
        self.n, self.top = max(n, 1), top
        self.w, self.h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
        self.col = self.w / self.n

    def x(self, p):
        return LEFT + self.col * (p + 0.5)

    def y(self, nbytes):
        return TOP + self.h * (1 - nbytes / self.top)

    def axes(self):
        out = []
        for frac in (0, 0.5, 1):
            yy = self.y(self.top * frac)
            out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" '
                       f'stroke="#ddd"/><text x="{LEFT - 4}" y="{yy + 3:.1f}" text-anchor="end">'
                       f'{format_bytes(int(self.top * frac))}</text>')
        return out

    def columns(self, titles, labels):
        """A hover target per position, and its label (every k-th one when crowded)."""
        out, every, base = [], self.n // 40 + 1, HEIGHT - BOTTOM + LABEL_GAP
        for p, title in enumerate(titles):
            out.append(f'<rect class="pnb-col" data-pos="{p}" x="{self.x(p) - self.col / 2:.1f}" '
                       f'y="{TOP}" width="{self.col:.1f}" height="{self.h}" fill="transparent">'
                       f'<title>{html.escape(title)}</title></rect>')
            if p % every == 0:
                label = _fit(labels[p], self.label_room(p))
                out.append(f'<text x="{self.x(p):.1f}" y="{base}" text-anchor="end" transform='
                           f'"rotate(-{LABEL_ANGLE} {self.x(p):.1f} {base})">'
                           f'{html.escape(label)}</text>')
        return out

    def label_room(self, p):
        """The length in px that column ``p``'s slanted label may have and stay inside the
        picture: it runs down and left from its end under the column, to the bottom edge or
        to the left edge, whichever comes first."""
        angle = math.radians(LABEL_ANGLE)
        down = (BOTTOM - LABEL_GAP - 3) / math.sin(angle)      # 3 px for the descenders
        left = (self.x(p) - 2) / math.cos(angle)
        return min(down, left)

    def curves(self, series):
        out = []
        for i, (place, values) in enumerate(series.items()):
            colour = PLACE_COLOURS[i % len(PLACE_COLOURS)]
            points = " ".join(f"{self.x(p) + dx * self.col / 2:.1f},{self.y(b):.1f}"
                              for p, b in enumerate(values) for dx in (-1, 1))
            out.append(f'<polyline data-place="{html.escape(place)}" fill="none" '
                       f'stroke="{colour}" stroke-width="2" points="{points}"/>')
            peak = format_bytes(max(values))
            out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP - 8 - 12 * i}" text-anchor="end" '
                       f'fill="{colour}">{html.escape(place)}: peak {peak}</text>')
        return out

    def marks(self, marks):
        out = []
        for m in marks:
            colour = {"alloc": "#2e7d32", "free": "#c62828", "rewrite": "#f9a825"}[m["kind"]]
            cy = TOP + self.h - 4 if m["kind"] == "free" else TOP + 4
            state = "freed" if m["kind"] == "free" else "allocated"
            out.append(f'<polygon class="pnb-mark" data-pos="{m["pos"]}" '
                       f'data-var="{html.escape(m["var"])}" data-scope="{m["scope"]}" '
                       f'data-state="{state}" data-mark="{m["kind"]}" '
                       f'points="{_marker(m["kind"], self.x(m["pos"]), cy)}" fill="{colour}" '
                       f'fill-opacity="0.75"><title>{m["kind"]} {html.escape(m["var"])} '
                       f'({format_bytes(m["nbytes"])})</title></polygon>')
        return out


def _fit(label, room_px):
    """``label``, cut with an ellipsis to at most ``room_px`` wide (the column's hover title
    still names it whole)."""
    most = max(int(room_px // CHAR_PX), 1)
    return label if len(label) <= most else label[:most - 1] + "\u2026"


def _marker(kind, cx, cy):
    """Points of ▲ (alloc), ▼ (free) or ◆ (rewrite) centred on ``(cx, cy)``."""
    if kind == "alloc":
        pts = [(-4, 3), (4, 3), (0, -4)]
    elif kind == "free":
        pts = [(-4, -3), (4, -3), (0, 4)]
    else:
        pts = [(-4, 0), (0, -4), (4, 0), (0, 4)]
    return " ".join(f"{cx + dx:.1f},{cy + dy:.1f}" for dx, dy in pts)


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

    def picture_line(self):
        return (f"Memory timeline: bytes in use per place over {len(self.positions)} positions "
                "of a run. Run the notebook to point at a column and see what it allocated "
                "and released.")


def memory_timeline(run_record):
    """Bytes in use per place over the ops of ``run_record``, with allocations and releases."""
    return TimelineWidget(run_record)
