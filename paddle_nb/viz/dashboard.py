"""The Dashboard: a program's blocks, a block's dataflow, and the scopes of the last run.

Three panes in one widget, kept up to date in place (display it once):

- the block tree: every block with its parent, op and variable counts;
  clicking a block selects it;
- the selected block's dataflow graph (``viz.graph``; DOT text where no
  Graphviz layout engine is installed); a click on a folded node ("3 x 16
  ops") opens it, as ``graph(block, expand=[its id])`` would;
- the scope hierarchy of the last run, taken just before the executor
  destroyed the run's scopes: every variable's state, shape, dtype, place
  and bytes, with what changed since the previous run of the same program
  marked, and said (the value, the shape, the bytes before and after).

It tells the truth from its first line: made after runs, it counts them
(``executor.run_count``) and shows the last one (``executor.last_record``,
else the scope as it is now). Runs arrive as RunRecords from the executor it
is given (``exe.subscribe``), from any thread: one lock guards what a run
changes, and a failure inside the Dashboard is a warning, never an error in
the worker's ``exe.run``. The program is followed as it is built: after each
notebook cell (IPython's ``post_run_cell``) and after each run the Dashboard
compares ``program.version`` with the version it drew and redraws only when
they differ. Outside IPython, call ``dashboard.refresh()``.
"""

import threading
import warnings
import zlib

import numpy
import traitlets
from typing import Any

from paddle_nb.core.scope import global_scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.executor.record import snapshot_scope
from paddle_nb.framework.context import default_main_program
from paddle_nb.viz.style import fmt_bytes, fmt_shape
from paddle_nb.viz.trees import block_summary, kind_groups
from paddle_nb.viz.names import names_by_block, scope_names, user_names
from paddle_nb.viz.values import RunValues, program_op_values, value_summary
from paddle_nb.viz.widget_base import (PaddleWidget, graph_picture, jsonable, on_cell_executed,
                                       scope_dict, walk_dicts, weak_method)

__all__ = ["Dashboard"]


