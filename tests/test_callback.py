"""``mx.callback``: MXNet's log lines from batch-end parameters, and the Gluon progress display."""
import io
import logging

import pytest

import gluonlite as mx
from gluonlite.callback import BatchEndParam


class _Metric:
    """Stands in for an EvalMetric: fixed name/value, counts resets."""

    def __init__(self):
        self.resets = 0

    def get_name_value(self):
        return [("accuracy", 0.5), ("ce", 1.25)]

    def reset_local(self):
        self.resets += 1


def test_speedometer_logs_every_frequent_batches(caplog, monkeypatch):
    clock = iter([100.0, 102.0, 104.0])
    monkeypatch.setattr(mx.callback, "_clock", lambda: next(clock))
    metric = _Metric()
    meter = mx.callback.Speedometer(batch_size=10, frequent=2)
    with caplog.at_level(logging.INFO):
        for nbatch in range(5):
            meter(BatchEndParam(epoch=1, nbatch=nbatch, eval_metric=metric, locals=None))
    lines = [r.getMessage() for r in caplog.records]
    # first call starts the clock; batches 2 and 4 log 2*10 samples over 2 s
    assert lines == ["Epoch[1] Batch [0-2]\tSpeed: 10.00 samples/sec\taccuracy=0.500000\tce=1.250000",
                     "Epoch[1] Batch [2-4]\tSpeed: 10.00 samples/sec\taccuracy=0.500000\tce=1.250000"]
    assert metric.resets == 2


def test_speedometer_without_metric_and_new_epoch(caplog, monkeypatch):
    clock = iter([0.0, 1.0, 5.0, 6.0])
    monkeypatch.setattr(mx.callback, "_clock", lambda: next(clock))
    meter = mx.callback.Speedometer(batch_size=4, frequent=1, auto_reset=False)
    with caplog.at_level(logging.INFO):
        meter(BatchEndParam(0, 0, None, None))
        meter(BatchEndParam(0, 1, None, None))
        meter(BatchEndParam(1, 0, None, None))  # counter went back: restart the clock
        meter(BatchEndParam(1, 1, None, None))
    assert [r.getMessage() for r in caplog.records] == [
        "Iter[0] Batch [1]\tSpeed: 4.00 samples/sec", "Iter[1] Batch [1]\tSpeed: 4.00 samples/sec"]


def test_progress_bar_and_metric_loggers(caplog):
    with caplog.at_level(logging.INFO):
        mx.callback.ProgressBar(total=4, length=8)(BatchEndParam(0, 1, None, None))
        mx.callback.log_train_metric(2, auto_reset=True)(BatchEndParam(3, 4, _Metric(), None))
        mx.callback.log_train_metric(3)(BatchEndParam(3, 4, _Metric(), None))  # not a multiple
        mx.callback.LogValidationMetricsCallback()(BatchEndParam(2, 0, _Metric(), None))
    assert [r.getMessage() for r in caplog.records] == [
        "[==------] 25%\r", "Iter[3] Batch[4] Train-accuracy=0.500000",
        "Iter[3] Batch[4] Train-ce=1.250000", "Epoch[2] Validation-accuracy=0.500000",
        "Epoch[2] Validation-ce=1.250000"]


def test_progress_text_display_yields_everything():
    out = io.StringIO()
    items = list(mx.callback.progress(range(7), desc="epoch 0", batch_size=32, file=out,
                                      min_interval=0.0, use_tqdm=False))
    assert items == list(range(7))
    text = out.getvalue()
    assert text.endswith("\n") and "epoch 0 [" in text and "7/7" in text
    assert "samples/s" in text


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_rewrites_its_line_on_a_terminal_only():
    tty, log = _Terminal(), io.StringIO()
    for out in (tty, log):
        items = list(mx.callback.progress(range(5), desc="epoch 0", file=out, min_interval=0.0,
                                          use_tqdm=False))
        assert items == list(range(5))
    assert tty.getvalue().count("\r") == 6  # a frame per item, then the final line
    # a log file or pipe gets one plain line, whether or not tqdm is installed
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 1 and "5/5" in lines[0]
    quiet = io.StringIO()
    list(mx.callback.progress(range(5), file=quiet, min_interval=0.0))
    assert "\r" not in quiet.getvalue() and len(quiet.getvalue().splitlines()) == 1


def test_progress_without_length():
    out = io.StringIO()
    gen = (i for i in range(3))
    assert list(mx.callback.progress(gen, file=out, use_tqdm=False)) == [0, 1, 2]
    assert "3 " in out.getvalue() and "it/s" in out.getvalue()


def test_progress_with_tqdm():
    pytest.importorskip("tqdm")
    out = io.StringIO()
    assert list(mx.callback.progress([1, 2], file=out, use_tqdm=True)) == [1, 2]
    assert "2/2" in out.getvalue()
