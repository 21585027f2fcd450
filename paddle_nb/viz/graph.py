"""The dataflow graph of a program: ops and variables as nodes, sub-blocks as clusters.

Ops are boxes coloured by their role (forward, backward, optimize); variables
are ellipses labelled with dtype and shape, parameters and other persistables
cylinders. Each block is a cluster inside its parent block's cluster, tied to
the op that owns it by a bold purple edge; a variable a sub-block reads from
an outer block comes in on a dashed edge, like a C++ lambda's capture, and an
RNN's step links (slice ``[t]``, ``init``, ``next step``, ``stack``) are
dotted; a write to a variable already read above (an optimizer updating a
parameter) is green and does not push the reader down. Big programs fold
(see :func:`graph` and ``viz/fold.py``). Every node has a stable ``id``
(``op-b0-3``, ``var-b0-fc_0.w_0``, ``block-1``) that the SVG keeps, and
``svg.svg_of`` adds ``data-block``/``data-op``/``data-var`` attributes.
"""

from typing import Any

from paddle_nb.framework.block import Block
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Parameter, VarType
from paddle_nb.viz.fold import DEFAULT_MAX_NODES, Folds, name_prefix, node_id
from paddle_nb.viz.graph_edges import OWNS_COLOUR, EdgeDrawing, edge_attrs
from paddle_nb.viz.names import user_names
from paddle_nb.viz.style import ROLE_COLOURS, VAR_STYLES, dot_label, dot_text, fmt_shape, page
from paddle_nb.viz.svg import graph_html
from paddle_nb.viz.values import RunValues, op_tooltip, op_value_lines

__all__ = ["graph", "var_kind", "DEFAULT_MAX_NODES"]

GRAPH_ATTR = {"compound": "true", "rankdir": "TB", "nodesep": "0.25", "ranksep": "0.3",
              "forcelabels": "true",
              "fontname": "Helvetica", "fontsize": "10"}
# Above this many nodes, bound dot's network-simplex passes (nslimit): with long edges (a
# parameter read by a forward op and updated by the optimizer far below) an 80-op training
# program otherwise takes a minute to lay out; bounded, a second, with more winding edges.
BIG_GRAPH_NODES = 120
NODE_ATTR = {"fontname": "Helvetica", "fontsize": "10", "height": "0.3", "margin": "0.08,0.03"}
EDGE_ATTR = {"arrowsize": "0.6", "color": "#555555", "fontname": "Helvetica", "fontsize": "8"}


