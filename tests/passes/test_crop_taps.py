"""crop_dead_taps: filters over images smaller than their reach lose the taps that read only
padding, with the same outputs; undeclared image sizes and depthwise filters stay."""

import pytest

import paddle_nb as pd
from paddle_nb import passes
from tests.passes.conv_programs import build
from paddle_nb.ops.machinery.window import live_window


def cropped(chw, conv, feed_hw=None):
    """The filter shapes and paddings after the pass (outputs checked unchanged)."""
    program, scope, exe, feed, fetch = build(chw, conv, feed_hw)
    after = passes.CROP_DEAD_TAPS.apply(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe, rtol=1e-5, atol=1e-5)
    convs = [op for op in after.global_block().ops if op.type == "conv2d"]
    return [(list(after.global_block().var(op.input("Filter")[0]).shape), op.attr("paddings"))
            for op in convs]


@pytest.mark.parametrize("chw, args, want", [
    ((8, 1, 1), dict(filter_size=3, padding=1), ([4, 8, 1, 1], [0, 0, 0, 0])),
    ((8, 2, 2), dict(filter_size=3, padding=1, stride=2), ([4, 8, 2, 2], [0, 0, 0, 0])),
    ((8, 2, 6), dict(filter_size=5, padding=2), ([4, 8, 3, 5], [1, 1, 2, 2])),
    ((8, 2, 2), dict(filter_size=3, padding=2, dilation=2), ([4, 8, 1, 1], [0, 0, 0, 0])),
])
def test_taps_that_read_only_padding_are_cut(chw, args, want):
    assert cropped(chw, lambda x: pd.layers.conv2d(x, 4, **args)) == [want]


def same_padded(x):
    """A 3x3 conv with padding_algorithm SAME (built with the paddings SAME resolves to)."""
    y = pd.layers.conv2d(x, 4, 3, padding=1)
    conv = [op for op in x.block.ops if op.type == "conv2d"][0]
    conv.set_attr("paddings", [0, 0])
    conv.set_attr("padding_algorithm", "SAME")
    return y


def test_same_padding_is_resolved_first():
    got = cropped((8, 1, 1), same_padded)
    assert got == [([4, 8, 1, 1], [0, 0, 0, 0])]


def test_an_image_of_undeclared_size_keeps_its_filter():
    got = cropped((8, -1, -1), lambda x: pd.layers.conv2d(x, 4, 3, padding=1), feed_hw=(1, 1))
    assert got == [([4, 8, 3, 3], [1, 1])]


def test_a_filter_whose_taps_all_meet_pixels_stays():
    assert cropped((8, 6, 6), lambda x: pd.layers.conv2d(x, 4, 3, padding=1)) == [
        ([4, 8, 3, 3], [1, 1])]


def test_a_depthwise_filter_is_left_to_the_kernel():
    program, scope, *_ = build((8, 1, 1), lambda x: pd.layers.conv2d(x, 8, 3, padding=1,
                                                                       groups=8))
    results = []
    passes.CROP_DEAD_TAPS.apply(program, scope, results)
    assert results[0].changes == []


def test_the_live_window_keeps_the_output_size():
    assert live_window((1, 1), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), (1, 1)) == (
        slice(1, 2), slice(1, 2), (0, 0, 0, 0))
    assert live_window((6, 6), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), (6, 6)) is None


def test_a_program_fed_any_size_elsewhere_keeps_its_filters():
    def conv_and_free_input(x):
        free = pd.layers.data("free", shape=[-1, 8, -1, -1], append_batch_size=False)
        pd.layers.scale(free, 2.0)
        return pd.layers.conv2d(x, 4, 3, padding=1)
    program, scope, *_ = build((8, 1, 1), conv_and_free_input)
    results = []
    passes.CROP_DEAD_TAPS.apply(program, scope, results)
    assert results[0].changes == []


def test_a_declared_image_size_the_ops_do_not_compute_cuts_nothing():
    """A file may declare a size its ops do not compute (PaddlePaddle's build-time shapes are
    sometimes wrong). Here the conv's input is declared 1x1 but is 3x3: a filter cut for the
    declared image would give wrong sums silently, so the pass runs the program once and cuts
    only where the declared sizes hold."""
    def lying(x):
        y = pd.layers.scale(x, 1.0)
        out = pd.layers.conv2d(y, 4, 3, padding=1)
        y.shape = [-1, 8, 1, 1]
        out.shape = [-1, 4, 1, 1]
        return out
    program, scope, exe, feed, fetch = build((8, 3, 3), lying)
    after = passes.CROP_DEAD_TAPS.apply(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe, rtol=1e-5, atol=1e-5)
    conv = [op for op in after.global_block().ops if op.type == "conv2d"][0]
    assert not conv.input("Filter")[0].endswith(".crop")
