"""The op layer: the machinery (``ops/machinery/``: registry, kernel context, grad makers,
broadcasting, windows, tensor arguments, the tensor stream format) and the op families
(``ops/<family>.py``) that fill the registry.

Importing this package registers every op. ``registry.types()`` lists them;
``registry.describe("mul")`` explains one.
"""

from paddle_nb.ops.machinery import registry
from paddle_nb.ops import (  # noqa: F401  (register the families)
    activation, elementwise, feed_fetch, lod, control_flow, recurrent, shape, join, tensor,
    creation, conv, norm, norm_sample, metric, logic, linalg, math, reduce, loss,
    optimizers, adam, clip, activation_param, rnn, conv_transpose, pool, interp,
    index, select, expand, coalesce,
    math_unary, activation_more, reduce_more, elementwise_more, bitwise, math_more, cumulative,
    special, choose,
)
from paddle_nb.ops import (  # noqa: F401  (the vision ops: 3-D windows, padding, resampling)
    conv3d, pool3d, pad, pixel, fold, grid, unpool,
)
from paddle_nb.ops import (  # noqa: F401  (losses, norms)
    loss_ctc, loss_more, loss_nll, loss_rank, norm_lrn,
)
from paddle_nb.ops import tensor_array, debug, auc  # noqa: F401  (arrays, print, auc)
from paddle_nb.ops import (  # noqa: F401  (detection post-processing)
    detection_box, detection_nms, detection_proposals, detection_roi,
)
from paddle_nb.ops import (  # noqa: F401  (common layers, linalg)
    products, vector_norm, einsum, matrix, sequence_mask, square_matrix,
)
from paddle_nb.ops import (  # noqa: F401  (decompositions, rank, least squares, eig)
    decompositions, matrix_solvers,
)
# (RoI pooling, single-list NMS, deformable conv, row conv, spectral norm, the Fluid
# embedding, data_norm, yolov3_loss)
from paddle_nb.ops import (  # noqa: F401
    detection_pool, detection_nms_single, deformable_conv, row_conv, spectral_norm,
    lookup_table, data_norm, yolo_loss,
)
from paddle_nb.ops import random  # noqa: F401  (randint, randperm, draws from X, noisy activations)
from paddle_nb.ops import py_func  # noqa: F401  (an op that calls back into Python)
from paddle_nb.ops.machinery.context import KernelContext, RawContext
from paddle_nb.ops.machinery.grad import GradContext, OpSpec, grad_op
from paddle_nb.ops.machinery.registry import Attr, Meta, OpDef, Slot, describe, fail, register
from paddle_nb.ops import (  # noqa: F401  (manipulation, indexing, search and creation)
    strided, set_value, scatter, sort, layout, grids, counting,
)

from paddle_nb.ops import (  # noqa: F401  (top-level tensor functions' own ops)
    addmm, renorm, fill_diagonal_tensor,
)
from paddle_nb.ops import fused_conv, fc  # noqa: F401  (fused ops the inference passes write)
from paddle_nb.ops import fused_elementwise  # noqa: F401  (the passes' elementwise chains)

__all__ = ["registry", "Attr", "Meta", "OpDef", "Slot", "describe", "fail", "register",
           "KernelContext", "RawContext", "GradContext", "OpSpec", "grad_op"]
