"""Control-flow operators of MXNet's graphs: ``_foreach``, ``_while_loop`` and ``_cond``
(and ``_CachedOp``, one subgraph run as one node: what ``autograd.get_symbol`` shows
for a recorded call of a hybridized block).

A node of these operators carries subgraphs (the ``subgraphs`` of the node in
``-symbol.json``): the loop body; the loop's condition and step; the predicate and the
two branches.  The definitions here hold what the operators mean: MXNet's attributes,
how the node's inputs map onto each subgraph's inputs (the ``*_locs`` attributes),
shape and dtype inference through the subgraphs, and the loops, forward and backward,
written against ``xp``.

The subgraphs arrive as ``attrs.subgraphs``, objects of the layers above (the graphs
layer's infer; the engine's also run), used through this protocol only:

* ``infer_shape(in_shapes) -> (in_shapes, out_shapes)`` and ``infer_type(in_dtypes)
  -> (in_dtypes, out_dtypes)``, partial as in the registry (``None`` unknown, 0 an
  unknown dimension);
* ``run(oc, inputs, keep) -> (outputs, state)``: one evaluation on raw arrays; with
  ``keep`` the state its ``backward`` needs (else ``None``);
* ``backward(oc, state, out_grads) -> in_grads``: one gradient (or ``None``) per input.

Layouts (MXNet's):

* ``_foreach``: the node's inputs are the data arrays, the initial states, then the
  rest ("remain": parameters and outer entries the body reads); ``in_data_locs``,
  ``in_state_locs`` and ``remain_locs`` give the position of each among the body's
  inputs.  Outputs: the ``num_out_data`` per-step outputs stacked on a new first
  axis, then the final states.
* ``_while_loop``: ``cond_input_locs``/``func_input_locs`` give, per input of the
  condition/step subgraph, the node input it reads; ``func_var_locs`` the step input
  that is each loop variable.  Outputs: the per-step outputs stacked and padded to
  ``max_iterations`` rows (zeros here; MXNet leaves them uninitialized), then the
  final loop variables.
* ``_cond``: ``cond_input_locs``, ``then_input_locs`` and ``else_input_locs`` as
  above; the outputs are those of the branch taken.

Backward runs the subgraphs' backward in reverse order of the forward's evaluations,
from the per-evaluation states the forward kept (``OpDef.saved_state``; without them
it evaluates the forward again first).  Gradients of inputs read by several
evaluations are summed.  The condition and the predicate have no gradient.
"""
from __future__ import annotations

from ..base import MXNetError
from ..util import is_np_shape
from .attrs import Attr
from .registry import OpAttrs, OpDef, register

__all__ = ["FOREACH", "WHILE_LOOP", "COND", "CACHED_OP"]


def _locs():
    return Attr("shape", ())


# more inputs than any real graph has: a corrupt ``num_args`` is refused before listing
_MAX_INPUTS = 1 << 16


def _subgraph_inputs(n_sub: int):
    """Input names ``data0, data1, ..``: ``num_args`` counts the subgraphs too."""
    def names(attrs):
        count = attrs.num_args - n_sub
        if not 0 <= count <= _MAX_INPUTS:
            raise MXNetError(f"control-flow node: num_args={attrs.num_args} with {n_sub} "
                             "subgraph(s) is not a valid input count")
        return tuple(f"data{i}" for i in range(count))
    return names


def _subgraphs(attrs, op_name: str, count: int) -> tuple:
    subs = attrs.subgraphs
    if len(subs) != count:
        raise MXNetError(f"Operator {op_name}: expected {count} subgraph(s), got {len(subs)}")
    return subs


def _merge(a, b):
    """Merge two partial shapes (``None`` unknown, 0 an unknown dimension)."""
    if a is None:
        return None if b is None else tuple(b)
    if b is None:
        return tuple(a)
    if len(a) != len(b):
        raise MXNetError(f"shape {tuple(a)} against {tuple(b)}")
    out = []
    for x, y in zip(a, b):
        if x and y and x != y:
            raise MXNetError(f"shape {tuple(a)} against {tuple(b)}")
        out.append(x or y)
    return tuple(out)


