"""Two trees a notebook user should be able to see at a glance.

``block_tree(program)``: the nesting of blocks (each sub-block under the op
that owns it, as C++ braces nest under an ``if``), each block's variables and
ops, an op's attributes on demand (HTML ``<details>``).

``scope_tree(scope_or_run_record)``: the scope hierarchy at run time (your
scope, the run's "run" scope, each step or branch scope, each "grad" scope),
every variable with its state in the life docs/design.md names (declared,
created, typed, allocated, freed), shape, dtype, place and bytes, the bytes
summed per scope and per place, and values on request. It draws the plain
snapshot the executor records (``paddle_nb.executor.record``); a live
Scope is snapshotted first.
"""

import re

from paddle_nb.core.scope import Scope
from paddle_nb.executor.record import RunRecord, ScopeRecord, snapshot_scope
from paddle_nb.framework.block import Block
from paddle_nb.framework.captures import block_captures
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.printer import HIDDEN_ATTRS, format_attr, block_to_text, program_to_text
from paddle_nb.framework.program import Program
from paddle_nb.viz.graph import var_kind
from paddle_nb.viz.names import name_html, names_by_block, names_in_block, scope_names
from paddle_nb.viz.preview import preview
from paddle_nb.viz.style import (NEST_STYLE, OPS_STYLE, ROLE_COLOURS, VAR_STYLES, View, chip,
                                 esc, fmt_bytes, fmt_shape, page, state_chip)

__all__ = ["block_tree", "scope_tree", "block_tree_body", "scope_tree_body", "resolve_scopes",
           "op_details", "declared_vars", "natural_key", "kind_groups", "KIND_ORDER"]

# The kinds of variables (viz.graph's ``var_kind``) in the order a reader meets them.
KIND_ORDER = ("data", "parameter", "persistable", "temp", "grad", "scopes", "other")


def natural_key(name):
    """Sort key reading digit runs as numbers: ``x_2`` before ``x_10``.

    >>> sorted(["bn_10", "bn_2", "bn_1.w_0"], key=natural_key)
    ['bn_1.w_0', 'bn_2', 'bn_10']
    """
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", name) if part]


def kind_groups(variables):
    """``[{"kind", "count", "names"}]``: ``variables`` grouped by kind, names sorted naturally.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     y = pd.layers.fc(pd.layers.data("x", shape=[3]), 2)
    >>> [(g["kind"], g["count"]) for g in kind_groups(prog.global_block().vars.values())]
    [('data', 1), ('parameter', 2), ('temp', 2)]
    """
    groups = {}
    for var in variables:
        groups.setdefault(var_kind(var, var.writer is not None), []).append(var.name)
    order = [k for k in KIND_ORDER if k in groups] + [k for k in groups if k not in KIND_ORDER]
    return [{"kind": k, "count": len(groups[k]), "names": sorted(groups[k], key=natural_key)}
            for k in order]


# -- the block tree ------------------------------------------------------------------------------
def block_tree(program, python_names=True):
    """The blocks of ``program`` (or one Block and those under it), nested under their ops.

    A variable the user's code bound to a Python name shows that name, its own on hover
    (viz/names.py); ``python_names=False`` keeps every variable's own name.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     y = pd.layers.relu(pd.layers.data("x", shape=[3]))
    >>> view = block_tree(prog)
    >>> 'data-block="0"' in view.html, 'data-op="0"' in view.html
    (True, True)
    """
    text = program_to_text(program) if isinstance(program, Program) else block_to_text(program)
    return View(page(block_tree_body(program, python_names), "roles", "vars"), text)


def block_tree_body(program, python_names=True):
    if isinstance(program, Block):
        owned = set()
        tops = [program]
        program = program.program
    elif isinstance(program, Program):
        owned = {i for b in program.blocks for op in b.ops for i in op.sub_block_ids()}
        tops = [b for b in program.blocks if b.idx not in owned]
    else:
        raise TypeError(f"block_tree: expected a Program or a Block, got {type(program).__name__}")
    n_ops = sum(len(b.ops) for b in program.blocks)
    head = (f'<div class="pnb-muted">program: {program.num_blocks} block'
            f'{"s" if program.num_blocks != 1 else ""}, {n_ops} ops'
            f'{LARGE_NOTE if n_ops > OPEN_OPS else ""}'
            "</div>")
    opened = n_ops <= OPEN_OPS
    by_block = names_by_block(program) if python_names else {}
    return (f'<div class="pnb-block-tree">{head}'
            + "".join(_block_html(b, None, opened, by_block) for b in tops) + "</div>")


