"""Models of PaddlePaddle's own model zoos run here to PaddlePaddle's outputs.

``interop/make_zoo.py`` (``make interop``) exported them with PaddlePaddle 2.6.2 as the zoos'
export tools do (``paddle.jit.to_static(full_graph=True)`` + ``paddle.jit.save``) into
``tests/fixtures/paddle26/zoo``: PaddleClas's PP-LCNet, PP-HGNet (v1 and v2), ViT, Swin, SVTR
and PP-OCR's text-line orientation classifier, PaddleDetection's PicoDet with and without its
NMS and PP-YOLOE+ with it, PaddleSeg's PP-LiteSeg and UNet, PaddleNLP's ERNIE, BERT, GPT and
LLaMA, all shrunk to tiny sizes (``interop/README.md``, "The model zoos"). Their parameters
are not stored: ``interop.synth`` makes them from their names, here as there.
``interop/run_corpus.py`` runs each, as it runs the corpus: parse -> serialize keeps
PaddlePaddle's bytes, and the outputs agree with rtol 1e-4, atol 1e-6.

A model using op types paddle_nb does not register yet is listed in ``KNOWN_MISSING`` with
them: it is an expected failure (strict: once its ops are registered it must pass, and leave
the list), and the list must name exactly the types the registry lacks. A program paddle_nb
cannot parse yet is listed in ``KNOWN_UNPARSED``, with why, and is an expected failure too.
"""

import pathlib

import pytest

import paddle_nb as pd
from interop import run_corpus
from paddle_nb.ops.machinery import registry

ZOO = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "zoo"
MANIFEST = run_corpus.manifest(ZOO) if (ZOO / "manifest.json").is_file() else {}

# model -> the op types it uses that paddle_nb does not register yet (remove as they land)
KNOWN_MISSING = {}

# model -> why paddle_nb cannot parse its program yet (remove when it can)
KNOWN_UNPARSED = {}


def models(run=True):
    """The zoo's models as pytest params; those in KNOWN_UNPARSED (and, when they ``run``,
    KNOWN_MISSING) xfail, strictly: one that passes must leave the list."""
    params = []
    for name in MANIFEST:
        reasons = [KNOWN_UNPARSED[name]] if name in KNOWN_UNPARSED else []
        if run and name in KNOWN_MISSING:
            reasons.append(f"paddle_nb does not register {', '.join(KNOWN_MISSING[name])}")
        marks = [pytest.mark.xfail(reason="; ".join(reasons), strict=True)] if reasons else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def test_the_zoo_is_there_and_small():
    if not MANIFEST:
        pytest.fail(f"no zoo in {ZOO} (make interop INTEROP_FIXTURES=tests/fixtures/paddle26 "
                    "writes it)")
    packages = {e["package"].split()[0] for e in MANIFEST.values()}
    assert packages == {"paddleclas", "paddledet", "paddleseg", "paddlenlp"}
    files = sorted(p.name for p in ZOO.iterdir())
    listed = sorted({f for e in MANIFEST.values() for f in e["files"]})
    assert sorted(set(files) - {"manifest.json", "op_examples.json"}) == listed
    assert not [f for f in files if f.endswith((".pdiparams", ".pdparams"))]
    assert max((ZOO / f).stat().st_size for f in files) < 256 * 1024
    assert sum((ZOO / f).stat().st_size for f in files) < 5 * 1024 * 1024 // 2


def test_known_missing_names_exactly_the_op_types_the_registry_lacks():
    missing = {name: run_corpus.missing_ops(entry, registry) for name, entry in MANIFEST.items()}
    assert {n: m for n, m in missing.items() if m} == KNOWN_MISSING


@pytest.mark.parametrize("name", models(run=False))
def test_parse_then_serialize_is_byte_for_byte_and_the_blocks_are_the_manifests(name):
    data = (ZOO / f"{name}.pdmodel").read_bytes()
    program = pd.Program.parse(data)
    assert program.serialize() == data
    assert program.desc.version.version == 2006002
    assert [[op.type for op in b.ops] for b in program.blocks] == MANIFEST[name]["blocks"]


@pytest.mark.parametrize("name", models())
def test_the_zoo_model_gives_paddles_outputs(name):
    model = run_corpus.Inference(pd, ZOO, name, MANIFEST[name])
    rows = model.rows(model.run())
    bad = [f"{what}: rel {r['rel']}, abs {r['abs']} {r.get('error', '')}"
           for what, r in rows if not r["ok"]]
    assert not bad, f"{name} differs from PaddlePaddle 2.6.2 (rtol {run_corpus.RTOL}, " \
        f"atol {run_corpus.ATOL}):\n  " + "\n  ".join(bad)
