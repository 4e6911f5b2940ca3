"""A save killed at any moment leaves the previous complete checkpoint or the new one.

For a graph checkpoint (``-symbol.json`` + ``.params``) the loaders finish a save cut off
between its two renames (the graph's complete temporary file is still there), and refuse
with an ``MXNetError`` naming both files a pair that does not belong together.  The next
save to the same path removes the temporary files a killed save left.

Each trial forks a child that saves versions 1 and 2 alternately to the same path (after
the parent saved version 1) and kills it with SIGKILL after a random delay of up to a few
saves' time; the parent then loads what is on disk.  50 trials per method.
"""
import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon import nn

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

TRIALS = 50
UNITS = 512  # a 512x512 float32 weight: 1 MiB per parameters file


def _fc_symbol(version: int):
    out = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=UNITS, name="fc")
    return out if version == 1 else mx.sym.relu(out, name="relu")  # same parameters


def _fc_params(version: int) -> dict:
    return {"fc_weight": mx.nd.full((UNITS, UNITS), version),
            "fc_bias": mx.nd.full((UNITS,), version)}


def _graph_version(symbol) -> int:
    return 2 if "relu" in symbol.tojson() else 1


def _value_version(arrays) -> int:
    values = np.unique(np.concatenate([a.asnumpy().ravel() for a in arrays]))
    assert len(values) == 1, f"parameters of several versions: {values}"
    return int(values[0])


def _net(version: int):
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(UNITS, in_units=UNITS, bias_initializer=mx.init.Constant(version)))
        if version == 2:
            net.add(nn.Activation("relu"))
    net.initialize(mx.init.Constant(version))
    net.hybridize()
    net(mx.nd.ones((1, UNITS)))
    return net


class _Method:
    """Each method below: ``save(version)`` writes version 1 or 2, ``on_disk()`` gives the
    (graph, values) versions found on disk, or raises the loaders' ``MXNetError``."""

    def __init__(self, folder):
        self.prefix = os.path.join(str(folder), "ckpt")


class _SaveCheckpoint(_Method):
    def save(self, version):
        mx.model.save_checkpoint(self.prefix, 0, _fc_symbol(version), _fc_params(version), {})

    def on_disk(self):
        symbol, args, _ = mx.model.load_checkpoint(self.prefix, 0)
        return _graph_version(symbol), _value_version(args.values())


class _ModuleCheckpoint(_Method):
    def __init__(self, folder):
        super().__init__(folder)
        self.modules = {}
        for version in (1, 2):
            module = mx.mod.Module(_fc_symbol(version), label_names=None)
            module.bind([("data", (1, UNITS))], for_training=False)
            module.init_params(arg_params=_fc_params(version))
            self.modules[version] = module

    def save(self, version):
        self.modules[version].save_checkpoint(self.prefix, 0)

    def on_disk(self):
        module = mx.mod.Module.load(self.prefix, 0, label_names=None)
        return _graph_version(module.symbol), _value_version(module._arg_params.values())


class _Export(_Method):
    def __init__(self, folder):
        super().__init__(folder)
        self.nets = {version: _net(version) for version in (1, 2)}

    def save(self, version):
        self.nets[version].export(self.prefix)

    def on_disk(self):
        block = gluon.SymbolBlock.imports(f"{self.prefix}-symbol.json", ["data"],
                                          f"{self.prefix}-0000.params")
        return (_graph_version(block(mx.sym.var("data"))),
                _value_version(p.data() for p in block.collect_params().values()))


class _SaveParameters(_Method):
    def __init__(self, folder):
        super().__init__(folder)
        self.nets = {version: _net(1) for version in (1, 2)}
        for p in self.nets[2].collect_params().values():
            p.set_data(mx.nd.full(p.shape, 2))

    def save(self, version):
        self.nets[version].save_parameters(self.prefix + ".params")

    def on_disk(self):
        net = _net(1)
        net.load_parameters(self.prefix + ".params")
        version = _value_version(p.data() for p in net.collect_params().values())
        return version, version


class _TrainerStates(_Method):
    def __init__(self, folder):
        super().__init__(folder)
        self.trainers = {version: self._trainer(version) for version in (1, 2)}

    @staticmethod
    def _trainer(version):
        weight = gluon.Parameter("weight", shape=(UNITS, UNITS))
        weight.initialize(mx.init.Zero())
        trainer = gluon.Trainer([weight], "sgd", {"learning_rate": 1.0, "momentum": 0.5})
        with mx.autograd.record():  # one step: the momentum state becomes -version
            (weight.data() * version).sum().backward()
        trainer.step(1)
        return trainer

    def save(self, version):
        self.trainers[version].save_states(self.prefix + ".states")

    def on_disk(self):
        trainer = self._trainer(1)
        trainer.load_states(self.prefix + ".states")
        version = -_value_version(trainer._updaters[0].states.values())
        return version, version


class _NdSave(_Method):
    def save(self, version):
        mx.nd.save(self.prefix + ".nd", _fc_params(version))

    def on_disk(self):
        version = _value_version(mx.nd.load(self.prefix + ".nd").values())
        return version, version


METHODS = {"save_checkpoint": _SaveCheckpoint, "Module.save_checkpoint": _ModuleCheckpoint,
           "export": _Export, "save_parameters": _SaveParameters,
           "Trainer.save_states": _TrainerStates, "nd.save": _NdSave}


