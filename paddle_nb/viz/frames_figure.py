"""Frames and scopes over a minibatch: a C++ call stack over time beside the scope forest.

*Design Doc: Block and Scope* compares a block's scope with a stack frame and then points out
where they part: a frame is popped when its call returns, while a block's scope is kept until
the minibatch, backward included, completes, so scopes form a forest that only grows during a
run. This figure shows both over one run, one column per moment (forward in the run scope, in
each step or branch, backward in each, the end of the minibatch):

- the call stack a C++ program written with loops and ``if``s would have at that moment;
- the scopes alive below the run scope in paddle_nb, drawn from real snapshots: a
  :class:`~paddle_nb.executor.record.ScopeRecord` per moment (a live scope snapshotted by
  :func:`moment`, or a run record's final scope tree cut to the scopes that its
  ``scope_created`` events say existed when that moment's first op ran);
- the scopes PaddlePaddle keeps alive then: the same, less paddle_nb's ``grad`` kid scopes
  (PaddlePaddle runs a grad block in the forward scope itself), plus the step scopes not yet
  entered (its ``recurrent`` op makes all ``T`` of them before its first step, in the
  ``StepScopes`` constructor), and less the step scopes ``recurrent_grad`` already deleted
  (``StepScopes::BackwardNext``: in backward through step ``t``, the steps after ``t + 1``
  are gone). This band follows PaddlePaddle's rule; it is not taken from a PaddlePaddle
  run. Step scopes are told by their labels (``step t``), so a run with two step nets would
  draw the second one's early.

``frames_figure(record)`` returns a :class:`FramesFigure`: ``rows`` for text and tests, its
picture as SVG in a notebook, its table as text elsewhere.
"""

from __future__ import annotations

import dataclasses

from paddle_nb.core.scope import Scope
from paddle_nb.executor.record import RunRecord, ScopeRecord, snapshot_scope
from paddle_nb.viz.style import ROLE_COLOURS, esc

__all__ = ["Moment", "FramesFigure", "frames_figure", "moment", "short_names"]

FRAME_COLOUR = "#cfe2f3"              # a call's frame (the forward colour)
SCOPE_COLOUR = "#d9d2e9"              # a scope (the scope tree's purple)
SCOPE_EDGE = "#8e7cc3"
GRAD_COLOUR = ROLE_COLOURS["backward"]
COLUMN, ROW, LEFT = 86, 18, 112      # pixels: a moment's width, a box's height, the titles
WIDEST = 1080                         # pixels: a notebook's output area; columns narrow to fit


@dataclasses.dataclass
class Moment:
    """One column: when, the call stack then, the scopes alive (paddle_nb's, as a snapshot
    of the run scope cut to that moment) and PaddlePaddle's (the labels of the run scope's
    kids); None where the run scope is gone."""

    label: str
    stack: tuple[str, ...]
    ours: ScopeRecord | None
    theirs: tuple[str, ...] | None

    def row(self) -> tuple[str, str, str, str]:
        """(moment, stack, paddle_nb's scopes, PaddlePaddle's) as the text table prints it."""
        ours = short_names(self.ours)
        theirs = " ".join(_short(label) for label in self.theirs or ()) or "-"
        return self.label, " > ".join(self.stack), ours, theirs


def short_names(run: ScopeRecord | None) -> str:
    """'s0+g s1 ...': each scope below ``run``, +g when it has a kid labelled grad."""
    if run is None:
        return "-"
    return " ".join(_short(kid.label) + ("+g" if any(k.label == "grad" for k in kid.kids)
                                         else "") for kid in run.kids) or "-"


def _short(label: str | None) -> str:
    return str(label).replace("step ", "s").replace("block ", "b")


