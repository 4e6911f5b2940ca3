"""Shape and dtype inference over a symbol's graph.

Shapes flow both ways to a fixpoint: each operator's ``infer_shape`` fills what it
can of its inputs and outputs from what is known (FullyConnected's weight from the
data), sweeping forward and backward over the topological order until nothing
changes.  Operators that declare ``infer_shape_outputs`` also get the known shapes
of their outputs and fill their inputs from them (Reshape, ``_rnn_param_concat``).
Operators that declare themselves ``elementwise`` (one shape for all inputs and
outputs) also pass a known output shape back to their inputs.  Unknown shapes are ``None`` and unknown
dimensions 0, as in MXNet 1.x.
"""
from __future__ import annotations

import ast
import warnings

import numpy as np

from ..base import MXNetError
from .graph import Node, aux_variable_ids, topo_order

__all__ = ["infer_shape", "infer_type", "infer_graph_shapes", "infer_graph_types"]

def _dims(shape) -> tuple:
    """A user or attribute shape as ints, unknown dims (``None``, negative) as 0; a bare
    int is a 1-D shape (``var(shape=(1))`` stores ``'1'``, which MXNet reads as ``(1,)``)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(0 if d is None or d < 0 else int(d) for d in shape)


def _fmt(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _merge(a, b):
    """Merge two partial shapes; ``ValueError`` on conflict."""
    if a is None:
        return None if b is None else tuple(b)
    if b is None:
        return a
    if len(a) != len(b):
        raise ValueError
    if a == tuple(b):
        return a
    out = []
    for x, y in zip(a, b):
        if x and y and x != y:
            raise ValueError
        out.append(x or y)
    return tuple(out)


def _is_elementwise(node: Node, cache: dict) -> bool:
    """Whether the node's operator declares one shape for every input and output."""
    key = id(node)
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = node.op.is_elementwise(node.attrs)
    return hit


class _State:
    """Entry shapes keyed by ``(id(node), output index)``."""

    def __init__(self):
        self.shapes: dict = {}
        self.changed = False

    def get(self, entry):
        return self.shapes.get((id(entry[0]), entry[1]))

    def put(self, entry, shape, node: Node, what: str) -> None:
        if shape is None:
            return
        key = (id(entry[0]), entry[1])
        old = self.shapes.get(key)
        try:
            new = _merge(old, shape)
        except ValueError:
            kind = f"variable {node.name}" if node.op is None else \
                f"operator {node.name} ({node.op.name})"
            raise MXNetError(f"Error in {kind}: Shape inconsistent for {what}, "
                             f"Provided = {_fmt(old)}, inferred shape={tuple(shape)}") from None
        if new != old:
            self.shapes[key] = new
            self.changed = True


def _input_label(node: Node, i: int) -> str:
    src = node.inputs[i][0]
    names = node.op.input_names(node.attrs)
    return f"input '{names[i]}' ({src.name})" if i < len(names) else f"input {i}"


def _visit(node: Node, st: _State, elementwise: dict) -> None:
    ins = [st.get(e) for e in node.inputs]
    n_out = node.num_outputs()
    outs = [st.get((node, i)) for i in range(n_out)]
    try:
        new_ins, new_outs = node.op.infer_shape(node.attrs, ins, outs)
    except MXNetError as err:
        if all(s is None for s in ins):
            return  # nothing known yet: nothing to contradict
        known = ", ".join(f"{nm} ({node.inputs[i][0].name})="
                          f"{ins[i] if ins[i] is not None else '?'}"
                          for i, nm in enumerate(node.op.input_names(node.attrs)))
        raise MXNetError(f"Error in operator {node.name} ({node.op.name}): {err}; "
                         f"known input shapes: {known}") from None
    for i, s in enumerate(new_ins):
        st.put(node.inputs[i], s, node, _input_label(node, i))
    for i, s in enumerate(new_outs[:n_out]):
        st.put((node, i), s, node, f"output {i}")
    if node.inputs and _is_elementwise(node, elementwise):
        # a known output shape (from a consumer) is also every input's shape
        shape = None
        for i in range(n_out):
            shape = st.get((node, i)) or shape
        if shape is not None:
            for i, e in enumerate(node.inputs):
                st.put(e, shape, node, _input_label(node, i))


