"""``mx.lr_scheduler`` against MXNet 1.9.1's rates (fixture ``training/lr_scheduler.json``)."""
import json
import os

import pytest

import gluonlite as mx

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "training",
                       "lr_scheduler.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rates_match_mxnet(name):
    cls, kwargs, rates = CASES[name]
    sched = getattr(mx.lr_scheduler, cls)(**kwargs)
    got = [sched(n) for n in range(len(rates))]
    assert got == pytest.approx(rates, rel=1e-12, abs=1e-15)


def test_factor_scheduler_catches_up_when_resumed():
    fresh = mx.lr_scheduler.FactorScheduler(step=5, factor=0.5, base_lr=1.0)
    assert fresh(23) == pytest.approx(1.0 * 0.5 ** 4)


@pytest.mark.parametrize("make", [
    lambda: mx.lr_scheduler.FactorScheduler(step=0),
    lambda: mx.lr_scheduler.FactorScheduler(step=2, factor=1.5),
    lambda: mx.lr_scheduler.MultiFactorScheduler(step=[5, 3]),
    lambda: mx.lr_scheduler.PolyScheduler(max_update=0),
    lambda: mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=0.1, warmup_begin_lr=0.5),
    lambda: mx.lr_scheduler.LRScheduler(warmup_mode="cubic"),
    lambda: mx.lr_scheduler.LRScheduler(warmup_steps=-1),
])
def test_bad_arguments_raise_value_error(make):
    with pytest.raises(ValueError):
        make()
