"""``paddle.optimizer``: optimizers that append update ops, and ``lr``, the schedulers.

``optimizer.py`` holds the base class (the learning-rate variable, accumulators,
clipping and weight decay, op roles); ``momentum.py`` the plain optimizers, ``adam.py``
the Adam family; ``master.py`` the float32 master weights of float16 parameters
(``multi_precision``); ``lr.py`` the learning-rate schedulers. The Fluid-1.8 names
(``SGDOptimizer``...) are the same classes.
"""

from __future__ import annotations

from paddle_nb.optimizer import lr
from paddle_nb.optimizer.adam import Adam, AdamW, Adamax, Lamb
from paddle_nb.optimizer.momentum import SGD, Adadelta, Adagrad, Momentum, RMSProp
from paddle_nb.optimizer.optimizer import Optimizer

SGDOptimizer, MomentumOptimizer, AdamOptimizer = SGD, Momentum, Adam   # fluid's longer names
AdagradOptimizer, AdamaxOptimizer, RMSPropOptimizer = Adagrad, Adamax, RMSProp
AdadeltaOptimizer, LambOptimizer = Adadelta, Lamb

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "Adagrad", "RMSProp",
           "Adadelta", "Lamb", "lr",
           "SGDOptimizer", "MomentumOptimizer", "AdamOptimizer", "AdagradOptimizer",
           "AdamaxOptimizer", "RMSPropOptimizer", "AdadeltaOptimizer", "LambOptimizer"]
