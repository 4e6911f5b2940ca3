"""``mx.model.FeedForward`` (MXNet 1.x's deprecated estimator, used by MXNet's
tests/python/train): training from given parameters equals MXNet 1.9.1's
(``fixtures/feedforward.npz``, ``gen_feedforward.py``); predict drops padding and runs
on the first device; save/load, pickling, NumPy inputs and extra parameters."""
import os
import pickle
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.model.feedforward import FeedForward

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, FIXTURES)
from feedforward_cases import inputs, net  # noqa: E402

EXPECTED = np.load(os.path.join(FIXTURES, "feedforward.npz"))
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _trained(ctx=None):
    x, y, params, _ = inputs()
    model = FeedForward(net(mx), ctx=ctx or mx.cpu(), num_epoch=2, learning_rate=0.1,
                        momentum=0.9, wd=0.001,
                        arg_params={k: mx.nd.array(v) for k, v in params.items()},
                        aux_params={})
    model.fit(mx.io.NDArrayIter(x, y, batch_size=4, shuffle=False,
                                label_name="softmax_label"))
    return model


def test_fit_matches_mxnet():
    model = _trained()
    for key in ("fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"):
        np.testing.assert_allclose(model.arg_params[key].asnumpy(),
                                   EXPECTED[f"trained/{key}"], rtol=1e-5, atol=1e-6)


def test_predict_and_score_match_mxnet():
    model = _trained()
    x, y, _, x_test = inputs()
    prob = model.predict(mx.io.NDArrayIter(x_test, None, batch_size=4))
    assert prob.shape == (7, 3)  # the padded rows of the last batch are dropped
    np.testing.assert_allclose(prob, EXPECTED["predict"], rtol=1e-5, atol=1e-6)
    score = model.score(mx.io.NDArrayIter(x, y, batch_size=4, label_name="softmax_label"))
    assert score == pytest.approx(float(EXPECTED["score"]))


def test_numpy_input_and_return_data():
    model = _trained()
    _, _, _, x_test = inputs()
    prob, data, label = model.predict(x_test, return_data=True)
    np.testing.assert_allclose(prob, EXPECTED["predict"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(data, x_test)
    assert label.shape == (7,)
    with pytest.raises(ValueError, match="y must be specified"):
        model.fit(x_test)


def test_two_devices_predict_like_one(tmp_path):
    model = _trained(ctx=[mx.cpu(0), mx.cpu(1)])
    _, _, _, x_test = inputs()
    prob = model.predict(x_test)
    prefix = str(tmp_path / "ff")
    model.save(prefix)
    loaded = FeedForward.load(prefix, 2)  # one device: must give the same numbers
    assert loaded.begin_epoch == 2
    assert np.array_equal(loaded.predict(x_test), prob)
    assert np.array_equal(pickle.loads(pickle.dumps(model)).predict(x_test), prob)


def test_internal_output_with_extra_params():
    model = _trained()
    hidden = net(mx).get_internals()["act_output"]
    feat = FeedForward(hidden, arg_params=model.arg_params, aux_params=model.aux_params,
                       allow_extra_params=True)
    _, _, _, x_test = inputs()
    assert feat.predict(x_test).shape == (7, 5)


def test_create_trains_and_errors():
    x, y, _, _ = inputs()
    model = FeedForward.create(net(mx), X=x, y=y, num_epoch=1, numpy_batch_size=4,
                               learning_rate=0.1)
    assert set(model.arg_params) == {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}
    with pytest.raises(MXNetError, match="no parameters"):
        FeedForward(net(mx)).predict(x)
    with pytest.raises(MXNetError, match="Symbol"):
        FeedForward(lambda key: net(mx))
    with pytest.warns(DeprecationWarning):
        FeedForward(net(mx))
