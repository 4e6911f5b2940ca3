"""``mx.metric`` against MXNet 1.9.1 (fixture ``training/metric``): values after each
update, global values, ``reset_local``; the API and MXNet's input checks."""
import json
import math
import os

import numpy as np
import pytest

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "training")
with open(os.path.join(HERE, "metric.json")) as _f:
    SPEC = json.load(_f)
DATA = np.load(os.path.join(HERE, "metric.npz"))


def _close(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    elif want is None or (isinstance(want, float) and math.isnan(want)):
        assert got is None or math.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("case", sorted(SPEC))
def test_metric_matches_mxnet(case):
    spec = SPEC[case]
    metric = mx.metric.create(spec["args"][0], **spec["kwargs"])
    for (label, pred), want in zip(spec["updates"][:3], spec["values"]):
        metric.update([mx.nd.array(DATA[label])], [mx.nd.array(DATA[pred])])
        _close(metric.get()[1], want)
    _close(metric.get_global()[1], spec["global_value"])
    metric.reset_local()
    label, pred = spec["updates"][3]
    metric.update([mx.nd.array(DATA[label])], [mx.nd.array(DATA[pred])])
    _close([metric.get()[1], metric.get_global()[1]], spec["after_reset_local"])
    assert metric.get()[0] == spec["name"]


def test_single_arrays_and_update_dict():
    acc = mx.metric.Accuracy(output_names=["out"], label_names=["lab"])
    acc.update(mx.nd.array([1, 0]), mx.nd.array([[0.2, 0.8], [0.3, 0.7]]))
    assert acc.get() == ("accuracy", 0.5)
    acc.update_dict({"lab": mx.nd.array([1.0])}, {"out": mx.nd.array([[0.1, 0.9]]),
                                                  "other": mx.nd.array([[1.0, 0.0]])})
    assert acc.get()[1] == pytest.approx(2 / 3)
    assert acc.get_name_value() == [("accuracy", pytest.approx(2 / 3))]
    assert acc.get_config() == {"axis": 1, "metric": "Accuracy", "name": "accuracy",
                                "output_names": ["out"], "label_names": ["lab"]}


def test_create_forms():
    assert isinstance(mx.metric.create("acc"), mx.metric.Accuracy)
    assert isinstance(mx.metric.create("ce"), mx.metric.CrossEntropy)
    assert isinstance(mx.metric.create("top_k_acc", top_k=2), mx.metric.TopKAccuracy)
    comp = mx.metric.create(["acc", mx.metric.MSE()])
    assert isinstance(comp, mx.metric.CompositeEvalMetric) and len(comp.metrics) == 2

    def my_error(label, pred):
        return np.abs(label - pred).sum(), label.size
    custom = mx.metric.create(my_error)
    custom.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.5, 2.0])])
    assert custom.get() == ("my_error", 0.25)
    lam = mx.metric.np(lambda label, pred: float((label == pred).mean()))
    assert lam.name == "custom(<lambda>)"
    with pytest.raises(AssertionError, match="no_such_metric is not registered"):
        mx.metric.create("no_such_metric")


def test_user_subclass():
    @mx.metric.register
    class Count(mx.metric.EvalMetric):
        def __init__(self):
            super().__init__("count")

        def update(self, labels, preds):
            self.sum_metric += sum(p.size for p in preds)
            self.num_inst += 1
    metric = mx.metric.create("count")
    metric.update([mx.nd.ones(2)], [mx.nd.ones((2, 3))])
    assert metric.get() == ("count", 6.0)
    assert metric.get_global() == metric.get()  # no global statistics declared


def test_bad_inputs_raise_with_shapes():
    acc = mx.metric.Accuracy()
    with pytest.raises(ValueError, match="Shape of labels 2 does not match shape of "
                                         "predictions 1"):
        acc.update([mx.nd.ones(2), mx.nd.ones(2)], [mx.nd.ones((2, 2))])
    with pytest.raises(ValueError, match="Shape of labels 3 does not match shape of "
                                         "predictions 2"):
        acc.update([mx.nd.ones(3)], [mx.nd.ones((2, 2))])
    with pytest.raises(ValueError, match="binary"):
        mx.metric.F1().update([mx.nd.array([0, 1, 2])], [mx.nd.ones((3, 2))])
    with pytest.raises(AssertionError):
        mx.metric.TopKAccuracy(top_k=1)
    with pytest.raises(ValueError):
        mx.metric.check_label_shapes(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)), shape=True)
    assert math.isnan(mx.metric.MAE().get()[1])


@pytest.mark.parametrize("name", ["acc", "mae", "f1", "mcc", "pearsonr", "pcc"])
def test_values_are_python_floats(name):
    # MXNet returns Python floats; a numpy.float64 would compare with a float32
    # expectation in float64 under NumPy 2 (2/3 != float32(2/3)).
    pred = mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
    label = mx.nd.array([0, 1, 1])
    metric = mx.metric.create(name)
    if name in ("mae", "pearsonr"):
        pred = pred[:, 1]
    metric.update([label], [pred])
    for _, value in (metric.get(), metric.get_global()):
        assert type(value) is float
    if name == "acc":
        assert metric.get()[1] == np.float32(2) / 3