def _first(dtypes):
    return next((d for d in dtypes if d is not None), None)


def _zeros_like(xp, x):
    return xp.zeros(x.shape, x.dtype)


def _write(results, out):
    """``results`` written into the planned ``out`` buffers when there are any."""
    if out is None:
        return results
    for o, r in zip(out, results):
        o[...] = r
    return list(out)


def _is_float(x) -> bool:
    return x.dtype.kind in "fc"


def _predicate(oc, sub, inputs, what: str) -> bool:
    res = sub.run(oc, inputs, False)[0]
    value = res[0]
    if value.size != 1:
        raise MXNetError(f"{what} must give one value, got an output of shape "
                         f"{tuple(value.shape)}")
    return bool(value.reshape(-1)[0])


def _accumulate(grads: list, pos: int, g) -> None:
    if g is None:
        return
    grads[pos] = g if grads[pos] is None else grads[pos] + g


def _finish_grads(xp, inputs, grads, need) -> list:
    """Zeros for wanted float gradients nothing reached; ``None`` for the rest."""
    out = []
    for i, (x, g) in enumerate(zip(inputs, grads)):
        wanted = need is None or need[i]
        if not wanted or not _is_float(x):
            out.append(None)
        elif g is None:
            out.append(_zeros_like(xp, x))
        else:
            out.append(g if g.dtype == x.dtype else g.astype(x.dtype))
    return out


# -- _foreach --------------------------------------------------------------------------
def _foreach_layout(attrs):
    n_data, n_state = len(attrs.in_data_locs), len(attrs.in_state_locs)
    body_pos = tuple(attrs.in_data_locs) + tuple(attrs.in_state_locs) + tuple(attrs.remain_locs)
    return n_data, n_state, body_pos


def _step_shape(shape) -> tuple:
    """The shape of one step of data of ``shape``: without the first axis, except that
    outside ``np_shape`` a 1-D array's steps are ``(1,)`` (MXNet 1.x has no 0-d
    arrays there: ``()`` would mean an unknown shape)."""
    if len(shape) == 1 and not is_np_shape():
        return (1,)
    return tuple(shape[1:])


def _step(x, t: int):
    """Step ``t`` of data array ``x`` (see :func:`_step_shape`)."""
    if x.ndim == 1 and not is_np_shape():
        return x[t:t + 1]
    return x[t]


def _foreach_infer_shape(attrs, in_shapes):
    (body,) = _subgraphs(attrs, "_foreach", 1)
    n_data, n_state, body_pos = _foreach_layout(attrs)
    if len(body_pos) != len(in_shapes):
        raise MXNetError(f"_foreach: {len(in_shapes)} inputs but the locations name "
                         f"{len(body_pos)}")
    length = 0
    sub_in = [None] * len(in_shapes)
    for i, (shape, pos) in enumerate(zip(in_shapes, body_pos)):
        if i < n_data and shape is not None:
            if len(shape) == 0:
                raise MXNetError("_foreach: data must have at least one dimension")
            length = length or shape[0]
            if shape[0] and length != shape[0]:
                raise MXNetError(f"_foreach: data arrays of different lengths {length} and "
                                 f"{shape[0]}")
            shape = _step_shape(shape)
        sub_in[pos] = shape
    sub_in, sub_out = body.infer_shape(sub_in)
    ins = []
    for i, pos in enumerate(body_pos):
        shape = sub_in[pos]
        if i < n_data:
            if in_shapes[i] is not None and len(in_shapes[i]) == 1 and not is_np_shape():
                ins.append(tuple(in_shapes[i]))  # its steps are (1,): see _step_shape
                continue
            shape = None if shape is None else (length,) + tuple(shape)
            shape = _merge(in_shapes[i], shape)
        elif i < n_data + n_state:
            shape = _merge(_merge(in_shapes[i], shape), sub_out[attrs.num_out_data + i - n_data])
        else:
            shape = _merge(in_shapes[i], shape)
        ins.append(shape)
    outs = [None if s is None else (length,) + tuple(s) for s in sub_out[:attrs.num_out_data]]
    outs += [ins[n_data + j] for j in range(n_state)]
    return ins, outs


