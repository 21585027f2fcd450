"""What the inference passes did to a program: before and after, side by side.

PaddlePaddle's predictor rewrites a model when it loads it (batch_norm folded into the
convolution, activations fused, buffers reused) and prints one log line per pass. Here each
pass (``paddle_nb/passes``) keeps the program it was given and the one it made
(``PassResult.before`` / ``.after``), and :func:`pass_view` draws them: one section per pass,
with the block tree and the graph of the program before on the left and after on the right.
Ops the pass removed are red, ops fused into one are purple (the fused op too), ops that kept
their type but changed inputs yellow (a conv given folded weights), new ops green, and ops
that write over their input (buffer reuse) blue; the tree's line of a fused op says which
op of the other side it became.

    program, feeds, fetches = pd.io.load_inference_model("resnet", exe, optimize=True)
    pd.viz.pass_view(program)            # or pd.viz.pass_view(results) of passes.apply_passes
"""

from paddle_nb.framework.program import Program
from paddle_nb.passes.diff import COLOURS, pass_diff
from paddle_nb.viz.graph import graph
from paddle_nb.viz.style import View, chip, esc, page
from paddle_nb.viz.svg import graph_html
from paddle_nb.viz.trees import block_tree_body

__all__ = ["pass_view", "MARK_COLOURS"]

MARK_COLOURS = {**COLOURS, "removed": "#f4b0b0", "fused": "#d2b8f0", "in place": "#a9cdf5",
                "changed": "#ffe38a", "added": "#ade3a4"}
MARK_MEANINGS = {"removed": "removed by the pass", "fused": "fused into one op (both sides)",
                 "changed": "same op, new inputs", "added": "new op",
                 "in place": "writes over its input (buffer reuse)"}
# a graph of more ops than this is not drawn (its layout takes long): the trees still are
MAX_GRAPH_OPS = 400


def pass_view(results, graphs=True, only_changed=True):
    """The before/after view of each pass in ``results`` (a list of ``PassResult``, or the
    Program ``apply_passes`` / ``load_inference_model(optimize=True)`` returned, which carries
    them as ``pass_results``). ``only_changed``: leave out passes that changed nothing (they
    are listed in the summary); ``graphs=False`` draws the block trees only, a list of pass
    names draws the graphs of those passes only (each graph is ~100 KB of SVG for a ResNet).
    Where a graph is drawn, a large program's block tree starts folded (click to open). The
    first section with graphs starts open, the others folded."""
    if isinstance(results, Program):
        results = getattr(results, "pass_results", None)
        if results is None:
            raise ValueError("pass_view: this program was not made by the passes (no "
                             "pass_results): pass the list of PassResults, or load the model "
                             "with load_inference_model(..., optimize=True)")
    results = list(results)
    shown = [r for r in results if r.changes or not only_changed]
    drawn = [graphs if isinstance(graphs, bool) else r.name in graphs for r in shown]
    first = drawn.index(True) if True in drawn else 0      # the section open at first
    sections = "".join(_section(r, draw, open_=k == first)
                       for k, (r, draw) in enumerate(zip(shown, drawn)))
    body = (f'<div class="pnb-pass-view">{_summary(results)}{_legend()}{sections}</div>')
    return View(page(body), _text(results))


def _counts(result):
    kinds: dict = {}
    for kind, _, _ in result.changes:
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in kinds.items()) or "no change"


def _summary(results):
    if not results:
        return '<div class="pnb-muted">no passes ran</div>'
    rows = "".join(f'<tr data-pass="{esc(r.name)}"><td>{esc(r.name)}</td>'
                   f"<td>{r.ops_before} → {r.ops_after}</td><td>{esc(_counts(r))}</td></tr>"
                   for r in results)
    head = (f"<b>{len(results)} passes</b>: {results[0].ops_before} ops → "
            f"{results[-1].ops_after}")
    return (f"<div>{head}<table><tr><th>pass</th><th>ops</th><th>what it did</th></tr>"
            f"{rows}</table></div>")


def _legend():
    items = " ".join(chip(mark, MARK_COLOURS[mark], meaning, mark=mark)
                     for mark, meaning in MARK_MEANINGS.items())
    return f'<div class="pnb-legend" data-legend="marks"><span class="pnb-muted">ops:</span> ' \
           f'{items}</div>'


def _section(result, graphs, open_):
    diff = pass_diff(result.before, result.after, result)
    notes = "".join(f"<li>{esc(kind)} {esc(kind_of)}: {esc(note)}</li>"
                    for kind, kind_of, note in result.changes)
    notes = (f'<details><summary class="pnb-muted">what it did, op by op '
             f'({len(result.changes)})</summary><ul style="font-size:12px">{notes}</ul></details>')
    sides = "".join(_side(program, rows, side, other, graphs)
                    for program, rows, side, other in (
                        (result.before, diff["before"], "before", "after"),
                        (result.after, diff["after"], "after", "before")))
    return (f'<details class="pnb-pass" data-pass="{esc(result.name)}"{" open" if open_ else ""}>'
            f"<summary><b>{esc(result.name)}</b> {result.ops_before} → {result.ops_after} ops "
            f'<span class="pnb-muted">({esc(_counts(result))})</span></summary>'
            f'{notes}'
            f'<div style="display:flex;gap:12px;align-items:flex-start">{sides}</div></details>')


def _side(program, rows, side, other, graphs):
    tree = block_tree_body(program, python_names=False)
    if not graphs:    # the tree is the picture: its ops shown, however many (a graph shows
        tree = tree.replace("<details><summary><b>block 0</b>",      # the marks at a glance)
                            "<details open><summary><b>block 0</b>", 1)
    for k, row in enumerate(rows):
        if row["mark"] == "kept":
            continue
        into = f' (into {other} #{row["into"]})' if row["into"] is not None else ""
        old = f'<li data-block="0" data-op="{k}" '
        tree = tree.replace(old, f'<li data-block="0" data-op="{k}" data-mark="{row["mark"]}" '
                                 f'title="{esc(row["mark"] + into)}" '
                                 f'style="background:{MARK_COLOURS[row["mark"]]}" ', 1)
    picture = _graph(program, rows) if graphs else ""
    return (f'<div data-side="{side}" style="flex:1;min-width:0"><b>{side}</b> '
            f'({len(program.global_block().ops)} ops){picture}{tree}</div>')


def _graph(program, rows):
    if len(program.global_block().ops) > MAX_GRAPH_OPS:
        return (f'<div class="pnb-muted">graph not drawn: more than {MAX_GRAPH_OPS} ops '
                "(pd.viz.graph draws it folded)</div>")
    dot = graph(program, collapse=False, dataflow="compact", python_names=False)
    for k, row in enumerate(rows):
        node = f"op-b0-{k}"
        if row["mark"] != "kept" and node in dot.paddle_nodes:
            dot.node(node, style="filled,bold", fillcolor=MARK_COLOURS[row["mark"]],
                     color="#333333", penwidth="2.5")
    return graph_html(dot)


def _text(results):
    lines = [f"{r.name}: {r.ops_before} -> {r.ops_after} ops ({_counts(r)})" for r in results]
    return "\n".join(lines) or "no passes ran"
