"""Rich display: a Program, Block, Scope, Variable, LoDTensor or RunRecord shows itself.

The core never imports the viewer (docs/design.md: ``viz`` is a leaf), so the
objects carry no ``_repr_html_``. Instead the viewer registers itself, as
treescope does: importing ``paddle_nb.viz`` (touching ``pd.viz``, or
``%load_ext paddle_nb.viz``) adds an HTML formatter for each of those types
to IPython's display formatter. ``repr`` and ``str`` stay plain text, and
IPython's text/plain output is left alone.

Graphs render to inline SVG with ``dot``; without ``dot`` the DOT source is
shown with a line saying how to get pictures.
"""

import sys

from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.core.variable import Variable as CoreVariable
from paddle_nb.executor.record import RunRecord, ScopeRecord, var_record
from paddle_nb.framework.block import Block
from paddle_nb.framework.operator import Operator, OpRole
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Variable
from paddle_nb.viz import trees
from paddle_nb.viz.graph import graph, var_kind
from paddle_nb.viz.names import names_by_block, names_in_block
from paddle_nb.viz.preview import preview
from paddle_nb.viz.svg import NO_DOT, graph_html, svg_of
from paddle_nb.viz.style import ROLE_COLOURS, VAR_STYLES, chip, esc, fmt_bytes, fmt_shape, page, \
    state_chip

__all__ = ["html_of", "register", "unregister", "load_ipython_extension",
           "unload_ipython_extension", "svg_of", "graph_html", "format_html", "DISPLAYED",
           "NO_DOT"]


def html_of(obj):
    """The HTML a notebook shows for ``obj`` (one of :data:`DISPLAYED`).

    >>> import paddle_nb as pd
    >>> s = pd.Scope()
    >>> _ = s.var("x")
    >>> 'data-var="x" data-state="created"' in html_of(s)
    True
    """
    for cls in type(obj).__mro__:
        draw = _DRAWERS.get(cls)
        if draw is not None:
            return draw(obj)
    raise TypeError(f"html_of: paddle_nb.viz does not draw a {type(obj).__name__}")


# -- one drawer per type --------------------------------------------------------------------------
def _program_html(program):
    n_ops = sum(len(b.ops) for b in program.blocks)
    n_params = len(program.all_parameters())
    head = (f'<div data-program="{program.num_blocks}"><b>Program</b> <span class="pnb-muted">'
            f"{program.num_blocks} block{'s' if program.num_blocks != 1 else ''} · {n_ops} ops · "
            f"{n_params} parameters</span></div>")
    section, legends = _graph_section(program)
    return page(head + section + _section("block tree", trees.block_tree_body(program),
                                          opened=n_ops <= 60), *legends)


def _block_html(block):
    head = (f'<div data-block="{block.idx}"><b>Block {block.idx}</b> <span class="pnb-muted">'
            f"parent {block.parent_idx} · {len(block.vars)} variables · {len(block.ops)} ops"
            "</span></div>")
    section, legends = _graph_section(block)
    return page(head + section + _section("block tree", trees.block_tree_body(block),
                                          opened=len(block.ops) <= 60), *legends)


def _graph_section(obj):
    """The graph's section and its legends: the roles of the ops (the graph and the block
    tree colour them) and the kinds of the variables the graph draws as nodes."""
    blocks = obj.blocks if isinstance(obj, Program) else [obj]
    roles = {OpRole.name(op.role) for b in blocks for op in b.ops}
    try:
        dot = graph(obj)
        body = graph_html(dot)
        kinds = {a["kind"] for a in dot.paddle_nodes.values() if "kind" in a}
    except ImportError as err:
        body, kinds = f'<div class="pnb-muted">{esc(err)}</div>', None
    return _section("dataflow graph", body, opened=True), [("roles", roles), ("vars", kinds)]


def _section(title, body, opened):
    return f"<details{' open' if opened else ''}><summary>{esc(title)}</summary>{body}</details>"


def _scope_html(scope):
    if not scope.is_alive():
        return page(f'<div class="pnb-muted" data-scope="{scope.id}">{esc(repr(scope))}: '
                    "destroyed, its variables freed</div>")
    return trees.scope_tree(scope).html


def _scope_record_html(record):
    return trees.scope_tree(record).html


def _record_html(record):
    ran = [o for o in record.ops if not o.skipped]
    status = '<b class="pnb-error">failed</b> · ' if record.failed else ""
    head = (f'<div data-run-ops="{len(record.ops)}"><b>RunRecord</b> <span class="pnb-muted">'
            f"{status}{esc(repr(record.program))} on {esc(record.place)} · {len(ran)} ops ran, "
            f"{len(record.ops) - len(ran)} skipped · {record.seconds * 1e3:.2f} ms</span></div>")
    rows = "".join(f'<tr data-block="{o.block}" data-op="{o.index}" data-scope="{o.scope_id}">'
                   f"<td>{o.block}</td><td>#{o.index}</td><td>{esc(o.type)}</td>"
                   f"<td>{'skipped' if o.skipped else f'{o.seconds * 1e3:.3f} ms'}</td>"
                   f"<td>{o.scope_id}</td></tr>" for o in record.ops)
    ops = ("<table><tr><th>block</th><th>op</th><th>type</th><th>time</th><th>scope</th></tr>"
           f"{rows}</table>")
    body = head + _section(f"ops in the order they ran ({len(record.ops)})", ops, opened=False)
    if record.scopes is not None:
        body += _section("dataflow graph: hover an op for its values after this run",
                         _run_graph(record), opened=False)
        declared = trees.declared_vars(record.scopes, record.program)
        body += _section("scopes just before the run's scopes were destroyed",
                         trees.scope_tree_body(record.scopes, declared, values=True,
                                               program=record.program),
                         opened=True)
    return page(body, "states")


