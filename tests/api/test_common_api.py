"""The 2.x common, recurrent and attention layers and the linear-algebra functions against
PaddlePaddle 2.6.2.

Each case of ``interop/api/common_api_cases.py`` is built here with ``paddle_nb`` in place of
``paddle``; ``interop/api/common_api_refs.py`` built it with PaddlePaddle 2.6.2 and recorded
the op types it appended (main and startup programs), its parameters' names and shapes, the
outputs' names, and, with every parameter set to ``synth_params(name, shape)``, the outputs and
the gradients of ``sum(out_k * w_k)`` for the float feeds and the parameters. paddle_nb must
append the same ops, name the same parameters and outputs, and compute the same numbers.
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from interop.api.common_api_cases import CASES, RANDOM, UNKNOWN_BATCH, fixture_file
from interop.synth import synth_params
from paddle_nb.framework import unique_name

# the names these cases compare with PaddlePaddle (tools/api_coverage.py counts them as tested)
COVERED = [
    *(f"paddle.nn.{name}" for name in (
        "Linear", "Embedding", "Flatten", "Identity", "Dropout", "Dropout2D", "Dropout3D",
        "AlphaDropout", "Bilinear", "CosineSimilarity", "PairwiseDistance", "Sequential",
        "LayerList", "LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell",
        "MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
        "TransformerDecoderLayer", "TransformerDecoder", "Transformer")),
    *(f"paddle.nn.functional.{name}" for name in (
        "linear", "embedding", "one_hot", "dropout", "dropout2d", "dropout3d", "alpha_dropout",
        "bilinear", "cosine_similarity", "normalize", "pairwise_distance", "sequence_mask",
        "diag_embed")),
    *(f"paddle.{name}" for name in (
        "matmul", "mm", "bmm", "dot", "mv", "cross", "kron", "t", "norm", "dist", "trace",
        "einsum", "outer", "inner", "inverse", "cholesky", "diag_embed")),
    *(f"paddle.linalg.{name}" for name in ("norm", "inv", "solve", "cholesky", "matrix_power",
                                           "multi_dot", "triangular_solve", "eigvalsh",
                                           "eigh")),
]

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api"


def _load():
    cases = {}
    for file in sorted({fixture_file(name) for name in CASES}):
        if (FIXTURES / file).is_file():
            with np.load(FIXTURES / file) as values:
                _read(values, cases)
    return cases


def _read(values, cases):
    for key in values.files:
        name, kind, *rest = key.split("/")
        case = cases.setdefault(name, {"out": {}, "grad": {}, "w": {}, "shape": {}})
        if rest:
            case[kind]["/".join(rest)] = values[key]
        else:
            case[kind] = [str(s) for s in values[key]]


REFS = _load()


def build(name):
    """Case ``name`` built with paddle_nb: (main, startup, data variables, outputs)."""
    feeds, make = CASES[name]
    main, startup = pd.Program(), pd.Program()
    with unique_name.guard(), pd.program_guard(main, startup):
        v = {}
        for key, value in feeds.items():
            shape = list(value.shape)
            if name in UNKNOWN_BATCH:
                shape[0] = -1
            v[key] = pd.layers.data(key, shape, str(value.dtype), append_batch_size=False)
            v[key].stop_gradient = value.dtype.kind != "f"
        outs = make(pd, v)
    return main, startup, v, outs


def _params(program):
    return [p for p in program.global_block().vars.values() if p.is_parameter]


def _run(name, ref):
    main, startup, v, outs = build(name)
    with pd.program_guard(main, startup):
        loss = None
        for k, out in enumerate(o for o in outs if o.dtype.kind == "f"):
            w = pd.layers.data(f"w{k}", list(out.shape), append_batch_size=False)
            term = pd.layers.reduce_sum(pd.layers.elementwise_mul(out, w))
            loss = term if loss is None else pd.layers.elementwise_add(loss, term)
        wrt = [v[k] for k, a in CASES[name][0].items() if a.dtype.kind == "f"] + _params(main)
        grads = pd.gradients([loss], wrt) if loss is not None and wrt else []
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace())
    exe.run(startup, scope=scope)
    for p in _params(main):
        scope.var(p.name).get_tensor().set(synth_params(p.name, list(p.shape)), pd.CPUPlace())
    pairs = [(x, g) for x, g in zip(wrt, grads) if g is not None]
    feed = {**CASES[name][0], **ref["w"]}
    got = exe.run(main, feed=feed, fetch_list=list(outs) + [g for _, g in pairs], scope=scope)
    return got[:len(outs)], {x.name: g for (x, _), g in zip(pairs, got[len(outs):])}


@pytest.mark.parametrize("name", sorted(REFS) or ["absent"])
def test_builds_paddles_ops_and_names(name):
    if name not in REFS:
        pytest.fail(f"{FIXTURES / fixture_file(name)} is absent (interop/api/common_api_refs.py "
                    "writes it)")
    ref = REFS[name]
    main, startup, _, outs = build(name)
    assert [op.type for op in main.global_block().ops] == ref["ops"]
    assert [op.type for op in startup.global_block().ops] == ref["startup_ops"]
    assert [f"{p.name}:{list(p.shape)}" for p in _params(main)] == ref["params"]
    assert [o.name for o in outs] == ref["out_names"]


@pytest.mark.parametrize("name", sorted(REFS) or ["absent"])
def test_computes_paddles_values_and_gradients(name):
    if name not in REFS:
        pytest.fail(f"{FIXTURES / fixture_file(name)} is absent (interop/api/common_api_refs.py "
                    "writes it)")
    ref = REFS[name]
    outs, grads = _run(name, ref)
    if name in RANDOM:
        assert [list(np.shape(o)) for o in outs] == [list(ref["shape"][str(k)])
                                                    for k in range(len(outs))]
        return
    for k, value in enumerate(outs):
        want = ref["out"][str(k)]
        assert np.shape(value) == want.shape, f"{name}: output {k}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: output {k}")
    assert sorted(grads) == sorted(ref["grad"]), name
    for key, want in ref["grad"].items():
        np.testing.assert_allclose(grads[key], want, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{name}: gradient of {key}")
