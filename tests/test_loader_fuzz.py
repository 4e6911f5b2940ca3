"""Mutation fuzzing of every file loader: byte flips, truncations, splices and repeats of
real MXNet files, and valid ``-symbol.json`` files with one field changed (seeded).  Each
mutated file either loads (and, for a graph, runs a forward) or raises ``MXNetError``;
never another exception, a hang (each load has a time limit) or an allocation that
cannot succeed (a ``MemoryError`` fails the test).

Loaders: ``nd.load``, ``model.load_params``, ``sym.load``, ``SymbolBlock.imports`` with a
forward, ``ParameterDict.load``, ``HybridBlock.load_parameters``, ``Module.load`` with a
forward, ``MXRecordIO.read``.  2,880 mutants by default; ``pytest --long
tests/test_loader_fuzz.py`` runs 100,000.
"""
import json
import os
import shutil
import signal

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
MODELS = os.path.join(FIXTURES, "models")
SOURCES = {
    "mlp_json": os.path.join(MODELS, "mlp-symbol.json"),
    "lstm_json": os.path.join(MODELS, "lstm-symbol.json"),
    "custom_json": os.path.join(MODELS, "custom-symbol.json"),
    "mlp_params": os.path.join(MODELS, "mlp-0000.params"),
    "tiny_params": os.path.join(FIXTURES, "parameter", "tiny_net.params"),
    "dict_nd": os.path.join(FIXTURES, "ndarray_files", "dict_mixed.nd"),
    "legacy_nd": os.path.join(FIXTURES, "ndarray_files", "legacy_record.nd"),
    "plain_rec": os.path.join(FIXTURES, "recordio", "plain.rec"),
}
TIME_LIMIT = 20  # seconds per load: a hang fails the test instead of stalling the suite
# where MXNet documents another error: Module's parameter initialization raises ValueError
# for a name the graph does not have (``Find name ... that is not in the arguments``)
ALLOWED = {"Module.load": (MXNetError, ValueError)}


def _read(name: str) -> bytes:
    with open(SOURCES[name], "rb") as f:
        return f.read()


def mutate(data: bytes, rng: np.random.RandomState, donor: bytes) -> bytes:
    """One random corruption of ``data``."""
    buf = bytearray(data)
    kind = rng.randint(5)
    if kind == 0:  # flip 1-8 bytes
        for pos in rng.randint(0, len(buf), rng.randint(1, 9)):
            buf[pos] ^= 1 << rng.randint(8)
    elif kind == 1:  # truncate
        buf = buf[:rng.randint(0, len(buf))]
    elif kind == 2:  # splice in a piece of another file
        start, size = rng.randint(0, len(donor)), rng.randint(1, 64)
        pos = rng.randint(0, len(buf) + 1)
        buf[pos:pos] = donor[start:start + size]
    elif kind == 3:  # repeat a segment
        start = rng.randint(0, len(buf))
        buf[start:start] = buf[start:start + rng.randint(1, 128)]
    else:  # overwrite a run with one byte value (0x00, 0xff, a digit, a quote)
        start = rng.randint(0, len(buf))
        buf[start:start + rng.randint(1, 16)] = bytes([rng.choice([0, 255, 57, 34])]) * 16
    return bytes(buf)


def mutate_json(data: bytes, rng: np.random.RandomState) -> bytes:
    """A valid JSON graph with one field changed: a node's op, name, attribute, input
    entry or the list of inputs, or a top-level list (heads, arg_nodes, node_row_ptr)."""
    graph = json.loads(data)
    values = [None, -1, 0, 1, 2, 3, 7, 2 ** 31, 2 ** 63, 1e308, -0.5, "", "x", "(0, 0)",
              "(1000000, 1000000)", "(-1,)", "None", "True", [], [0], [[0, 0, 0]], {}]
    pick = values[rng.randint(len(values))]
    kind = rng.randint(6)
    nodes = graph["nodes"]
    node = nodes[rng.randint(len(nodes))]
    if kind == 0:  # the op: another registered one, a made-up one, or a non-string
        node["op"] = rng.choice(["FullyConnected", "Convolution", "Activation", "null",
                                 "Reshape", "SoftmaxOutput", "Concat", "RNN", "Nope"]) \
            if rng.randint(2) else pick
    elif kind == 1:  # an attribute: changed, added or removed
        attrs = node.setdefault("attrs", {})
        key = rng.choice(sorted(attrs) + ["num_hidden", "shape", "axis", "kernel",
                                          "num_args", "__shape__", "__dtype__"])
        if rng.randint(4) == 0:
            attrs.pop(key, None)
        else:
            attrs[key] = pick if not isinstance(pick, str) or rng.randint(2) \
                else str(rng.randint(-3, 2 ** 20))
    elif kind == 2:  # one input entry: another node, output index or version
        if node.get("inputs"):
            entry = node["inputs"][rng.randint(len(node["inputs"]))]
            if isinstance(entry, list) and entry:
                entry[rng.randint(len(entry))] = pick if rng.randint(2) \
                    else int(rng.randint(-2, len(nodes) + 2))
        else:
            node["inputs"] = pick
    elif kind == 3:  # the node's inputs list, or the node itself, dropped
        if rng.randint(2):
            node.pop("inputs", None)
        else:
            nodes.remove(node)
    elif kind == 4:  # the name
        node["name"] = pick
    else:  # a top-level list
        key = rng.choice(["heads", "arg_nodes", "node_row_ptr", "attrs"])
        current = graph.get(key)
        graph[key] = pick if rng.randint(2) else \
            (current[:-1] if isinstance(current, list) else {})
    return json.dumps(graph).encode("utf-8")


