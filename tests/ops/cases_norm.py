"""Contract cases for paddle_nb/ops/norm.py: batch_norm and dropout.

batch_norm's reference loops over channels; dropout is random, so its cases
are ``seeded`` and their references are checks on what the kernel produced
(Out agrees with Mask and the scaling rule; the dropped fraction is near p).
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops.harness import Bad, Case, forward

rng = np.random.default_rng(5)
F = np.float32


def arr(*shape):
    return rng.standard_normal(shape).astype(F)


# ---- batch_norm ----

def bn_ref(ins, attrs):
    x = ins["X"].astype(np.float64)
    nhwc = attrs.get("data_layout") == "NHWC"
    axis = x.ndim - 1 if nhwc else 1
    eps, mom = attrs.get("epsilon", 1e-5), attrs.get("momentum", 0.9)
    global_stats = ((attrs.get("is_test", False) and not attrs.get("trainable_statistics", False))
                    or attrs.get("use_global_stats", False))
    y = np.empty_like(x)
    outs = {k: np.empty(x.shape[axis]) for k in ("MeanOut", "VarianceOut", "SavedMean",
                                                 "SavedVariance")}
    for c in range(x.shape[axis]):
        xc = np.take(x, c, axis=axis)
        run_m, run_v = float(ins["Mean"][c]), float(ins["Variance"][c])
        m, v = (run_m, run_v) if global_stats else (xc.mean(), ((xc - xc.mean()) ** 2).mean())
        scale = 1.0 if ins.get("Scale") is None else ins["Scale"][c]
        yc = (xc - m) / np.sqrt(v + eps) * scale + (0.0 if ins.get("Bias") is None
                                                     else ins["Bias"][c])
        idx = [slice(None)] * x.ndim
        idx[axis] = c
        y[tuple(idx)] = yc
        outs["MeanOut"][c] = run_m if global_stats else mom * run_m + (1 - mom) * m
        outs["VarianceOut"][c] = run_v if global_stats else mom * run_v + (1 - mom) * v
        outs["SavedMean"][c], outs["SavedVariance"][c] = m, 1 / np.sqrt(v + eps)
    return {"Y": y, **outs}


def bn(x, name, grad=("X", "Scale", "Bias"), **attrs):
    c = x.shape[-1] if attrs.get("data_layout") == "NHWC" else x.shape[1]
    ins = {"X": x, "Scale": (rng.random(c) + 0.5).astype(F), "Bias": arr(c),
           "Mean": arr(c) * 0.1, "Variance": (rng.random(c) + 0.5).astype(F)}
    return Case(inputs=ins, attrs=attrs, ref=bn_ref, grad=grad, grad_outputs=("Y",), name=name,
                rtol=1e-4, atol=1e-5)


BN = [
    bn(arr(2, 3, 2, 2), "NCHW training"),
    bn(arr(5, 4), "2-D training", momentum=0.8, epsilon=1e-3),
    bn(arr(2, 2, 2, 3), "NHWC training", data_layout="NHWC"),
    bn(arr(2, 3, 2, 2), "is_test uses running stats", is_test=True),
    bn(arr(2, 3, 2, 2), "use_global_stats in training", use_global_stats=True),
    bn(arr(4, 3), "is_test with trainable_statistics", is_test=True, trainable_statistics=True),
    bn(arr(8, 6, 5, 5), "larger, forward only", grad=()),
]


def _without(case, *slots):
    case.inputs = {k: v for k, v in case.inputs.items() if k not in slots}
    case.grad = tuple(s for s in case.grad if s not in slots)
    return case


BN += [_without(bn(arr(2, 3, 2), "no Scale, no Bias (F.batch_norm's default)"), "Scale", "Bias"),
       _without(bn(arr(3, 2, 3), "NLC without Bias", data_layout="NHWC"), "Bias")]


# ---- dropout ----

def _dropout_checks(p, upscale, tolerance=None):
    """Checks for Mask then Out (dict order): Out == X * Mask * scale, drop rate near p."""
    seen = {}

    def check_mask(mask):
        assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
        if tolerance is not None:
            assert abs((mask == 0).mean() - p) < tolerance, (mask == 0).mean()
        seen["mask"] = mask

    def make_out_check(x):
        def check_out(out):
            scale = 1 / (1 - p) if upscale else 1.0
            np.testing.assert_allclose(out, x * seen["mask"] * scale, rtol=1e-6)
        return check_out

    return check_mask, make_out_check


def dropout(x, p, impl, name, grad=(), tolerance=None, **attrs):
    attrs = {"dropout_prob": p, "dropout_implementation": impl, **attrs}
    check_mask, make_out_check = _dropout_checks(p, impl == "upscale_in_train", tolerance)
    return Case(inputs={"X": x}, attrs=attrs, seeded=True, grad=grad, name=name,
                ref=lambda ins, a: {"Mask": check_mask, "Out": make_out_check(ins["X"])})


def dropout_infer(x, p, impl, name, grad=("X",)):
    scale = 1.0 if impl == "upscale_in_train" else 1 - p
    return Case(inputs={"X": x}, name=name, grad=grad,
                attrs={"dropout_prob": p, "dropout_implementation": impl, "is_test": True},
                ref=lambda ins, a: {"Out": ins["X"] * scale})


BIG = arr(100, 100)
DROPOUT = [
    dropout(arr(3, 4), 0.5, "upscale_in_train", "grad, fixed seed", grad=("X",),
            fix_seed=True, seed=11),
    dropout(arr(3, 4), 0.3, "downgrade_in_infer", "grad downgrade", grad=("X",),
            fix_seed=True, seed=4),
    dropout(BIG, 0.3, "upscale_in_train", "upscale rate", tolerance=0.03),
    dropout(BIG, 0.7, "downgrade_in_infer", "downgrade rate", tolerance=0.03),
    dropout(BIG, 0.25, "upscale_in_train", "fixed seed rate", tolerance=0.03, fix_seed=True,
            seed=123),
    dropout(arr(4, 5), 0.0, "upscale_in_train", "p = 0 keeps all", tolerance=1e-9),
    dropout_infer(arr(3, 4), 0.4, "downgrade_in_infer", "is_test downgrade scales by 1-p"),
    dropout_infer(arr(3, 4), 0.4, "upscale_in_train", "is_test upscale passes X"),
]


def repeats(ins, attrs):
    """A check that Mask is the same when the run's generator differs (the seed fixes it)."""
    def check(mask):
        for run_seed in (1, 2):
            again = forward("dropout", ins, attrs, seed=run_seed)["Mask"]
            np.testing.assert_array_equal(mask, again)
    return {"Mask": check}