def _run_graph(record):
    """The run's program drawn with the values the run left in its tooltips (viz/values.py)."""
    try:
        return graph_html(graph(record.program, scope=record))
    except ImportError as err:
        return f'<div class="pnb-muted">{esc(err)}</div>'


def _core_var_html(var):
    if var.destroyed_why is not None:
        return page(f'<div data-var="{esc(var.name)}" data-state="freed">'
                    f'<span class="pnb-name">{esc(var.name)}</span> {state_chip("freed")} '
                    f'<span class="pnb-muted">{esc(var.destroyed_why)}</span></div>', "states")
    rec = var_record(var, (), True)
    scope = var.scope
    where = f"{scope.id} {esc(scope.label)}" if scope.label else f"{scope.id}"
    body = (f'<div data-var="{esc(rec.name)}" data-state="{rec.state}" data-scope="{scope.id}">'
            f'<b>Variable</b> <span class="pnb-name">{esc(rec.name)}</span> {state_chip(rec.state)}'
            f'<span class="pnb-muted"> in scope {where}'
            f"{' · holds a ' + esc(rec.holder) if rec.holder else ''}</span>")
    if rec.state == "allocated":
        body += (f'<div class="pnb-muted">{esc(rec.dtype)}{esc(fmt_shape(rec.shape))} on '
                 f"{esc(rec.place)} · {fmt_bytes(rec.nbytes)}</div>{preview(rec.value)}")
    return page(body + "</div>", "states")


def _tensor_html(tensor):
    if tensor.destroyed_why is not None:
        state, extra = "freed", f'<span class="pnb-muted">{esc(tensor.destroyed_why)}</span>'
    elif tensor.data is None:
        state, extra = "typed", '<span class="pnb-muted">no shape, no memory yet</span>'
    else:
        lod = f" · lod {tensor.lod()}" if tensor.lod() else ""
        state = "allocated"
        extra = (f'<div class="pnb-muted">{tensor.dtype}{fmt_shape(tensor.shape)} on '
                 f"{esc(tensor.place)} · {fmt_bytes(tensor.nbytes)}{esc(lod)}</div>"
                 f"{preview(tensor.numpy())}")
    return page(f'<div data-tensor="" data-state="{state}"><b>LoDTensor</b> {state_chip(state)} '
                f"{extra}</div>", "states")


def _framework_var_html(var):
    kind = var_kind(var, var.writer is not None)
    writer = var.writer
    wrote = f" · written by #{writer.index()} {esc(writer.type)} in block {writer.block.idx}" \
        if writer is not None else ""
    return page(f'<div data-var="{esc(var.name)}" data-block="{var.block.idx}" data-kind="{kind}">'
                f'<b>{type(var).__name__}</b> <span class="pnb-name">{esc(var.name)}</span> '
                f'{chip(kind, VAR_STYLES[kind]["fillcolor"])} <span class="pnb-muted">'
                f"{esc(repr(var))} · declared in block {var.block.idx}{wrote} · "
                f"{state_chip('declared')} until a run creates it in a scope</span></div>")


def _operator_html(op):
    role = OpRole.name(op.role)
    k = op.index()
    subs = op.sub_block_ids()
    owns = chip(f"owns block {', '.join(map(str, subs))}", ROLE_COLOURS[role]) if subs else ""
    details = trees.op_details(k, op, role,
                               names_in_block(op.block, names_by_block(op.block.program)))
    return page(f'<div data-block="{op.block.idx}" data-op="{k}" data-op-type="{esc(op.type)}">'
                f'{details.replace("<details>", "<details open>", 1)}'
                f'<span class="pnb-muted">block {op.block.idx}</span>'
                f"{owns}"
                "</div>")


_DRAWERS = {
    Program: _program_html, Block: _block_html, Scope: _scope_html, ScopeRecord: _scope_record_html,
    RunRecord: _record_html, CoreVariable: _core_var_html, LoDTensor: _tensor_html,
    Variable: _framework_var_html, Operator: _operator_html,
}
DISPLAYED = tuple(_DRAWERS)


# -- registering with IPython -------------------------------------------------------------------
def format_html(obj):
    """IPython's text/html formatter: never raise; a drawing bug shows as a note, repr stays."""
    try:
        return html_of(obj)
    except Exception as err:  # the text/plain repr is still shown beside this
        return page(f'<div class="pnb-error">paddle_nb.viz could not draw this '
                    f"{esc(type(obj).__name__)}: {esc(type(err).__name__)}: {esc(err)}</div>")


def _shell(shell):
    """``shell``, else the running IPython shell, else None (IPython is not imported for it:
    when no one imported IPython, no shell is running)."""
    if shell is not None:
        return shell
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def register(shell=None):
    """Show :data:`DISPLAYED` objects as HTML in ``shell`` (default: the running IPython).

    Returns True when a shell was found. Importing ``paddle_nb.viz`` calls this.
    """
    shell = _shell(shell)
    if shell is None:
        return False
    formatter = shell.display_formatter.formatters["text/html"]
    for cls in DISPLAYED:
        formatter.for_type(cls, format_html)
    return True


def unregister(shell=None):
    """Undo :func:`register`: these objects show as their plain repr again."""
    shell = _shell(shell)
    if shell is None:
        return False
    formatter = shell.display_formatter.formatters["text/html"]
    for cls in DISPLAYED:
        formatter.type_printers.pop(cls, None)
    return True


def load_ipython_extension(ipython):
    """``%load_ext paddle_nb.viz``."""
    register(ipython)


def unload_ipython_extension(ipython):
    unregister(ipython)
