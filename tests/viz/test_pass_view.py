"""pd.viz.pass_view: each pass's program before and after, ops marked by what the pass did."""

import re
import shutil

import pytest

import paddle_nb as pd
from paddle_nb import passes
from tests.passes.test_passes import build

pytest.importorskip("graphviz")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's `dot` is missing")


def conv_bn_relu_residual(x):
    y = pd.layers.conv2d(x, 3, 3, padding=1, bias_attr=False)
    y = pd.layers.relu(pd.layers.batch_norm(y))
    return pd.layers.relu(pd.layers.elementwise_add(y, x))


def optimized():
    program, scope, exe, feed, fetch = build(conv_bn_relu_residual)
    return program, passes.apply_passes(program, scope, keep=fetch)


def marks(section_html, side):
    """[(op index, mark)] of the marked ops in one side's block tree."""
    part = section_html.split(f'data-side="{side}"')[1].split('data-side=')[0]
    return re.findall(r'<li data-block="0" data-op="(\d+)" data-mark="([a-z ]+)"', part)


def sections(view):
    return {m.group(1): m.group(0) for m in re.finditer(
        r'<details class="pnb-pass" data-pass="([a-z_]+)".*?(?=<details class="pnb-pass"|$)',
        view.html, re.S)}


def test_the_program_the_passes_made_carries_what_each_did():
    program, fast = optimized()
    assert [r.name for r in fast.pass_results] == [p.name for p in passes.INFERENCE_PASSES]
    assert fast.pass_results[0].before is program and fast.pass_results[-1].after is fast
    view = pd.viz.pass_view(fast, graphs=False)
    assert "fold_batch_norm: 5 -> 5 ops (1 folded)" in repr(view)
    assert "fuse_conv_activation: 5 -> 3 ops (1 fused)" in repr(view)
    shown = sections(view)
    assert set(shown) == {"fold_batch_norm", "fuse_conv_activation", "fuse_elementwise",
                          "reuse_buffers"}          # passes that changed nothing: summary only
    assert "<svg" not in view.html


def test_fused_removed_changed_and_in_place_ops_are_marked():
    _, fast = optimized()
    shown = sections(pd.viz.pass_view(fast.pass_results, graphs=False))
    # conv2d, batch_norm, relu, add, relu: batch_norm becomes an add (the conv a new filter)
    assert marks(shown["fold_batch_norm"], "before") == [("0", "changed"), ("1", "removed")]
    assert marks(shown["fold_batch_norm"], "after") == [("0", "changed"), ("1", "added")]
    conv = shown["fuse_conv_activation"]
    assert marks(conv, "before") == [("0", "fused"), ("1", "fused"), ("2", "fused")]
    assert marks(conv, "after") == [("0", "fused")]
    assert 'title="fused (into after #0)"' in conv
    assert marks(shown["fuse_elementwise"], "before") == [("1", "fused"), ("2", "fused")]
    assert marks(shown["fuse_elementwise"], "after") == [("1", "fused")]
    # the conv now writes the name the in-place chain reads and writes
    assert marks(shown["reuse_buffers"], "after") == [("0", "changed"), ("1", "in place")]


@needs_dot
def test_graphs_mark_the_same_ops():
    _, fast = optimized()
    view = pd.viz.pass_view(fast, graphs=["fuse_conv_activation"])
    shown = sections(view)
    assert shown["fuse_conv_activation"].count('data-graph="svg"') == 2
    assert "<svg" not in shown["fold_batch_norm"]
    # the fused nodes are filled with the fused colour in both graphs
    fill = pd.viz.pass_view.__globals__["MARK_COLOURS"]["fused"]
    assert shown["fuse_conv_activation"].count(f'fill="{fill}"') == 4


def test_a_program_not_made_by_the_passes_is_refused_clearly():
    program, _ = optimized()
    with pytest.raises(ValueError, match="not made by the passes"):
        pd.viz.pass_view(program)