def varies(ins, attrs):
    """Without fix_seed, different runs draw different masks."""
    def check(mask):
        assert (forward("dropout", ins, attrs, seed=1)["Mask"] !=
                forward("dropout", ins, attrs, seed=2)["Mask"]).any()
    return {"Mask": check}


ONES = np.ones((30, 30), F)
DROPOUT += [
    Case(inputs={"X": ONES}, attrs={"fix_seed": True, "seed": 9}, ref=repeats, seeded=True,
         name="fix_seed repeats"),
    Case(inputs={"X": ONES, "Seed": np.array([17], np.int32)}, ref=repeats, seeded=True,
         name="Seed tensor repeats"),
    Case(inputs={"X": ONES}, ref=varies, seeded=True, name="free seed varies"),
]


CASES = {"batch_norm": BN, "dropout": DROPOUT}


def _m(*shape, dtype=F):
    return Meta(tuple(shape), np.dtype(dtype))


def _bn_bad(x, c, match, error=ShapeError, attrs=None, scale=None):
    vec = _m(c)
    return Bad(inputs={"X": x, "Scale": scale or vec, "Bias": vec, "Mean": vec, "Variance": vec},
               attrs=attrs or {}, error=error, match=match)


BAD = {
    "batch_norm": [
        _bn_bad(_m(2, 3, 4, 4), 4, r"Scale must have shape \(3,\).*got \(4,\)"),
        _bn_bad(_m(2, 4, 4, 3), 4, r"Scale must have shape \(3,\)", attrs={"data_layout": "NHWC"}),
        _bn_bad(_m(6), 6, r"X must have rank 2 to 5.*got shape \(6,\)"),
        _bn_bad(_m(2, 3), 3, r"Scale must have shape \(3,\).*got \(3, 1\)", scale=_m(3, 1)),
        _bn_bad(_m(2, 3, dtype=np.int32), 3, "floating-point"),
        _bn_bad(_m(2, 3), 3, "expected 'NCHW' or 'NHWC'", error=AttrError,
                attrs={"data_layout": "CHWN"}),
        # an empty batch, declared: PaddlePaddle 2.6 refuses it at build time too
        _bn_bad(_m(0, 3, 2, 2), 3, r"every dimension of X must be -1 or positive.*"
                                   r"got shape \(0, 3, 2, 2\)"),
    ],
    "dropout": [
        Bad(inputs={"X": _m(3, 4)}, attrs={"dropout_prob": 1.5}, error=AttrError,
            match=r"must be in \[0, 1\]"),
        Bad(inputs={"X": _m(3, 4)}, attrs={"dropout_implementation": "scale"}, error=AttrError,
            match="upscale_in_train"),
    ],
}
