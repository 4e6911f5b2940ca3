"""Metric sums grow in float64, as MXNet 1.9.1's do under NumPy < 2 (``0.0 + float32``
is float64 there; NumPy 2 keeps float32, which drifts from MXNet's numbers).

Expected values printed by MXNet 1.9.1 for the same inputs.
"""
import numpy as np

import gluonlite as mx


def _batches():
    r = np.random.RandomState(0)
    labels = [mx.nd.array(r.randint(0, 2, (8,)).astype("float32")) for _ in range(3)]
    preds = [mx.nd.array(r.rand(8, 2).astype("float32")) for _ in range(3)]
    return labels, preds


def test_cross_entropy_and_nll_sum_in_float64():
    labels, preds = _batches()
    for metric in (mx.metric.CrossEntropy(), mx.metric.NegativeLogLikelihood()):
        for label, pred in zip(labels, preds):
            metric.update([label], [pred])
        assert isinstance(metric.sum_metric, np.float64)
        assert isinstance(metric.global_sum_metric, np.float64)
        # MXNet 1.9.1: 0.8442512551943461 (float32 accumulation gives 0.84425127...)
        assert metric.get()[1] == 0.8442512551943461
        assert metric.get_global()[1] == 0.8442512551943461


def test_loss_and_perplexity_sums_are_float64():
    labels, preds = _batches()
    loss, ppl = mx.metric.Loss(), mx.metric.Perplexity(None)
    for label, pred in zip(labels, preds):
        loss.update(None, [pred])
        ppl.update([label], [pred])
    assert isinstance(loss.sum_metric, np.float64)
    assert isinstance(ppl.sum_metric, float)
    # MXNet 1.9.1: 0.4897190034389496 and 2.3262353132288203 (its float32 reductions add
    # in another order than NumPy's pairwise sum: equal to float32 rounding)
    np.testing.assert_allclose(loss.get()[1], 0.4897190034389496, rtol=1e-6)
    np.testing.assert_allclose(ppl.get()[1], 2.3262353132288203, rtol=1e-6)
