"""2.6 loss functions paddle_nb does not build: each raises a clear error at its call.

They rest on ops with no kernel here (``hierarchical_sigmoid``, ``warprnnt``,
``edit_distance``) or on several GPUs (``margin_cross_entropy``). Their signatures are
2.6's, so a script fails at the call, with the reason, not with an AttributeError.
"""

from paddle_nb.nn.functional.loss_steps import unavailable

__all__ = ["hsigmoid_loss", "margin_cross_entropy", "rnnt_loss", "edit_distance"]


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,
                  path_code=None, is_sparse=False, name=None):
    """Hierarchical sigmoid (``hierarchical_sigmoid`` op): not available here."""
    raise unavailable("hsigmoid_loss", "the hierarchical_sigmoid op has no kernel",
                      "use F.cross_entropy over all classes")


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0,
                         group=None, return_softmax=False, reduction="mean"):
    """ArcFace-style margin softmax across GPUs (``margin_cross_entropy`` op): not available."""
    raise unavailable("margin_cross_entropy", "PaddlePaddle runs it on GPUs, with a group",
                      "apply the margins to the logits and use F.cross_entropy")


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,
              reduction="mean", name=None):
    """The RNN-transducer loss (``warprnnt`` op): not available here."""
    raise unavailable("rnnt_loss", "the warprnnt op has no kernel",
                      "F.ctc_loss computes the CTC loss")


def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                  label_length=None):
    """The Levenshtein distance of token sequences (``edit_distance`` op): not available."""
    raise unavailable("edit_distance", "the edit_distance op has no kernel",
                      "compute it on the fetched sequences with NumPy")
