"""Autograd: the tape that records imperative operator calls and runs them backward.

Recording an operator call on arrays that need gradients creates a :class:`Node`
holding the operator, its parsed attributes and what its backward reads (inputs,
outputs, and for ``saved_state`` operators the state their forward returned).  Every
output array points at ``(node, index)``.  ``backward`` walks the nodes reachable
from the heads in reverse topological order.  Each node also remembers the
storage version of the arrays it saved; an array modified in place after it was
recorded makes ``backward`` raise instead of returning a wrong gradient.

The tape sits below the arrays layer and knows no array class: the arrays layer
(``gluonlite.ndarray``) lends it, when it loads, through :func:`use_arrays` the class
its users pass (heads, variables, head gradients), a factory wrapping a raw array,
and the namespace ``F`` of recorded array functions that operators' ``backward_graph``
receives for ``create_graph=True``.
"""
from __future__ import annotations

import threading
from typing import Callable

from .base import MXNetError
from .ops.registry import OpContext

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "backward", "grad",
           "get_symbol", "Function"]


class _State(threading.local):
    def __init__(self):
        self.recording = False
        self.training = False


_state = _State()

# Lent by the arrays layer (see use_arrays); None until gluonlite.ndarray has loaded.
_Array = None  # the array class of the tape's users (NDArray)
_wrap = None  # _wrap(raw, ctx) -> array, no copy
_F = None  # recorded array functions, handed to OpDef.backward_graph as ``F``
Function = None  # ``mx.autograd.Function``: defined in ndarray/_autograd_function.py


def use_arrays(array_type: type, wrap, namespace, function: type | None = None) -> None:
    """Lend the tape what it needs from the arrays layer (called by ``gluonlite.ndarray``).

    Parameters
    ----------
    array_type : type
        The array class users pass as heads, variables and head gradients; the tape
        reads and sets its ``_data``, ``_ctx``, ``_entry``, ``_grad``, ``_grad_req``.
    wrap : callable
        ``wrap(raw, ctx)`` makes an array of ``array_type`` around a raw array (no copy).
    namespace : module or object
        The array functions (``F.sum``, ``F.where``, ``F.NDArray``, ...) that
        operators' ``backward_graph`` calls, recorded, for ``create_graph=True``.
    function : type, optional
        ``mx.autograd.Function`` (user-defined differentiable functions on arrays),
        published here under its MXNet name.
    """
    global _Array, _wrap, _F, Function
    _Array, _wrap, _F = array_type, wrap, namespace
    if function is not None:
        Function = function


def is_recording() -> bool:
    """Whether operator calls are being recorded for gradient computation."""
    return _state.recording


def is_training() -> bool:
    """Whether operators run in training mode (Dropout active, BatchNorm batch stats)."""
    return _state.training


def set_recording(is_recording: bool) -> bool:  # noqa: D401 - MXNet name
    """Set recording on or off; return the previous state."""
    prev = _state.recording
    _state.recording = bool(is_recording)
    return prev


def set_training(train_mode: bool) -> bool:
    """Set training mode on or off; return the previous state."""
    prev = _state.training
    _state.training = bool(train_mode)
    return prev


class _RecordingScope:
    """``with`` scope that sets recording and training mode and restores them after."""

    __slots__ = ("_rec", "_train", "_prev_rec", "_prev_train")

    def __init__(self, is_record, train_mode):
        self._rec = is_record
        self._train = train_mode
        self._prev_rec = None
        self._prev_train = None

    def __enter__(self):
        if self._rec is not None:
            self._prev_rec = set_recording(self._rec)
        if self._train is not None:
            self._prev_train = set_training(self._train)
        return self

    def __exit__(self, *exc):
        if self._rec is not None:
            _state.recording = self._prev_rec
        if self._train is not None:
            _state.training = self._prev_train
        return False


def record(train_mode: bool = True) -> _RecordingScope:
    """Scope that records operator calls (training mode by default)."""
    return _RecordingScope(True, train_mode)


def pause(train_mode: bool = False) -> _RecordingScope:
    """Scope that stops recording (predict mode by default)."""
    return _RecordingScope(False, train_mode)


def train_mode() -> _RecordingScope:
    """Scope that sets training mode without changing recording."""
    return _RecordingScope(None, True)


