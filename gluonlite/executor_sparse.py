"""Storage types of a bound graph's outputs when its arguments are sparse.

The CachedOp computes on dense arrays (a sparse NDArray's ``_data`` is its dense
view): the values are MXNet's, but every output comes out dense, where MXNet's
executor infers storage types through the graph (a zero-preserving operator on a
row_sparse argument gives a row_sparse output).  For graphs with sparse arguments
the Executor also runs the graph operator by operator through the imperative
dispatch, whose storage rules are MXNet's, and hands out those outputs; gradients
still come from the CachedOp's backward, cast into the gradient buffers' storage.
Graphs with random operators (the two runs would draw differently) or that read an
operator's hidden outputs keep the dense outputs.
"""
from __future__ import annotations

from . import autograd
from .ndarray.invoke import invoke
from .ndarray.ndarray import NDArray


def wants_sparse_outputs(graph, inputs) -> bool:
    """Whether ``graph`` bound to ``inputs`` should run :func:`sparse_outputs`."""
    if all(type(x) is NDArray for x in inputs):
        return False
    visible = set(range(graph.n_inputs))
    for u in graph.units:
        if getattr(u.op, "random", False):
            return False
        visible.update(u.outs[:u.op.num_visible_outputs(u.attrs)])
    return all(s in visible for u in graph.units for s in u.ins) and \
        all(h in visible for h in graph.heads)


def sparse_outputs(graph, inputs, is_train: bool) -> list:
    """The heads of ``graph`` computed operator by operator on ``inputs`` (NDArrays,
    sparse ones included), without recording; auxiliary states are left unchanged."""
    slots = [None] * graph.n_slots
    slots[:graph.n_inputs] = inputs
    scope = autograd.train_mode() if is_train else autograd.predict_mode()
    with autograd.pause(), scope:
        for u in graph.units:
            ins = [slots[s] for s in u.ins]
            for i in u.aux_pos:
                ins[i] = ins[i].copy()   # the dense forward already ran on the real states
            res = invoke(u.op, ins, u.attrs)
            res = res if isinstance(res, (list, tuple)) else [res]
            for s, r in zip(u.outs, res):
                slots[s] = r
    return [slots[h] for h in graph.heads]
