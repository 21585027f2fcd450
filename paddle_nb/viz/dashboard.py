"""The Dashboard: a program's blocks, a block's dataflow, and the scopes of the last run.

Three panes in one widget, kept up to date in place (display it once):

- the block tree: every block with its parent, op and variable counts;
  clicking a block selects it;
- the selected block's dataflow graph (``viz.graph``; DOT text where no
  Graphviz layout engine is installed); a click on a folded node ("3 x 16
  ops") opens it, as ``graph(block, expand=[its id])`` would;
- the scope hierarchy of the last run, taken just before the executor
  destroyed the run's scopes: every variable's state, shape, dtype, place
  and bytes, with what changed since the previous run marked.

Runs arrive as RunRecords from the executor it is given (``exe.subscribe``):
listeners belong to one executor, so a Dashboard slows no other executor. The program is followed as it is built: after
each notebook cell (IPython's ``post_run_cell`` event) and after each run the
Dashboard compares ``program.version`` with the version it drew — one integer
comparison — and redraws the block tree and graphs only when they differ.
Outside IPython, call ``dashboard.refresh()``.
"""

import zlib

import numpy
import traitlets

from paddle_nb.core.scope import global_scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.executor.record import snapshot_scope
from paddle_nb.framework.context import default_main_program
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
    declared = traitlets.List().tag(sync=True)    # names declared in the program, in no scope
    changes = traitlets.List().tag(sync=True)     # [{path, name, what, before, after}]
    run = traitlets.Dict().tag(sync=True)         # about the last run shown
    runs = traitlets.Int(0).tag(sync=True)

    def __init__(self, program=None, scope=None, executor=None, **kwargs):
        super().__init__(kind="dashboard", **kwargs)
        self.program = default_main_program() if program is None else program
        self.scope, self.executor = scope, executor
        self._seen = {}                         # (path, name) -> what was shown last time
        self._op_counts = {}
        self._unsubscribe = executor.subscribe(weak_method(self.on_run, executor.listeners)) \
            if executor is not None else (lambda: None)
        self._unhook = on_cell_executed(self.refresh)
        self.refresh()
        self._show_live_scope()

    # -- the program pane -------------------------------------------------------------------------
    def refresh(self):
        """Redraw the block tree and graphs if the program changed since they were drawn."""
        if self.program.version == self.program_version:
            return False
        blocks, graphs = [], {}
        for block in self.program.blocks:
            before = self._op_counts.get(block.idx)
            n = len(block.ops)
            change = "new" if before is None and self.program_version >= 0 else \
                (f"+{n - before} ops" if before is not None and n > before else "")
            blocks.append({"idx": block.idx, "parent": block.parent_idx, "ops": n,
                           "vars": len(block.vars), "op_types": [op.type for op in block.ops],
                           "change": change})
            graphs[str(block.idx)] = _picture(block, self.expanded.get(str(block.idx), ()))
            self._op_counts[block.idx] = n
        with self.hold_sync():
            self.blocks = jsonable(blocks)
            self.graphs = jsonable(graphs)
            if self.selected_block >= len(blocks):
                self.selected_block = 0
            self.program_version = self.program.version
        return True

    @traitlets.observe("expanded")
    def _redraw_opened(self, change):
        """A folded node was clicked open (or the folds reset): redraw the blocks it changed."""
        old, new = change["old"] or {}, change["new"] or {}
        graphs = dict(self.graphs)
        for key in dict.fromkeys(list(old) + list(new)):
            if old.get(key) != new.get(key) and key.isdigit() and \
                    int(key) < self.program.num_blocks:
                graphs[key] = _picture(self.program.block(int(key)), new.get(key, ()))
        self.graphs = jsonable(graphs)

    # -- the scope pane ---------------------------------------------------------------------------
    def _show_live_scope(self):
        scope = self.scope if self.scope is not None else global_scope()
        tree = scope_dict(snapshot_scope(scope))
        self._remember(tree, self._live_digests(scope, tree))
        self.scopes = jsonable(tree)
        self.declared = self._declared(self.program, tree)
        self.run = {"label": "no run yet: the scope as it is now", "program": "", "ops": 0}

    def on_run(self, record):
        """Show a run (called by the executor with its RunRecord)."""
        if record.scopes is None:
            return
        if self.scope is not None and record.scopes.id != self.scope.id:
            return
        tree = scope_dict(record.scopes)
        changes = self._mark(tree, self._digests(record, tree))
        ours = record.program is self.program
        with self.hold_sync():
            self.runs += 1
            self.scopes = jsonable(tree)
            self.changes = jsonable(changes)
            self.declared = self._declared(record.program, tree)
            self.run = jsonable({
                "label": f"run {self.runs}" + ("" if ours else " (another program)"),
                "program": "this program" if ours else f"program with {record.program.num_blocks}"
                                                      " block(s)",
                "ops": len(record.ops), "seconds": round(record.seconds, 6),
                "place": record.place, "failed": record.failed})
        self.refresh()

    def _mark(self, tree, digests):
        """Mark each scope and variable of ``tree`` by what changed since the last one shown."""
        changes, now = [], {}
        for scope in walk_dicts(tree):
            if (scope["path"], None) not in self._seen:
                scope["change"] = "new"
                changes.append({"path": scope["path"], "name": scope["label"], "what": "new",
                                "before": None, "after": "scope"})
            now[(scope["path"], None)] = True
            for v in scope["vars"]:
                key = (scope["path"], v["name"])
                seen = (v["state"], v["shape"], v["nbytes"], digests.get(key))
                v["change"] = _what_changed(self._seen.get(key), seen)
                if v["change"]:
                    changes.append({"path": scope["path"], "name": v["name"], "what": v["change"],
                                    "before": _describe(self._seen.get(key)),
                                    "after": _describe(seen)})
                now[key] = seen
        for key in self._seen:
            if key not in now:
                changes.append({"path": key[0], "name": key[1] or key[0], "what": "gone",
                                "before": _describe(self._seen[key]) if key[1] else "scope",
                                "after": None})
        self._seen = now
        return changes

    def _remember(self, tree, digests):
        self._seen = {}
        for scope in walk_dicts(tree):
            self._seen[(scope["path"], None)] = True
            for v in scope["vars"]:
                key = (scope["path"], v["name"])
                self._seen[key] = (v["state"], v["shape"], v["nbytes"], digests.get(key))

    def _digests(self, record, tree):
        """A checksum of each value: from the record when it holds values, else the live scope."""
        with_values = {}
        for scope_rec, scope in zip(record.scopes.walk(), walk_dicts(tree)):
            for v in scope_rec.vars:
                if v.value is not None:
                    with_values[(scope["path"], v.name)] = _checksum(v.value)
        if with_values:
            return with_values
        live = self.scope if self.scope is not None else global_scope()
        return self._live_digests(live, tree) if live.id == tree["id"] else {}

    @staticmethod
    def _live_digests(scope, tree):
        """Checksums of the values in ``scope`` itself (its persistables outlive the run)."""
        out = {}
        for v in tree["vars"]:
            var = scope.find_local_var(v["name"])
            if var is not None and var.is_type(LoDTensor):
                tensor = var.get(LoDTensor)
                if tensor.is_allocated():
                    out[(tree["path"], v["name"])] = _checksum(tensor.numpy())
        return out

    @staticmethod
    def _declared(program, tree):
        held = {v["name"] for scope in walk_dicts(tree) for v in scope["vars"]}
        names = []
        for block in program.blocks:
            names.extend(n for n in block.vars if n not in held and n not in names)
        return names

    def close(self):
        """Stop following runs and cells, then close the widget."""
        for stop in (self._unsubscribe, self._unhook):
            if stop is not None:
                stop()
        self._unsubscribe = self._unhook = None
        super().close()


def _picture(block, expand=()):
    try:
        return graph_picture(block, expand)
    except Exception as err:          # a drawing bug must not break the dashboard
        return {"block": block.idx, "svg": "", "dot": str(block),
                "hint": f"the graph could not be drawn ({type(err).__name__}: {err})"}


def _checksum(array):
    return zlib.crc32(numpy.ascontiguousarray(array).tobytes())


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


def _describe(seen):
    if seen is None:
        return None
    state, shape, nbytes, _ = seen
    return state + (f" {shape} {nbytes} B" if state == "allocated" else "")
