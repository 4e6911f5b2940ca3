"""``gluon.contrib.data``: ``IntervalSampler`` and the ``text`` datasets (WikiText-2,
WikiText-103, read from local files)."""
from .sampler import IntervalSampler  # noqa: F401
from . import text  # noqa: F401

__all__ = ["IntervalSampler"]