# A program of at most this many ops opens all its blocks; a larger one starts folded to one
# summary line per block, opened where the reader clicks.
OPEN_OPS = 40
LARGE_NOTE = " (large: blocks start folded; click a line to open it)"


def block_summary(block):
    """One line on a block: its ops by type, its variables by kind, its parameters' bytes.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     y = pd.layers.sigmoid(pd.layers.relu(pd.layers.relu(pd.layers.data("x", shape=[3]))))
    >>> block_summary(prog.global_block())
    '3 ops: 2 relu, 1 sigmoid · 4 variables: 1 data, 3 temp'
    """
    types = {}
    for op in block.ops:
        types[op.type] = types.get(op.type, 0) + 1
    shown = sorted(types.items(), key=lambda kv: -kv[1])
    ops = ", ".join(f"{n} {t}" for t, n in shown[:3]) + \
        (f", {len(shown) - 3} more types" if len(shown) > 3 else "")
    kinds = ", ".join(f"{g['count']} {g['kind']}" for g in kind_groups(block.vars.values()))
    params = sum(_declared_bytes(v) for v in block.vars.values()
                 if var_kind(v, v.writer is not None) in ("parameter", "persistable"))
    return (f"{_count(len(block.ops), 'op')}{': ' + ops if ops else ''} · "
            f"{_count(len(block.vars), 'variable')}{': ' + kinds if kinds else ''}"
            + (f" · parameters {fmt_bytes(params)}" if params else ""))


def _declared_bytes(var):
    """Bytes a variable's declared shape takes (0 when a dimension is unknown)."""
    try:
        shape = list(var.shape) if var.is_tensor() else []
        size = 1
        for d in shape:
            if d < 0:
                return 0
            size *= d
        return size * var.dtype.itemsize if shape else 0
    except Exception:                     # noqa: BLE001 - a summary never fails a tree
        return 0


def _block_html(block, owner, opened=True, by_block=None):
    """One block: a summary line that opens onto its variables and its ops (each owned
    block nested under its op); ``by_block``: viz/names.py's names_by_block."""
    names = names_in_block(block, by_block or {})
    idx = block.idx
    where = "global" if idx == 0 else f"parent {block.parent_idx}"
    if owner is not None:
        where += f" · sub-block of #{owner[0]} {owner[1].type}"
    head = (f'<b>block {idx}</b> <span class="pnb-muted">({where}) · '
            f'<span data-summary="block">{esc(block_summary(block))}</span></span>')
    parts = []
    if idx != 0 and owner is not None:
        reads, writes = block_captures(block)
        parts.append(f'<div class="pnb-muted" data-captures="{esc(",".join(reads))}">reads from '
                     f'outer blocks: {esc(", ".join(reads) or "nothing")} · writes to outer '
                     f'blocks: {esc(", ".join(writes) or "nothing")}</div>')
    if block.vars:
        parts.append(_var_groups(block, names))
    items = []
    for k, op in enumerate(block.ops):
        subs = "".join(_block_html(block.program.block(i), (k, op), opened, by_block)
                       for i in op.sub_block_ids() if 0 <= i < block.program.num_blocks)
        role = OpRole.name(op.role)
        items.append(f'<li data-block="{idx}" data-op="{k}" data-op-type="{esc(op.type)}" '
                     f'data-role="{role}">{op_details(k, op, role, names)}{subs}</li>')
    if items:
        parts.append(f'<ol class="pnb-ops" start="0" style="{OPS_STYLE}">{"".join(items)}</ol>')
    return (f'<div class="pnb-block" data-block="{idx}" data-parent="{block.parent_idx}" '
            f'style="{NEST_STYLE}#9fc5e8">'
            f'<details{" open" if opened else ""}><summary>{head}</summary>{"".join(parts)}'
            "</details></div>")


