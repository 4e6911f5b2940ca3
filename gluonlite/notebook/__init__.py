"""``mx.notebook``: live training charts and logs for Jupyter notebooks (MXNet 1.9's
``mxnet.notebook``).

Importing it needs neither pandas nor bokeh, as in MXNet: :mod:`.callback` imports
them when a logger or chart is made, and says which package is missing.
"""
from . import callback  # noqa: F401

__all__ = ["callback"]
