"""What a pass changed, as data a viewer can draw: each op of the program before and after,
marked kept, removed, added or changed, with the pass's notes; and a small HTML view of it.

Ops are matched by their signature (type, inputs, outputs): an op of ``before`` whose
signature is also in ``after`` is kept; one whose outputs an op of the same type writes under
another signature is changed (batch_norm folding gives the conv a new filter); the rest are
removed or added.
"""

import html

__all__ = ["pass_diff", "diff_html"]


def _signature(op):
    return (op.type, tuple(sorted((k, tuple(v)) for k, v in op.inputs.items())),
            tuple(sorted((k, tuple(v)) for k, v in op.outputs.items())))


def _row(op, mark):
    return {"type": op.type, "inputs": op.inputs, "outputs": op.outputs, "mark": mark}


def pass_diff(before, after, result=None):
    """{"before": [op rows], "after": [op rows], "changes": [...], "name": ...}; each row is
    {"type", "inputs", "outputs", "mark"} with mark one of kept / removed / changed / added."""
    ops_b, ops_a = before.global_block().ops, after.global_block().ops
    sigs_a, sigs_b = {_signature(op) for op in ops_a}, {_signature(op) for op in ops_b}
    outs_a = {(op.type, n) for op in ops_a for n in op.output_arg_names}
    outs_b = {(op.type, n) for op in ops_b for n in op.output_arg_names}

    def mark(op, others_sigs, others_outs, gone):
        if _signature(op) in others_sigs:
            return "kept"
        same_type = {(op.type, n) for n in op.output_arg_names} & others_outs
        return "changed" if same_type else gone
    return {"name": result.name if result else "",
            "changes": list(result.changes) if result else [],
            "before": [_row(op, mark(op, sigs_a, outs_a, "removed")) for op in ops_b],
            "after": [_row(op, mark(op, sigs_b, outs_b, "added")) for op in ops_a]}


COLOURS = {"kept": "#ffffff", "removed": "#f8d0d0", "changed": "#fff0b0", "added": "#d0f0d0"}


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