def _foreach_infer_type(op, attrs, in_dtypes):
    (body,) = _subgraphs(attrs, "_foreach", 1)
    _, n_state, body_pos = _foreach_layout(attrs)
    sub_in = [None] * len(in_dtypes)
    for d, pos in zip(in_dtypes, body_pos):
        sub_in[pos] = d
    sub_in, sub_out = body.infer_type(sub_in)
    ins = [d if d is not None else sub_in[pos] for d, pos in zip(in_dtypes, body_pos)]
    n_data = len(attrs.in_data_locs)
    outs = list(sub_out[:attrs.num_out_data]) + ins[n_data:n_data + n_state]
    return ins, outs


def _foreach_forward(oc, attrs, inputs, out, keep_state: bool = False):
    (body,) = _subgraphs(attrs, "_foreach", 1)
    xp = oc.xp
    n_data, n_state, body_pos = _foreach_layout(attrs)
    if n_data == 0:
        raise MXNetError("_foreach: no data to iterate over")
    length = inputs[0].shape[0]
    for x in inputs[1:n_data]:
        if x.shape[0] != length:
            raise MXNetError(f"_foreach: data arrays of different lengths {length} and "
                             f"{x.shape[0]}")
    if length == 0:
        raise MXNetError("_foreach: the data have length 0")
    sub_in = [None] * len(inputs)
    for x, pos in zip(inputs[n_data:], body_pos[n_data:]):
        sub_in[pos] = x
    states = list(inputs[n_data:n_data + n_state])
    n_out = attrs.num_out_data
    steps, saved = [], []
    for t in range(length):
        for x, pos in zip(inputs[:n_data], body_pos[:n_data]):
            sub_in[pos] = _step(x, t)
        for s, pos in zip(states, body_pos[n_data:n_data + n_state]):
            sub_in[pos] = s
        res, state = body.run(oc, sub_in, keep_state)
        steps.append(res[:n_out])
        states = list(res[n_out:])
        saved.append(state)
    results = [xp.stack([step[j] for step in steps]) for j in range(n_out)] + states
    results = _write(results, out)
    return (results, saved) if keep_state else results


def _foreach_backward(oc, attrs, inputs, outputs, out_grads, need=None, state=None):
    (body,) = _subgraphs(attrs, "_foreach", 1)
    xp = oc.xp
    if state is None:
        _, state = _foreach_forward(oc, attrs, inputs, None, keep_state=True)
    n_data, n_state, body_pos = _foreach_layout(attrs)
    n_out = attrs.num_out_data
    grads: list = [None] * len(inputs)
    data_grads = [xp.zeros(x.shape, x.dtype) if _is_float(x) else None
                  for x in inputs[:n_data]]
    state_grads = list(out_grads[n_out:])
    for t in range(len(state) - 1, -1, -1):
        heads = [g[t] for g in out_grads[:n_out]] + state_grads
        sub_grads = body.backward(oc, state[t], heads)
        for j in range(n_data):
            g = sub_grads[body_pos[j]]
            if g is not None and data_grads[j] is not None:
                data_grads[j][t] = g.reshape(data_grads[j].shape[1:])
        state_grads = []
        for j in range(n_state):
            g = sub_grads[body_pos[n_data + j]]
            state_grads.append(g if g is not None else
                               xp.zeros(inputs[n_data + j].shape, inputs[n_data + j].dtype))
        for i in range(n_data + n_state, len(inputs)):
            _accumulate(grads, i, sub_grads[body_pos[i]])
    grads[:n_data] = data_grads
    grads[n_data:n_data + n_state] = state_grads
    return _finish_grads(xp, inputs, grads, need)


# -- _while_loop -----------------------------------------------------------------------
def _while_var_inputs(attrs) -> tuple:
    """The node input of each loop variable."""
    return tuple(attrs.func_input_locs[p] for p in attrs.func_var_locs)


def _to_sub(values, locs):
    return [values[i] for i in locs]


def _from_sub(n_inputs: int, locs, sub_values, into=None) -> list:
    """Per node input, what the subgraph inferred for the inputs it reads."""
    out = list(into) if into is not None else [None] * n_inputs
    for pos, i in enumerate(locs):
        if sub_values[pos] is not None and out[i] is None:
            out[i] = sub_values[pos]
    return out


