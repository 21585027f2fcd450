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
import os
import sys
import tempfile
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
    "ppcls_pphgnetv2_b0": Model(
        CLAS, "ppcls.arch.backbone.PPHGNetV2_B0", "10 classes, 3x32x32 (224x224 in the zoo)",
        _IMG, _clas(lambda c: c.PPHGNetV2_B0(class_num=10), _IMG)),
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

# ---- PaddleDetection 2.6.0 -------------------------------------------------------------

# PP-PicoDet XS (configs/picodet/picodet_xs_320_coco_lcnet.yml with its _base_/picodet_v2.yml,
# in PaddleDetection 2.6's config format): LCNet x0.35, LCPAN 96, PicoHeadV2 with NMS. LCPAN's
# spatial_scales is given: LCPAN appends to its default list, so a second PicoDet in one
# process would get five scales
PICODET_XS = """
architecture: PicoDet
num_classes: 80
PicoDet: {backbone: LCNet, neck: LCPAN, head: PicoHeadV2}
LCNet: {scale: 0.35, feature_maps: [3, 4, 5]}
LCPAN: {out_channels: 96, use_depthwise: True, num_features: 4,
        spatial_scales: [0.125, 0.0625, 0.03125]}
PicoHeadV2:
  conv_feat: {name: PicoFeat, feat_in: 96, feat_out: 96, num_convs: 2, num_fpn_stride: 4,
              norm_type: bn, share_cls_reg: True, use_se: True}
  fpn_stride: [8, 16, 32, 64]
  feat_in_chan: 96
  prior_prob: 0.01
  reg_max: 7
  cell_offset: 0.5
  grid_cell_scale: 5.0
  static_assigner_epoch: 100
  use_align_head: True
  static_assigner: {name: ATSSAssigner, topk: 9, force_gt_matching: False}
  assigner: {name: TaskAlignedAssigner, topk: 13, alpha: 1.0, beta: 6.0}
  loss_class: {name: VarifocalLoss, use_sigmoid: False, iou_weighted: True, loss_weight: 1.0}
  loss_dfl: {name: DistributionFocalLoss, loss_weight: 0.5}
  loss_bbox: {name: GIoULoss, loss_weight: 2.5}
  nms: {name: MultiClassNMS, nms_top_k: 1000, keep_top_k: 100, score_threshold: 0.025,
        nms_threshold: 0.6}
"""

# the exporter's input_spec less im_shape, which PicoDet's program does not read (the
# exporter prunes it: paddle.jit.save refuses a feed the program does not use)
_DET_FEEDS = (("image", [1, 3, 64, 64], "float32", None),
              ("scale_factor", [1, 2], "float32", [1.0, 1.0]))


