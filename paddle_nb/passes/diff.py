"""What a pass changed, as data a viewer can draw: each op of the program before and after,
marked kept, removed, added or changed, with the pass's notes; and a small HTML view of it.

Ops are matched by their signature (type, inputs, outputs): an op of ``before`` whose
signature is also in ``after`` is kept; one whose outputs an op of the same type writes under
another signature, or reads the same inputs under another signature, is changed (batch_norm
folding gives the conv a new filter; buffer reuse gives an op the name of the in-place op's
output); the rest are removed or added. Removed ops that became one added op are *fused*: the
added op writes what the last of them wrote, and the others feed it only (conv2d +
elementwise_add + relu -> fused_conv2d_bias_act); each row says which op it went into
(``into``). An added op that writes over its input (buffer reuse's ``inplace``) is marked
*in place*.
"""

import html

__all__ = ["pass_diff", "diff_html"]


def _signature(op):
    return (op.type, tuple(sorted((k, tuple(v)) for k, v in op.inputs.items())),
            tuple(sorted((k, tuple(v)) for k, v in op.outputs.items())))


def _row(op, mark):
    return {"type": op.type, "inputs": op.inputs, "outputs": op.outputs, "mark": mark,
            "into": None}


def _in_place(op):
    return op is not None and op.has_attr("inplace") and bool(op.attr("inplace"))


def _fused_groups(ops_b, rows_b, ops_a, rows_a):
    """Mark the removed ops of ``before`` that became one added op of ``after`` "fused" (both
    sides, groups of two or more), and in-place added ops "in place"."""
    writer = {n: k for k, op in enumerate(ops_b) for n in op.output_arg_names}
    was = {_signature(op): op for op in ops_b}
    for j, op in enumerate(ops_a):
        if _in_place(op) and not _in_place(was.get(_signature(op))):
            rows_a[j]["mark"] = "in place"
        if rows_a[j]["mark"] not in ("added", "in place"):
            continue
        group, todo = set(), [writer[n] for n in op.output_arg_names if n in writer]
        while todo:
            k = todo.pop()
            if k in group or rows_b[k]["mark"] != "removed":
                continue
            group.add(k)
            todo += [writer[n] for n in ops_b[k].input_arg_names if n in writer]
        if len(group) > 1:
            for k in group:
                rows_b[k].update(mark="fused", into=j)
            rows_a[j]["mark"] = "fused"


def pass_diff(before, after, result=None):
    """{"before": [op rows], "after": [op rows], "changes": [...], "name": ...}; each row is
    {"type", "inputs", "outputs", "mark", "into"} with mark one of kept / removed / changed /
    added / fused / in place (``into``: the index in ``after`` of the op a fused one went into)."""
    ops_b, ops_a = before.global_block().ops, after.global_block().ops
    sigs_a, sigs_b = {_signature(op) for op in ops_a}, {_signature(op) for op in ops_b}
    outs_a = {(op.type, n) for op in ops_a for n in op.output_arg_names}
    outs_b = {(op.type, n) for op in ops_b for n in op.output_arg_names}
    ins_a, ins_b = ({_signature(op)[:2] for op in ops} for ops in (ops_a, ops_b))

    def mark(op, others_sigs, others_outs, others_ins, gone):
        if _signature(op) in others_sigs:
            return "kept"
        same_type = {(op.type, n) for n in op.output_arg_names} & others_outs
        return "changed" if same_type or _signature(op)[:2] in others_ins else gone
    rows_b = [_row(op, mark(op, sigs_a, outs_a, ins_a, "removed")) for op in ops_b]
    rows_a = [_row(op, mark(op, sigs_b, outs_b, ins_b, "added")) for op in ops_a]
    _fused_groups(ops_b, rows_b, ops_a, rows_a)
    return {"name": result.name if result else "",
            "changes": list(result.changes) if result else [], "before": rows_b, "after": rows_a}


COLOURS = {"kept": "#ffffff", "removed": "#f8d0d0", "changed": "#fff0b0", "added": "#d0f0d0",
           "fused": "#e4d4f4", "in place": "#cfe2f8"}


def _column(rows, title):
    items = "".join(
        f'<li style="background:{COLOURS[r["mark"]]};margin:1px;padding:1px 4px" '
        f'title="{html.escape(str(r["inputs"]))} -> {html.escape(str(r["outputs"]))}">'
        f'{html.escape(r["type"])} <small>{r["mark"] if r["mark"] != "kept" else ""}</small></li>'
        for r in rows)
    return (f'<div style="flex:1"><b>{html.escape(title)}</b> ({len(rows)} ops)'
            f'<ol style="font-family:monospace;font-size:12px">{items}</ol></div>')


def diff_html(diff):
    """The before and after op lists side by side, removed ops red, changed yellow, added green."""
    head = f"<b>pass {html.escape(diff['name'])}</b>: {len(diff['changes'])} change(s)"
    return (f"<div>{head}<div style='display:flex;gap:12px'>"
            f"{_column(diff['before'], 'before')}{_column(diff['after'], 'after')}</div></div>")
