"""``gluon.contrib.estimator``: ``Estimator.fit``/``evaluate`` with its event handlers
-- progress output and trained weights as MXNet 1.9.1's (fixture ``contrib_text.json``),
checkpoint files (periods, best, pruning, resuming, atomic writes), early stopping,
argument checks."""
import io
import json
import logging
import os
import re
import sys
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon import nn
from gluonlite.gluon.contrib.estimator import (BatchEnd, BatchProcessor, CheckpointHandler,
                                               EarlyStoppingHandler, EpochEnd, Estimator,
                                               GradientUpdateHandler, LoggingHandler,
                                               MetricHandler, StoppingHandler, TrainBegin,
                                               ValidationHandler)

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
import contrib_text_cases as cases  # noqa: E402

with open(os.path.join(FIXTURES, "contrib_text.json")) as _f:
    EXPECTED = json.load(_f)


def _data(n=32, batch_size=8, features=10):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (n, features)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)
    return gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=batch_size)


def _net(hybrid=False):
    net = nn.HybridSequential() if hybrid else nn.Sequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    if hybrid:
        net.hybridize()
    return net


def _estimator(net=None, **kwargs):
    net = net or _net()
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer, **kwargs)
    est.logger.handlers = [logging.StreamHandler(io.StringIO())]
    return est


def _log(est):
    return est.logger.handlers[0].stream.getvalue()


def test_progress_output_and_weights_match_mxnet():
    lines, weight = cases.estimator_run(mx)
    assert lines == EXPECTED["estimator_log"]
    np.testing.assert_allclose(weight, EXPECTED["estimator_weight"], rtol=1e-5, atol=1e-6)


def test_default_metrics_and_handlers():
    net = _net()
    net.initialize()
    with pytest.warns(UserWarning, match="No trainer specified"):
        est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss())
    assert [m.name for m in est.train_metrics] == ["training accuracy",
                                                   "training softmaxcrossentropyloss"]
    assert [m.name for m in est.val_metrics] == ["validation accuracy",
                                                 "validation softmaxcrossentropyloss"]
    assert est.context == [mx.gpu(0)] if mx.num_gpus() else [mx.cpu()]
    est.max_epoch, est.max_batch = 2, None
    handlers = est._prepare_default_handlers(_data(), None)
    kinds = [type(h) for h in handlers]
    assert kinds == [GradientUpdateHandler, MetricHandler, ValidationHandler, StoppingHandler,
                     LoggingHandler]
    groups = est._categorize_handlers(handlers)
    assert [len(g) for g in groups] == [3, 2, 1, 5, 3, 1]


def test_fit_two_epochs_with_checkpoints_early_stopping_and_logging(tmp_path):
    est = _estimator(_net(hybrid=True))
    acc = est.train_metrics[0]
    with pytest.warns(UserWarning, match="`greater` operator"):
        ckpt = CheckpointHandler(str(tmp_path), model_prefix="tiny", monitor=acc,
                                 save_best=True, max_checkpoints=1, verbose=1)
    stop = EarlyStoppingHandler(monitor=est.train_metrics[1], patience=5, mode="min")
    logger = LoggingHandler(log_interval=2, metrics=est.train_metrics)
    est.fit(_data(), val_data=_data(16), epochs=2, event_handlers=[ckpt, stop, logger])
    files = sorted(os.listdir(tmp_path))
    assert files == ["tiny-best.params", "tiny-best.states", "tiny-epoch1batch8.params",
                     "tiny-epoch1batch8.states", "tiny-symbol.json"]
    assert ckpt.current_epoch == 2 and ckpt.current_batch == 8
    assert stop.current_epoch == 2 and not stop.stop_training
    # the files load back
    net = _net()
    net.load_parameters(str(tmp_path / "tiny-epoch1batch8.params"))
    sym = mx.sym.load(str(tmp_path / "tiny-symbol.json"))
    assert len(sym.list_arguments()) == 5
    text = _log(est)
    assert "Train for 2 epochs." in text and "Validation Begin" in text
    assert re.search(r"\[Epoch 1\]\[Batch 2\]\[Samples 56\] time/interval: \d+\.\d{3}s "
                     r"training accuracy: \d\.\d{4}, training softmaxcrossentropyloss: "
                     r"\d\.\d{4}", text)
    assert "CheckpointHandler: trained total 5 batches" in text
    assert re.search(r"Train finished using total \d+s with 2 epochs\.", text)


