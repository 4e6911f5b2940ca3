"""``Symbol.infer_shape`` / ``infer_type`` and their partial forms.

The inference itself is :func:`.inference.infer_slots`, the one the CachedOp's plans
use too; this module maps a symbol's arguments (positional or by name, ``__shape__``
and ``__dtype__`` hints) onto its slots and the results back onto MXNet's
``(arg, out, aux)`` lists.  Inside, unknown shapes are ``None`` and unknown dimensions
0, as in MXNet 1.x; :func:`infer_shape` reports them in the convention of the shape
semantics in force (``()``/0, or ``None``/-1 under NumPy shape semantics).
"""
from __future__ import annotations

import ast
import warnings

import numpy as np

from ..base import MXNetError
from ..util import is_np_shape
from .graph import aux_variable_ids, topo_order
from .inference import complete as _complete, index_graph, infer_slots

__all__ = ["infer_shape", "infer_type", "infer_graph_shapes", "infer_graph_types"]


def _dims(shape) -> tuple:
    """A user or attribute shape as ints, unknown dims (``None``, negative) as 0; a bare
    int is a 1-D shape (``var(shape=(1))`` stores ``'1'``, which MXNet reads as ``(1,)``)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(0 if d is None or d < 0 else int(d) for d in shape)


def _given_shapes(index, known: dict) -> dict:
    """``{slot: shape}`` of the variables as the user gave them: ``known`` (``{id(node):
    shape}``, raw), else their ``__shape__`` hint; unknown dims still as given."""
    given = {}
    for node in index.variables:
        slot = index.slot_of[(id(node), 0)]
        if id(node) in known:  # a given shape replaces the __shape__ hint (MXNet)
            given[slot] = known[id(node)]
        else:
            hint = node.extra.get("__shape__")
            if hint is not None:
                given[slot] = ast.literal_eval(hint)
    return given


def _initial_shapes(index, known: dict) -> list:
    """Slot shapes before inference: given shapes, else the variables' ``__shape__``
    (MXNet 1.x semantics: 0 and negative dims unknown)."""
    shapes: list = [None] * index.n_slots
    for slot, shape in _given_shapes(index, known).items():
        shapes[slot] = _dims(shape)
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


def _legacy_dims(shape):
    """A given shape under MXNet 1.x semantics: ``()`` is an unknown shape (``None``),
    0 and negative dims are unknown (0)."""
    dims = _dims(shape)
    return dims if dims else None


def _np_dims(shape, zero_as: int) -> tuple:
    """A given shape under NumPy shape semantics: negative (or ``None``) dims are unknown
    (0 inside the inference), a 0 is a zero-size dim, written as ``zero_as``."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(0 if d is None or d < 0 else (zero_as if d == 0 else int(d))
                 for d in shape)


def _np_shape_slots(index, given: dict, called: set) -> list:
    """Every slot's shape under NumPy shape semantics: ``None`` where unknown, -1 for
    unknown dims, 0 for zero-size dims.

    The inference reads a 0 dim as unknown, so zero-size dims are first inferred as
    unknown; when the call gave any (``called``: the slots given in the call), a second
    inference with them as 1 tells which result dims are known: a 0 that that run knows
    is a zero-size dim (a product or copy of one), else it is unknown (-1).  When that
    run fails, every 0 counts as unknown.  A 0 in a variable's ``__shape__`` takes part
    in the first run only (Gluon parameters mark unknown dims with 0 in every mode).
    """
    shapes: list = [None] * index.n_slots
    for slot, shape in given.items():
        shapes[slot] = _np_dims(shape, 0)
    infer_slots(index, shapes, None)
    probe = None
    if any(-2 in _np_dims(given[slot], -2) for slot in called):
        probe = [None] * index.n_slots
        for slot, shape in given.items():
            probe[slot] = _np_dims(shape, 1 if slot in called else 0)
        try:
            infer_slots(index, probe, None)
        except MXNetError:
            probe = None
    out = []
    for k, shape in enumerate(shapes):
        if shape is None:
            out.append(None)
            continue
        seen = probe[k] if probe is not None else None
        if seen is None or len(seen) != len(shape):
            seen = shape
        out.append(tuple(d if d > 0 or s > 0 else -1 for d, s in zip(shape, seen)))
    return out


def _legacy_shape_slots(index, given: dict) -> list:
    """Every slot's shape under MXNet 1.x semantics (``None`` unknown, 0 unknown dims)."""
    shapes: list = [None] * index.n_slots
    for slot, shape in given.items():
        shapes[slot] = _legacy_dims(shape)
    infer_slots(index, shapes, None)
    return shapes


def infer_shape(sym, args: tuple, kwargs: dict, partial: bool):
    """``Symbol.infer_shape`` / ``infer_shape_partial``: (arg, out, aux) shape lists.

    As in MXNet 1.9: under NumPy shape semantics (``mx.np_shape()``, ``npx.set_np()``)
    an unknown shape is ``None`` and an unknown dim -1 (0 is a zero-size dim); otherwise
    an unknown shape is ``()`` and an unknown dim 0 (a given -1 reads as 0).
    """
    order, arg_nodes, aux_nodes, given = _split_args(sym, args, kwargs, "InferShape")
    index = index_graph(order)
    raw = _given_shapes(index, given)
    np_mode = is_np_shape()
    if np_mode:
        called = {index.slot_of[(key, 0)] for key in given}
        shapes = _np_shape_slots(index, raw, called)
    else:
        shapes = _legacy_shape_slots(index, raw)
    slot_of = index.slot_of
    arg_s = [shapes[slot_of[(id(n), 0)]] for n in arg_nodes]
    out_s = [shapes[slot_of[(id(n), i)]] for n, i in sym._heads]
    aux_s = [shapes[slot_of[(id(n), 0)]] for n in aux_nodes]
    if np_mode:
        known = (lambda s: s is not None and -1 not in s)
        fix = (lambda s: s)
    else:
        known = _complete
        fix = (lambda s: () if s is None else s)
    if not partial and not all(known(s) for s in arg_s + out_s + aux_s):
        unknown = [f"{n.name}: {fix(s)}"
                   for n, s in zip(arg_nodes + aux_nodes, arg_s + aux_s) if not known(s)]
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                      "unknown dimensions). Consider providing them as input:\n\t"
                      + "\n\t".join(unknown), stacklevel=3)
        return None, None, None
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
