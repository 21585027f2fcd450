"""The corpus of real PaddlePaddle 2.6.2 programs runs here to PaddlePaddle's outputs.

``interop/make_corpus.py`` (``make interop``) wrote ``tests/fixtures/paddle26/corpus`` with
PaddlePaddle itself: every ``paddle.vision.models`` family, Transformer and recurrent layers,
a text CNN, an upsampling net (inference models), and five training programs. Their
parameters are not stored: ``interop.synth`` makes them from their names, here as there.
For each program, without PaddlePaddle installed:

- parse -> serialize gives PaddlePaddle's bytes;
- every op type it uses is registered (one test per program, listing all that are missing);
- it runs to PaddlePaddle's outputs (inference) or to its losses and parameters after each of
  three steps (training), rtol 1e-4, atol 1e-6. A program whose op types are not all
  registered yet is an expected failure, not run, its reason the missing types (computed at
  collection); a program whose op types are all registered must pass.
"""

import pathlib

import pytest

import paddle_nb as pd
from interop import run_corpus
from paddle_nb.ops.machinery import registry

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "corpus"
MANIFEST = run_corpus.manifest(CORPUS) if (CORPUS / "manifest.json").is_file() else {}
KINDS = {"inference": (".pdmodel",), "training": (".main.pb", ".startup.pb")}


def programs(kind=None):
    """The corpus's programs as pytest params; those with unregistered op types xfail."""
    params = []
    for name, entry in MANIFEST.items():
        if kind is not None and entry["kind"] != kind:
            continue
        missing = run_corpus.missing_ops(entry, registry)
        marks = [pytest.mark.xfail(reason=f"paddle_nb does not register {', '.join(missing)}",
                                   run=False, strict=True)] if missing else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def close(rows, name):
    """Fail with every row that differs, with its relative and absolute error."""
    bad = [f"{what}: rel {r['rel']}, abs {r['abs']} {r.get('error', '')}"
           for what, r in rows if not r["ok"]]
    assert not bad, f"{name} differs from PaddlePaddle 2.6.2 (rtol {run_corpus.RTOL}, " \
        f"atol {run_corpus.ATOL}):\n  " + "\n  ".join(bad)


def test_the_corpus_is_there_and_covers_what_users_run():
    if not MANIFEST:
        pytest.fail(f"no corpus in {CORPUS} (make interop INTEROP_FIXTURES=tests/fixtures/"
                    "paddle26 writes it)")
    kinds = [e["kind"] for e in MANIFEST.values()]
    assert kinds.count("inference") >= 20 and kinds.count("training") >= 5
    files = sorted(p.name for p in CORPUS.iterdir())
    listed = sorted({f for e in MANIFEST.values() for f in e["files"]})
    assert sorted(set(files) - {"manifest.json", "op_examples.json"}) == listed
    # no parameter files: a committed program is its program(s) and its _io.npz
    assert not [f for f in files if f.endswith((".pdiparams", ".pdparams"))]
    assert sum((CORPUS / f).stat().st_size for f in files) < 3 * 1024 * 1024


@pytest.mark.parametrize("name", list(MANIFEST))
def test_parse_then_serialize_is_byte_for_byte_and_the_blocks_are_the_manifests(name):
    entry = MANIFEST[name]
    for suffix, blocks in zip(KINDS[entry["kind"]], ("blocks", "startup_blocks")):
        data = (CORPUS / f"{name}{suffix}").read_bytes()
        program = pd.Program.parse(data)
        assert program.serialize() == data, suffix
        assert program.desc.version.version == 2006002
        assert [[op.type for op in b.ops] for b in program.blocks] == entry[blocks], suffix


@pytest.mark.parametrize("name", list(MANIFEST))
def test_every_op_type_the_program_uses_is_registered(name):
    missing = run_corpus.missing_ops(MANIFEST[name], registry)
    assert missing == [], f"{name} uses op types paddle_nb does not register: {missing}"


@pytest.mark.parametrize("name", programs("inference"))
def test_the_inference_model_gives_paddles_outputs(name):
    model = run_corpus.Inference(pd, CORPUS, name, MANIFEST[name])
    close(model.rows(model.run()), name)


@pytest.mark.parametrize("name", programs("training"))
def test_three_training_steps_give_paddles_losses_and_parameters(name):
    close(run_corpus.train(pd, CORPUS, name, MANIFEST[name]), name)


def test_synthesized_parameters_depend_on_the_name_alone_and_keep_their_ranges():
    from interop import synth
    conv = synth.synth_params("conv2d_0.w_0", [8, 3, 3, 3])
    assert conv.dtype == "float32" and (synth.synth_params("conv2d_0.w_0", [8, 3, 3, 3]) ==
                                        conv).all()
    assert abs(conv).max() < (3 / 27) ** 0.5 and conv.std() > 0.1      # fan_in 3*3*3
    assert abs(synth.synth_params("linear_0.w_0", [300, 4])).max() < 0.1    # fan_in 300
    assert abs(synth.synth_params("conv2d_0.b_0", [64])).max() <= 0.1
    variance = synth.synth_params("batch_norm2d_0.w_2", [64])
    assert 0.5 <= variance.min() and variance.max() < 1.5
    assert not (synth.synth_params("conv2d_1.w_0", [8, 3, 3, 3]) == conv).any()
    with pytest.raises(ValueError, match="floating-point"):
        synth.synth_params("step", [1], "int64")