class Dashboard(PaddleWidget):
    """Block tree, dataflow graph and scope hierarchy, refreshed after every run.

    ``program`` defaults to the default main program; runs of other programs (the
    startup program) refresh the scope pane only. It follows the runs of ``executor``
    (without one, no runs: it shows the program and the live scope); ``scope`` limits the
    runs shown to those in that scope.

    >>> import numpy as np, paddle_nb as pd
    >>> prog, scope, exe = pd.Program(), pd.Scope(), pd.Executor()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[2]); y = pd.layers.relu(x)
    >>> dash = Dashboard(prog, scope, exe)
    >>> [b["ops"] for b in dash.blocks], dash.runs
    ([1], 0)
    >>> _ = exe.run(prog, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y], scope=scope)
    >>> dash.runs, [(c["name"], c["what"]) for c in dash.changes][:2]
    (1, [('run', 'new'), ('x', 'new')])
    """

    program_version = traitlets.Int(-1).tag(sync=True)
    blocks = traitlets.List().tag(sync=True)      # [{idx, parent, ops, vars, op_types, change}]
    selected_block = traitlets.Int(0).tag(sync=True)
    graphs = traitlets.Dict().tag(sync=True)      # "idx" -> {block, svg, dot, hint}
    expanded = traitlets.Dict().tag(sync=True)    # "idx" -> ids of the folded nodes opened
    scopes = traitlets.Dict().tag(sync=True)      # the scope tree, each var with its change
    declared = traitlets.List().tag(sync=True)    # [{kind, count, names}]: in no scope
    changes = traitlets.List().tag(sync=True)     # [{path, name, what, before, after}]
    run = traitlets.Dict().tag(sync=True)         # about the last run shown
    # The runs of the executor it follows: those made before the Dashboard (as the executor
    # counts them, ``executor.run_count``), then each run in its scope (in any, without one).
    runs = traitlets.Int(0).tag(sync=True)
    # What hovering (or clicking) an op of the graph adds after a run: "block/op" -> each
    # input's and output's value, as the last run of this program left it (viz/values.py).
    op_values = traitlets.Dict().tag(sync=True)
    # The user's Python names (viz/names.py) for the scope pane: {"outer": {variable: name}}
    # for the user's and the run scope, "inner" for the step (sub-block) scopes below them.
    names = traitlets.Dict().tag(sync=True)

    def __init__(self, program=None, scope=None, executor=None, **kwargs):
        super().__init__(kind="dashboard", **kwargs)
        self.program = default_main_program() if program is None else program
        self.scope, self.executor = scope, executor
        self._lock = threading.RLock()         # runs may arrive from several threads at once
        self._seen = {}                         # id(program) -> {(path, name): what was shown}
        self._op_counts = {}
        self._unsubscribe = executor.subscribe(weak_method(self.on_run, executor.listeners)) \
            if executor is not None else (lambda: None)
        self._unhook = on_cell_executed(self._after_cell)
        self.refresh()
        self._show_start()

    # -- the program pane -------------------------------------------------------------------------
    def refresh(self):
        """Redraw the block tree and graphs if the program changed since they were drawn."""
        with self._lock:
            if self.program.version == self.program_version:
                return False
            blocks, graphs = [], {}
            for block in self.program.blocks:
                blocks.append(self._block_entry(block))
                graphs[str(block.idx)] = _picture(block, self.expanded.get(str(block.idx), ()))
            self._name_variables()
            with self.hold_sync():
                self.blocks = jsonable(blocks)
                self.graphs = jsonable(graphs)
                if self.selected_block >= len(blocks):
                    self.selected_block = 0
                self.program_version = self.program.version
            return True

    def _after_cell(self):
        """After a notebook cell: the program may have grown, and the cell may have bound
        Python names to its variables (``o1, o2 = rnn()``)."""
        self.refresh()
        self._name_variables()

    def _name_variables(self):
        """The user's names of the program's variables (viz/names.py), for the scope pane:
        ``outer`` for the user's and the run scope (block 0), ``inner`` for those below."""
        outer, inner = scope_names(self.program, names_by_block(self.program))
        self.names = {"outer": outer, "inner": inner}

    def _block_entry(self, block):
        before = self._op_counts.get(block.idx)
        n = len(block.ops)
        change = "new" if before is None and self.program_version >= 0 else \
            (f"+{n - before} ops" if before is not None and n > before else "")
        self._op_counts[block.idx] = n
        return {"idx": block.idx, "parent": block.parent_idx, "ops": n, "vars": len(block.vars),
                "op_types": [op.type for op in block.ops], "summary": block_summary(block),
                "change": change}

    @traitlets.observe("expanded")
    def _redraw_opened(self, change):
        """A folded node was clicked open (or the folds reset): redraw the blocks it changed."""
        old, new = change["old"] or {}, change["new"] or {}
        with self._lock:                   # a run may be updating the panes meanwhile
            graphs = dict(self.graphs)
            for key in dict.fromkeys(list(old) + list(new)):
                if old.get(key) != new.get(key) and key.isdigit() and \
                        int(key) < self.program.num_blocks:
                    graphs[key] = _picture(self.program.block(int(key)), new.get(key, ()))
            self.graphs = jsonable(graphs)

    # -- the first state: what the executor did before this Dashboard -----------------------------
    def _show_start(self):
        """Show the executor's last run if it kept one, else the scope as it is now."""
        count = _run_count(self.executor)
        last = getattr(self.executor, "last_record", None)
        if last is not None and self._wanted(last):
            self._show(last, max(count or 0, 1))
            return
        scope = self.scope if self.scope is not None else global_scope()
        tree = scope_dict(snapshot_scope(scope))
        self._seen[id(self.program)] = self._remember(tree, self._live_digests(scope, tree))
        if count is None:              # an executor that does not count: say only what is known
            label = "the scope as it is now (runs are counted from here on)"
        elif count == 0:
            label = "no run yet: the scope as it is now"
        else:
            label = (f"run {count}: not recorded (this Dashboard came after it); the scope as "
                     "it is now")
        # after runs (this executor's, or another's that left values in the scope): hovering
        # an op shows what they left there
        ran = bool(count) or \
            any(v["state"] == "allocated" for s in walk_dicts(tree) for v in s["vars"])
        values = RunValues(scope) if ran else None
        with self.hold_sync():
            self.runs = count or 0
            self.op_values = self._op_values(values) if values is not None else {}
            self.scopes = jsonable(tree)
            self.declared = jsonable(self._declared(self.program, tree))
            self.run = {"label": label, "program": "", "ops": 0, "recorded": False}

    def _wanted(self, record):
        return record.scopes is not None and (self.scope is None or
                                              record.scopes.id == self.scope.id)

    # -- the scope pane ---------------------------------------------------------------------------
    def on_run(self, record):
        """Show a run (called by the executor with its RunRecord, in the run's thread).

        Never raises: the run it reports has finished, and a viewer's failure must not
        reach the worker's ``exe.run``; it becomes a warning instead.
        """
        try:
            with self._lock:
                if record.scopes is None and self.scope is None:   # counted, nothing to show
                    self.runs += 1
                    self.run = {"label": f"run {self.runs}: failed before its scopes were "
                                         "recorded", "program": "", "ops": len(record.ops),
                                "failed": True, "recorded": False}
                if not self._wanted(record):
                    return
                self._show(record, self.runs + 1)
            self.refresh()
        except Exception as err:        # noqa: BLE001 - a viewer never fails a run
            warnings.warn(f"the Dashboard could not show a run ({type(err).__name__}: {err}); "
                          "the run itself is unaffected", RuntimeWarning, stacklevel=2)

    def _show(self, record, count):
        tree = scope_dict(record.scopes)
        key = id(record.program)
        seen = self._seen.get(key)
        if seen is None and key != id(self.program):     # a first run of another program:
            seen = self._seen.get(id(self.program), {})  # compare with the user scope shown
        now = self._remember(tree, self._digests(record, tree))
        changes = _mark(tree, seen, now)
        self._seen.pop(key, None)
        self._seen[key] = now                 # the programs run last are kept, a few of them
        while len(self._seen) > PROGRAMS_REMEMBERED:    # (exe.eval prunes a new one per call)
            self._seen.pop(next(iter(self._seen)))
        ours = record.program is self.program
        with self.hold_sync():
            if ours:
                live = self.scope if self.scope is not None else global_scope()
                self.op_values = self._op_values(RunValues(record, live=live))
            self.runs = count
            self.scopes = jsonable(tree)
            self.changes = jsonable(changes)
            self.declared = jsonable(self._declared(record.program, tree))
            self.run = jsonable({
                "label": f"run {count}" + ("" if ours else " (another program)"),
                "program": "this program" if ours else f"program with {record.program.num_blocks}"
                                                      " block(s)",
                "ops": len(record.ops), "seconds": round(record.seconds, 6),
                "place": record.place, "failed": record.failed})

    def _op_values(self, values):
        """Each op's inputs' and outputs' values, said as its tooltip shows them."""
        named = {}
        try:
            named = user_names(self.program)
        except RuntimeError:           # the notebook's namespace changed while it was read
            pass
        return jsonable(program_op_values(self.program, values, named))

    @staticmethod
    def _remember(tree, digests):
        """``{(path, name): (state, shape, nbytes, checksum, value summary)}`` of ``tree``."""
        seen: dict[tuple[str, str | None], Any] = {}
        for scope in walk_dicts(tree):
            seen[(scope["path"], None)] = True
            for v in scope["vars"]:
                key = (scope["path"], v["name"])
                digest, summary = digests.get(key, (None, None))
                seen[key] = (v["state"], v["shape"], v["nbytes"], digest, summary)
        return seen

    def _digests(self, record, tree):
        """Each value's checksum and summary: from the record when it holds values, else
        from the live scope (its persistables outlive the run)."""
        with_values = {}
        for scope_rec, scope in zip(record.scopes.walk(), walk_dicts(tree)):
            for v in scope_rec.vars:
                if v.value is not None:
                    with_values[(scope["path"], v.name)] = _digest(v.value)
        if with_values:
            return with_values
        live = self.scope if self.scope is not None else global_scope()
        return self._live_digests(live, tree) if live.id == tree["id"] else {}

    @staticmethod
    def _live_digests(scope, tree):
        out = {}
        for v in tree["vars"]:
            var = scope.find_local_var(v["name"])
            if var is not None and var.is_type(LoDTensor):
                tensor = var.get(LoDTensor)
                if tensor.is_allocated():
                    out[(tree["path"], v["name"])] = _digest(tensor.numpy())
        return out

    @staticmethod
    def _declared(program, tree):
        """The program's variables no scope holds, grouped by kind (data, temp, grad...)."""
        held = {v["name"] for scope in walk_dicts(tree) for v in scope["vars"]}
        return kind_groups(v for block in program.blocks for v in block.vars.values()
                           if v.name not in held)

    def close(self):
        """Stop following runs and cells, then close the widget."""
        for stop in (self._unsubscribe, self._unhook):
            if stop is not None:
                stop()
        self._unsubscribe = self._unhook = None
        super().close()

    def picture_line(self):
        """What running adds to the stored picture (tools/static_outputs.py shows it)."""
        return (f"Dashboard of a program with {len(self.blocks)} block(s), "
                f"{self.run.get('label', '')}"
                ". Run the notebook to follow each run live, select blocks and open folds.")


