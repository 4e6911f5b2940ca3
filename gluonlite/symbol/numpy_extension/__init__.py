"""``mx.sym.npx``: MXNet's NumPy-extension operators on ``mx.np`` symbols."""
from . import _op, _register, image, random  # noqa: F401
from ._op import *  # noqa: F401,F403
from ._op import __all__  # noqa: F401