def _killed_save(method: _Method, delay: float) -> None:
    pid = os.fork()
    if pid == 0:  # the child: save versions 2, 1, 2, ... until killed
        try:
            version = 2
            while True:
                method.save(version)
                version = 3 - version
        finally:
            os._exit(0)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _outcome(method: _Method):
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "checkpoint: finished the save")
            graph, values = method.on_disk()
    except mx.MXNetError as err:
        assert "do not belong together" in str(err), err
        return "refused"
    return "complete" if graph == values else "mixed"


def test_an_interrupted_pair_is_finished_and_a_mixed_pair_refused(tmp_path):
    method = _SaveCheckpoint(tmp_path)
    method.save(1)
    symbol_file, params_file = f"{method.prefix}-symbol.json", f"{method.prefix}-0000.params"
    old_graph = open(symbol_file, "rb").read()
    method.save(2)
    new_graph = open(symbol_file, "rb").read()
    # a save cut off after renaming the parameters: the old graph, the new one pending
    with open(symbol_file, "wb") as f:
        f.write(old_graph)
    dead_pid = 2 ** 22 + 1  # above Linux's pid_max: no such process
    with open(f"{symbol_file}.tmp{dead_pid}", "wb") as f:
        f.write(new_graph)
    with pytest.warns(UserWarning, match="finished the save"):
        assert method.on_disk() == (2, 2)
    assert not os.path.exists(f"{symbol_file}.tmp{dead_pid}")
    # the graph replaced by another: refused, naming both files
    with open(symbol_file, "wb") as f:
        f.write(old_graph)
    with pytest.raises(mx.MXNetError, match="do not belong together") as err:
        mx.model.load_checkpoint(method.prefix, 0)
    assert symbol_file in str(err.value) and params_file in str(err.value)
    with pytest.raises(mx.MXNetError, match="do not belong together"):
        gluon.SymbolBlock.imports(symbol_file, ["data"], params_file)
    # with another graph file (another name, another folder) the parameters load: only the
    # graph file saved with them is checked
    for other in (tmp_path / "other-symbol.json", tmp_path / "sub" / "ckpt-symbol.json"):
        other.parent.mkdir(exist_ok=True)
        other.write_bytes(old_graph)
        gluon.SymbolBlock.imports(str(other), ["data"], params_file)
    # parameters re-saved with nd.save carry no record: loaded with any graph
    mx.nd.save(params_file, mx.nd.load(params_file))
    symbol, args, _ = mx.model.load_checkpoint(method.prefix, 0)
    assert (_graph_version(symbol), _value_version(args.values())) == (1, 2)


@pytest.mark.parametrize("name", list(METHODS))
def test_a_killed_save_leaves_a_complete_file_or_a_refused_pair(name, tmp_path):
    method = METHODS[name](tmp_path)
    start = time.perf_counter()
    for version in (1, 2, 1):
        method.save(version)
    one_save = (time.perf_counter() - start) / 3
    rng = np.random.default_rng(5)
    outcomes = []
    for _ in range(TRIALS):
        _killed_save(method, rng.uniform(0, 20 * one_save))
        outcomes.append(_outcome(method))
    counts = {o: outcomes.count(o) for o in set(outcomes)}
    assert counts == {"complete": TRIALS}, counts
    # the killed saves left temporary files; the next save removes them
    method.save(1)
    assert not [f for f in os.listdir(tmp_path) if ".tmp" in f]
    assert _outcome(method) == "complete"


FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def test_mxnet_reads_paired_checkpoints(tmp_path):
    """``fixtures/gen_paired_checkpoint.py``: MXNet 1.9.1 loaded these gluonlite-written
    pairs (pairing record included) with nd.load, load_checkpoint, Module.load and
    SymbolBlock.imports; gluonlite still writes the same bytes and reads them alike."""
    folder = os.path.join(FIXTURES, "paired_checkpoint")
    src = open(os.path.join(FIXTURES, "gen_paired_checkpoint.py")).read()
    start = src.index('GLUONLITE_WRITER = r"""') + len('GLUONLITE_WRITER = r"""')
    writer = src[start:src.index('"""', start)]
    subprocess.run([sys.executable, "-c", writer, str(tmp_path)], check=True, timeout=120)
    for name in ("ckpt-symbol.json", "ckpt-0001.params", "net-symbol.json", "net-0000.params"):
        assert (tmp_path / name).read_bytes() == open(os.path.join(folder, name), "rb").read()
    assert open(os.path.join(folder, "ckpt-0001.params"), "rb").read()[-48:].startswith(
        mx.nd.utils.PAIR_MAGIC)
    with open(os.path.join(folder, "mxnet.json")) as f:
        theirs = json.load(f)
    x = mx.nd.array(theirs["input"])
    symbol, args, _ = mx.model.load_checkpoint(os.path.join(folder, "ckpt"), 1)
    out = symbol.bind(mx.cpu(), dict(args, data=x)).forward()[0].asnumpy()
    np.testing.assert_allclose(out, theirs["load_checkpoint"], rtol=1e-6)
    np.testing.assert_allclose(out, theirs["module_load"], rtol=1e-6)
    block = gluon.SymbolBlock.imports(os.path.join(folder, "net-symbol.json"), ["data"],
                                      os.path.join(folder, "net-0000.params"))
    np.testing.assert_allclose(block(x).asnumpy(), theirs["imports"], rtol=1e-6)