def graph(block_or_program, collapse=None, max_nodes=DEFAULT_MAX_NODES, expand=(),
          dataflow="auto", python_names=True, scope=None):
    """The dataflow graph of a Program (every block) or of one Block (and its sub-blocks).

    ``collapse`` folds parts into single nodes (see ``viz/fold.py``): ``"repeats"``
    (consecutive copies of the same wiring: ResNet blocks, layers, loop steps), ``"params"``
    (parameters into their op's label), ``"temps"`` (intermediates drawn as edges),
    ``"prefix"`` (the ops of one layer, ``fc_0.*``, per role), ``"segments"``, ``"blocks"``
    (each sub-block one node), glob patterns such as ``"fc_0.*"``, or a list of these.
    ``None`` folds only while more than ``max_nodes`` nodes would be drawn, in that order;
    ``False`` never folds. ``expand`` lists ids of folded nodes to draw open (the id is in
    each folded node's tooltip, ``repeat-b0-12``).

    ``dataflow`` says how variables are drawn: ``"compact"`` writes each parameter into the
    label of the op that reads it and draws each intermediate as the edge it is, named after
    it (a ResNet-18 in one screen); ``"full"`` draws every variable as a node; ``"auto"``
    (the default) is full while the full drawing has at most ``max_nodes`` nodes (a small
    program shows every variable) and compact above (then folded further if need be). A
    variable no op touches is not drawn.

    ``python_names`` labels a variable with the Python name the user's code bound it to
    (``o1, o2 = rnn()``: see ``viz/names.py``), its own name in its tooltip; a dict
    ``{(block idx, variable name): label}`` gives the names; False keeps every variable's
    own name.

    ``scope`` (a Scope, or a RunRecord from ``exe.subscribe``) puts values in the tooltips:
    hovering an op shows each input's and output's value after the run (dtype, shape, a few
    numbers, the mean; see ``viz/values.py``), a variable node or an intermediate's edge its
    own. A live Scope holds what outlives a run (the parameters); a RunRecord made with
    ``exe.record_values = True`` also holds the temporaries, or says "released after its last
    use" of those the run freed. Returns a ``graphviz.Digraph``.

    >>> import paddle_nb as pd
    >>> prog = pd.Program()
    >>> with pd.program_guard(prog):
    ...     y = pd.layers.relu(pd.layers.data("x", shape=[3]))
    >>> dot = graph(prog)
    >>> '"op-b0-0"' in dot.source, 'label="#0 relu"' in dot.source
    (True, True)
    """
    graphviz = _graphviz()
    if isinstance(block_or_program, Program):
        program, root = block_or_program, None
    elif isinstance(block_or_program, Block):
        program, root = block_or_program.program, block_or_program
    else:
        raise TypeError(f"graph: expected a Program or a Block, got "
                        f"{type(block_or_program).__name__}")
    blocks = _drawn_blocks(program, root)
    folds = Folds(program, blocks, expand)
    note = folds.apply(collapse, max_nodes, dataflow)
    name = "program" if root is None else f"block_{root.idx}"
    dot = _graph_class(graphviz)(name=name, graph_attr=GRAPH_ATTR, node_attr=NODE_ATTR,
                                 edge_attr=EDGE_ATTR)
    if python_names is True:
        python_names = user_names(program)
    drawing = _Drawing(program, blocks, folds, dict(python_names or {}))
    if scope is not None:
        drawing.values = RunValues(scope)
    drawing.emit(dot)
    if len(drawing.nodes) > BIG_GRAPH_NODES:
        dot.attr(nslimit="2", nslimit1="2")
    dot.paddle_nodes = drawing.nodes
    dot.paddle_note = note      # shown under the picture (svg.graph_html, the Dashboard)
    return dot


def _graphviz():
    try:
        import graphviz
    except ImportError:
        raise ImportError("pd.viz.graph needs the `graphviz` Python package: "
                          "`pip install graphviz` (and the `dot` program: `apt-get install "
                          "graphviz` or `conda install -c conda-forge graphviz`)") from None
    return graphviz


_CLASSES = []


def _graph_class(graphviz):
    """A graphviz.Digraph that a notebook shows with data-* attributes, or as DOT source
    (with how to get pictures) when `dot` is missing."""
    if not _CLASSES:
        digraph: Any = graphviz.Digraph      # graphviz is imported only when a graph is drawn

        class ProgramGraph(digraph):
            def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
                return {"text/html": page(graph_html(self)), "text/plain": repr(self)}

            def __repr__(self):
                return (f"<ProgramGraph {self.name}: {len(getattr(self, 'paddle_nodes', ()))} "
                        "nodes and clusters; .source is the DOT text>")
        ProgramGraph.__qualname__ = "ProgramGraph"
        _CLASSES.append(ProgramGraph)
    return _CLASSES[0]


def _drawn_blocks(program, root):
    """``root`` and every block below it (by parent_idx or ownership); all blocks for None."""
    if root is None:
        return list(program.blocks)
    keep = {root.idx}
    grew = True
    while grew:
        grew = False
        for block in program.blocks:
            owned = [i for op in block.ops for i in op.sub_block_ids()] if block.idx in keep else []
            for idx in owned + ([block.idx] if block.parent_idx in keep else []):
                if idx not in keep and 0 <= idx < program.num_blocks:
                    keep.add(idx)
                    grew = True
    return [b for b in program.blocks if b.idx in keep]


