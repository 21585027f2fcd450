"""Program passes for inference: rewrites of a loaded program that keep its outputs.

A pass (:class:`Pass`) is a named function from a Program (and the Scope holding its
parameters) to a new Program; :func:`apply_passes` runs a list of them, by default
:data:`INFERENCE_PASSES`; :func:`check_unchanged` runs a program before and after and requires
the same outputs. See docs/passes.md.
"""

from paddle_nb.passes.base import Pass, PassResult, check_unchanged, op_counts
from paddle_nb.passes.constant import FOLD_CONSTANTS, fold_constants
from paddle_nb.passes.crop_taps import CROP_DEAD_TAPS, crop_dead_taps
from paddle_nb.passes.filter_layout import FILTER_LAYOUT, filter_layout
from paddle_nb.passes.diff import diff_html, pass_diff
from paddle_nb.passes.fold_bn import FOLD_BATCH_NORM, fold_batch_norm
from paddle_nb.passes.fuse_act import FUSE_CONV_ACTIVATION, fuse_conv_activation
from paddle_nb.passes.fuse_elementwise import FUSE_ELEMENTWISE, fuse_elementwise
from paddle_nb.passes.fuse_fc import FUSE_FC, fuse_fc
from paddle_nb.passes.identity import (
    DEAD_CODE, IDENTITIES, remove_dead_code, remove_identities,
)
from paddle_nb.passes.pipeline import INFERENCE_PASSES, apply_passes
from paddle_nb.passes.reuse import REUSE_BUFFERS, lifetimes, reuse_buffers

__all__ = ["Pass", "PassResult", "apply_passes", "check_unchanged", "op_counts",
           "INFERENCE_PASSES", "FOLD_BATCH_NORM", "IDENTITIES", "DEAD_CODE",
           "fold_batch_norm", "FUSE_FC", "fuse_fc", "FUSE_CONV_ACTIVATION",
           "fuse_conv_activation", "FOLD_CONSTANTS", "fold_constants", "pass_diff", "diff_html",
           "remove_identities", "remove_dead_code",
           "FUSE_ELEMENTWISE", "fuse_elementwise", "REUSE_BUFFERS", "reuse_buffers",
           "lifetimes", "CROP_DEAD_TAPS", "crop_dead_taps", "FILTER_LAYOUT",
           "filter_layout"]
