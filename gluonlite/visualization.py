"""``mx.viz``: a layer table of a symbol (``print_summary``) and a graphviz drawing
(``plot_network``, needs the optional ``graphviz`` package), as MXNet prints them."""
from __future__ import annotations

import json
import re

from .base import MXNetError
from .ops.registry import find_op
from .symbol import Symbol

__all__ = ["print_summary", "plot_network"]


def _shape_dict(symbol, shape: dict) -> dict:
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes))


def _op_and_attrs(node: dict):
    """The registered operator of a JSON node and its parsed attributes (``None``s for a
    variable or an operator this package does not know)."""
    op = find_op(node["op"]) if node["op"] != "null" else None
    if op is None:
        return None, None
    try:
        return op, op.parse_attrs(dict(node.get("attrs", {})))
    except MXNetError:
        return None, None


def _param_count(node: dict, pre_filter: int, shapes: dict | None) -> int:
    """Parameters of one layer as MXNet's summary counts them (from the channels of
    its inputs, ``pre_filter``): the operator's ``summary_params`` trait."""
    op, attrs = _op_and_attrs(node)
    if op is None or op.summary_params is None:
        return 0
    out_shape = shapes.get(node["name"] + "_output") if shapes is not None else None
    return int(op.summary_params(attrs, pre_filter, out_shape))


def print_summary(symbol, shape: dict | None = None, line_length: int = 120,
                  positions=(.44, .64, .74, 1.)) -> None:
    """Print each layer's name and type, output shape, parameter count and inputs.

    Parameters
    ----------
    symbol : Symbol
    shape : dict of str to tuple, optional
        Input shapes; without them the shapes are blank and counts that need the input
        channels are partial (as in MXNet).
    line_length : int
    positions : sequence of float or int
        Column ends, as fractions of ``line_length`` or characters.
    """
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shapes = _shape_dict(symbol, shape) if shape is not None else None
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    # MXNet tests node ids against the first head entry's numbers (id, index, version)
    heads = set(conf["heads"][0])
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields) -> None:
        line = ""
        for end, field in zip(positions, fields):
            line = (line + str(field))[:end]
            line += " " * (end - len(line))
        print(line)

    def output_shape(index: int) -> list:
        node = nodes[index]
        if shapes is None or not (node["op"] != "null" or index in heads):
            return []
        key = node["name"] + "_output" if node["op"] != "null" else node["name"]
        return list(shapes.get(key, [None])[1:]) if key in shapes else []

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node["op"] == "null" and i > 0:
            continue
        previous, pre_filter = [], 0
        if node["op"] != "null":
            for entry in node["inputs"]:
                src = nodes[entry[0]]
                if src["op"] != "null" or entry[0] in heads:
                    previous.append(src["name"])
                    key = src["name"] + "_output" if src["op"] != "null" else src["name"]
                    if shapes is not None and key in shapes:
                        pre_filter += int(shapes[key][1:][0])
        count = _param_count(node, pre_filter, shapes)
        total += count
        row([f"{node['name']}({node['op']})", "x".join(str(d) for d in output_shape(i)),
             count, previous[0] if previous else ""])
        for name in previous[1:]:
            row(["", "", "", name])
        print(("=" if i == len(nodes) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)


# fill colours (MXNet's palette): variables, then the operator families of ``plot_style``
_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5")
_FAMILY_COLORS = {"layer": _COLORS[1], "activation": _COLORS[2], "norm": _COLORS[3],
                  "pooling": _COLORS[4], "shape": _COLORS[5], "output": _COLORS[6]}


def _node_style(node: dict) -> tuple[str, str]:
    """``(label, colour)`` of an operator node: its operator's ``plot_style`` trait."""
    op, attrs = _op_and_attrs(node)
    if op is None or op.plot_style is None:
        return node["op"], _COLORS[7]
    label, family = op.plot_style(node["op"], attrs)
    return label, _FAMILY_COLORS.get(family, _COLORS[7])


def plot_network(symbol, title: str = "plot", save_format: str = "pdf", shape=None,
                 dtype=None, node_attrs=None, hide_weights: bool = True):
    """A ``graphviz.Digraph`` of the network (operators as boxes, edges labelled with
    shapes when ``shape`` is given).

    Raises
    ------
    ImportError
        When the ``graphviz`` package is not installed.
    """
    try:
        from graphviz import Digraph
    except ImportError as err:
        raise ImportError("Draw network requires graphviz library") from err
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shapes = _shape_dict(symbol, shape) if shape is not None else None
    types = None
    if dtype is not None:
        internals = symbol.get_internals()
        _, out_types, _ = internals.infer_type(**dtype)
        if out_types is None:
            raise ValueError("Input type is incomplete")
        types = dict(zip(internals.list_outputs(), out_types))
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    style = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
             "style": "filled", **(node_attrs or {})}
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for i, node in enumerate(nodes):
        op, name = node["op"], node["name"]
        attrs = dict(style)
        if op == "null":
            if hide_weights and re.search(r"(weight|bias|beta|gamma|moving_mean|"
                                          r"moving_var|running_mean|running_var)$", name):
                hidden.add(i)
                continue
            attrs["shape"], attrs["fillcolor"] = "oval", _COLORS[0]
            label = name
        else:
            label, attrs["fillcolor"] = _node_style(node)
        dot.node(name=name, label=label, **attrs)
    for node in nodes:
        if node["op"] == "null":
            continue
        for entry in node["inputs"]:
            if entry[0] in hidden:
                continue
            src = nodes[entry[0]]
            key = src["name"] + ("_output" if src["op"] != "null" else "")
            label = ""
            if shapes is not None and key in shapes:
                label = "x".join(str(d) for d in shapes[key][1:])
            if types is not None and key in types:
                label += ("\n" if label else "") + str(types[key])
            dot.edge(tail_name=node["name"], head_name=src["name"], label=label,
                     dir="back", arrowtail="open")
    return dot
