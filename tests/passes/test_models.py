"""Every inference pass keeps the outputs of every zoo model and corpus inference program.

Each model is loaded as ``tests/compat`` loads it (``interop.run_corpus.Inference``: its
program, feeds and synthesized parameters), rewritten by ``INFERENCE_PASSES``, and both programs
run on the model's recorded inputs: the outputs must agree within 1e-5. The op counts before and
after are checked against what each pass reports, and a second run of the rewritten program
gives the same outputs and leaves the feeds as they were (buffer reuse wrote over temporaries
only).
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from interop import run_corpus
from paddle_nb import passes
from paddle_nb.ops.machinery import registry

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26"
SOURCES = {"zoo": FIXTURES / "zoo", "corpus": FIXTURES / "corpus"}


def models():
    params = []
    for where, path in SOURCES.items():
        for name, entry in run_corpus.manifest(path).items():
            if entry["kind"] == "inference" and not run_corpus.missing_ops(entry, registry):
                params.append(pytest.param(where, name, id=f"{where}-{name}"))
    return params


@pytest.mark.parametrize("where, name", models())
def test_the_passes_keep_the_outputs(where, name):
    model = run_corpus.Inference(pd, SOURCES[where], name,
                                 run_corpus.manifest(SOURCES[where])[name])
    results = []
    after = passes.apply_passes(model.program, model.scope, results=results)
    feed = {k: np.array(v, copy=True) for k, v in model.feed.items()}
    got = passes.check_unchanged(model.program, after, model.feed, model.fetches, model.scope,
                                 model.exe, rtol=1e-5, atol=1e-5)
    # buffer reuse wrote over temporaries only: not over the feeds, parameters or constants
    again = model.exe.run(after, feed=model.feed, fetch_list=model.fetches, scope=model.scope)
    for first, second in zip(got, again):
        np.testing.assert_array_equal(np.asarray(second), np.asarray(first))
    for name, value in feed.items():
        np.testing.assert_array_equal(np.asarray(model.feed[name]), value)
    before_ops = len(model.program.global_block().ops)
    assert [r.ops_before for r in results][0] == before_ops
    assert results[-1].ops_after == len(after.global_block().ops) <= before_ops
    for earlier, later in zip(results, results[1:]):
        assert earlier.ops_after == later.ops_before
    kinds = [kind for r in results for kind, _, _ in r.changes]
    fused = sum(t.count(" + ") for r in results for kind, t, _ in r.changes if kind == "fused")
    removed = kinds.count("removed") + kinds.count("folded_away") + fused
    assert before_ops - len(after.global_block().ops) == removed
    folded = kinds.count("folded") + kinds.count("folded_away")
    counts_before, counts_after = passes.op_counts(model.program), passes.op_counts(after)
    assert counts_before.get("batch_norm", 0) - counts_after.get("batch_norm", 0) == folded
    assert model.program.serialize() == model.data      # the program given is not changed
