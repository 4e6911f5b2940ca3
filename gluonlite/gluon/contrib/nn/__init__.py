"""``mx.gluon.contrib.nn``: MXNet 1.9's contrib layers."""
from .basic_layers import *  # noqa: F401,F403
from . import basic_layers  # noqa: F401
from .sparse_embedding import SparseEmbedding  # noqa: F401
