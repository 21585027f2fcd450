"""Programs of one convolution for the pass tests: built, started, fed."""

import numpy as np

import paddle_nb as pd


def build(chw, conv_fn, feed_hw=None):
    """(program, scope, exe, feed, fetch) of ``conv_fn(x)`` for x declared [-1, *chw], fed a
    batch of 2 images of ``feed_hw`` (default: the declared size)."""
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[-1, *chw], append_batch_size=False)
        out = conv_fn(x)
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    hw = feed_hw or chw[1:]
    feed = {"x": np.random.default_rng(0).standard_normal((2, chw[0]) + tuple(hw))
            .astype("float32")}
    return main, scope, exe, feed, [out.name]
