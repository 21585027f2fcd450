"""Replaying a run: the scope hierarchy and every variable's state, op by op.

A RunRecord holds the run's lifecycle events in the order they happened,
each tagged with the op that was running. :class:`RunReplay` plays them
back: position 0 is the start of the run (feeds in, temporaries created and
typed), position k is the state right after the k-th op that ran, and the
last position is the end of the run, when the executor destroys the run
scope and its kids ("Design Doc: Block and Scope": the scope hierarchy dies with the
minibatch).

Each variable goes through the stages of docs/design.md: created, typed,
allocated, freed; a temporary is freed right after its last use.
``run_replay(record)`` shows the replay as a widget with a slider.
"""

import traitlets

from paddle_nb.viz.trees import kind_groups
from paddle_nb.viz.widget_base import PaddleWidget, format_bytes, jsonable, walk_dicts, scope_dict

__all__ = ["RunReplay", "ReplayWidget", "run_replay"]

_AFTER = {"var_created": "created", "var_typed": "typed", "tensor_allocated": "allocated",
          "tensor_freed": "freed", "var_erased": "freed"}
_BEFORE = {"var_created": None, "var_typed": "created", "tensor_allocated": "typed",
           "tensor_freed": "allocated", "var_erased": "created"}


class RunReplay:
    """A run record played back as frames of variable-state changes.

    ``before`` maps ``(scope id, name)`` to ``(state, nbytes, place)`` as it stood
    before the first event (None: no such variable yet); ``frames[p]`` lists the
    cells whose state changed to reach position ``p``. Invariant: applying
    ``frames[0..p]`` to ``before`` gives the state at position ``p``.
    """

    def __init__(self, record):
        self.record = record
        self.program = record.program
        self.n = len(record.ops)
        self.scopes = {}          # id -> {"id", "label", "parent", "born", "dies"}
        self.order = {}           # scope id -> variable names, first seen first
        self.shapes = {}          # (sid, name) -> runtime shape from the final snapshot
        self.dtypes = {}          # (sid, name) -> runtime dtype from the final snapshot
        self.sizes = {}           # (sid, name) -> bytes of its last allocation in the run
        self.holders = {}         # (sid, name) -> the type held, when not a tensor
        self.before = {}
        self.frames = [[] for _ in range(self.n + 2)]
        self.marks = []           # [frame, "alloc" | "free", sid, name, nbytes, place]
        self._read_snapshot()
        self._read_events()
        self._end_of_run()

    # -- building ---------------------------------------------------------------------------------
    def _read_snapshot(self):
        if self.record.scopes is None:
            return
        for tree in walk_dicts(scope_dict(self.record.scopes)):
            sid = tree["id"]
            self.scopes[sid] = {"id": sid, "label": tree["label"], "parent": tree["parent"],
                                "born": None, "dies": None}
            self.order[sid] = [v["name"] for v in tree["vars"]]
            for v in tree["vars"]:
                key = (sid, v["name"])
                self.before[key] = (v["state"], v["nbytes"], v["place"])
                if v["shape"] is not None:
                    self.shapes[key] = v["shape"]
                if v["dtype"] is not None:
                    self.dtypes[key] = v["dtype"]
                if v["holder"]:
                    self.holders[key] = v["holder"]

    def _read_events(self):
        first_seen, high, cells = set(), -1, dict(self.before)
        for tag, kind, sid, name, nbytes, place in self.record.events:
            high = max(high, tag)
            frame = high + 1
            if kind in ("scope_created", "scope_destroyed"):
                self._scope_event(kind, sid, frame)
                continue
            key = (sid, name)
            if key not in first_seen:
                first_seen.add(key)
                pre = _BEFORE[kind]
                self.before[key] = None if pre is None else (pre, nbytes if pre == "allocated"
                                                             else 0, place)
                cells[key] = self.before[key]
                self._scope_info(sid, frame)
                if name not in self.order[sid]:
                    self.order[sid].append(name)
            state = _AFTER[kind]
            if kind == "var_typed" and key in self.holders:
                state = "created"     # holds a non-tensor (step scopes), as the snapshot says
            cell = (state, nbytes if state == "allocated" else 0, place)
            if cell == cells[key]:
                continue                  # no visible change (a non-tensor value was set)
            cells[key] = cell
            self.frames[frame].append([sid, name, *cell])
            if kind == "tensor_allocated":
                self.sizes[key] = int(nbytes or 0)
            if kind in ("tensor_allocated", "tensor_freed"):
                self.marks.append([frame, "alloc" if state == "allocated" else "free", sid, name,
                                   int(nbytes or 0), place])
        for sid, info in self.scopes.items():
            if info["born"] is None:
                keys = [(sid, n) for n in self.order[sid]]
                existed = any(self.before.get(k) is not None for k in keys) or not keys
                info["born"] = 0 if existed else self._first_frame(sid)

    def _scope_info(self, sid, frame):
        if sid not in self.scopes:         # a scope destroyed before the snapshot was taken
            self.scopes[sid] = {"id": sid, "label": f"scope {sid}", "born": frame, "dies": None,
                                "parent": self._guess_parent(sid)}
            self.order[sid] = []

    def _scope_event(self, kind, sid, frame):
        self._scope_info(sid, frame)
        if kind == "scope_created":
            self.scopes[sid]["born"] = frame
        else:
            self.scopes[sid]["dies"] = frame
            self._free_scope_vars(sid, frame)

    def _first_frame(self, sid):
        for p, frame in enumerate(self.frames):
            if any(c[0] == sid for c in frame):
                return p
        return 0

    def _guess_parent(self, sid):
        """The scope of the op that ran the sub-block this scope was made for."""
        ops = self.record.ops
        first = next((i for i, o in enumerate(ops) if o.scope_id == sid), None)
        if first is None:
            return None
        try:
            parent_block = self.program.block(ops[first].block).parent_idx
        except (IndexError, AttributeError):
            return None
        for o in reversed(ops[:first]):
            if o.block == parent_block:
                return o.scope_id
        return None

    def _free_scope_vars(self, sid, frame):
        state = self.state_at(frame)
        for name in self.order.get(sid, []):
            cell = state.get((sid, name))
            if cell is not None and cell[0] != "freed":
                self.frames[frame].append([sid, name, "freed", 0, cell[2]])
                if cell[0] == "allocated":
                    self.marks.append([frame, "free", sid, name, cell[1], cell[2]])

    def _end_of_run(self):
        """The executor destroys the run scope (and its kids) once the run is over."""
        end = self.n + 1
        run_ids = {o.scope_id for o in self.record.ops if o.block == 0}
        doomed = [sid for sid in self.scopes if self._under(sid, run_ids)]
        for sid in doomed:
            if self.scopes[sid]["dies"] is None:
                self.scopes[sid]["dies"] = end
                self._free_scope_vars(sid, end)

    def _under(self, sid, roots):
        while sid is not None:
            if sid in roots:
                return True
            sid = self.scopes.get(sid, {}).get("parent")
        return False

    # -- reading ----------------------------------------------------------------------------------
    def positions(self):
        """One entry per slider position: the start, each op that ran, the end."""
        out = [{"pos": 0, "short": "start", "title": "start: feeds in, temporaries created"}]
        for k, o in enumerate(self.record.ops, start=1):
            out.append({"pos": k, "short": o.type,
                        "title": f"op {k - 1}: {o.type} (block {o.block} #{o.index})"})
        out.append({"pos": self.n + 1, "short": "end",
                    "title": "end: the run scope and its kids are destroyed"})
        return out

    def state_at(self, p):
        """``{(sid, name): (state, nbytes, place)}`` at position ``p``."""
        cells = {k: v for k, v in self.before.items() if v is not None}
        for frame in self.frames[: p + 1]:
            for sid, name, state, nbytes, place in frame:
                cells[(sid, name)] = (state, nbytes, place)
        return cells

    def meta(self, sid, name):
        """``(shape, dtype)`` of a variable: as the run left it, else as its block declares it."""
        shape = self.shapes.get((sid, name))
        var = _declared(self.program, name)
        dtype = str(var.dtype) if var is not None and var.is_tensor() else None
        if shape is None and var is not None and var.is_tensor():
            shape = _fill_batch(list(var.shape), var.dtype.itemsize, self.sizes.get((sid, name)))
        return shape, self.dtypes.get((sid, name), dtype)

    def tree_at(self, p):
        """The scope hierarchy at position ``p``: nested dicts with each variable's state."""
        cells = self.state_at(p)
        live = [s for s in self.scopes.values() if s["born"] is not None and s["born"] <= p]
        nodes = {}
        for s in sorted(live, key=lambda s: s["id"]):
            vars_ = []
            for name in self.order[s["id"]]:
                cell = cells.get((s["id"], name))
                if cell is None:
                    continue
                shape, dtype = self.meta(s["id"], name)
                vars_.append({"name": name, "state": cell[0], "nbytes": int(cell[1] or 0),
                              "place": cell[2], "dtype": dtype,
                              "holder": self.holders.get((s["id"], name)),
                              "shape": shape if cell[0] == "allocated" else None})
            dead = s["dies"] is not None and s["dies"] <= p
            nodes[s["id"]] = {"id": s["id"], "label": s["label"], "parent": s["parent"],
                              "destroyed": dead, "vars": vars_, "kids": []}
        roots = []
        for node in nodes.values():
            parent = nodes.get(node["parent"])
            (parent["kids"] if parent is not None else roots).append(node)
        return roots

    def declared_at(self, p):
        """Names the program declares that no scope holds at position ``p``."""
        held = {name for (_, name) in self.state_at(p)}
        return [n for n in _all_var_names(self.program) if n not in held]

    def op_at(self, p):
        """What the op at position ``p`` is, read and wrote (names with their scopes), and did."""
        if not 1 <= p <= self.n:
            return None
        return self._op_info(p, self.state_at(p - 1), self.state_at(p))

    def ops_table(self):
        """``op_at(p)`` for every position, in one pass over the frames."""
        table, cells = [None], {k: v for k, v in self.before.items() if v is not None}
        for frame in self.frames[:1]:
            cells.update({(c[0], c[1]): tuple(c[2:]) for c in frame})
        for p in range(1, self.n + 1):
            pre = dict(cells)
            cells.update({(c[0], c[1]): tuple(c[2:]) for c in self.frames[p]})
            table.append(self._op_info(p, pre, cells))
        return table + [None]

    def _op_info(self, p, pre, post):
        o = self.record.ops[p - 1]
        try:
            op = self.program.block(o.block).ops[o.index]
            reads, writes = _unique(op.input_arg_names), _unique(op.output_arg_names)
        except (IndexError, AttributeError):
            reads, writes = [], []
        return {"op": p - 1, "block": o.block, "index": o.index, "type": o.type,
                "scope": o.scope_id, "seconds": o.seconds, "skipped": o.skipped,
                "inside": self._inside(p - 1),
                "reads": [self._where(n, o.scope_id, pre, post) for n in reads],
                "writes": [self._where(n, o.scope_id, pre, post) for n in writes],
                "changes": self._changes(p)}

    def _inside(self, i):
        """``[first, last]`` op numbers that ran inside op ``i`` (its sub-block runs), or None."""
        ops, last = self.record.ops, None
        for j in range(i + 1, self.n):
            here = ops[j].scope_id
            if here == ops[i].scope_id or not self._under(here, {ops[i].scope_id}):
                break
            last = j
        return None if last is None else [i + 1, last]

    def _where(self, name, sid, pre, post):
        """Where a lookup of ``name`` from scope ``sid`` lands, its state then (was) and after."""
        while sid is not None:
            if (sid, name) in pre or (sid, name) in post:
                was, now = pre.get((sid, name)), post.get((sid, name))
                return {"name": name, "scope": sid, "was": was[0] if was else "declared",
                        "state": now[0] if now else "declared"}
            sid = self.scopes.get(sid, {}).get("parent")
        return {"name": name, "scope": None, "was": "declared", "state": "declared"}

    def _changes(self, p):
        """One line per (scope, new state): "step 0: created x, h (2)"."""
        groups = {}
        for sid, name, state, nbytes, _ in self.frames[p]:
            size = f" {format_bytes(nbytes)}" if state == "allocated" else ""
            groups.setdefault((sid, state), []).append(name + size)
        born = [s["label"] for s in self.scopes.values() if s["born"] == p and p > 0]
        lines = [f"scope {label} created" for label in born]
        for (sid, state), names in groups.items():
            lines.append(f"{self.scopes[sid]['label']}: {state} {', '.join(names)}")
        return lines