def var_kind(var, written):
    if isinstance(var, Parameter):
        return "parameter"
    if var.type == VarType.STEP_SCOPES:
        return "scopes"
    if var.persistable:
        return "persistable"
    if not var.is_tensor():
        return "other"
    if "@GRAD" in var.name:
        return "grad"
    if not written and var.block.idx == 0:
        return "data"
    return "temp"


def _type_text(var):
    if var.type == VarType.STEP_SCOPES:
        return "step scopes"
    if not var.is_tensor():
        return VarType.Type.Name(var.type)
    known = var.dtype_or_none()
    dtype = known.name if known is not None else "?"
    lod = f" lod {var.lod_level}" if var.lod_level else ""
    return f"{dtype}{fmt_shape(var.shape)}{lod}"


class _Drawing(EdgeDrawing):
    """Turns blocks (and the folds chosen for them) into DOT nodes, clusters and edges."""

    def __init__(self, program, blocks, folds, names):
        self.program, self.blocks, self.folds = program, blocks, folds
        self.names = names      # (block idx, variable name) -> the user's Python name
        self.drawn = {b.idx for b in blocks}
        self.touch, self.vars = folds.touch, folds.vars   # who writes and reads each variable
        self.resolve = folds.resolve
        self.nodes = {}         # node id -> data-* attributes, for svg_of
        self.edges = {}         # (tail, head) -> edge facts, merged
        self.extra = []         # (tail, head, attrs): ownership ties and step links
        self.heads = {}         # block idx -> a node inside its cluster (for lhead ties)
        self.values = None      # a RunValues: what a run left in each variable, for tooltips

    # -- naming -------------------------------------------------------------------------------
    def op_node(self, key):
        return self.folds.unit.get(key) or node_id("op", *key)

    def var_node(self, vk):
        """The node id of a variable, or None when it is folded away or drawn as an edge."""
        return node_id("var", *vk) if self.folds.var_shown(vk) else None

    def hidden_param(self, vk):
        """A parameter (or other persistable) written into its ops' labels, not drawn."""
        return self.vars[vk].persistable and not self.folds.var_shown(vk)

    def edge_tip(self, vk):
        """What hovering an edge that carries variable ``vk`` shows: its names and type."""
        var, given = self.vars[vk], self.names.get(vk)
        return f"{given + ' = ' if given else ''}{var.name}: {_type_text(var)}" + \
            self.value_text(vk)

    def value_text(self, vk):
        """A line on the value the run left in ``vk`` when the graph has values, else ""."""
        if self.values is None:
            return ""
        var = self.vars[vk]
        return f"\nafter the run: {self.values.say(var.name, var.persistable, vk[0] == 0)}"

    def given(self, block, op):
        """``{variable name: the user's name}`` for the variables ``op`` reads and writes."""
        found = {}
        for name in op.input_arg_names + op.output_arg_names:
            vk = self.resolve(block, name)
            if vk in self.names:
                found[name] = self.names[vk]
        return found

    # -- nodes --------------------------------------------------------------------------------
    def emit(self, dot):
        kids = {}
        for b in self.blocks:
            if b.parent_idx in self.drawn and b.idx != self.blocks[0].idx:
                kids.setdefault(b.parent_idx, []).append(b)
        self.kids = kids
        for vk in list(self.vars):
            if vk[0] not in self.drawn and self.var_node(vk):
                self._var(dot, vk, outer=True)
        for b in self.blocks:
            if b.parent_idx not in self.drawn or b is self.blocks[0]:
                self._cluster(dot, b)
        self.draw_edges()
        for (tail, head), e in self.edges.items():
            dot.edge(tail, head, _attributes=edge_attrs(e))
        for tail, head, attrs in self.extra:
            dot.edge(tail, head, _attributes=attrs)

    def _cluster(self, g, block):
        idx = block.idx
        with g.subgraph(name=f"cluster_b{idx}") as c:
            c.attr(label=self._title(block), id=f"block-{idx}", color="#9fc5e8", labeljust="l",
                   style="rounded" if idx == 0 else "rounded,filled",
                   fillcolor=("#f4f8fc", "#e6eef7")[_depth(block) % 2],
                   fontsize="10", **{"class": "block"})
            self.nodes[f"block-{idx}"] = {"block": idx}
            first = []
            for name in block.vars:
                vid = self.var_node((idx, name))
                if vid:
                    self._var(c, (idx, name))
                    first.append(vid)
            seen = set()
            for k, op in enumerate(block.ops):
                nid = self.op_node((idx, k))
                if nid not in seen:
                    seen.add(nid)
                    first.insert(len(seen) - 1, nid)
                    if nid == node_id("op", idx, k):
                        self._op(c, block, k, op)
                    else:
                        self._unit(c, nid)
            for kid in self.kids.get(idx, []):
                if kid.idx in self.folds.block_node:
                    self._unit(c, self.folds.block_node[kid.idx])
                else:
                    self._cluster(c, kid)
            self._beside(c, block)
            if not first:
                first.append(f"anchor-b{idx}")
                c.node(first[0], "(empty block)", shape="plaintext", fontcolor="#777777")
            self.heads[idx] = first[0]

    def _beside(self, g, block):
        """Each parameter (a persistable nothing above writes) on the rank of the first op that
        reads it, beside it: otherwise dot puts every such source node in one row on top. A
        persistable only written (PaddlePaddle's ``fetch`` list) sits beside its writer."""
        for name in block.vars:
            vk = (block.idx, name)
            var, vid = self.vars[vk], self.var_node(vk)
            writers, readers = self.touch.get(vk, ((), ()))
            anchor = readers[0] if readers else (writers[0] if writers else None)
            if not (vid and var.persistable and anchor) or \
                    any(w[0] == block.idx and w[1] < anchor[1] for w in writers):
                continue
            op = self.op_node(anchor)
            if anchor[0] == block.idx and op in self.nodes:
                with g.subgraph() as pair:
                    pair.attr(rank="same")
                    pair.node(vid)
                    pair.node(op)

    def _title(self, block):
        if block.idx == 0:
            return "block 0 (global)"
        owner = self._owner(block.idx)
        where = f": sub-block of #{owner[1]} {self.program.block(owner[0]).ops[owner[1]].type}" \
            if owner else ""
        return f"block {block.idx} (parent {block.parent_idx}){where}"

    def _owner(self, idx):
        for b in self.program.blocks:
            for k, op in enumerate(b.ops):
                if idx in op.sub_block_ids():
                    return (b.idx, k)
        return None

    def _var(self, g, vk, outer=False):
        var = self.vars[vk]
        writers = self.touch.get(vk, ((), ()))[0]
        kind = var_kind(var, bool(writers))
        nid = node_id("var", *vk)
        where = f" (block {vk[0]})" if outer else ""
        given = self.names.get(vk)
        shown = f"{given} = {var.name}" if given else var.name
        attrs = dict(VAR_STYLES[kind], id=nid, tooltip=dot_label(dot_text(
            f"{shown}: {_type_text(var)}, {kind}, declared in block {vk[0]}"
            + self.value_text(vk))))
        attrs["class"] = f"var {kind}" + (" outer" if outer else "")
        g.node(nid, dot_label(f"{dot_text(given or var.name)}{where}\\n"
                              f"{dot_text(_type_text(var))}"), _attributes=attrs)
        self.nodes[nid] = {"block": vk[0], "var": var.name, "kind": kind}
        if given:
            self.nodes[nid]["user-name"] = given

    def _op(self, g, block, k, op):
        role = OpRole.name(op.role)
        nid = node_id("op", block.idx, k)
        owns = bool(op.sub_block_ids())
        attrs = {"shape": "box", "style": "rounded,filled", "fillcolor": ROLE_COLOURS[role],
                 "id": nid, "class": f"op role-{role}" + (" control-flow" if owns else ""),
                 "tooltip": dot_label(dot_text(op_tooltip(op, k, role, self.given(block, op),
                                                           self.op_values(block, op))))}
        if owns:
            attrs.update(peripheries="2", color=OWNS_COLOUR)
        g.node(nid, dot_label(f"#{k} {dot_text(op.type)}" + self._params_line([(block.idx, k)])),
               _attributes=attrs)
        self.nodes[nid] = {"block": block.idx, "op": k, "op-type": op.type, "role": role}

    def op_values(self, block, op):
        """The lines on ``op``'s inputs' and outputs' values after the run (none without)."""
        if self.values is None:
            return []

        def persistable(name):
            vk = self.resolve(block, name)
            return self.vars[vk].persistable if vk in self.vars else None

        def outer(name):
            vk = self.resolve(block, name)
            return vk[0] == 0 if vk is not None else None
        return op_value_lines(op, self.values, self.given(block, op), persistable, outer)

    def _params_line(self, keys):
        """``\\nconv2d_0.w_0 [64, 3, 7, 7]`` (or a count) for parameters folded into labels."""
        names = []
        for b, k in keys:
            block = self.program.block(b)
            for name in block.ops[k].input_arg_names:
                vk = self.resolve(block, name)
                if vk and self.hidden_param(vk) and name not in names:
                    names.append(name)
        if not names:
            return ""
        if len(names) == 1:
            var = self.vars[self.resolve(self.program.block(keys[0][0]), names[0])]
            return f"\\n{dot_text(names[0])} {fmt_shape(var.shape)}" if var.is_tensor() else ""
        return f"\\n+{len(names)} params ({dot_text(name_prefix(names[0]))}.*" + \
            (", ...)" if len({name_prefix(n) for n in names}) > 1 else ")")

    def _unit(self, g, nid):
        unit = self.folds.units[nid]
        ops = [self.program.block(b).ops[k] for b, k in unit["ops"]]
        types = list(dict.fromkeys(op.type for op in ops))
        shown = ", ".join(types[:4]) + (", ..." if len(types) > 4 else "")
        roles = list(dict.fromkeys(OpRole.name(op.role) for op in ops))
        first, last = unit["ops"][0][1], unit["ops"][-1][1]
        where = f"#{first}-#{last}" if unit["kind"] != "block" else f"{len(ops)} ops"
        count = "" if unit["kind"] == "repeat" else f"{len(ops)} ops: "
        label = f"{dot_text(unit['title'])} ({where})\\n{count}{dot_text(shown)}" + \
            self._params_line(unit["ops"])
        attrs = {"shape": "box3d", "style": "filled", "fillcolor": ROLE_COLOURS[roles[0]],
                 "margin": "0.14,0.07",      # room for box3d's rim: the label stays inside
                 "id": nid, "class": f"fold {unit['kind']} role-{roles[0]}",
                 "tooltip": dot_label(dot_text(
                     f"{nid}: {unit['title']}, {len(ops)} ops ({', '.join(types)}); "
                     f"roles {', '.join(roles)}; graph(..., expand=['{nid}']) opens it"))}
        if unit["kind"] == "block":
            attrs.update(shape="component", fillcolor="#eeeeee", color=OWNS_COLOUR)
        g.node(nid, dot_label(label), _attributes=attrs)
        self.nodes[nid] = {"block": unit["block"], "fold": unit["title"], "ops": len(ops),
                           "fold-id": nid, "role": roles[0]}


def _depth(block):
    depth = 0
    while block.parent is not None:
        depth, block = depth + 1, block.parent
    return depth
