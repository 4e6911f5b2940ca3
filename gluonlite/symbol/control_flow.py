"""``sym.contrib.foreach``, ``while_loop`` and ``cond``: control-flow nodes with subgraphs.

Each call traces the user's Python functions once on placeholder variables, inside an
``AttrScope(__subgraph_name__=<unique name>)``, as MXNet 1.9 does; what they build is the
subgraph.  The subgraph is then *cut* from the graph around it: walking back from its
outputs, every entry made outside the scope (an outer variable, an outer operator's
output) becomes an input variable of the subgraph (named as the outer variable, or
``<node>_<output>``) and the entry itself becomes an input of the control-flow node.
Variables made inside the scope (a layer's weights created in the body) become inputs
too, with a variable of the same name outside.  Outputs that are inputs of the
subgraph, or were made outside it, pass through an ``identity``.

The node's inputs and ``*_locs`` attributes follow MXNet's layout (see
:mod:`gluonlite.ops.control_flow`), so ``tojson`` writes what MXNet writes and a
``-symbol.json`` with ``_foreach``/``_while_loop``/``_cond`` nodes loads and runs.
"""
from __future__ import annotations

import threading

from ..attribute import AttrScope
from ..base import MXNetError
from ..name import NameManager
from ..ndarray.control_flow import _flatten as _flatten_leaves, _regroup
from ..ops.registry import get_op
from .creation import var
from .graph import Node, variable_node
from .register import _user_attrs, parse_op_attrs
from .subgraph import Subgraph
from .symbol import Symbol

__all__ = ["foreach", "while_loop", "cond"]

_KEY = "__subgraph_name__"
_lock = threading.Lock()


# -- nested lists of symbols (the imperative versions' flattening, over Symbols) -------
def _flatten(obj, what: str) -> tuple:
    """``(symbols, format)``: a Symbol (format -1) or nested lists of them flattened."""
    return _flatten_leaves(obj, what, Symbol)


def _single(sym: Symbol, what: str) -> tuple:
    if len(sym._heads) != 1:
        raise MXNetError(f"{what}: a group of {len(sym._heads)} outputs where one symbol "
                         "is expected")
    return sym._heads[0]


# -- naming -------------------------------------------------------------------------
def _unique_name(name: str) -> str:
    """``foreach0``, ``foreach1``, ...; prefixed ``<outer>$`` inside another subgraph."""
    outer = AttrScope.current.get(None).get(_KEY, "")
    if outer:
        name = f"{outer}${name}"
    with _lock:  # the counters live on AttrScope, as in MXNet (tests reset them there)
        counts = AttrScope._subgraph_names
        counts[name] += 1
        return f"{name}{counts[name] - 1}"


def _placeholder_name(sym: Symbol) -> str:
    node, index = _single(sym, "control flow")
    return f"{node.name}-{index}"


def _output_name(entry) -> str:
    node, index = entry
    return node.output_names()[index]


# -- building a subgraph ----------------------------------------------------------------
def _inside(node: Node, scope: str) -> bool:
    return node.extra.get(_KEY) == scope


def _outputs_for(outputs: list, scope: str, keep_distinct: bool = False) -> list:
    """Head entries of the subgraph: an ``identity`` over an output that is an input of
    the subgraph or made outside it (and, with ``keep_distinct``, over a repeat)."""
    from . import _api
    heads, seen = [], set()
    for sym in outputs:
        entry = _single(sym, "control flow output")
        node = entry[0]
        if node.op is None or not _inside(node, scope) or \
                (keep_distinct and (id(node), entry[1]) in seen):
            with AttrScope(**{_KEY: scope}):
                entry = _single(_api.op.identity(Symbol([entry])), "identity")
        seen.add((id(entry[0]), entry[1]))
        heads.append(entry)
    return heads


