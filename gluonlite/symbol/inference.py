"""The one shape and dtype inference of the project, over a slot-numbered graph.

``Symbol.infer_shape``/``infer_type`` (through :mod:`.infer`), deferred
initialization and the CachedOp's plans all call :func:`infer_slots`.  A graph is
seen as *slots* (one per entry) and *units* (one per operator node, in topological
order, each with ``op``, ``attrs``, ``name`` and the slot numbers ``ins``/``outs``):
the engine's ``GraphInfo`` has this form already, :func:`index_graph` gives it to a
symbol's node list.

Inference runs in two stages:

1. one forward sweep that calls every operator's ``infer_shape`` and ``infer_type``
   once.  When it leaves every shape complete and every dtype known, and no unit
   filled in (back-inferred) a slot that an earlier unit had already read or
   written, the result is final: later sweeps could change nothing.  This is the
   CachedOp's usual case (every input shape given) and that of deferred
   initialization (the data shape given, the weights filled in by their only
   consumer);
2. otherwise shapes and dtypes flow both ways to a fixpoint: backward and forward
   sweeps until nothing changes.  Each operator's ``infer_shape`` fills what it can
   of its inputs and outputs from what is known; operators that declare
   ``infer_shape_outputs`` also get the known shapes of their outputs (Reshape,
   ``_rnn_param_concat``); ``elementwise`` operators pass a known output shape back
   to their inputs.

Unknown shapes are ``None`` and unknown dimensions 0, as in MXNet 1.x (a negative
dimension an operator reports, such as a creation operator's ``shape=(2, -1)``, is read
as unknown too); unknown dtypes are ``None``.
"""
from __future__ import annotations

from operator import is_not

import numpy as np

from ..base import MXNetError

__all__ = ["GraphIndex", "Unit", "index_graph", "infer_slots", "complete", "all_complete"]


class Unit:
    """One operator node of a :class:`GraphIndex` (the fields the engine's ``OpUnit``
    also has)."""

    __slots__ = ("op", "attrs", "name", "ins", "outs", "node")

    def __init__(self, node, ins, outs):
        self.op = node.op
        self.attrs = node.attrs
        self.name = node.name
        self.ins = ins
        self.outs = outs
        self.node = node


class GraphIndex:
    """Slot numbering of a node list, as the engine's ``GraphInfo`` numbers its graph:
    the ``variables`` (nodes) take slots ``0 .. n_inputs-1``, then come the outputs of
    the ``units``; ``entries`` holds the ``(node, index)`` entry of each slot and
    ``slot_of`` maps ``(id(node), index)`` to its slot."""

    __slots__ = ("variables", "units", "entries", "slot_of", "n_slots", "n_inputs")

    def __init__(self, variables, units, entries, slot_of):
        self.variables = variables
        self.units = units
        self.entries = entries
        self.slot_of = slot_of
        self.n_slots = len(entries)
        self.n_inputs = len(variables)


def index_graph(order: list) -> GraphIndex:
    """Number the entries of ``order`` (nodes, inputs before users)."""
    variables = [n for n in order if n.op is None]
    entries: list = [(n, 0) for n in variables]
    slot_of: dict = {(id(n), 0): i for i, n in enumerate(variables)}
    units = []
    for node in order:
        if node.op is None:
            continue
        ins = tuple(slot_of[(id(src), k)] for src, k in node.inputs)
        first = len(entries)
        for k in range(node.num_outputs()):
            slot_of[(id(node), k)] = len(entries)
            entries.append((node, k))
        units.append(Unit(node, ins, tuple(range(first, len(entries)))))
    return GraphIndex(variables, units, entries, slot_of)


_NONE = type(None)


def complete(shape) -> bool:
    """Whether ``shape`` is known in every dimension."""
    return shape is not None and (not shape or min(shape) > 0)


def all_complete(shapes: list) -> bool:
    """Whether every shape in ``shapes`` is :func:`complete` (in C loops: plans ask this
    of every slot)."""
    return None not in shapes and min(map(min, filter(None, shapes)), default=1) > 0


