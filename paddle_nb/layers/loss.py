"""Losses and metrics: what a model is trained against and judged by."""

from paddle_nb.layers.helper import LayerHelper

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "square_error_cost", "accuracy",
           "append_softmax_with_cross_entropy", "append_square_error_cost"]


def cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """-log(input[label]) per row, for probabilities ``input``."""
    return LayerHelper("cross_entropy").out(
        "cross_entropy", {"X": input, "Label": label},
        {"soft_label": soft_label, "ignore_index": ignore_index}, slot="Y")


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Cross entropy of softmax(logits), computed stably in one op."""
    loss, softmax = append_softmax_with_cross_entropy(
        LayerHelper("softmax_with_cross_entropy"), logits, label,
        {"soft_label": soft_label, "ignore_index": ignore_index,
         "numeric_stable_mode": numeric_stable_mode, "axis": axis})
    return (loss, softmax) if return_softmax else loss


def append_softmax_with_cross_entropy(helper, logits, label, attrs):
    """The ``softmax_with_cross_entropy`` op, its outputs named by ``helper`` (Softmax
    ``.tmp_0``, Loss ``.tmp_1``): the one place both APIs append it. (loss, softmax)."""
    softmax = helper.tmp_name()
    loss = helper.out("softmax_with_cross_entropy", {"Logits": logits, "Label": label}, attrs,
                      slot="Loss", extra_outputs={"Softmax": softmax})
    return loss, helper.block.var(softmax)


def square_error_cost(input, label):
    """(input - label) ** 2, elementwise (``elementwise_sub`` then ``square``)."""
    return append_square_error_cost(LayerHelper("square_error_cost"), input, label)


def append_square_error_cost(helper, input, label, attrs=None):
    """``elementwise_sub`` then ``square``, named by ``helper``: both APIs build it here
    (the 2.x function writes the elementwise op's ``axis``, ``attrs``)."""
    diff = helper.out("elementwise_sub", {"X": input, "Y": label}, attrs)
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
