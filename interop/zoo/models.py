"""The zoo's models, each at the smallest size its package's constructor allows, in eval mode.

Each entry of :data:`ZOO` is a :class:`Model`: where it comes from, what was shrunk, its
feeds (name, shape with the batch, dtype, for integers the exclusive ``high`` of their
values, or fixed values), and ``build(zoo)``: a function of the imported packages returning
``(layer, input_spec)``, the dygraph Layer and the ``input_spec`` its package's export tool
would pass to ``paddle.jit.to_static``. Nothing here downloads anything: every model is
made from its constructor or its config, with random weights (``make_zoo`` overwrites them).

The packages are imported by :func:`import_zoo`, which knows two facts about them:

- ``libpaddle.so`` carries its own copy of zlib and exports its symbols; Python's ``zlib``
  module, when first loaded after ``import paddle``, binds to that copy and fails
  ("inconsistent stream state", or a SIGSEGV in ``inflateReset2``). Extension modules built
  with Cython 3.1 (scikit-learn's, which ``ppcls.utils`` imports) decompress their string
  constants with ``zlib`` while loading, so ``import zlib`` must come before ``import paddle``;
- the ``paddleclas`` wheel keeps PaddleClas's code under ``paddleclas/ppcls``, imported as
  ``ppcls``: that folder goes on ``sys.path``.
"""

import importlib
import sys
import types
from typing import Callable, NamedTuple

__all__ = ["Model", "ZOO", "import_zoo"]


class Model(NamedTuple):
    package: str        # the zoo package (and version) the model comes from
    source: str         # the constructor or config it is built from
    shrunk: str         # what is smaller than the zoo's own smallest configuration
    feeds: tuple        # ((name, shape, dtype, high or a fixed value), ...)
    build: Callable     # zoo -> (layer, input_spec)


def import_zoo():
    """The zoo packages' modules, imported in the order that works (see the module docstring)."""
    import zlib  # noqa: F401  (before paddle: see the module docstring)
    import paddle
    spec = importlib.util.find_spec("paddleclas")
    sys.path.insert(0, spec.submodule_search_locations[0])
    names = ["ppcls.arch.backbone", "ppdet.core.workspace", "ppdet.modeling",
             "paddleseg.models", "paddlenlp.transformers"]
    modules = {n: importlib.import_module(n) for n in names}
    return types.SimpleNamespace(paddle=paddle, clas=modules["ppcls.arch.backbone"],
                                 det=modules["ppdet.core.workspace"],
                                 seg=modules["paddleseg.models"],
                                 nlp=modules["paddlenlp.transformers"])


def _spec(zoo, feeds):
    """One InputSpec per feed, the batch dimension free."""
    return [zoo.paddle.static.InputSpec([None, *shape[1:]], dtype, name)
            for name, shape, dtype, _ in feeds]


def _image(shape):
    return (("x", shape, "float32", None),)


def _clas(make, feeds):
    def build(zoo):
        layer = make(zoo.clas)
        layer.eval()
        return layer, _spec(zoo, feeds)
    return build


# ---- PaddleClas 2.6.0 ------------------------------------------------------------------

CLAS = "paddleclas 2.6.0"
_IMG = _image([1, 3, 32, 32])
_LINE = _image([1, 3, 32, 64])        # a text line: PP-OCR's inputs are 48 (or 80) high

ZOO = {
    "ppcls_pplcnet_x0_25": Model(
        CLAS, "ppcls.arch.backbone.PPLCNet_x0_25", "10 classes, 3x32x32 (224x224 in the zoo)",
        _IMG, _clas(lambda c: c.PPLCNet_x0_25(class_num=10), _IMG)),
    "ppcls_pphgnet_tiny": Model(
        CLAS, "ppcls.arch.backbone.PPHGNet_tiny", "10 classes, 3x32x32 (224x224 in the zoo)",
        _IMG, _clas(lambda c: c.PPHGNet_tiny(class_num=10), _IMG)),
    "ppcls_vit": Model(
        CLAS, "ppcls.arch.backbone.model_zoo.vision_transformer.VisionTransformer",
        "ViT_small_patch16_224's layer at 3x32x32, patch 16, embed_dim 32, depth 2, 2 heads, "
        "qkv_bias (the zoo's smallest: 224x224, 768 wide, depth 8)", _IMG,
        _clas(lambda c: c.model_zoo.vision_transformer.VisionTransformer(
            img_size=32, patch_size=16, class_num=10, embed_dim=32, depth=2, num_heads=2,
            qkv_bias=True), _IMG)),
    "ppcls_swin": Model(
        CLAS, "ppcls.arch.backbone.legendary_models.swin_transformer.SwinTransformer",
        "SwinTransformer_tiny's layer at 3x32x32, patch 4, window 4, embed_dim 16, depths "
        "[2, 2], heads [1, 2] (the zoo's: 224x224, window 7, 96 wide, depths [2, 2, 6, 2])",
        _IMG, _clas(lambda c: c.legendary_models.swin_transformer.SwinTransformer(
            img_size=32, patch_size=4, class_num=10, embed_dim=16, depths=[2, 2],
            num_heads=[1, 2], window_size=4), _IMG)),
    # PP-OCR's recognizer backbone: SVTR's local (windowed, masked) and global mixing
    "ppcls_svtr": Model(
        CLAS, "ppcls.arch.backbone.model_zoo.svtrnet.SVTRNet",
        "SVTR_tiny's mixers (Local then Global) at 3x32x64, embed_dim [16, 32, 48], depth "
        "[1, 1, 1], heads [1, 2, 2], 10 classes (SVTR_tiny: 48x320, [64, 128, 256], [3, 6, 3])",
        _LINE, _clas(lambda c: c.model_zoo.svtrnet.SVTRNet(
            img_size=[32, 64], class_num=10, embed_dim=[16, 32, 48], depth=[1, 1, 1],
            num_heads=[1, 2, 2], mixer=["Local", "Global", "Global"], out_channels=32),
            _LINE)),
    # PULC textline_orientation (PP-OCR's text-line direction classifier): PP-LCNet x1.0,
    # 2 classes, strides keeping the line's width
    "ppcls_textline_orientation": Model(
        CLAS, "ppcls.arch.backbone.PPLCNet_x1_0 (PULC textline_orientation's Arch)",
        "3x32x64 (80x160 in the zoo)", _LINE,
        _clas(lambda c: c.PPLCNet_x1_0(class_num=2, stride_list=[2, [2, 1], [2, 1], [2, 1],
                                                                 [2, 1]]), _LINE)),
}