def predict_mode() -> _RecordingScope:
    """Scope that sets predict mode without changing recording."""
    return _RecordingScope(None, False)


class Node:
    """One recorded call: an operator (or a custom ``Function``) with what backward needs."""

    __slots__ = ("op", "attrs", "parents", "in_datas", "out_datas", "saved", "versions",
                 "is_train", "ctx", "n_out", "out_shapes", "out_dtypes", "function", "freed",
                 "state", "null_leaves")

    def __init__(self, op, attrs, parents, in_datas, out_datas, saved, is_train, ctx,
                 out_shapes, out_dtypes, function=None, state=None):
        self.op = op
        self.attrs = attrs
        self.parents = parents
        self.in_datas = in_datas
        self.out_datas = out_datas
        self.saved = saved
        self.versions = [c.version for c in saved]
        self.is_train = is_train
        self.ctx = ctx
        self.n_out = len(out_shapes)
        self.out_shapes = out_shapes
        self.out_dtypes = out_dtypes
        self.function = function
        self.freed = False
        self.state = state  # what a ``saved_state`` operator's forward kept for backward
        # inputs marked with ``grad_req='null'``: a backward that frees this node clears
        # their ``grad`` (MXNet drops their autograd info with the graph)
        self.null_leaves = ()


def null_leaves(inputs) -> tuple:
    """The inputs marked with ``grad_req='null'`` (and not outputs of recorded calls)."""
    return tuple(x for x in inputs if x._grad_req == "null" and x._entry is None)


def live_entry(x):
    """``x``'s tape entry, or ``None`` once a backward without ``retain_graph`` freed its
    graph: MXNet then treats the array as a constant in later recordings."""
    entry = x._entry
    if entry is not None and entry[0].freed:
        x._entry = entry = None
    return entry


def record_op(op, attrs, inputs, in_datas, outputs, out_datas, is_train, ctx, state=None):
    """Record one operator call if any input takes part in a gradient; called by invoke.

    ``state`` is what the forward of a ``saved_state`` operator returned for its backward.
    """
    parents = None
    for i, x in enumerate(inputs):
        entry = x._entry
        if entry is not None and entry[0].freed:
            entry = live_entry(x)
        if entry is None:
            req = x._grad_req
            if req is None or req == "null":
                continue
            entry = x
        if parents is None:
            parents = [None] * len(inputs)
        parents[i] = entry
    if parents is None:
        return
    uses = op.backward_uses
    saved = []
    keep_in = "inputs" in uses
    keep_out = "outputs" in uses
    if keep_in:
        if op.aux_names:
            # auxiliary states (BatchNorm's moving stats) are meant to change between
            # forward and backward (a shared layer called twice): not version-checked
            aux = op.aux_indices(attrs)
            saved.extend(x._get_chunk() for i, x in enumerate(inputs) if i not in aux)
        else:
            saved.extend(x._get_chunk() for x in inputs)
    if keep_out:
        saved.extend(y._get_chunk() for y in outputs)
    node = Node(op, attrs, parents, in_datas if keep_in else None,
                out_datas if keep_out else None, saved, is_train, ctx,
                [d.shape for d in out_datas], [d.dtype for d in out_datas], None, state)
    node.null_leaves = null_leaves(inputs)
    for i, y in enumerate(outputs):
        y._entry = (node, i)


def mark_variables(variables, gradients, grad_reqs="write") -> None:
    """Mark arrays as leaves whose gradients are written into ``gradients``."""
    if isinstance(variables, _Array):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for var, g, req in zip(variables, gradients, grad_reqs):
        if req not in ("write", "add", "null"):
            raise MXNetError(f"mark_variables: invalid grad_req '{req}'")
        var._grad = g
        var._grad_req = req
        var._entry = None


