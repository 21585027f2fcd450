"""The 2.x losses and norms compared with PaddlePaddle 2.6.2: one table both sides build.

Each case is ``build(F, nn, data) -> output`` written against the API paddle and
paddle_nb share (``F`` is ``nn.functional``; ``data(name)`` gives the case's fed
variable, declared from FEEDS). interop/api/lossnorm_api_refs.py builds each case with
PaddlePaddle, tests/api/test_lossnorm_api.py with paddle_nb, and compares op types,
names, parameters, outputs and gradients. ``EXACT`` cases must also write the same op
types and temporaries' names; the others (2.6 composes them from ops paddle_nb writes
differently) must compute the same.
"""

import numpy as np

rng = np.random.default_rng(7)


def _n(*shape):
    return rng.standard_normal(shape).astype("float32")


def _p(*shape):
    return (rng.random(shape) * 0.8 + 0.1).astype("float32")


def _sign(*shape):
    return np.where(rng.random(shape) > 0.5, 1.0, -1.0).astype("float32")


FEEDS = {
    "x": _n(4, 3), "y": _n(4, 3), "p": _p(4, 3), "q": _p(4, 3), "t": _sign(4, 3),
    "label": np.array([0, 2, 1, 2], dtype="int64"), "label1": np.array([[1], [0], [2], [1]]),
    "w3": _p(3) + 0.5, "w43": _p(4, 3), "sign4": np.array([1, -1, -1, 1], dtype="int64"),
    "img": _n(2, 3, 2, 2), "img4d_label": np.array([[[0, 2], [1, 1]], [[2, 0], [0, 1]]]),
    "seq": _n(2, 3, 4), "nlc": _n(2, 4, 3), "vol": _n(2, 3, 2, 1, 2), "grp": _n(2, 4, 2, 3),
    "b3": _n(3), "p1": _p(4, 1), "q1": _p(4, 1), "mean3": _n(3) * 0.1, "var3": _p(3) + 0.5,
    "lrn_in": _n(2, 5, 2, 2), "big": (rng.random((4, 3)) * 3).astype("float32"),
    "norm1": np.array([2.5], dtype="float32"),
    "seq_label": np.array([[0, 2, 1, 1], [2, 2, 0, 1]]),
    "label_f": np.array([0.0, 2.0, 0.0, 1.0], dtype="float32"), "ctc_logits": _n(5, 2, 4),
    "ctc_labels": np.array([[1, 2, 2], [3, 1, 0]], dtype="int32"),
    "ctc_in_len": np.array([5, 4]), "ctc_label_len": np.array([3, 2]),
}
FLOAT_GRAD = {"ctc_logits", "x", "y", "p", "p1", "img", "seq", "nlc", "vol", "grp", "lrn_in"}


def _eval(layer):
    layer.eval()          # (PaddlePaddle's eval() returns None)
    return layer


def _ce(F, nn, d, **kw):
    return F.cross_entropy(d("x"), d("label"), **kw)


