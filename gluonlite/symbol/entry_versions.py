"""Entry versions kept through graph rewrites.

MXNet's JSON writes every input entry as ``[node, output, version]``; the version of an
entry that reads a variable is the count of mutations of that variable when the entry
was made (a ``BatchNorm``'s moving statistics), and it travels with the entry: a pass
that copies a node (the oneDNN fusion, the quantization pass, ``Symbol`` copies) keeps
the versions of the entries it copies, and a new variable's entries have version 0.

gluonlite's JSON reader records the versions it read per node
(:data:`gluonlite.symbol.json_io._READ_VERSIONS`, valid while the node's inputs are the
ones read); the helpers here carry such records over to the nodes a rewrite makes, so
that the written JSON is MXNet's.  Nodes without a record are left to the writer (which
counts mutations, as MXNet's symbol composition does).
"""
from __future__ import annotations

from .graph import Node, topo_order
from .json_io import _READ_VERSIONS

__all__ = ["input_versions", "record_versions", "carry_versions", "set_input", "set_inputs",
           "copy_graph"]


def input_versions(node: Node) -> list | None:
    """The versions of ``node``'s input entries as recorded, or None (no record, or the
    inputs changed since)."""
    read = _READ_VERSIONS.get(node)
    if read is None or len(read[1]) != len(node.inputs) or any(
            a[0] is not b[0] or a[1] != b[1] for a, b in zip(read[1], node.inputs)):
        return None
    return list(read[0])


def record_versions(node: Node, versions) -> None:
    """Record ``versions`` (one per input entry of ``node``) for the JSON writer."""
    _READ_VERSIONS[node] = (tuple(int(v) for v in versions), tuple(node.inputs))


def carry_versions(new: Node, old: Node, by_position: bool = False) -> None:
    """Give ``new`` the versions of the entries it shares with ``old``: with
    ``by_position``, input ``k`` of ``new`` is a copy of input ``k`` of ``old``;
    otherwise an input of ``new`` reading the same variable output as an input of
    ``old`` (the same position first) takes its version, other inputs version 0.
    Nothing is recorded when ``old`` has no record."""
    versions = input_versions(old)
    if versions is None:
        return
    if by_position:
        if len(versions) == len(new.inputs):
            record_versions(new, versions)
        return
    out = []
    for pos, (src, index) in enumerate(new.inputs):
        version = 0
        if src.op is None:
            if pos < len(old.inputs) and old.inputs[pos][0] is src \
                    and old.inputs[pos][1] == index:
                version = versions[pos]
            else:
                version = next((v for (s, i), v in zip(old.inputs, versions)
                                if s is src and i == index), 0)
        out.append(version)
    record_versions(new, out)


def set_input(node: Node, pos: int, entry, version: int = 0) -> None:
    """Rewire input ``pos`` of ``node`` to ``entry`` (a new entry: ``version``), keeping
    the recorded versions of its other inputs."""
    versions = input_versions(node)
    node.inputs[pos] = entry
    if versions is not None:
        versions[pos] = version
        record_versions(node, versions)


def copy_graph(heads: list) -> list:
    """Deep-copy the nodes reachable from ``heads`` keeping the recorded entry versions;
    the new head entries."""
    mapping: dict = {}
    for node in topo_order(heads):
        copy = Node(node.op, node.name, node.attrs,
                    [(mapping[id(n)], i) for n, i in node.inputs], node.extra)
        carry_versions(copy, node, by_position=True)
        mapping[id(node)] = copy
    return [(mapping[id(n)], i) for n, i in heads]


def set_inputs(node: Node, inputs: list) -> None:
    """Replace ``node``'s inputs by ``inputs`` (as many, position for position): the
    entries kept keep their recorded versions, the new ones have version 0."""
    versions = input_versions(node)
    old = node.inputs
    node.inputs = list(inputs)
    if versions is not None and len(versions) == len(inputs):
        record_versions(node, [v if a[0] is b[0] and a[1] == b[1] else 0
                               for v, a, b in zip(versions, old, node.inputs)])
