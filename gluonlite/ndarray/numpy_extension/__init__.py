"""``mx.nd.npx``: MXNet's NumPy-extension operators over ``mx.np`` arrays."""
from ._op import *  # noqa: F401,F403
from ._op import __all__  # noqa: F401
from . import random, image  # noqa: F401
