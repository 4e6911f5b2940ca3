"""``mx.optimizer``: MXNet 1.9's optimizers, the registry and the ``Updater``."""
from .optimizer import Optimizer, register, create
from .sgd import SGD, ccSGD, NAG, Signum, LARS, LBSGD, DCASGD, SGLD
from .adaptive import Adam, AdaGrad, RMSProp, AdaDelta, Ftrl, Adamax, Nadam, FTML, LAMB, Test
from .updater import Updater, get_updater
from . import optimizer, contrib  # noqa: F401
from ..ndarray import abs as NDabs  # noqa: F401,N812 - MXNet exports this name

__all__ = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LARS", "LBSGD",
           "NAG", "NDabs", "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum", "LAMB",
           "Test", "Updater", "ccSGD", "create", "get_updater", "register", "contrib"]