def _fill_batch(shape, itemsize, nbytes):
    """A declared shape with its one -1 worked out from the bytes allocated.

    >>> _fill_batch([-1, 8], 4, 96), _fill_batch([-1, 8], 4, None)
    ([3, 8], [-1, 8])
    """
    known = 1
    for d in shape:
        known *= d if d >= 0 else 1
    if nbytes and shape.count(-1) == 1 and known and nbytes % (known * itemsize) == 0:
        return [nbytes // (known * itemsize) if d < 0 else d for d in shape]
    return shape


def _unique(names):
    return list(dict.fromkeys(names))


def _all_var_names(program):
    names = []
    for block in getattr(program, "blocks", []):
        names.extend(n for n in block.vars if n not in names)
    return names


def _all_vars(program):
    """Each variable of ``program`` once (the first block that declares its name)."""
    found = {}
    for block in getattr(program, "blocks", []):
        for name, var in block.vars.items():
            found.setdefault(name, var)
    return found.values()


def _declared(program, name):
    for block in getattr(program, "blocks", []):
        if name in block.vars:
            return block.vars[name]
    return None


class ReplayWidget(PaddleWidget):
    """A slider over a run's ops; the view replays ``frames`` up to ``position`` itself.

    ``shown`` is the same picture computed in Python (for tests and for Python users).

    >>> import numpy as np, paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     x = pd.layers.data("x", shape=[2]); y = pd.layers.relu(pd.layers.relu(x))
    >>> exe, records = pd.Executor(), []
    >>> _ = exe.subscribe(records.append)
    >>> _ = exe.run(prog, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y])
    >>> w = run_replay(records[-1]); w.position = 1
    >>> w.shown["op"]["type"], [v["state"] for v in w.shown["tree"][0]["kids"][0]["vars"]]
    ('relu', ['freed', 'allocated', 'typed'])
    """

    position = traitlets.Int(0).tag(sync=True)
    positions = traitlets.List().tag(sync=True)
    scopes = traitlets.List().tag(sync=True)      # [{id, label, parent, born, dies}]
    order = traitlets.Dict().tag(sync=True)       # scope id -> variable names
    meta = traitlets.Dict().tag(sync=True)        # "sid/name" -> [shape, dtype, holder]
    before = traitlets.List().tag(sync=True)      # [[sid, name, state, nbytes, place]]
    frames = traitlets.List().tag(sync=True)
    program_vars = traitlets.List().tag(sync=True)
    var_kinds = traitlets.Dict().tag(sync=True)   # name -> kind: declared names grouped by it
    ops = traitlets.List().tag(sync=True)         # op_at(p) for every position
    shown = traitlets.Dict().tag(sync=True)

    def __init__(self, record, **kwargs):
        self.replay = RunReplay(record)
        super().__init__(kind="replay", **kwargs)
        r = self.replay
        self.scopes = jsonable(list(r.scopes.values()))
        self.order = jsonable({str(k): v for k, v in r.order.items()})
        self.meta = jsonable({f"{sid}/{name}": [*r.meta(sid, name), r.holders.get((sid, name))]
                              for sid, names in r.order.items() for name in names})
        self.before = jsonable([[k[0], k[1], *v] for k, v in r.before.items() if v is not None])
        self.frames = jsonable(r.frames)
        self.program_vars = _all_var_names(r.program)
        self.var_kinds = {g_name: g["kind"] for g in kind_groups(_all_vars(r.program))
                          for g_name in g["names"]}
        self.ops = jsonable(r.ops_table())
        self.positions = jsonable(r.positions())
        if record.scopes is None:
            self.message = "This run failed before its scopes were recorded."
        self._show({"new": self.position})
        self.observe(self._show, names="position")

    def picture_line(self):
        return (f"Run replay: the scopes at position {self.position} of "
                f"{len(self.positions) - 1} ({self.replay.n} ops). Run the notebook to move "
                "op by op and watch each variable's state change.")

    def _show(self, change):
        p = max(0, min(int(change["new"]), self.replay.n + 1))
        r = self.replay
        self.shown = jsonable({"position": p, "title": r.positions()[p]["title"],
                               "op": r.op_at(p), "tree": r.tree_at(p),
                               "declared": r.declared_at(p)})


def run_replay(run_record):
    """A widget with a slider over the ops of ``run_record`` (see :class:`RunReplay`)."""
    return ReplayWidget(run_record)