def _while_infer_shape(attrs, in_shapes):
    cond, func = _subgraphs(attrs, "_while_loop", 2)
    c_in, _ = cond.infer_shape(_to_sub(in_shapes, attrs.cond_input_locs))
    f_in, f_out = func.infer_shape(_to_sub(in_shapes, attrs.func_input_locs))
    ins = [_merge(s, None) for s in in_shapes]
    for locs, sub in ((attrs.cond_input_locs, c_in), (attrs.func_input_locs, f_in)):
        for pos, i in enumerate(locs):
            ins[i] = _merge(ins[i], sub[pos])
    n_out = attrs.num_out_data
    var_inputs = _while_var_inputs(attrs)
    for k, i in enumerate(var_inputs):
        ins[i] = _merge(ins[i], f_out[n_out + k])
    outs = [None if s is None else (attrs.max_iterations,) + tuple(s) for s in f_out[:n_out]]
    outs += [ins[i] for i in var_inputs]
    return ins, outs


def _while_infer_type(op, attrs, in_dtypes):
    cond, func = _subgraphs(attrs, "_while_loop", 2)
    f_in, f_out = func.infer_type(_to_sub(in_dtypes, attrs.func_input_locs))
    c_in, _ = cond.infer_type(_to_sub(in_dtypes, attrs.cond_input_locs))
    ins = _from_sub(len(in_dtypes), attrs.func_input_locs, f_in, in_dtypes)
    ins = _from_sub(len(in_dtypes), attrs.cond_input_locs, c_in, ins)
    n_out = attrs.num_out_data
    outs = list(f_out[:n_out]) + [ins[i] for i in _while_var_inputs(attrs)]
    return ins, outs


def _while_forward(oc, attrs, inputs, out, keep_state: bool = False):
    cond, func = _subgraphs(attrs, "_while_loop", 2)
    xp = oc.xp
    values = list(inputs)
    var_inputs = _while_var_inputs(attrs)
    n_out = attrs.num_out_data
    steps, saved = [], []
    while len(steps) < attrs.max_iterations and _predicate(
            oc, cond, _to_sub(values, attrs.cond_input_locs), "_while_loop: the condition"):
        res, state = func.run(oc, _to_sub(values, attrs.func_input_locs), keep_state)
        steps.append(res[:n_out])
        for i, v in zip(var_inputs, res[n_out:]):
            values[i] = v
        saved.append(state)
    if steps:
        shapes = [tuple(x.shape) for x in steps[0]]
        dtypes = [x.dtype for x in steps[0]]
    else:  # no step ran: the outputs' shapes and dtypes come from inference
        f_shapes = [tuple(x.shape) for x in _to_sub(values, attrs.func_input_locs)]
        f_dtypes = [x.dtype for x in _to_sub(values, attrs.func_input_locs)]
        shapes = func.infer_shape(f_shapes)[1][:n_out]
        dtypes = func.infer_type(f_dtypes)[1][:n_out]
    results = []
    for j in range(n_out):
        stacked = xp.zeros((attrs.max_iterations,) + tuple(shapes[j]), dtypes[j])
        for t, step in enumerate(steps):
            if tuple(step[j].shape) != tuple(shapes[j]):
                raise MXNetError(f"_while_loop: output {j} changed shape from {shapes[j]} "
                                 f"to {tuple(step[j].shape)} at step {t}")
            stacked[t] = step[j]
        results.append(stacked)
    # a variable no step changed is still the input: the output gets its own copy
    results += [values[i].copy() if values[i] is inputs[i] else values[i] for i in var_inputs]
    results = _write(results, out)
    return (results, saved) if keep_state else results


