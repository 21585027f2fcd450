"""filter_layout: the filters of dense convolutions that run faster channels last are stored so
(same shape and values, another memory layout), with the same outputs; others stay."""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb import passes
from tests.passes.conv_programs import build
from paddle_nb.ops import conv


def relaid(chw, conv_fn, feed_hw=None):
    """The filters of the convs after the pass, as (name, laid channels last), outputs checked
    unchanged by the whole pipeline and by the pass alone."""
    program, scope, exe, feed, fetch = build(chw, conv_fn, feed_hw)
    after = passes.FILTER_LAYOUT.apply(program, scope, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe, rtol=1e-5, atol=1e-5)
    full = passes.apply_passes(program, scope, keep=fetch)
    passes.check_unchanged(program, full, feed, fetch, scope, exe, rtol=1e-5, atol=1e-5)
    out = []
    for op in after.global_block().ops:
        if op.type == "conv2d":
            name = op.input("Filter")[0]
            value = scope.find_var(name).get_tensor().array()   # the held array, not a copy
            out.append((name.endswith(".hwc"), conv.channels_last(np, value)))
    return out


@pytest.mark.parametrize("chw, size", [((16, 4, 4), 8), ((32, 2, 2), 8), ((16, 9, 9), 2)])
def test_small_images_get_their_filter_channels_last(chw, size):
    got = relaid(chw, lambda x: pd.layers.conv2d(x, size, 3, padding=1, act="relu"))
    assert got == [(True, True)]


@pytest.mark.parametrize("chw, args, why", [
    ((3, 8, 8), dict(num_filters=8, filter_size=3, padding=1), "3 input channels"),
    ((16, 4, 4), dict(num_filters=8, filter_size=1), "a 1x1 filter: both layouts are one"),
    ((16, 4, 4), dict(num_filters=16, filter_size=3, padding=1, groups=16), "depthwise"),
    ((32, 16, 16), dict(num_filters=128, filter_size=3, padding=1), "many output channels"),
])
def test_other_filters_stay(chw, args, why):
    assert relaid(chw, lambda x: pd.layers.conv2d(x, **args)) in ([(False, False)], []), why


def test_an_image_of_undeclared_size_keeps_its_filter():
    got = relaid((16, -1, -1), lambda x: pd.layers.conv2d(x, 8, 3, padding=1), feed_hw=(4, 4))
    assert got == [(False, False)]


def test_one_filter_read_by_two_convs_is_laid_once():
    def twice(x):
        y = pd.layers.conv2d(x, 16, 3, padding=1, param_attr="shared_w", bias_attr=False)
        return pd.layers.conv2d(y, 16, 3, padding=1, param_attr="shared_w", bias_attr=False)
    program, scope, exe, feed, fetch = build((16, 4, 4), twice)
    results = []
    after = passes.FILTER_LAYOUT.apply(program, scope, results, keep=fetch)
    passes.check_unchanged(program, after, feed, fetch, scope, exe, rtol=1e-5, atol=1e-5)
    assert [kind for kind, _, _ in results[0].changes] == ["relaid"]
    assert {op.input("Filter")[0] for op in after.global_block().ops
            if op.type == "conv2d"} == {"shared_w.hwc"}
