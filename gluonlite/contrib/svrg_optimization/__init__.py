"""``mx.contrib.svrg_optimization``: stochastic variance-reduced gradient training
(MXNet 1.9's ``SVRGModule`` and its optimizers).

``SVRGModule`` is a :class:`~gluonlite.module.Module` that keeps a second, auxiliary
Module holding the weights of the last full pass ("special weights").  Every
``update_freq`` epochs it averages the gradients of the whole dataset at those
weights; each step then uses ``g(w) - g(w_special) + full_gradient`` in place of
the mini-batch gradient ``g(w)``.
"""
from . import svrg_optimizer  # noqa: F401
from . import svrg_module  # noqa: F401
from .svrg_module import SVRGModule  # noqa: F401

__all__ = ["SVRGModule", "svrg_module", "svrg_optimizer"]
