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
``display.svg_of`` adds ``data-block``/``data-op``/``data-var`` attributes.
"""

from paddle_nb.framework.block import Block
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Parameter, VarType
from paddle_nb.viz.fold import Folds, node_id
from paddle_nb.viz.style import ROLE_COLOURS, VAR_STYLES, fmt_shape, page

__all__ = ["graph", "var_kind", "DEFAULT_MAX_OPS"]

DEFAULT_MAX_OPS = 60
OWNS_COLOUR = "#674ea7"
UPDATE_COLOUR = "#38761d"
GRAPH_ATTR = {"compound": "true", "rankdir": "TB", "nodesep": "0.25", "ranksep": "0.3",
              "fontname": "Helvetica", "fontsize": "10"}
# Above this many nodes, bound dot's network-simplex passes (nslimit): with long edges (a
# parameter read by a forward op and updated by the optimizer far below) an 80-op training
# program otherwise takes a minute to lay out; bounded, a second, with more winding edges.
BIG_GRAPH_NODES = 120
NODE_ATTR = {"fontname": "Helvetica", "fontsize": "10", "height": "0.3", "margin": "0.08,0.03"}
EDGE_ATTR = {"arrowsize": "0.6", "color": "#555555", "fontname": "Helvetica", "fontsize": "8"}


def graph(block_or_program, collapse=None, max_ops=DEFAULT_MAX_OPS):
    """The dataflow graph of a Program (every block) or of one Block (and its sub-blocks).

    ``collapse`` folds parts into single nodes: ``"blocks"`` (each sub-block one node),
    ``"prefix"`` (the ops of one layer, ``fc_0.*``, per role), ``"repeats"`` (runs of
    identical layers), glob patterns such as ``"fc_0.*"``, or a list of these. ``None``
    folds only when more than ``max_ops`` ops would be drawn (prefix, then repeats, then
    blocks, until it fits); ``False`` never folds. Returns a ``graphviz.Digraph``.

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
    folds = Folds(program, blocks)
    note = folds.apply(collapse, max_ops)
    name = "program" if root is None else f"block_{root.idx}"
    dot = _graph_class(graphviz)(name=name, graph_attr=GRAPH_ATTR, node_attr=NODE_ATTR,
                                 edge_attr=EDGE_ATTR)
    drawing = _Drawing(program, blocks, folds)
    drawing.emit(dot)
    if len(drawing.nodes) > BIG_GRAPH_NODES:
        dot.attr(nslimit="2", nslimit1="2")
    if note:
        dot.attr(label=note, labelloc="b", labeljust="l")
    dot.paddle_nodes = drawing.nodes
    dot.paddle_note = note
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
        class ProgramGraph(graphviz.Digraph):
            def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
                from paddle_nb.viz.display import graph_html
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
    try:
        dtype = var.dtype.name
    except Exception:
        dtype = "?"
    lod = f" lod {var.lod_level}" if var.lod_level else ""
    return f"{dtype}{fmt_shape(var.shape)}{lod}"


