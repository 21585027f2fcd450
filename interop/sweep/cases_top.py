"""Sweep cases for paddle's top-level functions (see specs.py for the helpers).

The in-place names (``abs_``, ``cast_``, ...) build their out-of-place op in a static program;
``make_sweep.auto_case`` makes the cases of those with one or two float tensors, and those
that need other arguments or integer / boolean inputs are here, next to their out-of-place
forms' cases that were missing.
"""

from interop.sweep.specs_base import B, F, Int, V, cls, fn  # noqa: F401

P = "paddle"
X, Y = V("x"), V("y")
F23 = F(2, 3)
II = dict(i=Int(2, 3, low=1, high=9), j=Int(2, 3, low=1, high=4))   # two int tensors, no zeros

INPLACE = [
    fn(f"{P}.bitwise_and_", V("i"), V("j"), **II),
    fn(f"{P}.bitwise_or_", V("i"), V("j"), **II),
    fn(f"{P}.bitwise_xor_", V("i"), V("j"), **II),
    fn(f"{P}.bitwise_not_", V("i"), i=Int(2, 3, high=8)),
    fn(f"{P}.logical_and_", V("m"), V("n"), m=B(2, 3), n=B(2, 3)),
    fn(f"{P}.logical_or_", V("m"), V("n"), m=B(2, 3), n=B(2, 3)),
    fn(f"{P}.logical_not_", V("m"), m=B(2, 3)),
    fn(f"{P}.floor_divide_", V("i"), V("j"), **II),
    fn(f"{P}.remainder_", V("i"), V("j"), **II),
    fn(f"{P}.mod_", V("i"), V("j"), **II),
    fn(f"{P}.floor_mod_", V("i"), V("j"), **II),
    fn(f"{P}.cast_", X, "float64", x=F23),
    fn(f"{P}.cumsum_", X, axis=1, x=F23),
    fn(f"{P}.cumprod_", X, dim=1, x=F23),
    fn(f"{P}.transpose_", X, [1, 0], x=F23),
    fn(f"{P}.tril_", X, x=F(3, 3)),
    fn(f"{P}.triu_", X, 1, x=F(3, 3)),
    fn(f"{P}.where_", V("m"), X, Y, x=F23, y=F23, m=B(2, 3)),
    fn(f"{P}.masked_fill_", X, V("m"), 0.5, x=F23, m=B(2, 3)),
    fn(f"{P}.index_add_", X, V("i"), 0, Y, x=F(3, 2), i=Int(2, high=3), y=F(2, 2)),
    fn(f"{P}.index_fill_", X, V("i"), 0, 0.5, x=F(3, 2), i=Int(2, high=3)),
    fn(f"{P}.index_put_", X, [V("i")], Y, x=F(3, 2), i=Int(2, high=3), y=F(2, 2)),
    fn(f"{P}.polygamma_", X, 1, x=F23),
    fn(f"{P}.pow_", X, 2.0, x=F23),
    fn(f"{P}.reshape_", X, [3, 2], x=F23),
    fn(f"{P}.squeeze_", X, axis=1, x=F(2, 1, 3)),
    fn(f"{P}.unsqueeze_", X, axis=1, x=F23),
    fn(f"{P}.scatter_", X, V("i"), Y, x=F(3, 2), i=Int(2, low=0, high=1), y=F(2, 2)),
]

PRESENT = [
    fn(f"{P}.as_strided", X, [3, 2], [1, 3], x=F23, grad=False),
    fn(f"{P}.unfold", X, 1, 2, 1, x=F23),
    fn(f"{P}.atleast_1d", X, x=F(3)),
    fn(f"{P}.atleast_2d", X, x=F(3)),
    fn(f"{P}.atleast_3d", X, x=F23),
    fn(f"{P}.bitwise_or", V("i"), V("j"), **II),
    fn(f"{P}.bitwise_xor", V("i"), V("j"), **II),
    fn(f"{P}.index_add", X, V("i"), 0, Y, x=F(3, 2), i=Int(2, high=3), y=F(2, 2)),
    fn(f"{P}.index_fill", X, V("i"), 0, 0.5, x=F(3, 2), i=Int(2, high=3)),
    fn(f"{P}.index_put", X, [V("i")], Y, x=F(3, 2), i=Int(2, high=3), y=F(2, 2)),
    # 2.6 declares the indices float32 (int64 at run time): its loss over them fails, so no grad
    fn(f"{P}.kthvalue", X, 2, axis=1, tag="axis", grad=False, x=F23),
    fn(f"{P}.mode", X, axis=1, tag="axis", grad=False, x=F23),
    fn(f"{P}.put_along_axis", X, V("i"), Y, 1, tag="tensor", x=F23, i=Int(2, 1, high=3),
       y=F(2, 1)),
    fn(f"{P}.polygamma", X, 1, x=F23),
    fn(f"{P}.reverse", X, [1], x=F23),
    fn(f"{P}.scatter_nd", V("i"), Y, [3, 2], i=Int(2, 1, high=3), y=F(2, 2)),
    fn(f"{P}.shard_index", V("i"), 8, 2, 0, i=Int(3, 1, high=8)),
    fn(f"{P}.take", X, V("i"), x=F23, i=Int(2, 2, high=6)),
    fn(f"{P}.unflatten", X, 1, [3, 1], x=F23),
    fn(f"{P}.vsplit", X, 2, x=F(4, 3)),
    fn(f"{P}.empty", [2, 3], "float32", tag="dtype"),
]

