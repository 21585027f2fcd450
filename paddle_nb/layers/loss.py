"""Losses and metrics: what a model is trained against and judged by."""

from paddle_nb.layers.helper import LayerHelper

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "square_error_cost", "accuracy"]


def cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """-log(input[label]) per row, for probabilities ``input``."""
    return LayerHelper("cross_entropy").out(
        "cross_entropy", {"X": input, "Label": label},
        {"soft_label": soft_label, "ignore_index": ignore_index}, slot="Y")


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Cross entropy of softmax(logits), computed stably in one op."""
    helper = LayerHelper("softmax_with_cross_entropy")
    softmax = helper.tmp_name()
    loss = helper.out("softmax_with_cross_entropy", {"Logits": logits, "Label": label},
                      {"soft_label": soft_label, "ignore_index": ignore_index,
                       "numeric_stable_mode": numeric_stable_mode, "axis": axis},
                      slot="Loss", extra_outputs={"Softmax": softmax})
    return (loss, helper.block.var(softmax)) if return_softmax else loss


def square_error_cost(input, label):
    """(input - label) ** 2, elementwise (``elementwise_sub`` then ``square``)."""
    helper = LayerHelper("square_error_cost")
    diff = helper.out("elementwise_sub", {"X": input, "Y": label})
    return helper.out("square", {"X": diff})


def accuracy(input, label, k=1, correct=None, total=None):
    """The fraction of rows whose label is among the ``k`` largest of ``input``."""
    helper = LayerHelper("accuracy")
    values, indices = helper.tmp_name(), helper.tmp_name()
    helper.append("top_k", {"X": input}, {"Out": values, "Indices": indices}, {"k": k})
    acc = helper.tmp_name()
    helper.append("accuracy", {"Out": values, "Indices": indices, "Label": label},
                  {"Accuracy": acc, "Correct": correct or helper.tmp_name(),
                   "Total": total or helper.tmp_name()})
    return helper.block.var(acc)