class _Drawing:
    """Turns blocks (and the folds chosen for them) into DOT nodes, clusters and edges."""

    def __init__(self, program, blocks, folds):
        self.program, self.blocks, self.folds = program, blocks, folds
        self.drawn = {b.idx for b in blocks}
        self.touch = {}         # (decl block idx, name) -> ([writer op keys], [reader op keys])
        self.vars = {}          # (decl block idx, name) -> framework Variable
        self.nodes = {}         # node id -> data-* attributes, for svg_of
        self.edges = {}         # (tail, head) -> edge facts, merged
        self.extra = []         # (tail, head, attrs): ownership ties and step links
        self.heads = {}         # block idx -> a node inside its cluster (for lhead ties)
        for b in blocks:
            for name, var in b.vars.items():
                self.vars[(b.idx, name)] = var
            for k, op in enumerate(b.ops):
                for slot, names in ((1, op.input_arg_names), (0, op.output_arg_names)):
                    for name in dict.fromkeys(names):
                        vk = self.resolve(b, name)
                        if vk is not None:
                            self.touch.setdefault(vk, ([], []))[slot].append((b.idx, k))

    # -- naming -------------------------------------------------------------------------------
    def resolve(self, block, name):
        var = block.find_var(name)
        if var is None:
            return None
        vk = (var.block.idx, name)
        self.vars.setdefault(vk, var)
        return vk

    def op_node(self, key):
        return self.folds.unit.get(key) or node_id("op", *key)

    def var_node(self, vk):
        """The node id of a variable, or None when it is folded away."""
        if vk[0] in self.folds.block_node:
            return None
        writers, readers = self.touch.get(vk, ((), ()))
        if writers and all(self.folds.unit.get(k) for k in list(writers) + list(readers)):
            return None
        return node_id("var", *vk)

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
        self._data_edges()
        self._ties()
        self._step_links()
        for (tail, head), e in self.edges.items():
            dot.edge(tail, head, _attributes=_edge_attrs(e))
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
            if not first:
                first.append(f"anchor-b{idx}")
                c.node(first[0], "(empty block)", shape="plaintext", fontcolor="#777777")
            self.heads[idx] = first[0]

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
        attrs = dict(VAR_STYLES[kind], id=nid, tooltip=f"{var.name}: {_type_text(var)}, {kind}, "
                     f"declared in block {vk[0]}")
        attrs["class"] = f"var {kind}" + (" outer" if outer else "")
        g.node(nid, f"{var.name}{where}\\n{_type_text(var)}", _attributes=attrs)
        self.nodes[nid] = {"block": vk[0], "var": var.name, "kind": kind}

    def _op(self, g, block, k, op):
        role = OpRole.name(op.role)
        nid = node_id("op", block.idx, k)
        owns = bool(op.sub_block_ids())
        attrs = {"shape": "box", "style": "rounded,filled", "fillcolor": ROLE_COLOURS[role],
                 "id": nid, "class": f"op role-{role}" + (" control-flow" if owns else ""),
                 "tooltip": _op_tooltip(op, k, role)}
        if owns:
            attrs.update(peripheries="2", color=OWNS_COLOUR)
        g.node(nid, f"#{k} {op.type}", _attributes=attrs)
        self.nodes[nid] = {"block": block.idx, "op": k, "op-type": op.type, "role": role}

    def _unit(self, g, nid):
        unit = self.folds.units[nid]
        ops = [self.program.block(b).ops[k] for b, k in unit["ops"]]
        types = list(dict.fromkeys(op.type for op in ops))
        shown = ", ".join(types[:4]) + (", ..." if len(types) > 4 else "")
        roles = list(dict.fromkeys(OpRole.name(op.role) for op in ops))
        label = f"{unit['title']}\\n{len(ops)} ops: {shown}"
        attrs = {"shape": "box3d", "style": "filled", "fillcolor": ROLE_COLOURS[roles[0]],
                 "id": nid, "class": f"fold {unit['kind']} role-{roles[0]}",
                 "tooltip": f"{unit['title']}: {len(ops)} ops ({', '.join(types)}); "
                            f"roles {', '.join(roles)}"}
        if unit["kind"] == "block":
            attrs.update(shape="component", fillcolor="#eeeeee", color=OWNS_COLOUR)
        g.node(nid, label, _attributes=attrs)
        self.nodes[nid] = {"block": unit["block"], "fold": unit["title"], "ops": len(ops)}

    # -- edges --------------------------------------------------------------------------------
    def _data_edges(self):
        for b in self.blocks:
            for k, op in enumerate(b.ops):
                node = self.op_node((b.idx, k))
                for name in dict.fromkeys(op.input_arg_names):
                    vk = self.resolve(b, name)
                    if vk is None:
                        continue
                    vid = self.var_node(vk)
                    if vid:
                        self._edge(vid, node, capture=vk[0] != b.idx)
                        continue
                    for w in self.touch[vk][0]:
                        wid = self.op_node(w)
                        if wid != node:
                            self._edge(wid, node, through=name, back=w[0] == b.idx and w[1] > k)
                for name in dict.fromkeys(op.output_arg_names):
                    vk = self.resolve(b, name)
                    vid = vk and self.var_node(vk)
                    if vid:
                        readers = self.touch[vk][1]
                        update = any(r[0] == b.idx and r[1] < k for r in readers)
                        self._edge(node, vid, capture=vk[0] != b.idx, back=update)

    def _edge(self, tail, head, capture=False, back=False, through=None):
        e = self.edges.setdefault((tail, head), {"capture": capture, "back": back, "names": []})
        if through and through not in e["names"]:
            e["names"].append(through)

    def _ties(self):
        """A bold edge from each op to the sub-block it owns (to the cluster, via lhead)."""
        for b in self.blocks:
            for k, op in enumerate(b.ops):
                node = self.op_node((b.idx, k))
                for sub in op.sub_block_ids():
                    if sub not in self.drawn:
                        continue
                    attrs = {"color": OWNS_COLOUR, "penwidth": "2", "label": "sub_block",
                             "fontcolor": OWNS_COLOUR, "class": "owns"}
                    folded = self.folds.block_node.get(sub)
                    if folded is None:
                        tie = dict(attrs, lhead=f"cluster_b{sub}")
                        self.extra.append((node, self.heads[sub], tie))
                    elif folded != node:
                        self.extra.append((node, folded, attrs))

    def _step_links(self):
        """A recurrent op's links between outer sequences/states and its step block."""
        for b in self.blocks:
            for op in b.ops:
                sub = op.attr("sub_block") if op.type == "recurrent" else None
                if sub is None or sub not in self.drawn or sub in self.folds.block_node:
                    continue
                inner = self.program.block(sub)

                def here(name):
                    return (sub, name) if name in inner.vars else None
                links = [(self.resolve(b, n), here(n), "[t]") for n in op.input("inputs")]
                ex = op.attr("ex_states") or []
                links += [(self.resolve(b, i), here(e), "init")
                          for i, e in zip(op.input("initial_states"), ex)]
                states = op.attr("states") or []
                links += [(here(s), here(e), "next step") for s, e in zip(states, ex)]
                links += [(here(n), self.resolve(b, n), "stack") for n in op.output("outputs")]
                for src, dst, label in links:
                    tail, head = src and self.var_node(src), dst and self.var_node(dst)
                    if tail and head:
                        attrs = {"style": "dotted", "color": OWNS_COLOUR, "label": label,
                                 "fontcolor": OWNS_COLOUR, "class": "step"}
                        if label == "next step":
                            attrs["constraint"] = "false"
                        self.extra.append((tail, head, attrs))


def _depth(block):
    depth = 0
    while block.parent is not None:
        depth, block = depth + 1, block.parent
    return depth


def _edge_attrs(e):
    attrs, classes = {}, []
    if e["capture"]:
        attrs.update(style="dashed", color=OWNS_COLOUR)
        classes.append("capture")
    if e["back"]:
        attrs.update(constraint="false", color=UPDATE_COLOUR)
        classes.append("update")
    names = e["names"]
    if names:                   # between folded nodes: name the variable when there is one
        if len(names) == 1 and not e["back"]:
            attrs["label"] = names[0]
        attrs["tooltip"] = ", ".join(names)
        classes.append("through")
        if e["back"]:           # an optimizer's update of a folded layer: there, but quiet
            attrs.update(color="#b6d7a8", arrowsize="0.4")
    if classes:
        attrs["class"] = " ".join(classes)
    return attrs


def _op_tooltip(op, k, role):
    def slots(m):
        return "; ".join(f"{s}={', '.join(n)}" for s, n in m.items() if n)
    return f"#{k} {op.type} ({role}) in: {slots(op.inputs)} out: {slots(op.outputs)}"
