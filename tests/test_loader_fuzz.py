"""Mutation fuzzing of every file loader: byte flips, truncations, splices and
repeats of real MXNet files (seeded, a few hundred cases).  Each mutated file either
loads or raises ``MXNetError``; never another exception, a crash or a hang."""
import os

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
CASES_PER_SOURCE = 40


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


def _read_all_records(path: str) -> None:
    reader = mx.recordio.MXRecordIO(path, "r")
    try:
        while reader.read() is not None:
            pass
    finally:
        reader.close()


def _loaders(kind: str):
    if kind.endswith("_rec"):
        return {"MXRecordIO.read": _read_all_records}
    if kind.endswith("_json"):
        return {"sym.load": mx.sym.load,
                "SymbolBlock.imports": lambda p: mx.gluon.SymbolBlock.imports(
                    p, ["data"], os.path.join(MODELS, "mlp-0000.params"))}
    loaders = {"nd.load": mx.nd.load,
               "load_params": lambda p: mx.model.load_params(p[:-len("-0000.params")], 0)
               if p.endswith("-0000.params") else mx.nd.load(p)}
    if kind == "tiny_params":
        def into_block(path):
            net = mx.gluon.nn.HybridSequential()
            net.add(mx.gluon.nn.Dense(4), mx.gluon.nn.Dense(2))
            net.load_parameters(path)
        loaders["load_parameters"] = into_block
    return loaders


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_mutated_files_load_or_raise_mxneterror(kind, tmp_path):
    rng = np.random.RandomState(sum(map(ord, kind)))
    original = _read(kind)
    donor = _read("lstm_json" if kind.endswith("_params") or kind.endswith("_nd")
                  else "mlp_params")
    suffix = {"params": "-0000.params", "nd": ".nd", "rec": ".rec"}.get(
        kind.rsplit("_", 1)[1], "-symbol.json")
    path = str(tmp_path / f"mutant{suffix}")
    for case in range(CASES_PER_SOURCE):
        with open(path, "wb") as f:
            f.write(mutate(original, rng, donor))
        for name, load in _loaders(kind).items():
            try:
                load(path)
            except MXNetError:
                pass
            except Exception as err:  # noqa: BLE001 - the point of the test
                pytest.fail(f"{name} on mutant {case} of {kind} raised "
                            f"{type(err).__name__}: {err}")


def test_missing_files_raise_mxneterror(tmp_path):
    missing = str(tmp_path / "nothing-symbol.json")
    for load in (mx.sym.load, mx.nd.load,
                 lambda p: mx.gluon.SymbolBlock.imports(p, ["data"])):
        with pytest.raises(MXNetError):
            load(missing)
