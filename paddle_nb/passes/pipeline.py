"""The passes ``load_inference_model(..., optimize=True)`` applies, in order.

Identities go first (a test-mode dropout between a conv and its batch_norm would hide the pair),
then constants (a conv bias reshaped at run time becomes a parameter batch_norm folding can take
in), then batch_norm folding, then conv + bias + activation fusion (the bias folding left) and
matmul + bias [+ relu] fusion (a matmul + batch_norm folded first), then the dead taps of
filters over small images cropped (the folded filters), then the filters that run faster so stored
channels last (the cropped ones), then elementwise chains
(what the fusions before left between the big ops), then dead code (the folded parameters' old
readers are gone), then buffer reuse (last: it asks which op is the last reader of each value).
"""

from paddle_nb.passes.constant import FOLD_CONSTANTS
from paddle_nb.passes.crop_taps import CROP_DEAD_TAPS
from paddle_nb.passes.filter_layout import FILTER_LAYOUT
from paddle_nb.passes.fold_bn import FOLD_BATCH_NORM
from paddle_nb.passes.fuse_act import FUSE_CONV_ACTIVATION
from paddle_nb.passes.fuse_elementwise import FUSE_ELEMENTWISE
from paddle_nb.passes.fuse_fc import FUSE_FC
from paddle_nb.passes.identity import DEAD_CODE, IDENTITIES
from paddle_nb.passes.reuse import REUSE_BUFFERS

__all__ = ["INFERENCE_PASSES", "apply_passes"]

INFERENCE_PASSES = (IDENTITIES, FOLD_CONSTANTS, FOLD_BATCH_NORM, FUSE_CONV_ACTIVATION, FUSE_FC,
                    CROP_DEAD_TAPS, FILTER_LAYOUT, FUSE_ELEMENTWISE, DEAD_CODE, REUSE_BUFFERS)


def apply_passes(program, scope=None, passes=None, results=None, keep=()):
    """``program`` rewritten by each pass in turn (by default :data:`INFERENCE_PASSES`).

    Each pass's :class:`PassResult` is appended to ``results`` when given; the program returned
    also carries them all as ``pass_results`` (what ``pd.viz.pass_view`` draws, after
    ``load_inference_model(..., optimize=True)`` too)."""
    if passes is None:
        passes = INFERENCE_PASSES
    done: list = []
    for pass_ in passes:
        program = pass_.apply(program, scope, done, keep)
    if results is not None:
        results.extend(done)
    program.pass_results = done
    return program