def _fmt(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _merge(a, b):
    """Merge two partial shapes; ``ValueError`` on conflict."""
    if a is None:
        return tuple(d if d > 0 else 0 for d in b)
    if len(a) != len(b):
        raise ValueError
    out = []
    for x, y in zip(a, b):  # a negative dim (-1) is unknown too
        if x > 0 and y > 0 and x != y:
            raise ValueError
        out.append(x if x > 0 else max(y, 0))
    return tuple(out)


class _Run:
    """The state of one inference: slot shapes and dtypes, and what the current sweep
    changed.

    ``label`` selects the error style: ``None`` for the symbol API (MXNet's
    ``Error in operator <node>: ...``), a caller name (``"CachedOp"``) for plans
    (``CachedOp: shape inference failed at node <node> (<op>): ...``).
    """

    def __init__(self, graph, shapes, dtypes, label):
        self.graph = graph
        self.shapes = shapes
        self.dtypes = dtypes
        self.label = label
        # a plan's shapes are Python ints (operators may compute numpy ones)
        self.ints = label is not None
        self.changed = False
        # forward sweep: an output shape left unknown or partial, a dtype left unknown
        self.partial = False
        self.partial_types = False
        # a plan's forward sweep while every slot so far is complete: what an operator
        # infers back for its inputs then changes nothing (and conflicts are ignored)
        self.known = False
        # forward sweep only: the position of the unit being visited, and whether a unit
        # changed a slot that an earlier unit had read or written (the sweep's result is
        # then not final)
        self.current = None
        self.first_use = None
        self.dirty = False
        self.elementwise: dict = {}

    def _note_late(self, slot) -> None:
        """Called in the forward sweep when the current unit changes ``slot``."""
        if slot in self.graph.units[self.current].outs:
            return  # the unit's own output: nobody has read it yet
        if slot >= self.graph.n_inputs:
            self.dirty = True  # another operator's output: its producer wrote it
            return
        if self.first_use is None:  # built on the first back-filled variable only
            first: dict = {}
            for k, u in enumerate(self.graph.units):
                for s in u.ins:
                    first.setdefault(s, k)
            self.first_use = first
        if self.first_use.get(slot, self.current) < self.current:
            self.dirty = True

    # -- messages -----------------------------------------------------------------
    def _what(self, u, slot, is_input: int) -> str:
        if is_input < 0:
            return f"output {u.outs.index(slot)}"
        names = u.op.input_names(u.attrs)
        src = self.graph.entries[slot][0].name
        return f"input '{names[is_input]}' ({src})" if is_input < len(names) \
            else f"input {is_input}"

    def _error(self, u, kind: str, text: str) -> MXNetError:
        if self.label is not None:
            return MXNetError(f"{self.label}: {kind} inference failed at node {u.name} "
                              f"({u.op.name}): {text}")
        return MXNetError(f"Error in operator {u.name} ({u.op.name}): {text}")

    # -- shapes -------------------------------------------------------------------
    def _put_shape(self, u, slot, new, pos: int) -> None:
        shapes = self.shapes
        old = shapes[slot]
        if old is not None and (old == new or old == tuple(new)):
            return  # ``new`` may be a list
        try:
            merged = _merge(old, new)
        except ValueError:
            if self.label is not None and pos >= 0:
                return  # a plan's inputs are arrays: what they are wins (see infer_slots)
            raise self._error(u, "shape", f"Shape inconsistent for {self._what(u, slot, pos)}"
                              f", Provided = {_fmt(old)}, inferred shape={tuple(new)}") \
                from None
        if merged != old:
            shapes[slot] = tuple(map(int, merged)) if self.ints else merged
            self.changed = True
            if self.current is not None:
                self._note_late(slot)

    def visit_shape(self, u) -> None:
        shapes = self.shapes
        op = u.op
        ins = [shapes[s] for s in u.ins]
        try:
            if op.infer_shape_outputs:
                new_ins, new_outs = op.infer_shape(u.attrs, ins, [shapes[s] for s in u.outs])
            else:
                new_ins, new_outs = op.infer_shape(u.attrs, ins)
        except MXNetError as err:
            if self.label is not None:
                raise self._error(u, "shape", str(err)) from err
            if all(s is None for s in ins):
                return  # nothing known yet: nothing to contradict
            names = op.input_names(u.attrs)
            listed = ", ".join(f"{nm} ({self.graph.entries[u.ins[i]][0].name})="
                               f"{ins[i] if ins[i] is not None else '?'}"
                               for i, nm in enumerate(names))
            raise MXNetError(f"Error in operator {u.name} ({op.name}): {err}; "
                             f"known input shapes: {listed}") from None
        known = self.known
        # the inline checks skip the calls for what is already known (the usual case)
        if not known and new_ins != ins:
            for i, (s, new) in enumerate(zip(u.ins, new_ins)):
                if new is not None and new != shapes[s]:
                    self._put_shape(u, s, new, i)
            ins = None  # stale
        if len(new_outs) < len(u.outs):
            self.partial = True
            self.known = False
        for s, new in zip(u.outs, new_outs):
            if new is None:
                self.partial = True
                self.known = False
                continue
            old = shapes[s]
            if old is None:  # no other unit writes or reads it before this one
                if self.ints:
                    new = tuple(map(int, new))
                elif type(new) is not tuple:
                    new = tuple(new)
                if min(new, default=1) <= 0:  # unknown dimensions are 0
                    if min(new) < 0:  # -1 (an attribute under NumPy shape semantics)
                        new = tuple(d if d > 0 else 0 for d in new)
                    self.partial = True
                    self.known = False
                shapes[s] = new
                self.changed = True
            elif old is not new:
                self._put_shape(u, s, new, -1)
        flag = op.elementwise
        if flag and not known and u.ins and (flag is True or self._is_elementwise(u)):
            # a known output shape (from a consumer) is also every input's shape
            shape = None
            for s in u.outs:
                shape = shapes[s] or shape
            if ins is None:
                ins = [shapes[s] for s in u.ins]
            if shape is not None and ins.count(shape) != len(ins):
                for i, s in enumerate(u.ins):
                    self._put_shape(u, s, shape, i)

    def _is_elementwise(self, u) -> bool:
        hit = self.elementwise.get(id(u))
        if hit is None:
            hit = self.elementwise[id(u)] = u.op.is_elementwise(u.attrs)
        return hit

    # -- dtypes -------------------------------------------------------------------
    def visit_type(self, u) -> None:
        dtypes = self.dtypes
        ins = [dtypes[s] for s in u.ins]
        try:
            new_ins, new_outs = u.op.infer_type(u.attrs, ins)
        except MXNetError as err:
            raise self._error(u, "type", str(err)) from (err if self.label else None)
        # by identity: ``np.dtype('float64') == None`` holds
        if not self.known and any(map(is_not, new_ins, ins)):
            for i, (s, d) in enumerate(zip(u.ins, new_ins)):
                if d is not None and d is not dtypes[s]:
                    self._put_type(u, s, d, i)
        if len(new_outs) < len(u.outs):
            self.partial_types = True
            self.known = False
        for s, d in zip(u.outs, new_outs):
            if d is None:
                self.partial_types = True
                self.known = False
            else:
                if dtypes[s] is None:
                    dtypes[s] = d if isinstance(d, np.dtype) else np.dtype(d)
                    self.changed = True
                elif d is not dtypes[s]:
                    self._put_type(u, s, d, -1)

    def _put_type(self, u, slot, new, pos: int) -> None:
        old = self.dtypes[slot]
        if old is None:
            self.dtypes[slot] = np.dtype(new)
            self.changed = True
            if self.current is not None:
                self._note_late(slot)
        elif old != new:
            if self.label is not None and pos >= 0:
                return  # as in _put_shape
            raise self._error(u, "type", f"Type inconsistent for {self._what(u, slot, pos)}, "
                              f"Provided = {old.name}, inferred type = {np.dtype(new).name}")

    # -- sweeps -------------------------------------------------------------------
    def forward_sweep(self) -> None:
        """One call of each operator's inference, noting late back-inference."""
        visit_shape = self.visit_shape if self.shapes is not None else None
        visit_type = self.visit_type if self.dtypes is not None else None
        for k, u in enumerate(self.graph.units):
            self.current = k
            if visit_shape is not None:
                visit_shape(u)
            if visit_type is not None:
                visit_type(u)
        self.current = None

    def fixpoint(self, visit) -> None:
        """Backward and forward sweeps of ``visit`` (after the forward sweep) until one
        backward sweep changes nothing: every unit then saw the final state."""
        units = self.graph.units
        backward = units[::-1]
        for rnd in range(2 * len(units) + 2):
            self.changed = False
            if rnd:
                for u in units:
                    visit(u)
            for u in backward:
                visit(u)
            if not self.changed:
                break


def infer_slots(graph, shapes: list | None, dtypes: list | None, label: str | None = None):
    """Shapes and dtypes of every slot of ``graph``, filled in place.

    Parameters
    ----------
    graph : GraphIndex or the engine's GraphInfo
        ``units`` (``op``, ``attrs``, ``name``, ``ins``, ``outs``), ``entries``, ``n_slots``.
    shapes : list or None
        One per slot: what is known (a tuple, 0 for unknown dimensions, or ``None``);
        ``None`` to infer dtypes only.
    dtypes : list or None
        One per slot: ``numpy.dtype`` or ``None``; ``None`` to infer shapes only.
    label : str, optional
        The caller named in errors (``"CachedOp"``), for plans, whose variables'
        slots are arrays (known, every shape and dtype given, even a 0 in a shape):
        what an operator infers back for an input that disagrees with them is
        ignored (the operator's forward decides; ``multi_sgd_mom_update`` takes
        float64 learning rates), and errors that only the two-way stage finds are not
        raised: that stage's result is then dropped (the operator reports the problem
        when it runs).

    Returns
    -------
    bool
        Whether every shape came out complete and every dtype known; the lists hold
        partial shapes and ``None`` where inference stopped.
    """
    run = _Run(graph, shapes, dtypes, label)
    n_in = graph.n_inputs
    if label is not None:  # a plan's variables are arrays, known by definition
        vars_open = (False, False)
        run.known = shapes is not None and dtypes is not None
    else:
        vars_open = (shapes is not None and not all_complete(shapes[:n_in]),
                     dtypes is not None and _NONE in map(type, dtypes[:n_in]))
    run.forward_sweep()
    # only the variables can be left open unnoticed by the sweep (never filled)
    shapes_open = shapes is not None and (run.dirty or run.partial or
                                          (vars_open[0] and not all_complete(shapes[:n_in])))
    types_open = dtypes is not None and (run.dirty or run.partial_types or
                                         (vars_open[1] and _NONE in map(type, dtypes[:n_in])))
    if not (shapes_open or types_open):
        return True
    # the two-way stage skips operators that know nothing yet, for plans as for symbols
    run.label = None
    if shapes_open:
        _two_way(run, run.visit_shape, shapes, label)
    if types_open:
        _two_way(run, run.visit_type, dtypes, label)
    return (shapes is None or all_complete(shapes)) and \
        (dtypes is None or _NONE not in map(type, dtypes))


def _two_way(run: _Run, visit, values: list, label) -> None:
    """:meth:`_Run.fixpoint` of ``visit``; for a plan (``label``), errors found only
    here leave the forward sweep's ``values`` (the forward sweep's own errors are the
    ones a plan reports)."""
    saved = values[:] if label is not None else None
    try:
        run.fixpoint(visit)
    except MXNetError:
        if label is None:
            raise
        values[:] = saved
