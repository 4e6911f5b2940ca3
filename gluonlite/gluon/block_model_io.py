"""``Block.save(prefix)`` / ``Block.load(prefix)``: a Block's structure, traced graphs
and parameters, in MXNet 1.9's files ``<prefix>-model.json`` and
``<prefix>-model.params``, so that models saved by either library load in the other.

``-model.json`` holds one nested dictionary per Block, keyed by the Block's class
name (lower case) and its index in a depth-first walk (``myblock0``, ``dense1``)::

    {"orig_name": "dense0", "hybridized": true, "in_format": [0], "out_format": 0,
     "inputs": ["<json of data var>"], "symbol": "<json of output>",
     "children": {"<child's block name>": "<key in parent's _children>"},
     "<child key>": {...}}

(``hybridized`` and the graph entries only for HybridBlocks, the graph entries only
when the block had traced one.)  ``-model.params`` is ``save_parameters``'s file.
Loading restores the saved block names, renames parameters to match, re-keys
children as saved and reinstalls traced graphs; the model must be built in the same
order as when saved.
"""
from __future__ import annotations

import json

from ..base import MXNetError, write_atomically

__all__ = ["save_model", "load_model"]


def _describe(block, index: list, structure: dict) -> None:
    from .hybrid_block import HybridBlock
    entry = {"orig_name": block.name}
    structure[type(block).__name__.lower() + str(index[0])] = entry
    if isinstance(block, HybridBlock):
        if block._cached_graph:
            inputs, out = block._cached_graph
            entry["in_format"] = block._in_format
            entry["out_format"] = block._out_format
            entry["inputs"] = [s.tojson() for s in inputs]
            entry["symbol"] = out.tojson()
            entry["hybridized"] = True
        else:
            entry["hybridized"] = False
    children = {}
    entry["children"] = children
    for key, child in block._children.items():
        index[0] += 1
        children[child.name] = key
        _describe(child, index, entry)


def save_model(block, prefix: str) -> None:
    """Write ``<prefix>-model.json`` (structure, traced graphs) and
    ``<prefix>-model.params`` (parameters by structural name).

    Parameters
    ----------
    block : Block
    prefix : str
    """
    model: dict = {}
    _describe(block, [0], model)
    # both through a temporary name and a rename (nd.save writes that way too)
    write_atomically(prefix + "-model.json", json.dumps(model).encode("utf-8"))
    block.save_parameters(prefix + "-model.params")


def _restore(block, index: list, structure: dict, fname: str) -> None:
    from ..symbol import load_json
    from .hybrid_block import HybridBlock
    key = type(block).__name__.lower() + str(index[0])
    if key not in structure:
        raise MXNetError(f"Block.load: '{fname}' has no entry '{key}' for {block.name} "
                         f"({type(block).__name__}); it holds {sorted(structure)}. The model "
                         f"must be built in the same order as when it was saved")
    entry = structure[key]
    block._name = entry["orig_name"]
    if isinstance(block, HybridBlock) and entry.get("hybridized"):
        block._clear_cached_op()
        block._in_format = entry["in_format"]
        block._out_format = entry["out_format"]
        block._cached_graph = ([load_json(s) for s in entry["inputs"]],
                               load_json(entry["symbol"]))
        block._active = True
    # parameters are renamed after the restored block name (as MXNet 1.9 does)
    own = block.params
    for name in list(own.keys()):
        param = own._params.pop(name)
        own._params[block.name + "_" + name[len(own._prefix):]] = param
    for child in block._children.values():
        index[0] += 1
        _restore(child, index, entry, fname)
    saved_keys = entry["children"]
    current = list(block._children.items())
    block._children.clear()
    for key, child in current:
        if child.name not in saved_keys:
            raise MXNetError(f"Block.load: child '{child.name}' of {block.name} is not in "
                             f"'{fname}' (saved children: {sorted(saved_keys)})")
        block._children[saved_keys[child.name]] = child


def load_model(block, prefix: str) -> None:
    """Restore a Block from the files written by :func:`save_model` (or MXNet's
    ``Block.save``): names, traced graphs, then the parameters.

    Parameters
    ----------
    block : Block
        Built the same way, in the same order, as the saved one.
    prefix : str
    """
    fname = prefix + "-model.json"
    with open(fname) as fp:
        model = json.load(fp)
    _restore(block, [0], model, fname)
    block.load_parameters(prefix + "-model.params")
