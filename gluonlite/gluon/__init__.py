"""``mx.gluon``: Parameters, Blocks, layers, losses, Trainer and data utilities."""
from . import parameter  # noqa: F401
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError  # noqa: F401