def _read_all_records(path: str) -> None:
    reader = mx.recordio.MXRecordIO(path, "r")
    try:
        while reader.read() is not None:
            pass
    finally:
        reader.close()


with open(os.path.join(MODELS, "manifest.json")) as _f:
    INPUTS = {model: info["input_shapes"] for model, info in json.load(_f).items()
              if model in ("mlp", "lstm", "custom")}


def _imports_and_forward(symbol_file: str, params_file: str, model: str) -> None:
    """``SymbolBlock.imports`` with the model's inputs, then a forward on ones."""
    shapes = INPUTS[model]
    net = mx.gluon.SymbolBlock.imports(symbol_file, list(shapes), params_file)
    outputs = net(*(mx.nd.ones(shape) for shape in shapes.values()))
    for out in outputs if isinstance(outputs, list) else [outputs]:
        out.wait_to_read()


def _module_load_and_forward(prefix: str) -> None:
    module = mx.mod.Module.load(prefix, 0, data_names=["data"], label_names=None)
    module.bind([("data", (4, 12))], for_training=False)
    module.forward(mx.io.DataBatch([mx.nd.ones((4, 12))]), is_train=False)
    module.get_outputs()[0].wait_to_read()


def _params_into_dict(path: str) -> None:
    params = mx.gluon.ParameterDict()
    for name, shape in (("fc1_weight", (16, 12)), ("fc1_bias", (16,)),
                        ("fc2_weight", (5, 16)), ("fc2_bias", (5,))):
        params.get(name, shape=shape)
    params.load(path, ignore_extra=True, restore_prefix="")


def _into_block(path: str) -> None:
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4), mx.gluon.nn.Dense(2))
    net.load_parameters(path)


def _loaders(kind: str, folder: str) -> dict:
    """Loader name -> function of the mutant's path (a graph is imported with its model's
    parameters, the MLP's parameters with its graph, copied to ``folder``)."""
    if kind.endswith("_rec"):
        return {"MXRecordIO.read": _read_all_records}
    if kind.endswith("_json"):
        model = kind[:-len("_json")]
        params = os.path.join(MODELS, f"{model}-0000.params")
        return {"sym.load": mx.sym.load,
                "SymbolBlock.imports": lambda p: _imports_and_forward(p, params, model)}
    loaders = {"nd.load": mx.nd.load,
               "load_params": lambda p: mx.model.load_params(p[:-len("-0000.params")], 0)
               if p.endswith("-0000.params") else mx.nd.load(p)}
    if kind == "mlp_params":
        loaders["ParameterDict.load"] = _params_into_dict
        loaders["SymbolBlock.imports"] = lambda p: _imports_and_forward(
            os.path.join(folder, "mlp-symbol.json"), p, "mlp")
        loaders["Module.load"] = lambda p: _module_load_and_forward(p[:-len("-0000.params")])
    if kind == "tiny_params":
        loaders["load_parameters"] = _into_block
    return loaders


class _TimeLimit(Exception):
    pass


def _on_alarm(signum, frame):
    raise _TimeLimit()


def _cases(config) -> int:
    """Mutants per source: 2,880 in all by default, 100,000 with
    ``--long``."""
    return 12_500 if config.getoption("--long") else 360


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_mutated_files_load_or_raise_mxneterror(kind, tmp_path, pytestconfig):
    rng = np.random.RandomState(sum(map(ord, kind)))
    original = _read(kind)
    donor = _read("lstm_json" if kind.endswith("_params") or kind.endswith("_nd")
                  else "mlp_params")
    folder = str(tmp_path)
    if kind == "mlp_params":
        path = os.path.join(folder, "mlp-0000.params")  # Module.load reads prefix-0000
        shutil.copy(SOURCES["mlp_json"], os.path.join(folder, "mlp-symbol.json"))
    else:
        suffix = {"params": "-0000.params", "nd": ".nd", "rec": ".rec"}.get(
            kind.rsplit("_", 1)[1], "-symbol.json")
        path = os.path.join(folder, f"mutant{suffix}")
    loaders = _loaders(kind, folder)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for case in range(_cases(pytestconfig)):
            structured = kind.endswith("_json") and case % 2 == 1
            mutant = mutate_json(original, rng) if structured else \
                mutate(original, rng, donor)
            with open(path, "wb") as f:
                f.write(mutant)
            for name, load in loaders.items():
                where = f"{name} on mutant {case} of {kind} (seed {sum(map(ord, kind))})"
                signal.alarm(TIME_LIMIT)
                try:
                    load(path)
                except ALLOWED.get(name, MXNetError):
                    pass
                except _TimeLimit:
                    pytest.fail(f"{where} ran past {TIME_LIMIT} s")
                except Exception as err:  # noqa: BLE001 - the point of the test
                    pytest.fail(f"{where} raised {type(err).__name__}: {err}")
                finally:
                    signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_missing_files_raise_mxneterror(tmp_path):
    missing = str(tmp_path / "nothing-symbol.json")
    for load in (mx.sym.load, mx.nd.load,
                 lambda p: mx.gluon.SymbolBlock.imports(p, ["data"])):
        with pytest.raises(MXNetError):
            load(missing)
