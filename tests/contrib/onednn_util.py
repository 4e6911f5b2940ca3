"""Helpers shared by the tests of MXNet's oneDNN INT8 flow (fixtures made by MXNet)."""
import os
import warnings

import numpy as np

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def load_fixture(name: str) -> dict:
    """The arrays of ``tests/fixtures/<name>``, read once."""
    return dict(np.load(os.path.join(FIXTURES, name)))


def fixture_params(data: dict, case: str, kind: str) -> dict:
    """``{name: NDArray}`` of the ``<case>/<kind>:<name>`` arrays (``arg``, ``aux``,
    ``qarg``, ``qaux``), dtypes kept."""
    prefix = f"{case}/{kind}:"
    return {k[len(prefix):]: mx.nd.array(v, dtype=v.dtype) for k, v in data.items()
            if k.startswith(prefix)}


def op_nodes(graph: dict) -> list:
    """The operator nodes of a ``-symbol.json`` dict as (op, name, attributes, inputs
    with entry versions); MXNet's ``-0.000000`` (its oneDNN relu gives ``-0.0``) as
    ``0.000000``."""
    nodes = graph["nodes"]
    out = []
    for n in nodes:
        if n["op"] == "null":
            continue
        attrs = {k: ("0.000000" if v == "-0.000000" else v)
                 for k, v in (n.get("attrs") or {}).items() if not k.startswith("__")}
        out.append((n["op"], n["name"], attrs,
                    [f"{nodes[e[0]]['name']}:{e[1]}:v{e[2] if len(e) > 2 else 0}"
                     for e in n["inputs"]]))
    return out


def imports(prefix: str):
    """``SymbolBlock.imports`` of ``prefix-symbol.json``/``prefix-0000.params`` with input
    ``data`` (an INT8 graph types ``data`` late: MXNet warns too, silenced here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                            prefix + "-0000.params")


def import_fixture(data: dict, case: str, prefix: str):
    """The fixture graph ``<case>/json`` with its ``arg``/``aux`` parameters, written as
    MXNet's export files under ``prefix`` and imported with :func:`imports`."""
    with open(prefix + "-symbol.json", "w") as fh:
        fh.write(str(data[f"{case}/json"]))
    params = {f"arg:{k}": v for k, v in fixture_params(data, case, "arg").items()}
    params.update({f"aux:{k}": v for k, v in fixture_params(data, case, "aux").items()})
    mx.nd.save(prefix + "-0000.params", params)
    return imports(prefix)