def _var_groups(block, names=None):
    """The block's variables, one folded table per kind ("parameter (62)"), names sorted
    naturally; a small block's groups start open."""
    by_name = block.vars
    few = len(by_name) <= 12
    groups = []
    for group in kind_groups(by_name.values()):
        rows = "".join(_var_row(block, by_name[n], names) for n in group["names"])
        groups.append(f'<details{" open" if few else ""} data-kind-group="{group["kind"]}" '
                      f'data-count="{group["count"]}"><summary>{group["kind"]} '
                      f'({group["count"]})</summary><table><tr><th>name</th><th>kind</th>'
                      f"<th>type</th><th>written by</th></tr>{rows}</table></details>")
    counts = ", ".join(f"{g['count']} {g['kind']}" for g in kind_groups(by_name.values()))
    return (f'<details{" open" if few else ""}><summary>variables ({len(by_name)}): '
            f'{esc(counts)}</summary><div style="padding-left:12px">{"".join(groups)}</div>'
            "</details>")


def _var_row(block, var, names=None):
    kind = var_kind(var, var.writer is not None)
    colour = VAR_STYLES[kind]["fillcolor"]
    known = var.dtype_or_none()
    dtype = "-" if not var.is_tensor() else known.name if known is not None else "?"
    shape = fmt_shape(var.shape) if var.is_tensor() else ""
    lod = f" lod_level={var.lod_level}" if var.lod_level else ""
    writer = var.writer
    wrote = f"#{writer.index()} {writer.type}" if writer is not None and writer.block is block \
        else (f"block {writer.block.idx}: {writer.type}" if writer is not None else "")
    return (f'<tr data-var="{esc(var.name)}" data-block="{block.idx}" data-kind="{kind}">'
            f'<td class="pnb-name">{name_html(var.name, names)}</td><td>{chip(kind, colour)}</td>'
            f"<td>{esc(dtype)}{esc(shape)}{esc(lod)}</td><td>{esc(wrote)}</td></tr>")


def op_details(k, op, role, names=None):
    """An op's line (its slots, each variable by the user's name where ``names`` has one,
    the program's on hover) that opens onto its attributes and the line that built it."""
    def slots(m):
        return ", ".join(f"{esc(s)}={'/'.join(name_html(v, names) for v in n)}"
                         for s, n in m.items() if n)
    line = (f'{chip(role, ROLE_COLOURS[role], "op_role", role=role)} <b>#{k} {esc(op.type)}</b>'
            f'({slots(op.inputs)}) → {slots(op.outputs)}')
    attrs = [(a, v) for a, v in op.attrs.items() if a not in HIDDEN_ATTRS]
    rows = "".join(f"<tr><td>{esc(a)}</td><td>{esc(format_attr(v, a))}</td></tr>" for a, v in attrs)
    table = f"<table><tr><th>attribute</th><th>value</th></tr>{rows}</table>" if rows else \
        '<div class="pnb-muted">no attributes</div>'
    site = f'<div class="pnb-muted">built at {esc(op.site())}</div>' if op.callstack else ""
    return f"<details><summary>{line}</summary>{table}{site}</details>"


# -- the scope tree ------------------------------------------------------------------------------
def scope_tree(scope_or_record, program=None, values=False, python_names=True):
    """The scope hierarchy with each variable's state, shape, dtype, place and bytes.

    Takes a live Scope (snapshotted now; ``values=True`` copies values for previews), a
    RunRecord (the scopes of that run as they stood just before they were destroyed; its
    program gives the "declared" variables), or a ScopeRecord. With ``program``, the
    program's variables that no scope holds are listed as declared, and a variable the
    user's code bound to a Python name shows it, its own name on hover (viz/names.py;
    ``python_names=False`` keeps the variables' own names).

    >>> import paddle_nb as pd
    >>> s = pd.Scope(label="demo")
    >>> _ = s.var("w").get_tensor().mutable_data(pd.CPUPlace(), "float32", (2, 3))
    >>> _ = s.var("h")
    >>> scope_tree(s)
    demo: 2 variables, 24 B
      w  allocated  float32[2, 3]  CPUPlace()  24 B
      h  created
    """
    record, program = resolve_scopes(scope_or_record, program, values)
    declared = declared_vars(record, program)
    body = scope_tree_body(record, declared, values, program if python_names else None)
    return View(page(body, "states"), _text(record, declared))


