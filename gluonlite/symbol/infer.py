"""``Symbol.infer_shape`` / ``infer_type`` and their partial forms.

The inference itself is :func:`.inference.infer_slots`, the one the CachedOp's plans
use too; this module maps a symbol's arguments (positional or by name, ``__shape__``
and ``__dtype__`` hints) onto its slots and the results back onto MXNet's
``(arg, out, aux)`` lists.  Unknown shapes are ``None`` and unknown dimensions 0, as
in MXNet 1.x.
"""
from __future__ import annotations

import ast
import warnings

import numpy as np

from ..base import MXNetError
from .graph import aux_variable_ids, topo_order
from .inference import complete as _complete, index_graph, infer_slots

__all__ = ["infer_shape", "infer_type", "infer_graph_shapes", "infer_graph_types"]


def _dims(shape) -> tuple:
    """A user or attribute shape as ints, unknown dims (``None``, negative) as 0; a bare
    int is a 1-D shape (``var(shape=(1))`` stores ``'1'``, which MXNet reads as ``(1,)``)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(0 if d is None or d < 0 else int(d) for d in shape)


def _initial_shapes(index, known: dict) -> list:
    """Slot shapes before inference: given shapes, else the variables' ``__shape__``."""
    shapes: list = [None] * index.n_slots
    for node in index.variables:
        slot = index.slot_of[(id(node), 0)]
        if id(node) in known:  # a given shape replaces the __shape__ hint (MXNet)
            shapes[slot] = tuple(known[id(node)])
        else:
            hint = node.extra.get("__shape__")
            if hint is not None:
                shapes[slot] = _dims(ast.literal_eval(hint))
    return shapes


def _initial_types(index, known: dict) -> list:
    """Slot dtypes before inference: given dtypes, else the variables' ``__dtype__``."""
    from .creation import DTYPE_NAMES
    dtypes: list = [None] * index.n_slots
    for node in index.variables:
        slot = index.slot_of[(id(node), 0)]
        if id(node) in known:  # a given dtype replaces the __dtype__ hint (MXNet)
            value = known[id(node)]
            dtypes[slot] = None if value is None else np.dtype(value)
        else:
            code = node.extra.get("__dtype__")
            if code is not None:
                dtypes[slot] = np.dtype(DTYPE_NAMES[int(code)])
    return dtypes


def _by_entry(index, values: list) -> dict:
    return {key: values[slot] for key, slot in index.slot_of.items()
            if values[slot] is not None}


def infer_graph_shapes(order: list, known: dict) -> dict:
    """Shapes of every entry of the nodes ``order``, from ``known``
    (``{id(variable node): shape}``).

    Returns ``{(id(node), index): shape}`` with partial shapes where inference stopped.
    """
    index = index_graph(order)
    shapes = _initial_shapes(index, known)
    infer_slots(index, shapes, None)
    return _by_entry(index, shapes)


def infer_graph_types(order: list, known: dict) -> dict:
    """Dtypes (``numpy.dtype``) of every entry from ``known`` (``{id(variable): dtype}``)."""
    index = index_graph(order)
    dtypes = _initial_types(index, known)
    infer_slots(index, None, dtypes)
    return _by_entry(index, dtypes)


def _split_args(sym, args: tuple, kwargs: dict, what: str):
    """``{id(variable): value}`` from positional (argument order) and keyword values."""
    order = topo_order(sym._heads)
    aux = aux_variable_ids(order)
    arg_nodes = [n for n in order if n.op is None and id(n) not in aux]
    aux_nodes = [n for n in order if n.op is None and id(n) in aux]
    given = {}
    if args:
        if kwargs:
            raise ValueError("Can only specify known argument shapes either by positional "
                             "or kwargs way.")
        if len(args) > len(arg_nodes):
            raise MXNetError(f"{what}: {len(args)} positional values for "
                             f"{len(arg_nodes)} arguments {[n.name for n in arg_nodes]}")
        for node, value in zip(arg_nodes, args):
            if value is not None:
                given[id(node)] = value
    by_name = {n.name: n for n in arg_nodes + aux_nodes}
    for key, value in kwargs.items():
        if key not in by_name:
            cands = "\n".join(f"\t[{i}]{n.name}" for i, n in enumerate(arg_nodes + aux_nodes))
            raise MXNetError(f"{what}: keyword argument name {key} not found.\n"
                             f"Candidate arguments:\n{cands}")
        if value is not None:
            given[id(by_name[key])] = value
    return order, arg_nodes, aux_nodes, given


def infer_shape(sym, args: tuple, kwargs: dict, partial: bool):
    """``Symbol.infer_shape`` / ``infer_shape_partial``: (arg, out, aux) shape lists."""
    order, arg_nodes, aux_nodes, given = _split_args(sym, args, kwargs, "InferShape")
    index = index_graph(order)
    shapes = _initial_shapes(index, {k: _dims(v) for k, v in given.items()})
    infer_slots(index, shapes, None)
    slot_of = index.slot_of
    arg_s = [shapes[slot_of[(id(n), 0)]] for n in arg_nodes]
    out_s = [shapes[slot_of[(id(n), i)]] for n, i in sym._heads]
    aux_s = [shapes[slot_of[(id(n), 0)]] for n in aux_nodes]
    if not partial and not all(_complete(s) for s in arg_s + out_s + aux_s):
        unknown = [f"{n.name}: {s if s is not None else ()}"
                   for n, s in zip(arg_nodes + aux_nodes, arg_s + aux_s) if not _complete(s)]
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                      "unknown dimensions). Consider providing them as input:\n\t"
                      + "\n\t".join(unknown), stacklevel=3)
        return None, None, None
    fix = (lambda s: () if s is None else s)
    return [fix(s) for s in arg_s], [fix(s) for s in out_s], [fix(s) for s in aux_s]


def infer_type(sym, args: tuple, kwargs: dict, partial: bool):
    """``Symbol.infer_type`` / ``infer_type_partial``: (arg, out, aux) numpy type lists."""
    order, arg_nodes, aux_nodes, given = _split_args(sym, args, kwargs, "InferType")
    index = index_graph(order)
    types = _initial_types(index, given)
    infer_slots(index, None, types)
    slot_of = index.slot_of
    arg_t = [types[slot_of[(id(n), 0)]] for n in arg_nodes]
    out_t = [types[slot_of[(id(n), i)]] for n, i in sym._heads]
    aux_t = [types[slot_of[(id(n), 0)]] for n in aux_nodes]
    if not partial and any(t is None for t in arg_t + out_t + aux_t):
        unknown = [f"{n.name}: {t}" for n, t in zip(arg_nodes + aux_nodes, arg_t + aux_t)
                   if t is None]
        warnings.warn("Cannot decide type for the following arguments. Consider providing "
                      "them as input:\n\t" + "\n\t".join(unknown), stacklevel=3)
        return None, None, None
    fix = (lambda t: None if t is None else t.type)
    return [fix(t) for t in arg_t], [fix(t) for t in out_t], [fix(t) for t in aux_t]
