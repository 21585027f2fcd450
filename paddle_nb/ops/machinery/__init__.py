"""The op machinery: what declares, runs and differentiates ops, apart from the ops themselves.

- ``registry``: ops declared once (slots, attributes, shape inference, kernel, grad maker);
- ``context``: what a kernel sees besides its arrays (the array module, the place,
  randomness; for control-flow ops the scope and the sub-block runner);
- ``grad``: how an op says which grad ops compute its inputs' gradients;
- ``broadcast``: PaddlePaddle's broadcasting rule for elementwise ops;
- ``window`` / ``window_nd``: window geometry shared by convolution and pooling;
- ``tensor_args``: attributes a tensor may give at run time (``ShapeTensor`` and the like);
- ``tensor_stream``: PaddlePaddle's binary format for one tensor.

The op families (``paddle_nb/ops/<family>.py``) build on these; nothing here imports a family.
"""