PROGRAMS_REMEMBERED = 8      # programs whose last run "what changed" compares with


def _run_count(executor):
    """How many runs ``executor`` has made (every path), or None when it does not count
    them (then the Dashboard counts from its start)."""
    count = getattr(executor, "run_count", None)
    return count if isinstance(count, int) else None


def _mark(tree, seen, now):
    """Mark each scope and variable of ``tree`` with what changed since ``seen``; the list
    of changes, each said as "before → after" on what differs."""
    changes = []
    for scope in walk_dicts(tree):
        if seen and (scope["path"], None) not in seen:
            scope["change"] = "new"
            changes.append({"path": scope["path"], "name": scope["label"], "what": "new",
                            "before": None, "after": "scope"})
        for v in scope["vars"]:
            key = (scope["path"], v["name"])
            before = seen.get(key) if seen else None
            v["change"] = _what_changed(before, now[key]) if seen else ""
            if v["change"]:
                said = _said(before, now[key])
                v["said"] = f"{said['before'] or '—'} → {said['after'] or '—'}"
                changes.append({"path": scope["path"], "name": v["name"], "what": v["change"],
                                **said})
    for key in seen or ():
        if key not in now:
            changes.append({"path": key[0], "name": key[1] or key[0], "what": "gone",
                            "before": _describe(seen[key]) if key[1] else "scope",
                            "after": None})
    return changes