def resolve_scopes(obj, program=None, values=False):
    """``(ScopeRecord, program or None)`` for a Scope, a RunRecord or a ScopeRecord."""
    if isinstance(obj, RunRecord):
        if obj.scopes is None:
            raise ValueError("this RunRecord holds no scope snapshot (the run did not finish "
                             "recording)")
        return obj.scopes, program if program is not None else obj.program
    if isinstance(obj, ScopeRecord):
        return obj, program
    if isinstance(obj, Scope):
        if not obj.is_alive():
            raise ValueError(f"{obj!r}: a destroyed scope has nothing left to show; subscribe "
                             "to the executor (exe.subscribe) to get a RunRecord of each run")
        return snapshot_scope(obj, with_values=values), program
    raise TypeError(f"scope_tree: expected a Scope, a RunRecord or a ScopeRecord, got "
                    f"{type(obj).__name__}")


def declared_vars(record, program):
    """``[(block idx, Variable)]``: the program's variables held by no scope of ``record``."""
    if program is None:
        return []
    held = {v.name for s in record.walk() for v in s.vars}
    return [(b.idx, v) for b in program.blocks for v in b.vars.values() if v.name not in held]


def _title(rec, depth):
    if rec.label:
        return rec.label
    return "your scope" if depth == 0 else f"scope {rec.id}"


def _per_place(records):
    places = {}
    for v in records:
        if v.nbytes and v.place:
            places[v.place] = places.get(v.place, 0) + v.nbytes
    return places


def scope_tree_body(record, declared=(), values=False, program=None):
    """The scope tree's HTML; with ``program``, the user's names of its variables (viz/names.py:
    block 0's in the user's and the run scope, the sub-blocks' in the scopes below)."""
    by_block = names_by_block(program) if program is not None else {}
    names = scope_names(program, by_block) if program is not None else ({}, {})
    everything = [v for s in record.walk() for v in s.vars]
    places = _per_place(everything)
    rows = "".join(f'<tr data-place="{esc(p)}" data-bytes="{n}"><td>{esc(p)}</td>'
                   f"<td>{fmt_bytes(n)}</td></tr>" for p, n in places.items())
    total = sum(places.values())
    totals = (f'<table class="pnb-totals" data-total-bytes="{total}"><tr><th>place</th>'
              f"<th>bytes in these scopes</th></tr>{rows}<tr><td><b>all places</b></td>"
              f"<td><b>{fmt_bytes(total)}</b></td></tr></table>")
    note = ""
    if values and not any(v.value is not None for v in everything if v.state == "allocated"):
        note = ('<div class="pnb-muted">no values were recorded: set exe.record_values = True '
                "before the run, or pass a live Scope with values=True</div>")
    return (f'<div class="pnb-scope-tree">{totals}{note}'
            f"{_scope_html(record, 0, 1, values, names=names)}"
            f"{_declared_html(declared, by_block)}</div>")


def _scope_html(rec, depth, siblings, values, large=None, names=None):
    own = rec.nbytes()
    subtree = sum(s.nbytes() for s in rec.walk())
    places = ", ".join(f"{p}: {fmt_bytes(n)}" for p, n in _per_place(rec.vars).items())
    places = f" ({esc(places)})" if places else ""
    kids = f" · {len(rec.kids)} kid scopes" if rec.kids else ""
    head = (f'<b>{esc(_title(rec, depth))}</b> <span class="pnb-muted">scope {rec.id} · '
            f'<span data-summary="scope">{esc(_state_counts(rec.vars))}</span> · '
            f"{fmt_bytes(own)} here{places} · {fmt_bytes(subtree)} with kids{kids}</span>")
    table = ""
    if rec.vars:
        value_head = "<th>value</th>" if values else ""
        shown = names[0] if depth <= 1 else names[1]
        rows = "".join(_scope_var_row(rec, v, values, shown) for v in rec.vars)
        table = (f"<table><tr><th>variable</th><th>state</th><th>dtype</th><th>shape</th>"
                 f"<th>place</th><th>bytes</th>{value_head}</tr>{rows}</table>")
    # a large hierarchy starts folded to its summary lines below the first level
    small = large is False or (large is None and sum(len(s.vars) for s in rec.walk()) <= 60)
    opened = " open" if depth == 0 or (small and (depth <= 1 or siblings <= 3)) else ""
    inner = "".join(_scope_html(k, depth + 1, len(rec.kids), values, not small, names)
                    for k in rec.kids)
    label = esc(rec.label or "")
    return (f'<div class="pnb-scope" style="{NEST_STYLE}#b4a7d6" data-scope="{rec.id}" '
            f'data-scope-label="{label}"'
            f' data-bytes="{own}" data-total-bytes="{subtree}">'
            f"<details{opened}><summary>{head}</summary>{table}{inner}</details></div>")