def _while_backward(oc, attrs, inputs, outputs, out_grads, need=None, state=None):
    _, func = _subgraphs(attrs, "_while_loop", 2)
    xp = oc.xp
    if state is None:
        _, state = _while_forward(oc, attrs, inputs, None, keep_state=True)
    n_out = attrs.num_out_data
    var_inputs = _while_var_inputs(attrs)
    var_pos = set(attrs.func_var_locs)
    grads: list = [None] * len(inputs)
    var_grads = list(out_grads[n_out:])
    for t in range(len(state) - 1, -1, -1):
        heads = [g[t] for g in out_grads[:n_out]] + var_grads
        sub_grads = func.backward(oc, state[t], heads)
        var_grads = [sub_grads[p] if sub_grads[p] is not None else
                     xp.zeros(inputs[i].shape, inputs[i].dtype)
                     for p, i in zip(attrs.func_var_locs, var_inputs)]
        for p, i in enumerate(attrs.func_input_locs):
            if p not in var_pos:
                _accumulate(grads, i, sub_grads[p])
    for i, g in zip(var_inputs, var_grads):
        _accumulate(grads, i, g)
    return _finish_grads(xp, inputs, grads, need)


# -- _cond -----------------------------------------------------------------------------
def _cond_infer_shape(attrs, in_shapes):
    pred, then, other = _subgraphs(attrs, "_cond", 3)
    ins = [_merge(s, None) for s in in_shapes]
    outs = [None] * attrs.num_outputs
    sub_outs = []
    for sub, locs in ((pred, attrs.cond_input_locs), (then, attrs.then_input_locs),
                      (other, attrs.else_input_locs)):
        s_in, s_out = sub.infer_shape(_to_sub(ins, locs))
        for pos, i in enumerate(locs):
            ins[i] = _merge(ins[i], s_in[pos])
        sub_outs.append(s_out)
    for k in range(attrs.num_outputs):
        try:
            outs[k] = _merge(sub_outs[1][k], sub_outs[2][k])
        except MXNetError as err:
            raise MXNetError(f"_cond: output {k} of the branches differ: {err}") from None
    return ins, outs


def _cond_infer_type(op, attrs, in_dtypes):
    pred, then, other = _subgraphs(attrs, "_cond", 3)
    ins = list(in_dtypes)
    sub_outs = []
    for sub, locs in ((pred, attrs.cond_input_locs), (then, attrs.then_input_locs),
                      (other, attrs.else_input_locs)):
        s_in, s_out = sub.infer_type(_to_sub(ins, locs))
        ins = _from_sub(len(ins), locs, s_in, ins)
        sub_outs.append(s_out)
    outs = [a if a is not None else b for a, b in zip(sub_outs[1], sub_outs[2])]
    return ins, outs


def _cond_forward(oc, attrs, inputs, out, keep_state: bool = False):
    pred, then, other = _subgraphs(attrs, "_cond", 3)
    taken = _predicate(oc, pred, _to_sub(inputs, attrs.cond_input_locs), "_cond: the predicate")
    branch, locs = (then, attrs.then_input_locs) if taken else (other, attrs.else_input_locs)
    res, state = branch.run(oc, _to_sub(inputs, locs), keep_state)
    results = _write(list(res), out)
    return (results, (taken, state)) if keep_state else results


def _cond_backward(oc, attrs, inputs, outputs, out_grads, need=None, state=None):
    _, then, other = _subgraphs(attrs, "_cond", 3)
    if state is None:
        _, state = _cond_forward(oc, attrs, inputs, None, keep_state=True)
    taken, sub_state = state
    branch, locs = (then, attrs.then_input_locs) if taken else (other, attrs.else_input_locs)
    sub_grads = branch.backward(oc, sub_state, list(out_grads))
    grads: list = [None] * len(inputs)
    for pos, i in enumerate(locs):
        _accumulate(grads, i, sub_grads[pos])
    return _finish_grads(oc.xp, inputs, grads, need)


def _output_names(attrs):
    return tuple(f"output{i}" for i in range(attrs.num_outputs))


_COMMON = dict(saved_state=True, capturable=False, backward_uses=("inputs",),
               backward_mask=True, output_names=_output_names,
               num_outputs=lambda attrs: attrs.num_outputs)

FOREACH = register(OpDef(
    "_foreach", _foreach_forward, backward=_foreach_backward, num_subgraphs=1,
    attrs={"num_args": Attr("int"), "num_outputs": Attr("int"), "num_out_data": Attr("int"),
           "in_state_locs": _locs(), "in_data_locs": _locs(), "remain_locs": _locs(),
           "subgraphs": Attr("object", ())},
    inputs=_subgraph_inputs(1), infer_shape=_foreach_infer_shape,
    infer_type=_foreach_infer_type,
    doc="Run a subgraph over the first axis of its data, carrying states (a graph node of "
        "``sym.contrib.foreach``).", **_COMMON))