def _picture(block, expand=()):
    try:
        return graph_picture(block, expand)
    except Exception as err:          # a drawing bug must not break the dashboard
        return {"block": block.idx, "svg": "", "dot": str(block),
                "hint": f"the graph could not be drawn ({type(err).__name__}: {err})"}


def _digest(array):
    """``(checksum, short summary)`` of a value: the checksum finds a change, the summary
    says it."""
    array = numpy.asarray(array)
    return zlib.crc32(numpy.ascontiguousarray(array).tobytes()), value_summary(array)


def _what_changed(before, now):
    if before is None:
        return "new"
    if before[0] != now[0]:
        return "state"
    if before[1] != now[1] or before[2] != now[2]:
        return "shape"
    if before[3] is not None and now[3] is not None and before[3] != now[3]:
        return "value"
    return ""


def _said(before, now):
    """``{"before", "after"}``: only the parts that differ (state, shape, bytes or value)."""
    if before is None:
        return {"before": None, "after": _describe(now)}
    if before[0] != now[0]:
        return {"before": _describe(before), "after": _describe(now)}
    if before[1] != now[1] or before[2] != now[2]:
        return {"before": f"{fmt_shape(before[1])} {fmt_bytes(before[2])}",
                "after": f"{fmt_shape(now[1])} {fmt_bytes(now[2])}"}
    return {"before": before[4] or "?", "after": now[4] or "?"}


def _describe(seen):
    state, shape, nbytes, _, summary = seen
    if state != "allocated":
        return state
    return f"{state} {fmt_shape(shape)} {fmt_bytes(nbytes)}" + (f" {summary}" if summary else "")
