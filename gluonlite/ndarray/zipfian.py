"""``mx.nd.contrib.rand_zipfian``: MXNet 1.9's Python-level log-uniform (Zipfian)
candidate sampler, built from ``random.uniform`` and elementwise operators as MXNet
builds it (its sampled classes are drawn with replacement; the unique sampler is the
operator ``_sample_unique_zipfian``)."""
from __future__ import annotations

import math

__all__ = ["rand_zipfian"]


def rand_zipfian(true_classes, num_sampled: int, range_max: int, ctx=None):
    """Draw candidates from the approximately log-uniform (Zipfian) distribution
    ``P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)`` on ``[0, range_max)``.

    Parameters
    ----------
    true_classes : NDArray
        1-D array of the target classes.
    num_sampled : int
        Number of candidates to draw (with replacement).
    range_max : int
        Number of possible classes.
    ctx : Context, optional
        Device of the outputs (the current context by default).

    Returns
    -------
    samples : NDArray
        The sampled classes, 1-D ``int64``.
    expected_count_true : NDArray
        Expected count of each true class among ``num_sampled`` draws, ``float64``.
    expected_count_sample : NDArray
        Expected count of each sampled class, ``float64``.
    """
    from ..context import current_context
    from . import random as _random
    if ctx is None:
        ctx = current_context()
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    # exp(U(0, log(range_max + 1))) - 1 lies in [0, range_max); the modulo guards rounding
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.as_in_context(ctx).astype("float64")
    expected_count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_fp64 = sampled_classes.astype("float64")
    expected_prob_sampled = ((sampled_fp64 + 2.0) / (sampled_fp64 + 1.0)).log() / log_range
    return sampled_classes, expected_count_true, expected_prob_sampled * num_sampled
