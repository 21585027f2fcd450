"""``paddle.summary`` and ``paddle.flops``: a network's leaf layers (input and output shapes,
parameter counts, and for ``flops`` their operation counts) and totals, printed and returned
as PaddlePaddle 2.6 does (``summary`` in static mode; ``flops`` as 2.6 counts in dynamic mode,
the only mode where 2.6 runs it).

As in 2.6, the network runs once on a random input of ``input_size`` in the default main
program (a ``uniform_random`` and a ``cast``, then its forward ops), with a hook on each
leaf layer recording its shapes. A layer is named by its class and the number of its
``full_name`` plus one (``linear_0`` -> ``Linear-1``); an unknown (None or -1) dimension of
``input_size`` is 1. Counts include frozen parameters (BatchNorm's running statistics);
sizes are float32 MB: the input, the outputs twice (forward and backward), the parameters.
"""

from __future__ import annotations

import math

from paddle_nb.tensor import manipulation, random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.framework.variable import Tensor
    from paddle_nb.nn.layer_base import Layer

__all__ = ["summary", "flops"]

WIDTHS = (15, 20, 20, 15)
LINE = "-" * 75


def _row(cells: Any) -> str:
    return " ".join(f"{c:^{w}}" for c, w in zip(cells, WIDTHS))


def _leaves(net: Any) -> Any:
    return [layer for layer in net.sublayers(include_self=True) if not layer.sublayers()]


def _record(net: Any, shape: Any, dtype: DTypeLike) -> Any:
    rows, hooks = [], []
    for layer in _leaves(net):
        def hook(layer: Any, inputs: Sequence[Tensor], outputs: Tensor) -> None:
            outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
            label = f"{type(layer).__name__}-{int(layer.full_name().rsplit('_', 1)[1]) + 1}"
            params = [p for p in layer.parameters(include_sublayers=False)]
            rows.append((label, [list(v.shape) for v in inputs], list(outs[0].shape),
                         [math.prod(o.shape) for o in outs], params, layer))
        hooks.append(layer.register_forward_post_hook(hook))
    try:
        net(manipulation.cast(random.rand(shape), dtype))
    finally:
        for handle in hooks:
            handle.remove()
    return rows


def summary(net: Layer, input_size: Sequence[int | None] | None = None, dtypes: Any = None,
            input: Tensor | None = None) -> dict[str, int]:
    """Print the table of ``net``'s leaf layers for an input of ``input_size`` (a shape;
    None or -1 for the batch) and return ``{"total_params": ..., "trainable_params": ...}``."""
    if input is not None or input_size is None or isinstance(input_size[0], (list, tuple)):
        raise NotImplementedError("paddle.summary: paddle_nb takes one input_size (a shape); "
                                  "several inputs or an input tensor are not available")
    shape = [1 if d is None or d == -1 else int(d) for d in input_size]
    rows = _record(net, shape, dtypes or "float32")
    params = {id(p): p for p in net.parameters()}.values()
    total = sum(math.prod(p.shape) for p in params)
    trainable = sum(math.prod(p.shape) for p in params if p.trainable)
    lines = [LINE, _row(("Layer (type)", "Input Shape", "Output Shape", "Param #")), "=" * 75]
    for label, ins, out, _, own, _ in rows:
        lines.append(_row((label, str(ins), str(out), f"{sum(math.prod(p.shape) for p in own):,}")))
    out_mb = sum(sum(r[3]) for r in rows) * 4 * 2 / 1024 ** 2
    param_mb, input_mb = total * 4 / 1024 ** 2, math.prod(shape) * 4 / 1024 ** 2
    lines += ["=" * 75, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", LINE,
              f"Input size (MB): {input_mb:0.2f}",
              f"Forward/backward pass size (MB): {out_mb:0.2f}",
              f"Params size (MB): {param_mb:0.2f}",
              f"Estimated Total Size (MB): {out_mb + param_mb + input_mb:0.2f}", LINE, ""]
    print("\n".join(lines))
    return {"total_params": total, "trainable_params": trainable}


def _conv(layer: Any, inp: Any, out: Any) -> int:
    weight = layer.weight.shape        # [out channels, in channels / groups, *kernel]
    return math.prod(out) * (math.prod(weight[1:]) + (layer.bias is not None))


def _adaptive_avg(layer: Any, inp: Any, out: Any) -> int:
    kernel = [i // o for i, o in zip(inp[2:], out[2:])]
    return math.prod(out) * (math.prod(kernel) + 1)


# 2.6's counting rules per layer class (a class not here counts as zero)
COUNTS = {
    "Conv1D": _conv, "Conv2D": _conv, "Conv3D": _conv,
    "Linear": lambda layer, inp, out: math.prod(out) * inp[-1],
    "BatchNorm2D": lambda layer, inp, out: 2 * math.prod(inp),
    "LeakyReLU": lambda layer, inp, out: math.prod(out),
    "AvgPool1D": lambda layer, inp, out: math.prod(out),
    "AvgPool2D": lambda layer, inp, out: math.prod(out),
    "AvgPool3D": lambda layer, inp, out: math.prod(out),
    "AdaptiveAvgPool1D": _adaptive_avg, "AdaptiveAvgPool2D": _adaptive_avg,
    "AdaptiveAvgPool3D": _adaptive_avg,
    "ReLU": lambda *_: 0, "ReLU6": lambda *_: 0, "Dropout": lambda *_: 0,
}


def _table(rows: Any) -> Any:
    widths = [max(len(r[k]) for r in rows) + 2 for k in range(len(rows[0]))]
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    lines = ["|" + "|".join(c.center(w) for c, w in zip(r, widths)) + "|" for r in rows]
    return [rule, lines[0], rule, *lines[1:], rule]


def flops(net: Layer, input_size: Sequence[int], custom_ops: Any = None,
          print_detail: bool = False) -> int:
    """The number of operations ``net`` does on an input of ``input_size``, by 2.6's rules
    per layer class (``custom_ops``: {layer class: count(layer, input, output)} adds rules);
    prints which classes were counted, with ``print_detail`` a per-layer table, and the
    totals."""
    rules = {**COUNTS, **{cls.__name__: rule for cls, rule in (custom_ops or {}).items()}}
    rows = _record(net, [int(d) for d in input_size], "float32")
    seen, table, total_flops, total_params = set(), [], 0, 0
    for _, ins, out, _, own, layer in rows:
        kind = type(layer)
        if kind not in seen:
            seen.add(kind)
            print(f"{kind}'s flops has been counted" if kind.__name__ in rules else
                  f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")
        rule = rules.get(kind.__name__)
        count = int(rule(layer, ins[0], out)) if rule else 0
        params = sum(math.prod(p.shape) for p in own)
        table.append([layer.full_name(), str(ins[0]), str(out), str(params), str(count)])
        total_flops, total_params = total_flops + count, total_params + params
    if print_detail:
        print("\n".join(_table([["Layer Name", "Input Shape", "Output Shape", "Params",
                                 "Flops"], *table])))
    print(f"Total Flops: {total_flops}     Total Params: {total_params}")
    return total_flops
