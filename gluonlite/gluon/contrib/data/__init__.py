"""``gluon.contrib.data``: ``IntervalSampler`` (MXNet's ``contrib.data.text`` needs
downloads and is not provided)."""
from .sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler"]
