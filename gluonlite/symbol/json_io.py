"""MXNet's symbol JSON (``-symbol.json``, ``Symbol.tojson``), read and written.

Format (NNVM graph JSON, as MXNet 1.9.1 writes it)::

    {"nodes": [{"op": "null" | <operator>, "name": ..., "attrs": {<str>: <str>},
                "inputs": [[node_id, output_index, version], ...]}, ...],
     "arg_nodes": [<ids of the variable nodes>],
     "node_row_ptr": [<prefix sums of every node's output count>],
     "heads": [[node_id, output_index, version], ...],
     "attrs": {"mxnet_version": ["int", 10901]}}

Writing follows MXNet byte for byte: nodes in :func:`~.graph.topo_order`, ``attrs``
sorted by key and left out when empty, a variable's entry version counting the
operators that mutated it before (BatchNorm's moving statistics: 1), output counts
in ``node_row_ptr`` as the pip build of MXNet 1.9.1 counts them (max ``Pooling`` has
a hidden oneDNN workspace output there), and dmlc's JSON layout: indent 2, ``", "``
separators, an array on several lines when it holds objects or more than 10 items,
an object on several lines when it has more than one key.

Reading accepts every format MXNet 1.9.1 loads (``attrs``, the older ``attr`` and
pre-NNVM ``param`` keys, inputs with or without the version field, nodes in any
order) with the upgrades of :mod:`.json_legacy`; ``node_row_ptr`` and ``arg_nodes``
are never trusted.  Operator names go through the registry (aliases included) and
attribute strings through the operator's parser, kept verbatim so that a file read
and written again is unchanged.  Anything malformed raises ``MXNetError``.
"""
from __future__ import annotations

import json
import weakref

from ..base import MXNetError, write_atomically
from ..ops.amp_casts import cast_source
from ..ops.registry import find_op
from ..util import is_np_shape
from . import json_legacy as legacy
from .graph import Node, topo_order, variable_node

__all__ = ["to_json", "from_json", "to_dict", "from_dict", "dumps", "save", "load"]

# entry versions of nodes read from JSON: (versions, inputs when read), kept as read
_READ_VERSIONS: "weakref.WeakKeyDictionary[Node, tuple]" = weakref.WeakKeyDictionary()


def _json_num_outputs(node: Node) -> int:
    """The output count MXNet writes for ``node`` (hidden outputs included)."""
    if node.op is None:
        return 1
    count = node.op.json_num_outputs  # declared where MXNet's kernels keep hidden outputs
    if callable(count):
        count = count(node.attrs)
    return count if count is not None else node.num_outputs()


def _node_attr_strings(node: Node) -> dict:
    out = {} if node.op is None else dict(node.attrs.to_strings())
    out.update(node.extra)
    return dict(sorted(out.items()))


# -- writing -----------------------------------------------------------------------
def to_dict(sym) -> dict:
    """The graph of ``sym`` as MXNet's JSON dictionary (see module doc)."""
    graph = _graph_dict(list(sym._heads))
    graph["attrs"] = {}
    if is_np_shape():  # MXNet marks graphs written under NumPy shape semantics
        graph["attrs"]["is_np_shape"] = ["int", 1]
    graph["attrs"]["mxnet_version"] = ["int", legacy.CURRENT_VERSION]
    return graph


def _graph_dict(heads: list) -> dict:
    """``nodes``, ``arg_nodes``, ``node_row_ptr`` and ``heads`` of the graph of ``heads``
    (a control-flow node's ``subgraphs`` are such dictionaries, without ``attrs``)."""
    order = topo_order(heads)
    index = {id(n): i for i, n in enumerate(order)}
    versions: dict[int, int] = {}   # id(variable) -> times mutated so far
    nodes = []
    row_ptr = [0]
    for node in order:
        item = {"op": "null" if node.op is None else node.op.name, "name": node.name}
        attrs = _node_attr_strings(node)
        if attrs:
            item["attrs"] = attrs
        mutated = set(node.op.aux_indices(node.attrs)) if node.op is not None \
            and node.op.aux_names else ()
        read = _READ_VERSIONS.get(node)
        if read is not None and (len(read[1]) != len(node.inputs) or any(
                a[0] is not b[0] or a[1] != b[1] for a, b in zip(read[1], node.inputs))):
            read = None  # inputs changed since the node was read
        inputs = []
        for pos, (src, out) in enumerate(node.inputs):
            version = 0
            if src.op is None:
                if read is not None:
                    version = read[0][pos]
                else:
                    version = versions.get(id(src), 0) + (pos in mutated)
                versions[id(src)] = version
            inputs.append([index[id(src)], out, version])
        item["inputs"] = inputs
        if node.op is not None and node.op.num_subgraphs:
            item["subgraphs"] = [_graph_dict(list(sub.heads)) for sub in node.attrs.subgraphs]
        nodes.append(item)
        row_ptr.append(row_ptr[-1] + _json_num_outputs(node))
    return {
        "nodes": nodes,
        "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
        "node_row_ptr": row_ptr,
        "heads": [[index[id(n)], out, versions.get(id(n), 0) if n.op is None else 0]
                  for n, out in heads],
    }