def _cut(heads: list, scope: str) -> tuple[Subgraph, dict]:
    """The subgraph of ``heads`` cut at entries made outside ``scope``.

    Returns the subgraph and, per input variable of it that stands for an outer entry,
    ``{id(variable): outer entry}``.
    """
    made: dict = {}
    cut_vars: dict = {}      # (id(node), index) of an outer entry -> its variable
    outer_of: dict = {}

    def entry_of(src, index):
        if _inside(src, scope):
            return made[id(src)], index
        key = (id(src), index)
        node = cut_vars.get(key)
        if node is None:
            # a bare variable, as MXNet cuts (the outer variable keeps its attributes)
            name = src.name if src.op is None else _output_name((src, index))
            node = variable_node(name)
            cut_vars[key] = node
            outer_of[id(node)] = (src, index)
        return node, 0

    # inputs before users, stopping at the cut
    order, seen, stack = [], set(), [h[0] for h in reversed(heads)]
    while stack:
        node = stack[-1]
        if id(node) in seen:
            stack.pop()
            continue
        pending = [src for src, _ in node.inputs if _inside(src, scope) and id(src) not in seen]
        if pending:
            stack.extend(reversed(pending))
            continue
        stack.pop()
        seen.add(id(node))
        order.append(node)
    for node in order:
        if node.op is None:
            made[id(node)] = node
        else:
            made[id(node)] = Node(node.op, node.name, node.attrs,
                                  [entry_of(src, k) for src, k in node.inputs], node.extra)
    sub_heads = [entry_of(n, k) for n, k in heads]
    sub = Subgraph(sub_heads)
    names = sub.input_names()
    if len(set(names)) != len(names):
        raise MXNetError(f"The inputs of the subgraph don't have unique names: {names}")
    return sub, outer_of


def _trace(scope: str, placeholders_for: list, fmt, fn):
    """Run ``fn`` on placeholder variables (one per flattened symbol) inside ``scope``.

    Returns ``(placeholder names, result)``."""
    with AttrScope(**{_KEY: scope}):
        names = [_placeholder_name(s) for s in placeholders_for]
        holders = [var(n) for n in names]
        if fmt is None:
            result = fn()
        else:
            result = fn(_regroup(holders, fmt)[0])
    return names, result


def _outer_input(sub: Subgraph, position: int, outer_of: dict):
    """The outer entry behind input ``position`` of ``sub`` that is not a placeholder: a
    cut entry, or a fresh outer variable with the name and attributes of one made inside
    (MXNet's copy keeps its ``__subgraph_name__`` too)."""
    node = sub.index.variables[position]
    entry = outer_of.get(id(node))
    if entry is not None:
        return entry
    return variable_node(node.name, dict(node.extra)), 0


def _make_node(op_name: str, inputs: list, strings: dict, subgraphs: tuple) -> Node:
    op = get_op(op_name)
    strings = dict(strings)
    strings["num_args"] = str(len(inputs) + len(subgraphs))
    attrs = parse_op_attrs(op, strings).with_values(subgraphs=subgraphs)
    name = NameManager.current.get(None, op_name)
    return Node(op, name, attrs, list(inputs), _user_attrs(None))


