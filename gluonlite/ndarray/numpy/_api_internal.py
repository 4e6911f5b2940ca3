"""``mx.nd.np._api_internal``: MXNet's fast-call entry points of the ``mx.np``
operators; in gluonlite the same generated functions as :mod:`._internal`."""
from ._internal import *  # noqa: F401,F403
from ._internal import __all__  # noqa: F401
