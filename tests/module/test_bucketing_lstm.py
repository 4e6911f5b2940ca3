"""A BucketingModule over a 2-layer ``mx.rnn.LSTMCell`` stack unrolled per bucket,
trained by ``fit`` on ``BucketSentenceIter`` batches with SGD and scored with
``Perplexity``, gives MXNet 1.9.1's parameters and perplexity (fixture
``bucketing_lstm.npz``)."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
from bucketing_lstm_cases import train  # noqa: E402

EXPECTED = np.load(os.path.join(FIXTURES, "bucketing_lstm.npz"))


def test_lstm_bucketing_fit_matches_mxnet():
    mod, _, perplexity = train(mx)
    assert sorted(mod._buckets) == list(EXPECTED["buckets"])
    args, _ = mod.get_params()
    assert sorted(args) == sorted(k[4:] for k in EXPECTED.files if k.startswith("arg:"))
    for name, value in args.items():
        np.testing.assert_allclose(value.asnumpy(), EXPECTED[f"arg:{name}"], rtol=1e-4,
                                   atol=1e-5, err_msg=name)
    assert perplexity == pytest.approx(float(EXPECTED["perplexity"]), rel=1e-4)
