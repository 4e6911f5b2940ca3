"""``mx.gluon``: Parameters, Blocks, layers, losses, Trainer and data utilities."""
from . import parameter  # noqa: F401
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError  # noqa: F401
from . import block  # noqa: F401
from .block import Block, HybridBlock, SymbolBlock  # noqa: F401
from . import nn  # noqa: F401
from . import contrib  # noqa: F401
from . import utils  # noqa: F401
from . import loss  # noqa: F401
from . import trainer  # noqa: F401
from .trainer import Trainer  # noqa: F401
from . import data  # noqa: F401
from . import rnn  # noqa: F401
from . import model_zoo  # noqa: F401