CASES = {
    "cross_entropy": lambda F, nn, d: _ce(F, nn, d),
    "cross_entropy_label_column": lambda F, nn, d: F.cross_entropy(d("x"), d("label1")),
    "cross_entropy_weight": lambda F, nn, d: _ce(F, nn, d, weight=d("w3")),
    "cross_entropy_weight_none": lambda F, nn, d: _ce(F, nn, d, weight=d("w3"),
                                                      reduction="none"),
    "cross_entropy_ignore": lambda F, nn, d: _ce(F, nn, d, ignore_index=1),
    "cross_entropy_sum_ignore": lambda F, nn, d: _ce(F, nn, d, ignore_index=2, reduction="sum"),
    "cross_entropy_smoothing": lambda F, nn, d: _ce(F, nn, d, label_smoothing=0.1),
    "cross_entropy_no_softmax": lambda F, nn, d: F.cross_entropy(d("p"), d("label"),
                                                                 use_softmax=False),
    "cross_entropy_soft_weight": lambda F, nn, d: F.cross_entropy(
        d("x"), d("q"), soft_label=True, weight=d("w3")),
    "cross_entropy_soft_none": lambda F, nn, d: F.cross_entropy(d("x"), d("q"), soft_label=True,
                                                                reduction="none"),
    "softmax_with_cross_entropy": lambda F, nn, d: F.softmax_with_cross_entropy(d("x"),
                                                                                d("label1")),
    "mse_loss": lambda F, nn, d: F.mse_loss(d("x"), d("y")),
    "l1_loss_sum": lambda F, nn, d: F.l1_loss(d("x"), d("y"), reduction="sum"),
    "smooth_l1_none": lambda F, nn, d: F.smooth_l1_loss(d("x"), d("y"), reduction="none",
                                                        delta=0.5),
    "binary_cross_entropy_weight": lambda F, nn, d: F.binary_cross_entropy(
        d("p"), d("q"), weight=d("w43"), reduction="sum"),
    "bce_with_logits_pos_weight": lambda F, nn, d: F.binary_cross_entropy_with_logits(
        d("x"), d("q"), weight=d("w43"), pos_weight=d("w3")),
    "bce_with_logits": lambda F, nn, d: F.binary_cross_entropy_with_logits(d("x"), d("q")),
    "nll_loss_weight": lambda F, nn, d: F.nll_loss(d("x"), d("label"), weight=d("w3")),
    "nll_loss_4d_none": lambda F, nn, d: F.nll_loss(d("img"), d("img4d_label"), reduction="none",
                                                    ignore_index=1),
    "kl_div_mean": lambda F, nn, d: F.kl_div(d("x"), d("q")),
    "kl_div_sum": lambda F, nn, d: F.kl_div(d("x"), d("q"), reduction="sum"),
    "margin_ranking_loss": lambda F, nn, d: F.margin_ranking_loss(d("x"), d("y"), d("t"),
                                                                  margin=0.1),
    "soft_margin_loss": lambda F, nn, d: F.soft_margin_loss(d("x"), d("t")),
    "multi_label_soft_margin": lambda F, nn, d: F.multi_label_soft_margin_loss(d("x"), d("q")),
    "sigmoid_focal_loss": lambda F, nn, d: F.sigmoid_focal_loss(d("x"), d("q")),
    "dice_loss": lambda F, nn, d: F.dice_loss(d("p"), d("label1")),
    "poisson_nll_loss": lambda F, nn, d: F.poisson_nll_loss(d("x"), d("q")),
    "log_loss": lambda F, nn, d: F.log_loss(d("p1"), d("q1")),
    "square_error_cost": lambda F, nn, d: F.square_error_cost(d("x"), d("y")),
    "label_smooth": lambda F, nn, d: F.label_smooth(d("p"), epsilon=0.2),
    "hinge_embedding_loss": lambda F, nn, d: F.hinge_embedding_loss(d("x"), d("t"), margin=0.5),
    "cosine_embedding_loss": lambda F, nn, d: F.cosine_embedding_loss(d("x"), d("y"),
                                                                      d("sign4"), margin=0.1),
    "triplet_margin_loss": lambda F, nn, d: F.triplet_margin_loss(d("x"), d("y"), d("p")),
    "gaussian_nll_loss": lambda F, nn, d: F.gaussian_nll_loss(d("x"), d("y"), d("q")),
    "ctc_loss": lambda F, nn, d: F.ctc_loss(d("ctc_logits"), d("ctc_labels"), d("ctc_in_len"),
                                            d("ctc_label_len")),
    "ctc_loss_sum_norm": lambda F, nn, d: F.ctc_loss(d("ctc_logits"), d("ctc_labels"),
                                                     d("ctc_in_len"), d("ctc_label_len"),
                                                     reduction="sum", norm_by_times=True),
    "margin_ranking_loss_none": lambda F, nn, d: F.margin_ranking_loss(d("x"), d("y"), d("t"),
                                                                       reduction="none"),
    "poisson_nll_loss_full": lambda F, nn, d: F.poisson_nll_loss(d("p"), d("big"), full=True,
                                                                 log_input=False),
    "sigmoid_focal_normalizer": lambda F, nn, d: F.sigmoid_focal_loss(
        d("x"), d("q"), normalizer=d("norm1"), alpha=0.5, gamma=1.5, reduction="mean"),
    "multi_label_weight": lambda F, nn, d: F.multi_label_soft_margin_loss(
        d("x"), d("q"), weight=d("w43"), reduction="none"),
    "nll_loss_3d_none": lambda F, nn, d: F.nll_loss(d("seq"), d("seq_label"), reduction="none"),
    "nll_loss_3d_mean": lambda F, nn, d: F.nll_loss(d("seq"), d("seq_label"), weight=d("w3")),
    "cross_entropy_axis1": lambda F, nn, d: F.cross_entropy(d("img"), d("img4d_label"), axis=1),
    "cross_entropy_axis1_none": lambda F, nn, d: F.cross_entropy(d("img"), d("img4d_label"),
                                                                 axis=1, reduction="none"),
    "cross_entropy_axis1_weight": lambda F, nn, d: F.cross_entropy(
        d("img"), d("img4d_label"), axis=1, weight=d("w3"), ignore_index=0),
    "cross_entropy_negative_ignore": lambda F, nn, d: _ce(F, nn, d, ignore_index=-1),
    "cross_entropy_column_none": lambda F, nn, d: F.cross_entropy(d("x"), d("label1"),
                                                                  reduction="none"),
    "cross_entropy_smoothing_none": lambda F, nn, d: _ce(F, nn, d, label_smoothing=0.2,
                                                         reduction="none"),
    "multi_margin_loss": lambda F, nn, d: F.multi_margin_loss(d("x"), d("label"), p=2,
                                                              margin=0.5),
    "multi_margin_loss_weight": lambda F, nn, d: F.multi_margin_loss(d("x"), d("label"),
                                                                     weight=d("w3")),
    "npair_loss": lambda F, nn, d: F.npair_loss(d("x"), d("y"), d("label_f")),
    # layers
    "TripletMarginWithDistanceLoss": lambda F, nn, d: nn.TripletMarginWithDistanceLoss(
        margin=0.3)(d("x"), d("y"), d("p")),
    "triplet_margin_with_distance_loss": lambda F, nn, d: F.triplet_margin_with_distance_loss(
        d("x"), d("y"), d("p"), swap=True, reduction="sum"),
    "MultiMarginLoss": lambda F, nn, d: nn.MultiMarginLoss(reduction="none")(d("x"),
                                                                             d("label")),
    "CrossEntropyLoss_weight_ignore": lambda F, nn, d: nn.CrossEntropyLoss(
        weight=d("w3"), ignore_index=2)(d("x"), d("label")),
    "L1Loss": lambda F, nn, d: nn.L1Loss()(d("x"), d("y")),
    "BCELoss_weight": lambda F, nn, d: nn.BCELoss(weight=d("w43"))(d("p"), d("q")),
    "HingeEmbeddingLoss": lambda F, nn, d: nn.HingeEmbeddingLoss(reduction="sum")(d("x"),
                                                                                  d("t")),
    "CosineEmbeddingLoss": lambda F, nn, d: nn.CosineEmbeddingLoss(reduction="none")(
        d("x"), d("y"), d("sign4")),
    "TripletMarginLoss_swap": lambda F, nn, d: nn.TripletMarginLoss(p=1.0, swap=True)(
        d("x"), d("y"), d("p")),
    "SoftMarginLoss": lambda F, nn, d: nn.SoftMarginLoss(reduction="none")(d("x"), d("t")),
    "MultiLabelSoftMarginLoss": lambda F, nn, d: nn.MultiLabelSoftMarginLoss()(d("x"), d("q")),
    "PoissonNLLLoss": lambda F, nn, d: nn.PoissonNLLLoss(reduction="sum")(d("x"), d("q")),
    "GaussianNLLLoss_full": lambda F, nn, d: nn.GaussianNLLLoss(full=True)(d("x"), d("y"),
                                                                           d("q")),
    "CTCLoss_none": lambda F, nn, d: nn.CTCLoss(blank=0, reduction="none")(
        d("ctc_logits"), d("ctc_labels"), d("ctc_in_len"), d("ctc_label_len")),
    "CrossEntropyLoss_soft": lambda F, nn, d: nn.CrossEntropyLoss(soft_label=True)(d("x"),
                                                                                   d("q")),
    "MSELoss_none": lambda F, nn, d: nn.MSELoss(reduction="none")(d("x"), d("y")),
    "BCEWithLogitsLoss": lambda F, nn, d: nn.BCEWithLogitsLoss(reduction="sum")(d("x"), d("q")),
    "NLLLoss": lambda F, nn, d: nn.NLLLoss(ignore_index=2)(d("x"), d("label")),
    "KLDivLoss": lambda F, nn, d: nn.KLDivLoss(reduction="none")(d("x"), d("q")),
    "SmoothL1Loss": lambda F, nn, d: nn.SmoothL1Loss()(d("x"), d("y")),
    "MarginRankingLoss": lambda F, nn, d: nn.MarginRankingLoss(0.2, "sum")(d("x"), d("y"),
                                                                           d("t")),
    # norms
    "F_batch_norm_train": lambda F, nn, d: F.batch_norm(d("img"), d("mean3"), d("var3"),
                                                        d("w3"), d("b3"), training=True),
    "F_batch_norm_eval": lambda F, nn, d: F.batch_norm(d("seq"), d("mean3"), d("var3"),
                                                       d("w3"), d("b3")),
    "F_layer_norm": lambda F, nn, d: F.layer_norm(d("seq"), [3, 4]),
    "F_instance_norm": lambda F, nn, d: F.instance_norm(d("img"), weight=d("w3"),
                                                        bias=d("b3")),
    "F_local_response_norm": lambda F, nn, d: F.local_response_norm(d("lrn_in"), 3),
    "BatchNorm2D": lambda F, nn, d: nn.BatchNorm2D(3)(d("img")),
    "BatchNorm2D_eval": lambda F, nn, d: _eval(nn.BatchNorm2D(3, momentum=0.7))(d("img")),
    "BatchNorm1D_NLC": lambda F, nn, d: nn.BatchNorm1D(3, data_format="NLC")(d("nlc")),
    "BatchNorm1D_global": lambda F, nn, d: nn.BatchNorm1D(3, use_global_stats=True)(d("x")),
    "BatchNorm3D": lambda F, nn, d: nn.BatchNorm3D(3, epsilon=1e-3)(d("vol")),
    "BatchNorm_act": lambda F, nn, d: nn.BatchNorm(3, act="relu")(d("img")),
    "BatchNorm_is_test": lambda F, nn, d: nn.BatchNorm(3, is_test=True)(d("img")),
    "LayerNorm": lambda F, nn, d: nn.LayerNorm([2, 2])(d("img")),
    "LayerNorm_no_affine": lambda F, nn, d: nn.LayerNorm(4, weight_attr=False,
                                                         bias_attr=False)(d("seq")),
    "GroupNorm": lambda F, nn, d: nn.GroupNorm(2, 4)(d("grp")),
    "GroupNorm_NHWC": lambda F, nn, d: nn.GroupNorm(3, 3, data_format="NHWC")(d("nlc")),
    "InstanceNorm1D": lambda F, nn, d: nn.InstanceNorm1D(3)(d("seq")),
    "InstanceNorm2D": lambda F, nn, d: nn.InstanceNorm2D(3)(d("img")),
    "InstanceNorm3D_no_affine": lambda F, nn, d: nn.InstanceNorm3D(
        3, weight_attr=False, bias_attr=False)(d("vol")),
    "LocalResponseNorm": lambda F, nn, d: nn.LocalResponseNorm(5, alpha=0.1)(d("lrn_in")),
}

# 2.6 writes these with ops paddle_nb composes differently (see each function's module)
VALUES_ONLY = {"triplet_margin_loss", "gaussian_nll_loss", "TripletMarginLoss_swap",
               "multi_margin_loss", "multi_margin_loss_weight", "npair_loss", "MultiMarginLoss",
               "TripletMarginWithDistanceLoss", "triplet_margin_with_distance_loss",
               "GaussianNLLLoss_full", "F_local_response_norm", "LocalResponseNorm"}

# the shape W (the gradient seed) is fed with where the output declares an unknown (-1)
W_SHAPES = {"CTCLoss_none": (2,)}