def dumps(value, indent: int = 0) -> str:
    """JSON text in dmlc's layout (MXNet's writer): see the module doc."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 1)}"
                 for k, v in value.items()]
        if len(items) == 1:
            return "{" + items[0] + "}"
        return "{\n" + pad + (", \n" + pad).join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [dumps(v, indent + 1) for v in value]
        if len(value) > 10 or any(isinstance(v, dict) for v in value):
            return "[\n" + pad + (", \n" + pad).join(items) + "\n" + "  " * indent + "]"
        return "[" + ", ".join(items) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value)


def to_json(sym, remove_amp_cast: bool = False) -> str:
    """``sym`` as MXNet symbol JSON text, laid out exactly as MXNet 1.9.1 writes it.

    Parameters
    ----------
    sym : Symbol
        The graph to write (all nodes reachable from its heads).
    remove_amp_cast : bool
        Leave out the ``amp_cast``/``amp_multicast`` nodes that other nodes read (their
        readers read the cast input instead), as MXNet does; heads are kept.

    Returns
    -------
    str
        The JSON text (no trailing newline, like ``mx.sym.Symbol.tojson``).
    """
    if remove_amp_cast:
        sym = _without_amp_casts(sym)
    return dumps(to_dict(sym))


def _without_amp_casts(sym):
    """A copy of ``sym`` whose nodes read through AMP casts (``ops.amp_casts``)."""
    from .symbol import Symbol
    copies: dict = {}

    def read(entry):
        node, i = entry
        src = cast_source(node.op, i)
        while src is not None:
            node, i = node.inputs[src]
            src = cast_source(node.op, i)
        return (copies[id(node)], i)

    changed = False
    for node in topo_order(sym._heads):
        inputs = [read(e) for e in node.inputs]
        changed = changed or any(cast_source(src.op, i) is not None for src, i in node.inputs)
        copy = Node(node.op, node.name, node.attrs, inputs, node.extra)
        read_versions = _READ_VERSIONS.get(node)
        if read_versions is not None and len(read_versions[1]) == len(inputs) and all(
                a[0] is b[0] and a[1] == b[1] for a, b in zip(read_versions[1], node.inputs)):
            _READ_VERSIONS[copy] = (read_versions[0], tuple(inputs))  # versions travel
        copies[id(node)] = copy
    if not changed:
        return sym
    return Symbol([(copies[id(n)], i) for n, i in sym._heads])


def save(sym, fname: str, remove_amp_cast: bool = False) -> None:
    """Write ``to_json(sym, remove_amp_cast)`` to the file ``fname`` (through a
    temporary file and a rename, so a failed write never leaves half a file in place
    of a good one)."""
    write_atomically(fname, to_json(sym, remove_amp_cast).encode("utf-8"))


# -- reading -----------------------------------------------------------------------
def _bad(msg: str) -> MXNetError:
    return MXNetError(f"Invalid MXNet symbol JSON: {msg}")


def _entry(value, where: str, n_nodes: int) -> tuple:
    """``(node_id, output_index)`` of a JSON entry ``[id, index(, version)]``."""
    if (not isinstance(value, list) or len(value) not in (2, 3)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise _bad(f"{where} must be [node_id, output_index(, version)], got {value!r}")
    node_id, out = value[0], value[1]
    if not 0 <= node_id < n_nodes:
        raise _bad(f"{where} refers to node {node_id}, but the graph has {n_nodes} nodes")
    if out < 0:
        raise _bad(f"{where} has a negative output index {out}")
    return node_id, out


class _Pending:
    """A node being read: its op, strings and input ids, before nodes are linked."""

    __slots__ = ("op", "name", "op_attrs", "extra", "inputs", "versions", "where",
                 "subgraphs")

    def __init__(self, op, name, op_attrs, extra, inputs, versions, where, subgraphs=()):
        self.op, self.name, self.op_attrs, self.extra = op, name, op_attrs, extra
        self.inputs, self.versions, self.where = inputs, versions, where
        self.subgraphs = subgraphs


def _read_node(item, i: int, n_nodes: int, version: int) -> _Pending:
    where = f"node {i}"
    if not isinstance(item, dict):
        raise _bad(f"{where} must be an object, got {type(item).__name__}")
    for key in ("op", "name"):
        if not isinstance(item.get(key), str):
            raise _bad(f"{where} needs a string '{key}', got {item.get(key)!r}")
    op_name, name = item["op"], item["name"]
    where = f"node {i} ('{name}')"
    raw_inputs = item.get("inputs")
    if not isinstance(raw_inputs, list):
        raise _bad(f"{where} needs an 'inputs' list, got {raw_inputs!r}")
    inputs = [_entry(v, f"{where} input {k}", n_nodes) for k, v in enumerate(raw_inputs)]
    versions = [v[2] if len(v) == 3 else 0 for v in raw_inputs]
    strings = legacy.rename_legacy_keys(legacy.node_attr_strings(item, where), version)
    if op_name == "null":
        if inputs:
            raise _bad(f"variable {where} cannot have inputs")
        return _Pending(None, name, None, strings, [], [], where)
    op = find_op(op_name)
    if op is None:
        raise MXNetError(f"Failed loading {where}: operator '{op_name}' is not registered")
    op_attrs = {k: v for k, v in strings.items() if not (k.startswith("__") and k.endswith("__"))}
    extra = {k: v for k, v in strings.items() if k not in op_attrs}
    return _Pending(op, name, op_attrs, extra, inputs, versions, where,
                    _read_subgraphs(item, op, where, version))


def _read_subgraphs(item: dict, op, where: str, version: int) -> tuple:
    """The ``subgraphs`` of a control-flow node, each a graph dictionary."""
    raw = item.get("subgraphs")
    if not op.num_subgraphs:
        if raw:
            raise _bad(f"{where}: operator {op.name} has no subgraphs")
        return ()
    if not isinstance(raw, list) or len(raw) != op.num_subgraphs:
        raise _bad(f"{where}: operator {op.name} needs {op.num_subgraphs} subgraph(s) in "
                   f"'subgraphs', got {raw!r:.80}")
    from .subgraph import Subgraph
    subs = []
    for k, graph in enumerate(raw):
        if isinstance(graph, dict) and "attrs" not in graph:
            graph = dict(graph, attrs={"mxnet_version": ["int", version]})
        try:
            subs.append(Subgraph(from_dict(graph)))
        except MXNetError as err:
            raise MXNetError(f"Failed loading {where}, subgraph {k}: {err}") from None
    return tuple(subs)


def _parse_attrs(p: _Pending):
    from .register import parse_op_attrs
    try:
        attrs = parse_op_attrs(p.op, p.op_attrs)
        return attrs.with_values(subgraphs=p.subgraphs) if p.subgraphs else attrs
    except MXNetError as err:
        raise MXNetError(f"Failed loading {p.where} of type {p.op.name}: {err}") from None


def _check_output(src: Node, out: int, where: str) -> None:
    n = src.num_outputs()
    if out >= n:
        raise _bad(f"{where} reads output {out} of '{src.name}', which has {n} output(s)")


def _link(pending: list, version: int) -> list:
    """Create the nodes (inputs before users) and return them by JSON index."""
    # operator attributes first: the input count depends on them
    attrs = [None if p.op is None else _parse_attrs(p) for p in pending]
    nodes: list = [None] * len(pending)
    state = [0] * len(pending)      # 0 new, 1 on the stack, 2 done
    for root in range(len(pending)):
        if state[root]:
            continue
        stack = [root]
        while stack:
            i = stack[-1]
            p = pending[i]
            if state[i] == 0:
                state[i] = 1
                for src, _ in p.inputs:
                    if state[src] == 1:
                        raise _bad(f"{p.where} is part of a cycle")
                    if state[src] == 0:
                        stack.append(src)
                continue
            stack.pop()
            if state[i] == 2:
                continue
            state[i] = 2
            nodes[i] = _make_node(p, attrs[i], nodes, version)
    return nodes


def _make_node(p: _Pending, attrs, nodes: list, version: int) -> Node:
    if p.op is None:
        return variable_node(p.name, p.extra)
    inputs = []
    for k, (src, out) in enumerate(p.inputs):
        _check_output(nodes[src], out, f"{p.where} input {k}")
        inputs.append((nodes[src], out))
    key = p.op.key_var_num_args
    if key is not None and isinstance(getattr(attrs, key, None), int) \
            and getattr(attrs, key) > len(inputs):
        # checked before listing input names: a corrupt count could be astronomically big
        raise MXNetError(f"Failed loading {p.where} of type {p.op.name}: {key}="
                         f"{getattr(attrs, key)} but the node has {len(inputs)} input(s)")
    names = p.op.input_names(attrs)
    versions = list(p.versions)
    if len(inputs) < len(names) and legacy.upgrades_missing_inputs(version):
        node_strings = dict(p.op_attrs)
        node_strings.update(p.extra)
        for input_name in names[len(inputs):]:
            inputs.append((variable_node(f"{p.name}_{input_name}", node_strings), 0))
            versions.append(0)
    if len(inputs) != len(names):
        raise MXNetError(f"Failed loading {p.where} of type {p.op.name}: expected "
                         f"{len(names)} input(s) {list(names)}, got {len(inputs)}")
    if legacy.upgrades_input_init(version):
        for (src, _), input_name in zip(inputs, names):
            init = legacy.input_init(p.op.name, input_name)
            if init is not None and src.op is None and "__init__" not in src.extra:
                src.extra["__init__"] = init
    node = Node(p.op, p.name, attrs, inputs, p.extra)
    if node.op.aux_names or any(versions):
        _READ_VERSIONS[node] = (tuple(versions), tuple(inputs))
    return node


def from_dict(graph) -> list:
    """Head entries of the graph in a parsed MXNet JSON dictionary."""
    if not isinstance(graph, dict):
        raise _bad(f"expected an object at the top level, got {type(graph).__name__}")
    items = graph.get("nodes")
    if not isinstance(items, list):
        raise _bad(f"'nodes' must be a list, got {items!r:.80}")
    raw_heads = graph.get("heads")
    if not isinstance(raw_heads, list):
        raise _bad(f"'heads' must be a list, got {raw_heads!r:.80}")
    version = legacy.graph_version(graph)
    pending = [_read_node(item, i, len(items), version) for i, item in enumerate(items)]
    heads = [_entry(v, f"head {k}", len(items)) for k, v in enumerate(raw_heads)]
    nodes = _link(pending, version)
    out = []
    for k, (node_id, index) in enumerate(heads):
        _check_output(nodes[node_id], index, f"head {k}")
        out.append((nodes[node_id], index))
    return out


def from_json(text: str | bytes):
    """A ``Symbol`` from MXNet symbol JSON text (any version MXNet 1.9.1 reads).

    Parameters
    ----------
    text : str or bytes
        The JSON (``Symbol.tojson()``, the contents of a ``-symbol.json`` file).

    Returns
    -------
    Symbol

    Raises
    ------
    MXNetError
        For malformed JSON, unknown operators, bad attributes and inputs that refer to
        missing nodes or outputs.
    """
    from .symbol import Symbol
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise _bad(f"not UTF-8 text ({err})") from None
    if not isinstance(text, str):
        raise TypeError(f"from_json expects a str, got {type(text).__name__}")
    try:
        graph = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise _bad(f"cannot parse ({err})") from None
    try:
        return Symbol(from_dict(graph))
    except RecursionError as err:  # an attribute string nested absurdly deep
        raise _bad(f"attribute nesting too deep ({err})") from None


def load(fname: str):
    """A ``Symbol`` from an MXNet ``-symbol.json`` file; ``MXNetError`` for a file that
    cannot be read or is not a symbol."""
    try:
        with open(fname, "rb") as f:
            data = f.read()
    except OSError as err:
        raise MXNetError(f"sym.load: cannot open '{fname}': {err.strerror or err}") from None
    return from_json(data)