def infer_graph_shapes(order: list, known: dict) -> dict:
    """Shapes of every entry, from ``known`` (``{id(variable node): shape}``).

    Returns ``{(id(node), index): shape}`` with partial shapes where inference stopped.
    """
    st = _State()
    for node in order:
        if node.op is None:
            hint = node.extra.get("__shape__")
            if id(node) in known:  # a given shape replaces the __shape__ hint (MXNet)
                st.put((node, 0), known[id(node)], node, f"argument {node.name}")
            elif hint is not None:
                st.put((node, 0), _dims(ast.literal_eval(hint)), node, "its __shape__")
    ops = [n for n in order if n.op is not None]
    elementwise: dict = {}
    for _ in range(2 * len(ops) + 2):
        st.changed = False
        for node in ops:
            _visit(node, st, elementwise)
        for node in reversed(ops):
            _visit(node, st, elementwise)
        if not st.changed:
            break
    return st.shapes


def _complete(shape) -> bool:
    return shape is not None and all(d > 0 for d in shape)


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
    given = {k: _dims(v) for k, v in given.items()}
    shapes = infer_graph_shapes(order, given)
    arg_s = [shapes.get((id(n), 0)) for n in arg_nodes]
    out_s = [shapes.get((id(n), i)) for n, i in sym._heads]
    aux_s = [shapes.get((id(n), 0)) for n in aux_nodes]
    if not partial and not all(_complete(s) for s in arg_s + out_s + aux_s):
        unknown = [f"{n.name}: {s if s is not None else ()}"
                   for n, s in zip(arg_nodes + aux_nodes, arg_s + aux_s) if not _complete(s)]
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                      "unknown dimensions). Consider providing them as input:\n\t"
                      + "\n\t".join(unknown), stacklevel=3)
        return None, None, None
    fix = (lambda s: () if s is None else s)
    return [fix(s) for s in arg_s], [fix(s) for s in out_s], [fix(s) for s in aux_s]


# -- dtypes -------------------------------------------------------------------------------

def _as_dtype(value):
    if value is None:
        return None
    return np.dtype(value)


def infer_graph_types(order: list, known: dict) -> dict:
    """Dtypes (``numpy.dtype``) of every entry from ``known`` (``{id(variable): dtype}``)."""
    from .creation import DTYPE_NAMES
    types: dict = {}

    def put(entry, dtype, node, what):
        if dtype is None:
            return False
        key = (id(entry[0]), entry[1])
        old = types.get(key)
        if old is None:
            types[key] = np.dtype(dtype)
            return True
        if old != dtype:
            kind = node.name if node.op is None else f"{node.name} ({node.op.name})"
            raise MXNetError(f"Error in operator {kind}: Type inconsistent for {what}, "
                             f"Provided = {old.name}, inferred type = {np.dtype(dtype).name}")
        return False

    for node in order:
        if node.op is None:
            code = node.extra.get("__dtype__")
            if id(node) in known:  # a given dtype replaces the __dtype__ hint (MXNet)
                put((node, 0), known[id(node)], node, f"argument {node.name}")
            elif code is not None:
                put((node, 0), DTYPE_NAMES[int(code)], node, "its __dtype__")
    ops = [n for n in order if n.op is not None]
    for _ in range(2 * len(ops) + 2):
        changed = False
        for node in ops + ops[::-1]:
            ins = [types.get((id(s), i)) for s, i in node.inputs]
            try:
                new_ins, new_outs = node.op.infer_type(node.attrs, ins)
            except MXNetError as err:
                raise MXNetError(f"Error in operator {node.name} ({node.op.name}): "
                                 f"{err}") from None
            for i, d in enumerate(new_ins):
                changed |= put(node.inputs[i], d, node, _input_label(node, i))
            for i, d in enumerate(new_outs[:node.num_outputs()]):
                changed |= put((node, i), d, node, f"output {i}")
        if not changed:
            break
    return types


def infer_type(sym, args: tuple, kwargs: dict, partial: bool):
    """``Symbol.infer_type`` / ``infer_type_partial``: (arg, out, aux) numpy type lists."""
    order, arg_nodes, aux_nodes, given = _split_args(sym, args, kwargs, "InferType")
    types = infer_graph_types(order, {k: _as_dtype(v) for k, v in given.items()})
    arg_t = [types.get((id(n), 0)) for n in arg_nodes]
    out_t = [types.get((id(n), i)) for n, i in sym._heads]
    aux_t = [types.get((id(n), 0)) for n in aux_nodes]
    if not partial and any(t is None for t in arg_t + out_t + aux_t):
        unknown = [f"{n.name}: {t}" for n, t in zip(arg_nodes + aux_nodes, arg_t + aux_t)
                   if t is None]
        warnings.warn("Cannot decide type for the following arguments. Consider providing "
                      "them as input:\n\t" + "\n\t".join(unknown), stacklevel=3)
        return None, None, None
    fix = (lambda t: None if t is None else t.type)
    return [fix(t) for t in arg_t], [fix(t) for t in out_t], [fix(t) for t in aux_t]
