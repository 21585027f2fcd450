"""The edges of a program's graph: dataflow, captures, ownership ties and RNN step links.

A variable drawn as a node has an edge from each op that writes it and to each op that
reads it. A variable folded away (inside a folded node, or drawn as an edge by the "temps"
step) becomes an edge from its writer's node to its reader's node, named after it. A read
from an outer block is a dashed "capture"; a write to a variable already read above (an
optimizer's update) is green and does not push the reader down; each op owning a sub-block
is tied to its cluster by a bold purple edge, and a recurrent op's step links are dotted.
"""

from collections.abc import Callable
from typing import Any

from paddle_nb.viz.style import dot_label, dot_text

__all__ = ["EdgeDrawing", "edge_attrs", "OWNS_COLOUR", "UPDATE_COLOUR"]

OWNS_COLOUR = "#674ea7"
UPDATE_COLOUR = "#38761d"
LINK_TEXT = "#3d2470"        # the step links' and ties' words: dark enough to read at 10 pt


class EdgeDrawing:
    """The edge half of graph.py's drawing: it fills ``edges`` (merged by ends) and ``extra``.

    Expects ``blocks``, ``program``, ``folds``, ``touch``, ``drawn``, ``heads``, ``names``
    and the methods ``resolve``, ``op_node``, ``var_node``, ``hidden_param``, ``edge_tip``.
    """

    # what the drawing class (graph.py's) provides
    blocks: Any
    program: Any
    folds: Any
    touch: Any
    drawn: Any
    heads: Any
    names: Any
    edges: Any
    extra: Any
    resolve: Callable[..., Any]
    op_node: Callable[..., Any]
    var_node: Callable[..., Any]
    hidden_param: Callable[..., Any]
    edge_tip: Callable[..., Any]

    def draw_edges(self):
        """Fill ``edges`` and ``extra``: dataflow and captures, then ownership ties, then
        the RNN step links (graph.py draws them after the nodes and clusters)."""
        self._data_edges()
        self._ties()
        self._step_links()

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
                    if self.hidden_param(vk):     # in the op's label: no edge from its updater
                        continue
                    for w in self.touch[vk][0]:
                        wid = self.op_node(w)
                        if wid != node:
                            self._edge(wid, node, through=self.names.get(vk, name),
                                       tip=self.edge_tip(vk),
                                       capture=vk[0] != b.idx,
                                       back=w[0] == b.idx and w[1] > k)
                for name in dict.fromkeys(op.output_arg_names):
                    vk = self.resolve(b, name)
                    vid = vk and self.var_node(vk)
                    if vid:
                        readers = self.touch[vk][1]
                        update = any(r[0] == b.idx and r[1] < k for r in readers)
                        self._edge(node, vid, capture=vk[0] != b.idx, back=update)

    def _edge(self, tail, head, capture=False, back=False, through=None, tip=None):
        e = self.edges.setdefault((tail, head), {"capture": capture, "back": back, "names": [],
                                                 "tips": []})
        if through and through not in e["names"]:
            e["names"].append(through)
            e["tips"].append(tip or through)

    def _ties(self):
        """A bold edge from each op to the sub-block it owns (to the cluster, via lhead)."""
        for b in self.blocks:
            for k, op in enumerate(b.ops):
                node = self.op_node((b.idx, k))
                for sub in op.sub_block_ids():
                    if sub not in self.drawn:
                        continue
                    attrs = {"color": OWNS_COLOUR, "penwidth": "2", "label": "sub_block",
                             "fontcolor": LINK_TEXT, "fontsize": "10", "class": "owns"}
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
                                 "fontcolor": LINK_TEXT, "fontsize": "10", "penwidth": "1.4",
                                 "class": "step"}
                        if label == "next step":
                            attrs["constraint"] = "false"
                        self.extra.append((tail, head, attrs))



def edge_attrs(e):
    """DOT attributes of a merged dataflow edge (its classes name what it is, for CSS)."""
    attrs, classes = {}, []
    if e["capture"]:
        attrs.update(style="dashed", color=OWNS_COLOUR)
        classes.append("capture")
    if e["back"]:
        attrs.update(constraint="false", color=UPDATE_COLOUR)
        classes.append("update")
    names = e["names"]
    if names:                   # between folded nodes: name the variable when there is one
        if len(names) == 1 and not e["back"]:   # an xlabel: placed after the layout, it
            attrs["xlabel"] = dot_label(dot_text(names[0]))     # adds no rank of its own
        attrs["tooltip"] = dot_label(dot_text("\n".join(e.get("tips") or names)))
        classes.append("through")
        if e["back"]:           # an optimizer's update of a folded layer: there, but quiet
            attrs.update(color="#b6d7a8", arrowsize="0.4")
    if classes:
        attrs["class"] = " ".join(classes)
    return attrs