def test_checkpoint_batch_period_and_pruning(tmp_path):
    est = _estimator()
    ckpt = CheckpointHandler(str(tmp_path), model_prefix="b", epoch_period=None,
                             batch_period=2, max_checkpoints=2)
    est.fit(_data(), batches=10, event_handlers=[ckpt])
    assert ckpt.current_batch == 10 and ckpt.current_epoch == 3
    assert sorted(os.listdir(tmp_path)) == ["b-epoch1batch7.params", "b-epoch1batch7.states",
                                            "b-epoch2batch9.params", "b-epoch2batch9.states"]
    assert "Model architecture(symbol file) is not saved" in _log(est)


def test_resume_from_checkpoint(tmp_path):
    est = _estimator()
    est.fit(_data(), epochs=2,
            event_handlers=[CheckpointHandler(str(tmp_path), model_prefix="r")])
    saved = est.net.collect_params()
    before = {k: saved[k].data().asnumpy().copy() for k in saved}
    est2 = _estimator()
    resume = CheckpointHandler(str(tmp_path), model_prefix="r", max_checkpoints=2,
                               resume_from_checkpoint=True)
    est2.max_epoch, est2.max_batch = 5, None
    resume.train_begin(est2)
    loaded = est2.net.collect_params()
    for k, name in zip(before, loaded):
        np.testing.assert_array_equal(loaded[name].data().asnumpy(), before[k])
    assert est2.max_epoch == 3 and (resume.trained_epoch, resume.trained_batch) == (1, 8)
    est3 = _estimator()
    est3.fit(_data(), epochs=5, event_handlers=[
        CheckpointHandler(str(tmp_path), model_prefix="r", max_checkpoints=2,
                          resume_from_checkpoint=True)])
    assert est3.max_epoch == 3
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".params")) == \
        ["r-epoch3batch16.params", "r-epoch4batch20.params"]
    with pytest.raises(ValueError, match="maximum number of epoch"):
        _estimator().fit(_data(), epochs=4, event_handlers=[
            CheckpointHandler(str(tmp_path), model_prefix="r", resume_from_checkpoint=True)])


def test_checkpoint_writes_are_atomic(tmp_path):
    est = _estimator()
    ckpt = CheckpointHandler(str(tmp_path), model_prefix="a")

    def broken_save(fname):
        with open(fname, "wb") as f:
            f.write(b"partial")
        raise OSError("disk full")

    est.net.save_parameters = broken_save
    with pytest.raises(OSError, match="disk full"):
        est.fit(_data(), epochs=1, event_handlers=[ckpt])
    assert os.listdir(tmp_path) == []


def test_early_stopping():
    est = _estimator()
    acc = est.train_metrics[0]
    stop = EarlyStoppingHandler(monitor=acc, patience=0, mode="min")
    # a constant monitor never improves under 'min' after the first epoch
    acc.get = lambda: ("training accuracy", 0.5)
    est.fit(_data(), epochs=5, event_handlers=[stop])
    assert (stop.stopped_epoch, stop.current_epoch) == (1, 2)
    assert "[Epoch 1] EarlyStoppingHanlder: early stopping due to training accuracy" in _log(est)
    values = [0.5, 0.45, 0.449, 0.448, 0.3, 0.2]
    patient = EarlyStoppingHandler(monitor=acc, patience=2, min_delta=0.01, mode="min")
    acc.get = lambda: ("training accuracy", values[min(patient.current_epoch, 5)])
    est.fit(_data(), epochs=6, event_handlers=[patient])
    # 0.449 and 0.448 are within min_delta of the best (0.45): two epochs without progress
    assert (patient.stopped_epoch, patient.current_epoch, patient.best) == (3, 4, 0.45)
    del acc.get
    never = EarlyStoppingHandler(monitor=acc, patience=0, mode="max", baseline=2.0)
    est.fit(_data(), epochs=3, event_handlers=[never])
    assert never.stopped_epoch == 0 and never.current_epoch == 1
    with pytest.warns(UserWarning, match="`less` operator"):
        by_name = EarlyStoppingHandler(monitor=est.train_metrics[1])
    assert by_name.monitor_op is np.less
    with pytest.warns(UserWarning, match="`greater` operator"):
        assert EarlyStoppingHandler(monitor=acc).monitor_op is np.greater
    with pytest.raises(ValueError):
        EarlyStoppingHandler(monitor="acc")
    with pytest.raises(ValueError):
        EarlyStoppingHandler(monitor=mx.metric.CompositeEvalMetric([acc]))


