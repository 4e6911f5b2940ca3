"""``mx.profiler``: operator calls (imperative, their backward, compiled graph steps
forward and backward) and user ranges are recorded while running, written as a Chrome
trace and summed in MXNet's aggregate table."""
import json

import pytest

import gluonlite as mx
from gluonlite import profiler


@pytest.fixture
def prof(tmp_path):
    path = tmp_path / "profile.json"
    profiler.set_config(profile_all=True, aggregate_stats=True, filename=str(path))
    profiler.dumps(reset=True)
    yield path
    profiler.set_state("stop")
    profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")


def _begun(path):
    events = json.loads(path.read_text())["traceEvents"]
    return [e["name"] for e in events if e["ph"] == "B"]


def test_operators_of_every_path_are_recorded(prof):
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    x.attach_grad()
    net(x)                                       # compile outside the profile
    profiler.set_state("run")
    mx.nd.dot(x, x.T)
    with mx.autograd.record():
        z = (net(x) * 2).sum()
    z.backward()
    profiler.set_state("stop")
    mx.nd.relu(x)                                # after stop: not recorded
    profiler.dump()
    names = _begun(prof)
    for expected in ("dot", "FullyConnected", "_backward_FullyConnected", "_mul_scalar",
                     "_backward__mul_scalar", "sum"):
        assert expected in names
    assert "relu" not in names
    table = profiler.dumps()
    assert "FullyConnected" in table and "Total Count" in table
    stats = json.loads(profiler.dumps(format="json", reset=True))
    assert stats["Time"]["operator"]["dot"]["Count"] == 1
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}


def test_pause_resume_and_user_ranges(prof):
    profiler.set_state("run")
    domain = profiler.Domain("train")
    task = domain.new_task("epoch")
    task.start()
    profiler.pause()
    mx.nd.relu(mx.nd.ones((2,)))                 # paused: not recorded
    profiler.resume()
    mx.nd.sigmoid(mx.nd.ones((2,)))
    task.stop()
    counter = domain.new_counter("batches", 0)
    counter += 2
    domain.new_marker("checkpoint").mark()
    profiler.dump(finished=True)
    events = json.loads(prof.read_text())["traceEvents"]
    begun = [e["name"] for e in events if e["ph"] == "B"]
    assert "sigmoid" in begun and "relu" not in begun and "epoch" in begun
    assert any(e["ph"] == "C" and e["args"] == {"batches": 2} for e in events)
    assert any(e["ph"] == "i" and e["name"] == "checkpoint" for e in events)
    with pytest.raises(mx.base.MXNetError):
        profiler.Domain("d").new_task("t").stop()


def test_bad_arguments():
    with pytest.raises(mx.base.MXNetError, match="unknown"):
        profiler.set_config(no_such_option=True)
    with pytest.raises(mx.base.MXNetError):
        profiler.set_state("go")
    with pytest.raises(AssertionError):
        profiler.dumps(format="xml")
