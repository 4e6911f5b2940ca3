"""Helpers shared by the tests of MXNet's oneDNN INT8 flow (fixtures made by MXNet)."""
import os

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