def _locs(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# -- the three constructs ---------------------------------------------------------------
def foreach(body, data, init_states, name: str = "foreach"):
    """Run ``body(data_t, states) -> (outputs, new_states)`` over the first axis of
    ``data``, as one ``_foreach`` node (MXNet's ``sym.contrib.foreach``).

    Parameters
    ----------
    body : callable
        Builds one iteration from symbols.
    data : Symbol or nested list of Symbol
        Iterated over axis 0.
    init_states : Symbol or nested list of Symbol
        The states of the first iteration.
    name : str
        Base of the subgraph's name (``__subgraph_name__``).

    Returns
    -------
    (outputs, states)
        The per-iteration outputs stacked on a new axis 0, and the final states, in the
        nesting the body gave them.
    """
    flat_data, data_fmt = _flatten(data, "foreach input")
    flat_states, state_fmt = _flatten(init_states, "foreach states")
    scope = _unique_name(name)
    with AttrScope(**{_KEY: scope}):
        data_names = [_placeholder_name(s) for s in flat_data]
        state_names = [_placeholder_name(s) for s in flat_states]
        data_vars = [var(n) for n in data_names]
        state_vars = [var(n) for n in state_names]
        outs, states = body(_regroup(data_vars, data_fmt)[0], _regroup(state_vars, state_fmt)[0])
        flat_out, out_fmt = _flatten(outs, "foreach output")
        flat_new, new_fmt = _flatten(states, "foreach loop_vars")
        if new_fmt != state_fmt:
            raise AssertionError("The input and output loop_vars have different format")
        heads = _outputs_for(flat_out, scope) + _outputs_for(flat_new, scope,
                                                             keep_distinct=True)
        # a state that is also an output needs its own entry
        heads = _distinct_tail(heads, len(flat_out), scope)
    sub, outer_of = _cut(heads, scope)
    names = sub.input_names()
    for n in data_names:
        if n not in names:
            raise AssertionError("the data arrays have to be used in the loop body")
    for n in state_names:
        if n not in names:
            raise AssertionError("the state arrays have to be used in the loop body")
    data_locs = [names.index(n) for n in data_names]
    state_locs = [names.index(n) for n in state_names]
    taken = set(data_locs) | set(state_locs)
    remain_locs = [i for i in range(len(names)) if i not in taken]
    inputs = [_single(s, "foreach input") for s in flat_data + flat_states]
    inputs += [_outer_input(sub, i, outer_of) for i in remain_locs]
    node = _make_node("_foreach", inputs, {
        "num_outputs": str(len(heads)), "num_out_data": str(len(flat_out)),
        "in_state_locs": _locs(state_locs), "in_data_locs": _locs(data_locs),
        "remain_locs": _locs(remain_locs)}, (sub,))
    results = [Symbol([(node, i)]) for i in range(len(heads))]
    n_out = len(flat_out)
    return _regroup(results[:n_out], out_fmt)[0], _regroup(results[n_out:], state_fmt)[0]


def _distinct_tail(heads: list, n_out: int, scope: str) -> list:
    """Heads where no state repeats an output entry (an ``identity`` keeps them apart)."""
    from . import _api
    outs = {(id(n), k) for n, k in heads[:n_out]}
    tail = []
    for entry in heads[n_out:]:
        if (id(entry[0]), entry[1]) in outs:
            with AttrScope(**{_KEY: scope}):
                entry = _single(_api.op.identity(Symbol([entry])), "identity")
        tail.append(entry)
    return heads[:n_out] + tail


def _union_inputs(subs: list, by_name: bool = False) -> tuple[list, list]:
    """The node's inputs for several subgraphs, and each subgraph's input locations.

    ``subs`` holds ``(subgraph, outer_of, placeholders)`` with ``placeholders`` mapping a
    placeholder name to its outer entry.  The subgraphs share one node input per
    placeholder (a loop variable), and with ``by_name`` (``cond``) per input name;
    other inputs get one node input each, even where two read the same outer entry
    (MXNet's layout: a loop variable and a free use of its initial value stay apart).
    """
    inputs, where = [], {}
    all_locs = []
    for sub, outer_of, placeholders in subs:
        locs = []
        for pos, name in enumerate(sub.input_names()):
            if name in placeholders:
                key, entry = ("loop var", name), placeholders[name]
            else:
                key = ("name", name) if by_name else ("input", id(sub), pos)
                entry = None if key in where else _outer_input(sub, pos, outer_of)
            if key not in where:
                where[key] = len(inputs)
                inputs.append(entry)
            locs.append(where[key])
        all_locs.append(locs)
    return inputs, all_locs


def while_loop(cond, func, loop_vars, max_iterations=None, name: str = "while_loop"):
    """Run ``func(*loop_vars) -> (outputs, new_loop_vars)`` while ``cond(*loop_vars)``
    holds, at most ``max_iterations`` times, as one ``_while_loop`` node (MXNet's
    ``sym.contrib.while_loop``).

    Returns
    -------
    (outputs, loop_vars)
        The per-step outputs stacked on a new axis 0 and padded to ``max_iterations``
        rows, and the final loop variables.
    """
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    try:
        max_iterations = int(max_iterations)
    except (TypeError, ValueError) as err:
        raise ValueError("Cannot convert max_iteration to python int") from err
    flat_vars, var_fmt = _flatten(loop_vars, "while loop_vars")
    if not flat_vars:
        raise ValueError("loop_vars should contain at least one element")

    def as_args(fn):
        return lambda holders: fn(*(holders if isinstance(holders, list) else [holders]))

    cond_scope = _unique_name(name + "_cond")
    cond_names, pred = _trace(cond_scope, flat_vars, var_fmt, as_args(cond))
    if not isinstance(pred, Symbol) or len(pred._heads) != 1:
        raise ValueError("the condition of while_loop must give one symbol")
    with AttrScope(**{_KEY: cond_scope}):
        cond_heads = _outputs_for([pred], cond_scope)
    cond_sub, cond_outer = _cut(cond_heads, cond_scope)

    func_scope = _unique_name(name + "_func")
    func_names, result = _trace(func_scope, flat_vars, var_fmt, as_args(func))
    if not isinstance(result, (list, tuple)) or len(result) != 2:
        raise ValueError("func of while_loop must return (step_output, new_loop_vars)")
    step_output, new_vars = result
    step_output = [] if step_output is None else step_output
    new_vars = [] if new_vars is None else new_vars
    flat_out, out_fmt = _flatten(list(step_output) if isinstance(step_output, tuple)
                                 else step_output, "while output")
    flat_new, _ = _flatten(list(new_vars) if isinstance(new_vars, tuple) else new_vars,
                           "while loop_vars")
    if len(flat_new) != len(flat_vars):
        raise ValueError("The number of loop_vars should be consistent during the loop")
    with AttrScope(**{_KEY: func_scope}):
        func_heads = _distinct_tail(_outputs_for(flat_out, func_scope)
                                    + _outputs_for(flat_new, func_scope, keep_distinct=True),
                                    len(flat_out), func_scope)
    func_sub, func_outer = _cut(func_heads, func_scope)

    outer_vars = [_single(s, "while loop_vars") for s in flat_vars]
    inputs, (cond_locs, func_locs) = _union_inputs([
        (cond_sub, cond_outer, dict(zip(cond_names, outer_vars))),
        (func_sub, func_outer, dict(zip(func_names, outer_vars)))])
    func_inputs = func_sub.input_names()
    var_locs = []
    for k, holder in enumerate(func_names, 1):
        if holder not in func_inputs:
            raise ValueError(f"The {k}-th loop_var doesn't involve into the computation")
        var_locs.append(func_inputs.index(holder))
    node = _make_node("_while_loop", inputs, {
        "cond_input_locs": _locs(cond_locs), "func_input_locs": _locs(func_locs),
        "func_var_locs": _locs(var_locs), "max_iterations": str(max_iterations),
        "num_out_data": str(len(flat_out)), "num_outputs": str(len(func_heads))},
        (cond_sub, func_sub))
    results = [Symbol([(node, i)]) for i in range(len(func_heads))]
    n_out = len(flat_out)
    return _regroup(results[:n_out], out_fmt)[0], _regroup(results[n_out:], var_fmt)[0]


def cond(pred, then_func, else_func, name: str = "cond"):
    """``then_func()`` if the one-value ``pred`` is true, else ``else_func()``, as one
    ``_cond`` node (MXNet's ``sym.contrib.cond``); the branches give the same number of
    outputs, of the same shapes and dtypes."""
    if not isinstance(pred, Symbol):
        raise TypeError("pred of cond must be a Symbol")
    parts = []
    fmts = []
    for suffix, fn in (("_pred", lambda: pred), ("_then", then_func), ("_else", else_func)):
        scope = _unique_name(name + suffix)
        _, result = _trace(scope, [], None, fn)
        flat, fmt = _flatten(result, "cond outputs")
        with AttrScope(**{_KEY: scope}):
            heads = _outputs_for(flat, scope, keep_distinct=True)
        parts.append(_cut(heads, scope))
        fmts.append(fmt)
    if len(parts[0][0].heads) != 1:
        raise ValueError("pred should always be a single output")
    n_then, n_else = len(parts[1][0].heads), len(parts[2][0].heads)
    if n_then != n_else:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    inputs, (pred_locs, then_locs, else_locs) = _union_inputs(
        [(sub, outer, {}) for sub, outer in parts], by_name=True)
    node = _make_node("_cond", inputs, {
        "cond_input_locs": _locs(pred_locs), "then_input_locs": _locs(then_locs),
        "else_input_locs": _locs(else_locs), "num_outputs": str(n_then)},
        tuple(sub for sub, _ in parts))
    results = [Symbol([(node, i)]) for i in range(n_then)]
    return _regroup(results, fmts[1])[0]