def test_custom_handler_stops_and_evaluate():
    class Stop(TrainBegin, BatchEnd, EpochEnd):
        def __init__(self, sticky):
            self.sticky = sticky

        def train_begin(self, estimator, *args, **kwargs):
            self.batches = self.epochs = 0

        def batch_end(self, estimator, *args, **kwargs):
            self.batches += 1
            return self.batches == 3 or (self.sticky and self.batches > 3)

        def epoch_end(self, estimator, *args, **kwargs):
            self.epochs += 1
            return self.sticky and self.batches >= 3

    est = _estimator()
    # a batch_end True ends the epoch; training ends when an epoch_end says so
    stop = Stop(sticky=False)
    est.fit(_data(), epochs=4, event_handlers=[stop])
    assert (stop.batches, stop.epochs) == (3 + 4 + 4 + 4, 4)
    stop = Stop(sticky=True)
    est.fit(_data(), epochs=4, event_handlers=[stop])
    assert (stop.batches, stop.epochs) == (3, 1)
    est.evaluate(_data(16))
    name, value = est.val_metrics[0].get()
    assert name == "validation accuracy" and 0 <= value <= 1
    assert "Validation Begin" in _log(est)


def test_custom_batch_processor():
    class Counting(BatchProcessor):
        fits = 0

        def fit_batch(self, estimator, train_batch, batch_axis=0):
            Counting.fits += 1
            return super().fit_batch(estimator, train_batch, batch_axis)

    est = _estimator(batch_processor=Counting())
    est.fit(_data(), batches=3)
    assert Counting.fits == 3
    with pytest.raises(ValueError, match="fit_batch"):
        _estimator(batch_processor=object())


def test_argument_checks(tmp_path):
    est = _estimator()
    with pytest.raises(ValueError, match="DataLoader"):
        est.fit([(1, 2)], epochs=1)
    with pytest.raises(ValueError, match="exactly one type"):
        est.fit(_data(), epochs=1, batches=1)
    with pytest.raises(ValueError, match="exactly one type"):
        est.fit(_data())
    with pytest.raises(ValueError, match="DataLoader"):
        est.evaluate([(1, 2)])
    with pytest.raises(ValueError, match="handlers must be"):
        est.fit(_data(), epochs=1, event_handlers=["x"])
    with pytest.raises(ValueError, match="outside of the known"):
        est.fit(_data(), epochs=1,
                event_handlers=[LoggingHandler(metrics=[mx.metric.Accuracy()])])
    with pytest.raises(ValueError, match="log_interval"):
        LoggingHandler(log_interval="batch")
    with pytest.raises(ValueError, match="save best"):
        CheckpointHandler(str(tmp_path), save_best=True)
    net = _net()
    net.initialize()
    with pytest.raises(ValueError, match="loss must be a Loss"):
        Estimator(net, loss="l2")
    with pytest.raises(ValueError, match="Trainer must be"):
        Estimator(net, gluon.loss.L2Loss(), trainer="sgd")
    with pytest.raises(ValueError, match="context must be"):
        Estimator(net, gluon.loss.L2Loss(), context="cpu")
    with pytest.raises(ValueError, match="metrics must be"):
        Estimator(net, gluon.loss.L2Loss(), train_metrics=["acc"])
    trainer = gluon.Trainer(net.collect_params(), "sgd")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        Estimator(net, gluon.loss.L2Loss(), initializer=mx.init.One(), trainer=trainer)
    assert any("already fully initialized" in str(x.message) for x in w)