def _topo_nodes(heads_entries):
    """Nodes reachable from the head entries, parents before children."""
    order = []
    seen = set()
    stack = [(e[0], False) for e in heads_entries if isinstance(e, tuple)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for p in node.parents:
            if isinstance(p, tuple) and id(p[0]) not in seen:
                stack.append((p[0], False))
    return order


def _accumulate(store: dict, key, value, owner):
    prev = store.get(key)
    if prev is None:
        store[key] = [owner, value]
    else:
        prev[1] = prev[1] + value


def _run_backward(heads, head_grads, retain_graph: bool, train_mode: bool,
                  create_graph: bool = False):
    """Propagate gradients from ``heads``; return ``{id(leaf): [leaf, grad]}``.

    Gradients are raw arrays, or with ``create_graph`` NDArrays computed by
    recorded operators (each node's ``backward_graph``), so they can be
    differentiated again.
    """
    Array, wrap = _Array, _wrap
    entries = []
    for h in heads:
        if h._entry is not None:
            entries.append(h._entry)
        elif h._grad_req is not None:
            entries.append(h)
        else:
            raise MXNetError("Cannot differentiate node because it is not in a computational "
                             "graph. You need to set is_recording to true or use "
                             "mark_variables() on the inputs")
    node_grads: dict = {}
    leaf_grads: dict = {}
    # ids of the nodes a gradient that may be non-zero reaches (not only through a
    # zero-gradient operator such as stop_gradient): MXNet's test for FGradient
    nonzero: set = set()
    for h, e, hg in zip(heads, entries, head_grads):
        if isinstance(hg, Array) and hg._ctx != h._ctx:
            hg = hg.as_in_context(h._ctx)  # as MXNet, a head gradient may live elsewhere
        if hg is None:
            g = _ones_like(h._data)
            if create_graph:
                g = wrap(g, h.context)
        elif create_graph:
            g = hg if isinstance(hg, Array) else wrap(hg, h.context)
        else:
            g = hg._data if isinstance(hg, Array) else hg
            if tuple(g.shape) != tuple(h.shape):
                g = _fit_head_grad(g, h.shape)
        if isinstance(e, tuple):
            slots = node_grads.setdefault(id(e[0]), [e[0], [None] * e[0].n_out])[1]
            slots[e[1]] = g if slots[e[1]] is None else slots[e[1]] + g
            nonzero.add(id(e[0]))
        else:
            _accumulate(leaf_grads, id(e), g, e)
    order = _topo_nodes(entries)
    for node in reversed(order):
        rec = node_grads.pop(id(node), None)
        if rec is None:
            continue
        op = node.op
        if op is not None and not op.differentiable:  # recorded only without FGradient
            if id(node) in nonzero:
                raise MXNetError(f"Operator {op.name} is non-differentiable because it "
                                 "didn't register FGradient attribute.")
            rec[1] = None  # only zero gradients reach it (a stop_gradient after it)
        if node.freed:
            raise MXNetError("backward: the graph was already freed by an earlier backward; "
                             "pass retain_graph=True to backward through it twice")
        for chunk, ver in zip(node.saved, node.versions):
            if chunk.version != ver:
                name = node.op.name if node.op is not None else type(node.function).__name__
                raise MXNetError(f"backward: an array used by operator {name} was modified "
                                 "in-place after it was recorded; its gradient would be wrong")
        out_grads = rec[1]
        if out_grads is None:
            in_grads = _zero_input_grads(node, create_graph)
        elif create_graph:
            in_grads = _node_backward_graph(node, out_grads)
        else:
            in_grads = _node_backward(node, out_grads, train_mode)
        if not retain_graph:
            # drop what only this backward needed (a CachedOp call's saved entries and
            # states included) now rather than when the outputs die
            node.freed = True
            node.in_datas = node.out_datas = node.state = node.function = None
            for leaf in node.null_leaves:
                if leaf._grad_req == "null" and leaf._entry is None:
                    leaf._grad = None
            node.null_leaves = ()
        # what it passes on may be non-zero when it got such a gradient and is not a
        # zero-gradient operator (stop_gradient)
        passes = id(node) in nonzero and (op is None or not op.zero_gradient)
        for parent, g in zip(node.parents, in_grads):
            if parent is None or g is None:
                continue
            if isinstance(parent, tuple):
                pnode, idx = parent
                slots = node_grads.setdefault(id(pnode), [pnode, [None] * pnode.n_out])[1]
                slots[idx] = g if slots[idx] is None else slots[idx] + g
                if passes:
                    nonzero.add(id(pnode))
            else:
                _accumulate(leaf_grads, id(parent), g, parent)
    return leaf_grads


def _fit_head_grad(g, shape: tuple):
    """A head gradient whose shape differs from its head's, as MXNet 1.9.1 uses it.

    MXNet does not check the shape: the backward of the head's operator reads the
    gradient's memory as the head's shape, row-major (client code, e.g. MXNet's own
    ``test_foreach``, passes a larger gradient whose leading elements are the head's).
    The same is done here when the gradient has at least as many elements; with fewer,
    MXNet reads past its end, so that raises.
    """
    size = 1
    for d in shape:
        size *= d
    if g.size < size:
        raise MXNetError(f"backward: head gradient shape {tuple(g.shape)} does not match "
                         f"head shape {tuple(shape)}")
    return g.reshape(-1)[:size].reshape(shape)


def _zero_input_grads(node, create_graph: bool) -> list:
    """Zero input gradients of a node that only zero gradients reach (MXNet's
    ``MakeZeroGradNodes``); ``None`` where the node kept no input to shape them."""
    if node.in_datas is None:
        return [None] * len(node.parents)
    xp = node.ctx.xp
    grads = [xp.zeros(d.shape, dtype=d.dtype) if p is not None else None
             for d, p in zip(node.in_datas, node.parents)]
    if create_graph:
        grads = [None if g is None else _wrap(g, node.ctx) for g in grads]
    return grads


def _ones_like(a):
    from .backend import array_module
    return array_module(a).ones(a.shape, dtype=a.dtype)


# Set by ``mx.profiler`` while it runs (see ndarray/invoke.py's ``profiler``)
profiler = None


def _node_backward(node, out_grads, train_mode):
    prof = profiler
    if prof is None or node.op is None:
        return _node_backward_run(node, out_grads, train_mode)
    t0 = prof.clock()
    grads = _node_backward_run(node, out_grads, train_mode)
    prof.operator("_backward_" + node.op.name, t0)
    return grads


def _node_backward_run(node, out_grads, train_mode):
    xp = None
    for i, g in enumerate(out_grads):
        if g is None:
            if xp is None:
                xp = node.ctx.xp
            out_grads[i] = xp.zeros(node.out_shapes[i], dtype=node.out_dtypes[i])
    if node.function is not None:
        return node.function._run_backward(out_grads)
    oc = OpContext(node.ctx.xp, node.is_train if train_mode else False, node.ctx)
    op = node.op
    state = node.state  # only a ``saved_state`` operator's forward keeps one
    if op.backward_mask:
        need = tuple(p is not None for p in node.parents)
        if state is not None:
            return op.backward(oc, node.attrs, node.in_datas, node.out_datas, out_grads,
                               need=need, state=state)
        return op.backward(oc, node.attrs, node.in_datas, node.out_datas, out_grads,
                           need=need)
    if state is not None:
        return op.backward(oc, node.attrs, node.in_datas, node.out_datas, out_grads,
                           state=state)
    return op.backward(oc, node.attrs, node.in_datas, node.out_datas, out_grads)


def _node_backward_graph(node, out_grads):
    """Backward of one node as recorded array operations (for ``create_graph``)."""
    Array, wrap = _Array, _wrap
    ctx = node.ctx
    for i, g in enumerate(out_grads):
        if g is None:
            out_grads[i] = wrap(ctx.xp.zeros(node.out_shapes[i], dtype=node.out_dtypes[i]), ctx)
    if node.function is not None:
        res = node.function.backward(*out_grads)
        return [res] if isinstance(res, Array) else list(res)
    op = node.op
    if not op.second_order:
        raise MXNetError(f"Operator {op.name} does not support higher-order gradients "
                         "(autograd.grad with create_graph=True)")
    inputs = None
    if node.in_datas is not None:
        inputs = []
        for raw, parent in zip(node.in_datas, node.parents):
            if isinstance(parent, Array):
                inputs.append(parent)  # a leaf: its own gradient is wanted
            else:
                x = wrap(raw, ctx)
                x._entry = parent
                inputs.append(x)
    outputs = None
    if node.out_datas is not None:
        outputs = []
        for k, raw in enumerate(node.out_datas):
            y = wrap(raw, ctx)
            y._entry = (node, k)
            outputs.append(y)
    grads = op.backward_graph(_F, node.attrs, inputs, outputs, out_grads)
    return _keep_connected(node, grads)


def _keep_connected(node, grads):
    """Tie each input gradient that no recording reaches back to its input.

    A gradient that does not depend on its input differentiably (clip's, Dropout's
    and relu's masks, a linear operator's constant factor) times a constant head
    gradient is a constant: nothing recorded it, and differentiating it again would
    raise "not in a computational graph".  MXNet's gradient nodes stay in the graph
    and give zeros at the next order; here the gradient becomes ``g +
    zeros_like(input)``, recorded, whose own gradient with respect to the input is 0.
    """
    Array, wrap = _Array, _wrap
    out = list(grads)
    for i, (g, parent) in enumerate(zip(out, node.parents)):
        if parent is None or not isinstance(g, Array) or g._entry is not None \
                or g._grad_req is not None:
            continue
        if isinstance(parent, Array):
            anchor = parent  # a leaf
        else:
            # zeros_like reads only the shape and dtype: the gradient's data stands in
            # for the input's, which the node may not have kept
            anchor = wrap(g._data, g.context)
            anchor._entry = parent
        out[i] = g + _F.zeros_like(anchor)
    return out


def _write_leaf_grads(leaf_grads):
    for leaf, g in leaf_grads.values():
        req = leaf._grad_req
        if req == "null" or leaf._grad is None:
            continue
        target = leaf._grad
        g = getattr(g, "_data", g)  # NDArray gradients from create_graph
        if target.stype != "default":  # a sparse buffer (grad_stype): cast to its type
            target._assign_raw(g, add=req == "add")
        else:
            if g.dtype != target.dtype:
                g = g.astype(target.dtype)
            if req == "add":
                target._data += g
            else:
                target._data[...] = g
            target._bump()
        leaf._fresh = True  # NDArray._fresh_grad: Trainer.step checks for stale gradients


def backward(heads, head_grads=None, retain_graph: bool = False, train_mode: bool = True) -> None:
    """Compute the gradients of ``heads`` with respect to the marked variables."""
    if isinstance(heads, _Array):
        heads = [heads]
        head_grads = [head_grads] if head_grads is not None else None
    if head_grads is None:
        head_grads = [None] * len(heads)
    if len(head_grads) != len(heads):
        raise MXNetError("backward: heads and head_grads must have the same length")
    with pause(train_mode):
        leaf_grads = _run_backward(list(heads), list(head_grads), retain_graph, train_mode)
        _write_leaf_grads(leaf_grads)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph: bool = False,
         train_mode: bool = True):
    """Return the gradients of ``heads`` with respect to ``variables`` (not written to ``.grad``).

    Always a list, one gradient per variable, also for a single variable: MXNet 1.9.1
    returns a list there too (code such as ``autograd.grad(y, x)[0]`` relies on it)."""
    wrap = _wrap
    if isinstance(variables, _Array):
        variables = [variables]
    if isinstance(heads, _Array):
        heads = [heads]
        head_grads = [head_grads] if head_grads is not None else None
    if head_grads is None:
        head_grads = [None] * len(heads)
    if retain_graph is None:
        retain_graph = create_graph
    for v in variables:
        if v._grad_req is None and v._entry is None:
            raise MXNetError("autograd.grad: a variable is not marked; call attach_grad() "
                             "on it before recording")
    scope = record(train_mode) if create_graph else pause(train_mode)
    with scope:
        leaf_grads = _run_backward(list(heads), list(head_grads), retain_graph, train_mode,
                                   create_graph)
    out = []
    for v in variables:
        rec = leaf_grads.get(id(v))
        if rec is None:
            out.append(wrap(v.context.xp.zeros(v.shape, dtype=v.dtype), v.context))
        elif create_graph:
            out.append(rec[1])
        else:
            out.append(wrap(rec[1], v.context))
    return out


_GRAPH_BUILDER: list = []


def use_graph_builder(builder: Callable) -> None:
    """Install what :func:`get_symbol` runs (the graphs layer does, when it loads)."""
    _GRAPH_BUILDER[:] = [builder]


def get_symbol(x):
    """Return the recorded computation of ``x`` as a Symbol (``var0``, ``var1``, ...
    for the arrays the recording started from)."""
    if not _GRAPH_BUILDER:
        raise MXNetError("autograd.get_symbol needs gluonlite.symbol, which is not loaded")
    return _GRAPH_BUILDER[0](x)