def _from_config(zoo, config):
    """The architecture of a PaddleDetection config (YAML text), in eval mode."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.yml")
        with open(path, "w") as f:
            f.write(config)
        cfg = zoo.det.load_config(path)
    layer = zoo.det.create(cfg.architecture)
    layer.eval()
    return layer


def _picodet(post_process):
    """PicoDet as ``tools/export_model.py`` exports it: with its post-processing and NMS
    (inputs image and scale_factor), or without (the head's raw scores and boxes;
    the image alone, as PaddleDetection's exporter prunes the inputs to)."""
    def build(zoo):
        layer = _from_config(zoo, PICODET_XS)
        layer.export_post_process = layer.export_nms = post_process
        feeds = _DET_FEEDS if post_process else _DET_FEEDS[:1]
        return layer, [dict(zip([n for n, *_ in feeds], _spec(zoo, feeds)))]
    return build


# PP-YOLOE+ s (configs/ppyoloe/ppyoloe_plus_crn_s_80e_coco.yml with its _base_ files):
# CSPResNet, CustomCSPPAN, PPYOLOEHead with NMS, depth 0.33 and width 0.5 of the large one
PPYOLOE_PLUS_S = """
architecture: YOLOv3
num_classes: 80
norm_type: bn
depth_mult: 0.33
width_mult: 0.50
YOLOv3: {backbone: CSPResNet, neck: CustomCSPPAN, yolo_head: PPYOLOEHead, post_process: ~}
CSPResNet: {layers: [3, 6, 6, 3], channels: [64, 128, 256, 512, 1024], return_idx: [1, 2, 3],
            use_large_stem: True, use_alpha: True}
CustomCSPPAN: {out_channels: [768, 384, 192], stage_num: 1, block_num: 3, act: swish,
               spp: True}
PPYOLOEHead:
  fpn_strides: [32, 16, 8]
  grid_cell_scale: 5.0
  grid_cell_offset: 0.5
  static_assigner_epoch: 30
  use_varifocal_loss: True
  loss_weight: {class: 1.0, iou: 2.5, dfl: 0.5}
  static_assigner: {name: ATSSAssigner, topk: 9}
  assigner: {name: TaskAlignedAssigner, topk: 13, alpha: 1.0, beta: 6.0}
  nms: {name: MultiClassNMS, nms_top_k: 1000, keep_top_k: 300, score_threshold: 0.01,
        nms_threshold: 0.7}
"""


def _ppyoloe(zoo):
    """PP-YOLOE+ as ``tools/export_model.py`` exports it: its post-processing and NMS."""
    layer = _from_config(zoo, PPYOLOE_PLUS_S)
    return layer, [dict(zip([n for n, *_ in _DET_FEEDS], _spec(zoo, _DET_FEEDS)))]


DET = "paddledet 2.6.0"
ZOO["ppdet_picodet_xs_nms"] = Model(
    DET, "PicoDet (picodet_xs_320_coco_lcnet.yml), export post_process and nms",
    "3x64x64 images (320x320 in the zoo); 80 classes", _DET_FEEDS, _picodet(True))
ZOO["ppdet_picodet_xs_raw"] = Model(
    DET, "PicoDet (picodet_xs_320_coco_lcnet.yml), exported without post-processing",
    "3x64x64 images (320x320 in the zoo); 80 classes", _DET_FEEDS[:1], _picodet(False))
ZOO["ppdet_ppyoloe_plus_s_nms"] = Model(
    DET, "YOLOv3 (ppyoloe_plus_crn_s_80e_coco.yml), export post_process and nms",
    "3x64x64 images (640x640 in the zoo); 80 classes", _DET_FEEDS, _ppyoloe)


# ---- PaddleSeg 2.8.0 -------------------------------------------------------------------

def _pp_liteseg(zoo):
    """PP-LiteSeg-T (pp_liteseg_stdc1_cityscapes): STDC1, arm_out_chs [32, 64, 128],
    seg_head_inter_chs [32, 64, 64], 19 classes; its logits (PaddleSeg's export would add an
    argmax, whose ties random weights make fragile)."""
    backbone = zoo.seg.backbones.STDC1()
    layer = zoo.seg.PPLiteSeg(19, backbone, arm_out_chs=[32, 64, 128],
                              seg_head_inter_chs=[32, 64, 64])
    layer.eval()
    return layer, _spec(zoo, _IMG_SEG)


_IMG_SEG = _image([1, 3, 32, 32])
ZOO["paddleseg_pp_liteseg_t"] = Model(
    "paddleseg 2.8.0", "paddleseg.models.PPLiteSeg + backbones.STDC1 (pp_liteseg_stdc1)",
    "3x32x32 (1024x512 in the zoo); logits, not the exported argmax", _IMG_SEG, _pp_liteseg)


def _unet(zoo):
    """PaddleSeg's UNet (unet_cityscapes), 2 classes; its logits."""
    layer = zoo.seg.UNet(2)
    layer.eval()
    return layer, _spec(zoo, _IMG_SEG)


ZOO["paddleseg_unet"] = Model(
    "paddleseg 2.8.0", "paddleseg.models.UNet (unet_cityscapes)",
    "3x32x32 (1024x512 in the zoo), 2 classes; logits, not the exported argmax", _IMG_SEG,
    _unet)


# ---- PaddleNLP 2.8.1 -------------------------------------------------------------------

TINY = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=32)
_IDS = (("input_ids", [1, 8], "int64", 100),)


# PaddleNLP 2.8.1 layers that defeat PaddlePaddle 2.6's AST transformer (full_graph=True):
# GPTLayerNorm.forward calls ``super().forward`` ("super(): no arguments" in the transformed
# code), and the early returns of LlamaRMSNorm.forward and LlamaMLP.forward leave a name
# undefined. None has tensor-dependent control flow, so each is marked
# ``paddle.jit.not_to_static``: its Python runs as written on the static variables, appending
# the same ops.
NOT_TO_STATIC = {"GPTForCausalLM": ("gpt.modeling", "GPTLayerNorm"),
                 "LlamaForCausalLM": ("llama.modeling", "LlamaRMSNorm", "LlamaMLP")}


def _nlp(config, model):
    def build(zoo):
        if model in NOT_TO_STATIC:
            module, *classes = NOT_TO_STATIC[model]
            for cls in classes:
                layer_cls = getattr(importlib.import_module(f"paddlenlp.transformers.{module}"),
                                    cls)
                layer_cls.forward = zoo.paddle.jit.not_to_static(layer_cls.forward)
        layer = getattr(zoo.nlp, model)(getattr(zoo.nlp, config)(**TINY))
        layer.eval()
        return layer, _spec(zoo, _IDS)
    return build


NLP = "paddlenlp 2.8.1"
_SHRUNK = "2 layers, hidden 32, 2 heads, FFN 64, vocab 100, 32 positions; 8 tokens"
ZOO["paddlenlp_ernie"] = Model(NLP, "paddlenlp.transformers.ErnieModel(ErnieConfig)", _SHRUNK,
                               _IDS, _nlp("ErnieConfig", "ErnieModel"))
ZOO["paddlenlp_bert"] = Model(NLP, "paddlenlp.transformers.BertModel(BertConfig)", _SHRUNK,
                              _IDS, _nlp("BertConfig", "BertModel"))
ZOO["paddlenlp_gpt"] = Model(NLP, "paddlenlp.transformers.GPTForCausalLM(GPTConfig)", _SHRUNK,
                             _IDS, _nlp("GPTConfig", "GPTForCausalLM"))
ZOO["paddlenlp_llama"] = Model(NLP, "paddlenlp.transformers.LlamaForCausalLM(LlamaConfig)",
                               _SHRUNK, _IDS, _nlp("LlamaConfig", "LlamaForCausalLM"))