def _scope_var_row(rec, v, values, names=None):
    holds = f" (holds a {v.holder})" if v.holder else ""
    cell = ""
    if values:
        shown = "" if v.value is None else \
            f"<details><summary>show</summary>{preview(v.value)}</details>"
        cell = f"<td>{shown}</td>"
    return (f'<tr data-var="{esc(v.name)}" data-state="{v.state}" data-scope="{rec.id}" '
            f'data-bytes="{v.nbytes}"><td class="pnb-name">{name_html(v.name, names)}</td>'
            f"<td>{state_chip(v.state)}{esc(holds)}</td><td>{esc(v.dtype or '')}</td>"
            f"<td>{esc(fmt_shape(v.shape) if v.shape is not None else '')}</td>"
            f"<td>{esc(v.place or '')}</td><td>{fmt_bytes(v.nbytes) if v.nbytes else ''}</td>"
            f"{cell}</tr>")


def _declared_html(declared, by_block=None):
    if not declared:
        return ""
    rows = "".join(f'<tr data-var="{esc(v.name)}" data-state="declared" data-scope="none" '
                   f'data-block="{b}"><td class="pnb-name">'
                   f'{name_html(v.name, (by_block or {}).get(b))}</td>'
                   f"<td>{state_chip('declared')}</td><td>block {b}</td></tr>" for b, v in declared)
    return (f'<div class="pnb-scope" style="{NEST_STYLE}#b4a7d6" data-scope="none">'
            '<details><summary><b>declared only</b> '
            f'<span class="pnb-muted">{len(declared)} variables of the program that no scope '
            f"holds</span></summary><table><tr><th>variable</th><th>state</th><th>declared in"
            f"</th></tr>{rows}</table></details></div>")


def _text(record, declared):
    lines = []

    def walk(rec, depth):
        pad = "  " * depth
        lines.append(f"{pad}{_title(rec, depth)}: {_count(len(rec.vars), 'variable')}, "
                     f"{fmt_bytes(sum(s.nbytes() for s in rec.walk()))}")
        for v in rec.vars:
            parts = [v.name, v.state]
            if v.holder:
                parts.append(f"holds {v.holder}")
            if v.state == "allocated" and v.shape is None:    # a tensor array: its elements
                parts.append(fmt_bytes(v.nbytes))                # are listed in ``holder``
            elif v.state == "allocated":
                parts += [f"{v.dtype}{fmt_shape(v.shape)}", v.place or "", fmt_bytes(v.nbytes)]
            lines.append(f"{pad}  " + "  ".join(parts))
        for kid in rec.kids:
            walk(kid, depth + 1)
    walk(record, 0)
    if declared:
        lines.append("declared only (in no scope): " + ", ".join(v.name for _, v in declared))
    return "\n".join(lines)


def _state_counts(records):
    """``5 variables: 3 allocated, 2 freed``: a scope's variables counted by state."""
    states = {}
    for v in records:
        states[v.state] = states.get(v.state, 0) + 1
    shown = ", ".join(f"{n} {state}" for state, n in states.items())
    return _count(len(records), "variable") + (f": {shown}" if shown else "")


def _count(n, noun):
    """``1 variable``, ``2 variables``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
