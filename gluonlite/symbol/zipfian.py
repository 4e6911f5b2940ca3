"""``mx.sym.contrib.rand_zipfian``: MXNet 1.9's Python-level log-uniform (Zipfian)
candidate sampler as a graph of ``_random_uniform`` and elementwise nodes."""
from __future__ import annotations

import math

from ..base import MXNetError

__all__ = ["rand_zipfian"]


def rand_zipfian(true_classes, num_sampled: int, range_max: int):
    """Symbolic :func:`gluonlite.ndarray.zipfian.rand_zipfian`: candidates drawn with
    replacement from ``P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)``.

    Parameters
    ----------
    true_classes : Symbol
        1-D target classes.
    num_sampled : int
        Number of candidates to draw.
    range_max : int
        Number of possible classes.

    Returns
    -------
    samples, expected_count_true, expected_count_sample : Symbol
        ``int64`` classes and ``float64`` expected counts.
    """
    from . import random as _random
    from .symbol import Symbol
    if not isinstance(true_classes, Symbol):
        raise MXNetError(f"rand_zipfian: unexpected type {type(true_classes)}")
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.astype("float64")
    expected_count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_fp64 = sampled_classes.astype("float64")
    expected_prob_sampled = ((sampled_fp64 + 2.0) / (sampled_fp64 + 1.0)).log() / log_range
    return sampled_classes, expected_count_true, expected_prob_sampled * num_sampled
