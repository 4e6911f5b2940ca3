"""``mx.contrib``: experimental MXNet APIs (``amp``: automatic mixed precision)."""
from . import amp  # noqa: F401