COMPOSITE = [
    fn(f"{P}.hypot", X, Y, x=F23, y=F23),
    fn(f"{P}.hypot_", X, Y, x=F23, y=F23),
    fn(f"{P}.ldexp", X, V("i"), x=F23, i=Int(2, 3, low=-2, high=3)),
    fn(f"{P}.ldexp", X, Y, tag="float", x=F23, y=F(2, 3, low=-2.0, high=2.0)),
    fn(f"{P}.ldexp_", X, V("i"), x=F23, i=Int(2, 3, low=-2, high=3)),
    fn(f"{P}.cdist", X, Y, x=F(2, 3), y=F(4, 3)),
    fn(f"{P}.cdist", X, Y, p=1.0, tag="p1", x=F(2, 2, 3), y=F(2, 4, 3)),
    fn(f"{P}.tensordot", X, Y, axes=[[1], [1]], x=F(2, 3), y=F(4, 3)),
    fn(f"{P}.tensordot", X, Y, tag="int", x=F(2, 3, 4), y=F(3, 4, 2)),
    fn(f"{P}.multigammaln", X, 2, x=F(2, 3, low=1.5, high=3.0)),
    fn(f"{P}.multigammaln_", X, 3, x=F(2, 3, low=1.5, high=3.0)),
    # 1-D: 2.6's gather_grad along axis 1 of [2, 3] gives row 0's gradient to every row
    fn(f"{P}.trapezoid", X, x=F(4)),
    fn(f"{P}.trapezoid", X, dx=0.5, axis=0, tag="dx", x=F(3, 2)),
    fn(f"{P}.cumulative_trapezoid", X, x=F(4)),
    fn(f"{P}.cumulative_trapezoid", X, dx=2.0, axis=0, tag="dx", x=F(3, 2)),
    fn(f"{P}.combinations", X, x=F(4)),
    fn(f"{P}.combinations", X, 3, with_replacement=True, tag="r3", x=F(3)),
    fn(f"{P}.vander", X, x=F(3)),
    fn(f"{P}.frexp", X, x=F(2, 3, low=-4.0, high=4.0)),
    fn(f"{P}.gcd", V("i"), V("j"), i=Int(2, 3, low=-12, high=13), j=Int(2, 3, low=0, high=9)),
    fn(f"{P}.gcd", V("i"), V("j"), tag="broadcast", i=Int(2, 3, low=0, high=20),
       j=Int(3, low=1, high=9)),
    fn(f"{P}.lcm", V("i"), V("j"), i=Int(2, 3, low=-6, high=7), j=Int(2, 3, low=0, high=6)),
    fn(f"{P}.lcm_", V("i"), V("j"), i=Int(2, 3, low=1, high=7), j=Int(2, 3, low=1, high=6)),
    fn(f"{P}.vander", X, 4, increasing=True, tag="n", x=F(3)),
]

OWN_OPS = [
    fn(f"{P}.addmm", V("i"), X, Y, beta=0.5, alpha=2.0, i=F(2, 2), x=F(2, 3), y=F(3, 2)),
    fn(f"{P}.addmm", V("i"), X, Y, tag="broadcast", i=F(2), x=F(2, 3), y=F(3, 2)),
    fn(f"{P}.addmm_", V("i"), X, Y, i=F(2, 2), x=F(2, 3), y=F(3, 2)),
    fn(f"{P}.renorm", X, 2.0, 0, 1.0, x=F(2, 3)),
    fn(f"{P}.renorm", X, 1.5, 1, 0.7, tag="p", x=F(2, 3, low=-1.0, high=1.0)),
    fn(f"{P}.renorm_", X, 2.0, 1, 0.5, x=F(2, 3)),
    fn(f"{P}.diagonal_scatter", X, Y, x=F(3, 3), y=F(3)),
    fn(f"{P}.diagonal_scatter", X, Y, offset=1, axis1=1, axis2=2, tag="3d", x=F(2, 3, 4),
       y=F(2, 3)),
    fn(f"{P}.select_scatter", X, Y, 1, 0, x=F(2, 3), y=F(2)),
    fn(f"{P}.select_scatter", X, Y, 0, -1, tag="last", x=F(3, 2, 2), y=F(2, 2)),
]

QUANTILES = [
    fn(f"{P}.quantile", X, 0.3, tag="all", x=F23),
    fn(f"{P}.quantile", X, [0.25, 0.75], axis=0, keepdim=True, tag="list", x=F(3, 2)),
    fn(f"{P}.nanquantile", X, 0.5, axis=1, x=F23),
    fn(f"{P}.nanquantile", X, [0.1, 0.9], axis=-1, tag="list", x=F(2, 4)),
]

CASES = INPLACE + PRESENT + COMPOSITE + OWN_OPS + QUANTILES