WHILE_LOOP = register(OpDef(
    "_while_loop", _while_forward, backward=_while_backward, num_subgraphs=2,
    attrs={"num_args": Attr("int"), "num_outputs": Attr("int"), "num_out_data": Attr("int"),
           "max_iterations": Attr("int"), "cond_input_locs": _locs(),
           "func_input_locs": _locs(), "func_var_locs": _locs(),
           "subgraphs": Attr("object", ())},
    inputs=_subgraph_inputs(2), infer_shape=_while_infer_shape,
    infer_type=_while_infer_type,
    doc="Run a step subgraph while a condition subgraph holds (a graph node of "
        "``sym.contrib.while_loop``).", **_COMMON))

COND = register(OpDef(
    "_cond", _cond_forward, backward=_cond_backward, num_subgraphs=3,
    attrs={"num_args": Attr("int"), "num_outputs": Attr("int"),
           "cond_input_locs": _locs(), "then_input_locs": _locs(),
           "else_input_locs": _locs(), "subgraphs": Attr("object", ())},
    inputs=_subgraph_inputs(3), infer_shape=_cond_infer_shape, infer_type=_cond_infer_type,
    doc="Run one of two subgraphs as a predicate subgraph says (a graph node of "
        "``sym.contrib.cond``).", **_COMMON))



# -- _CachedOp -------------------------------------------------------------------------
def _cached_infer_shape(attrs, in_shapes):
    (sub,) = _subgraphs(attrs, "_CachedOp", 1)
    ins = [_merge(s, None) for s in in_shapes]
    s_in, s_out = sub.infer_shape(ins)
    return [_merge(a, b) for a, b in zip(ins, s_in)], list(s_out)


def _cached_infer_type(op, attrs, in_dtypes):
    (sub,) = _subgraphs(attrs, "_CachedOp", 1)
    s_in, s_out = sub.infer_type(list(in_dtypes))
    return list(s_in), list(s_out)


def _cached_forward(oc, attrs, inputs, out, keep_state: bool = False):
    (sub,) = _subgraphs(attrs, "_CachedOp", 1)
    res, state = sub.run(oc, list(inputs), keep_state)
    results = _write(list(res), out)
    return (results, state) if keep_state else results


def _cached_backward(oc, attrs, inputs, outputs, out_grads, need=None, state=None):
    (sub,) = _subgraphs(attrs, "_CachedOp", 1)
    if state is None:
        _, state = _cached_forward(oc, attrs, inputs, None, keep_state=True)
    return _finish_grads(oc.xp, inputs, list(sub.backward(oc, state, list(out_grads))), need)


class _CachedOpDef(OpDef):
    """``_CachedOp``: its auxiliary inputs are those its subgraph mutates (MXNet's
    ``FMutateInputs``), so a node made from a graph with BatchNorm lists the moving
    statistics under ``list_auxiliary_states``."""

    def aux_indices(self, attrs: OpAttrs) -> tuple:
        subs = getattr(attrs, "subgraphs", ())
        positions = getattr(subs[0], "aux_positions", None) if len(subs) == 1 else None
        return tuple(positions()) if positions is not None else ()


CACHED_OP = register(_CachedOpDef(
    "_CachedOp", _cached_forward, backward=_cached_backward, num_subgraphs=1,
    attrs={"num_args": Attr("int"), "num_outputs": Attr("int"),
           "subgraphs": Attr("object", ())},
    inputs=_subgraph_inputs(1), infer_shape=_cached_infer_shape,
    infer_type=_cached_infer_type,
    doc="Run a subgraph on the node's inputs, in order (the node ``autograd.get_symbol`` "
        "gives a recorded call of a hybridized block).", **_COMMON))
# only the truth value of ``aux_names`` is read generically; ``aux_indices`` decides
CACHED_OP.aux_names = ("<subgraph's mutated inputs>",)