class FramesFigure:
    """The figure: ``moments`` (one per column), ``rows()`` as text, SVG in a notebook."""

    def __init__(self, moments: list[Moment]) -> None:
        self.moments = moments

    def rows(self) -> list[tuple[str, str, str, str]]:
        return [m.row() for m in self.moments]

    def __repr__(self) -> str:
        lines = [f"{'':22} {'a C++ call stack':20} {'scopes alive: paddle_nb':28} PaddlePaddle"]
        lines += [f"{a:22} {b:20} {c:28} {d}" for a, b, c, d in self.rows()]
        return "\n".join(lines)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return "<div class='pnb'>" + self.svg() + "</div>"

    def svg(self) -> str:
        """The picture: three bands (stack, paddle_nb's scopes, PaddlePaddle's), a column
        per moment; frames grow downwards as calls nest, scopes as kids are made."""
        deep = max([len(m.stack) for m in self.moments] + [1])
        ours = max([_height(m.ours) for m in self.moments] + [1])
        theirs = max([len(m.theirs or ()) + 1 for m in self.moments] + [1])
        bands = [("a C++ call stack", 30, deep), ("scopes: paddle_nb", 0, ours),
                 ("scopes: PaddlePaddle", 0, theirs)]
        tops, y = [], 34
        for _, _, rows in bands:
            tops.append(y)
            y += rows * (ROW + 2) + 16
        column = max(64, min(COLUMN, (WIDEST - LEFT) // max(1, len(self.moments))))
        width = LEFT + column * len(self.moments)
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
                 f'font-family="DejaVu Sans, sans-serif" font-size="10">']
        for (title, _, _), top in zip(bands, tops):
            first, _, second = title.partition(": ")
            parts.append(_text(4, top + 12, first + (":" if second else ""), bold=True))
            parts.append(_text(4, top + 25, second, bold=True))
            parts.append(f'<line x1="0" x2="{width}" y1="{top - 6}" y2="{top - 6}" '
                         'stroke="#ddd"/>')
        for i, m in enumerate(self.moments):
            x = LEFT + i * column
            first, _, second = m.label.partition(" in ")
            if not second and len(first) > 14:                 # "end of the" / "minibatch"
                first, _, second = first.rpartition(" ")
            parts.append(_text(x + 2, 14, first, bold=True))
            parts.append(_text(x + 2, 26, second))
            parts += _stack(x, column, tops[0], m.stack)
            parts += _forest(x, column, tops[1], m.ours)
            parts += _flat(x, column, tops[2], m.theirs)
        return "".join(parts) + "</svg>"


def _height(run: ScopeRecord | None) -> int:
    return 1 if run is None else 1 + sum(1 + len(k.kids) for k in run.kids)


def _box(x: float, y: float, w: float, text: str, fill: str, edge: str = "#999") -> list[str]:
    return [f'<rect x="{x}" y="{y}" width="{w}" height="{ROW}" rx="3" fill="{fill}" '
            f'stroke="{edge}"/>', _text(x + 4, y + 13, text)]


def _text(x: float, y: float, text: str, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return f'<text x="{x}" y="{y}"{weight}>{esc(text)}</text>'


def _stack(x: int, column: int, top: int, stack: tuple[str, ...]) -> list[str]:
    parts: list[str] = []
    for depth, frame in enumerate(stack):
        parts += _box(x + 2 + 6 * depth, top + depth * (ROW + 2), column - 8 - 6 * depth,
                      frame, FRAME_COLOUR)
    return parts


def _forest(x: int, column: int, top: int, run: ScopeRecord | None) -> list[str]:
    if run is None:
        return [_text(x + 4, top + 13, "(destroyed)")]
    parts, y = _box(x + 2, top, column - 8, str(run.label), SCOPE_COLOUR, SCOPE_EDGE), top
    for kid in run.kids:
        y += ROW + 2
        parts += _box(x + 10, y, column - 16, str(kid.label), SCOPE_COLOUR, SCOPE_EDGE)
        for grandkid in kid.kids:
            y += ROW + 2
            fill = GRAD_COLOUR if grandkid.label == "grad" else SCOPE_COLOUR
            parts += _box(x + 18, y, column - 24, str(grandkid.label), fill, SCOPE_EDGE)
    return parts


def _flat(x: int, column: int, top: int, labels: tuple[str, ...] | None) -> list[str]:
    if labels is None:
        return [_text(x + 4, top + 13, "(destroyed)")]
    parts = _box(x + 2, top, column - 8, "run", SCOPE_COLOUR, SCOPE_EDGE)
    for k, label in enumerate(labels):
        parts += _box(x + 10, top + (k + 1) * (ROW + 2), column - 16, label, SCOPE_COLOUR,
                      SCOPE_EDGE)
    return parts


def moment(label: str, stack: tuple[str, ...], run: Scope | None,
           theirs: tuple[str, ...] | None = None) -> Moment:
    """A column from a live scope: ``run`` snapshotted now (None: no scope left), with
    PaddlePaddle's scopes ``theirs`` (by default the same kids, less those labelled grad)."""
    snap = snapshot_scope(run) if run is not None else None
    if theirs is None and snap is not None:
        theirs = tuple(str(k.label) for k in snap.kids)
    return Moment(label, stack, snap, theirs)


def frames_figure(record: RunRecord | list[Moment]) -> FramesFigure:
    """The figure of a recorded run (``exe.subscribe``): a column for each stretch of ops
    run in one scope, then one for the end of the minibatch, when the run scope is gone.
    Or the figure of ``moments`` taken by hand with :func:`moment`."""
    if isinstance(record, list):
        return FramesFigure(record)
    run = _run_scope(record)
    path = _paths(run)
    made_at = {sid: pos for pos, kind, sid, *_ in record.events if kind == "scope_created"}
    moments: list[Moment] = []
    backward, last = False, None
    for pos, op in enumerate(record.ops):
        where = path.get(op.scope_id, ())
        backward = backward or op.type.endswith("_grad")
        if (where, backward) == last:
            continue
        last = (where, backward)
        body = where[0] if where else None
        moments.append(Moment(
            ("backward" if backward else "forward") + (f" in {body}" if body else ""),
            ("main()",) + ((f"{{{body}}}",) if body else ()),
            _cut(run, made_at, pos), _paddle_scopes(_cut(run, made_at, pos), run, body,
                                                    backward)))
    moments.append(Moment("end of the minibatch", ("main()",), None, None))
    return FramesFigure(moments)


def _run_scope(record: RunRecord) -> ScopeRecord:
    if record.scopes is None:
        raise ValueError("frames_figure: the run record holds no scope snapshot (the user's "
                         "scope was destroyed during the run); expected a finished run's record")
    runs = [kid for kid in record.scopes.kids if kid.label == "run"]
    if not runs:
        raise ValueError("frames_figure: expected a run scope under the user's scope in the "
                         "record, found kids " + str([k.label for k in record.scopes.kids]))
    return runs[-1]


def _paths(run: ScopeRecord) -> dict[int, tuple[str, ...]]:
    """Scope id -> labels from below the run scope down to it (() for the run scope)."""
    path: dict[int, tuple[str, ...]] = {}

    def walk(rec: ScopeRecord, above: tuple[str, ...]) -> None:
        path[rec.id] = above
        for kid in rec.kids:
            walk(kid, above + (str(kid.label),))
    walk(run, ())
    return path


def _cut(rec: ScopeRecord, made_at: dict[int, int], pos: int) -> ScopeRecord:
    """``rec`` with only the scopes made before op ``pos`` started (made before the run: all)."""
    kids = [_cut(kid, made_at, pos) for kid in rec.kids if made_at.get(kid.id, -1) < pos]
    return dataclasses.replace(rec, kids=kids)


def _paddle_scopes(run: ScopeRecord, whole: ScopeRecord, body: str | None,
                   backward: bool) -> tuple[str, ...]:
    """PaddlePaddle's kids of the run scope then (``run`` cut to the moment, ``whole`` as
    the run ended): no grad kids; once one step scope exists all of them do (``recurrent``
    makes them before its first step); in backward through step ``t``, the steps after
    ``t + 1`` are already deleted."""
    kids = list(run.kids)
    if any(_step_number(kid.label) is not None for kid in kids):
        made = {kid.id for kid in kids}
        kids += [kid for kid in whole.kids
                 if _step_number(kid.label) is not None and kid.id not in made]
    now = _step_number(body) if backward else None
    return tuple(str(kid.label) for kid in kids
                 if now is None or (_step_number(kid.label) or 0) <= now + 1)


def _step_number(label: str | None) -> int | None:
    """t for a scope labelled 'step t', None for any other scope."""
    return int(label.split()[1]) if label and label.startswith("step ") else None
