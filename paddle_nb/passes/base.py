"""A pass: a named function from a program (and the scope holding its parameters) to a program.

PaddlePaddle Inference rewrites a loaded model before it runs it: batch_norm folded into the
convolution before it, identities dropped, and so on (its "IR passes"). Here a pass is plain
Python over the Program's ops::

    new_program = pass_.apply(program, scope)

``apply`` works on a copy: the program given is never changed. A pass that changes parameter
values (batch_norm folding) writes *new* persistable variables into ``scope`` and leaves the old
ones there, so the original program still runs in the same scope. ``PassResult`` records what the
pass did (ops removed, ops added, op counts, the programs before and after), which the
before/after view (``pd.viz.pass_view``) and the tests read.

:func:`check_unchanged` is the contract every pass keeps: run both programs on sample inputs
and require the same outputs (within ``rtol``/``atol``).
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paddle_nb.framework.program import Program

__all__ = ["Pass", "PassResult", "check_unchanged", "op_counts"]


@dataclass
class PassResult:
    """What one pass did: its name, the op counts before and after, and a note per change."""
    name: str
    ops_before: int
    ops_after: int
    changes: list = field(default_factory=list)    # (kind, op type, note): kind "removed",
    #   "folded" (batch_norm replaced by an add) or "folded_away" (batch_norm gone)
    keep: frozenset = frozenset()    # names the caller fetches (besides fetch ops): left as is
    before: Any = field(default=None, repr=False, compare=False)   # the programs, for the
    after: Any = field(default=None, repr=False, compare=False)    # before/after view


class Pass:
    """A program rewrite with a name. ``fn(program, scope, result)`` edits ``program`` (a copy)
    in place and appends its changes to ``result.changes``."""

    def __init__(self, name, fn, doc=""):
        self.name, self.fn, self.doc = name, fn, doc or (fn.__doc__ or "").strip()

    def apply(self, program, scope=None, results=None, keep=()):
        """A new program: ``program`` rewritten by this pass (``program`` itself is kept).
        ``keep``: names the caller will fetch (a saved model's fetch ops name theirs)."""
        copy = Program.parse(program.serialize())
        before = len(copy.global_block().ops)
        result = PassResult(self.name, before, before, keep=frozenset(keep))
        self.fn(copy, scope, result)
        copy = Program.parse(copy.serialize())     # writers and shapes re-read from the descs
        result.ops_after = len(copy.global_block().ops)
        result.before, result.after = program, copy
        if results is not None:
            results.append(result)
        return copy

    def __repr__(self):
        return f"Pass({self.name!r})"


def op_counts(program):
    """{op type: count} over the global block."""
    counts: dict[str, int] = {}
    for op in program.global_block().ops:
        counts[op.type] = counts.get(op.type, 0) + 1
    return counts


def check_unchanged(before, after, feed, fetch_names, scope, executor, rtol=1e-5, atol=1e-5):
    """Run both programs on ``feed`` in ``scope``; raise AssertionError naming the first output
    that differs by more than ``rtol``/``atol``. Returns the outputs of ``after``."""
    want = executor.run(before, feed=feed, fetch_list=list(fetch_names), scope=scope)
    got = executor.run(after, feed=feed, fetch_list=list(fetch_names), scope=scope)
    for name, w, g in zip(fetch_names, want, got):
        w, g = np.asarray(w), np.asarray(g)
        if w.shape != g.shape or w.dtype != g.dtype:
            raise AssertionError(f"output '{name}': {w.dtype}{list(w.shape)} before the passes, "
                                 f"{g.dtype}{list(g.shape)} after")
        if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            err = float(np.max(np.abs(g.astype("float64") - w)))
            raise AssertionError(f"output '{name}' changed by the passes: max abs error {err:.3g} "
                                 f"(allowed rtol {rtol}, atol {atol})")
    return got
