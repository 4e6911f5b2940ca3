"""Imperative invocation of a registry operator on NDArrays.

This is the hot path of imperative code: it unwraps the arrays, calls the
operator's forward with the right array module, wraps the results and, when
autograd is recording, puts one node on the tape.  Keep it lean: every line
here is paid by every imperative operator call.
"""
from __future__ import annotations

from ..autograd import _state, record_op
from ..base import MXNetError
from ..context import current_context
from ..ops.registry import OpContext

# Set by ndarray.py once the class exists (ndarray.py imports this module).
NDArray = None
# Set by sparse.py: ``run_sparse(op, inputs, attrs, out, ctx)`` runs an operator's sparse
# kernel when an input is sparse, or returns None (the dense forward then runs).
run_sparse = None
# Set by ``mx.profiler`` while it runs: ``profiler.operator(name, start_ns)`` records one
# operator call (``None``: not profiling, the only cost is this check)
profiler = None


def _op_context(ctx, is_train: bool) -> OpContext:
    pair = ctx._op_contexts
    if pair is None:
        xp = ctx.xp
        pair = ctx._op_contexts = (OpContext(xp, False, ctx), OpContext(xp, True, ctx))
    return pair[is_train]


def _shapes(datas) -> str:
    return ", ".join(str(tuple(d.shape)) for d in datas)


def invoke(op, inputs: list, attrs, out=None, ctx=None, cls=None):
    """Run ``op`` on NDArray ``inputs`` with parsed ``attrs``.

    Parameters
    ----------
    op : OpDef
    inputs : list of NDArray
    attrs : OpAttrs
    out : NDArray or list of NDArray, optional
        Arrays to write the visible outputs into.
    ctx : Context, optional
        Device for operators without inputs (creation ops, samplers).
    cls : type, optional
        Array class of the results, for ``mx.np`` arrays (which keep 0-d results);
        ``None``: ``NDArray``, where a 0-d result becomes shape ``(1,)`` as in MXNet.

    Returns
    -------
    NDArray or list of NDArray
        The visible outputs (a single NDArray when there is one).
    """
    n_in = len(inputs)
    if n_in:
        ctx = inputs[0]._ctx
        if n_in > 1:
            for x in inputs:
                if x._ctx is not ctx and x._ctx != ctx:
                    raise MXNetError(f"Operator {op.name}: inputs live on different devices "
                                     f"({ctx} and {x._ctx}); copy them to one with "
                                     "as_in_context")
    elif ctx is None:
        ctx = current_context()
    if op.sparse_forward is not None:
        dense = out is None and not op.sparse_from_dense
        if dense:
            for x in inputs:
                if type(x) is not NDArray:
                    dense = False
                    break
        if not dense:
            res = run_sparse(op, inputs, attrs, out, ctx)
            if res is not None:
                return res
    # explicit loops: comprehensions cost an extra frame before Python 3.12
    if n_in == 1:
        datas = [inputs[0]._data]
    else:
        datas = []
        for x in inputs:
            datas.append(x._data)
    pair = ctx._op_contexts
    oc = (pair if pair is not None else _make_pair(ctx))[_state.training]
    bufs = None
    if out is not None and op.inplace_out:
        bufs = _out_buffers(out, ctx)
    rec = _state.recording
    saved = None
    prof = profiler
    if prof is not None:
        t0 = prof.clock()
    try:
        if rec and op.saved_state:
            res, saved = _forward_keeping(op, oc, attrs, inputs, datas, bufs)
        elif ctx.device_typeid == 2:
            with oc.xp.cuda.Device(ctx.device_id):
                res = op.forward(oc, attrs, datas, bufs)
        else:
            res = op.forward(oc, attrs, datas, bufs)
    except MXNetError:
        raise
    except Exception as err:  # a NumPy/CuPy error: name the operator and the shapes
        raise _explain(op, attrs, datas, err) from err
    if prof is not None:
        prof.operator(op.name, t0)
    if op.aux_names:
        for i in op.aux_indices(attrs):
            x = inputs[i]
            if type(x) is not NDArray:  # a sparse state ran densified: store the result
                x._assign_raw(datas[i])
            x._bump()
    if out is None:
        nd_type = oc.xp.ndarray
        outputs = []
        if cls is None:
            for r in res:
                outputs.append(NDArray(r if type(r) is nd_type and r.ndim
                                       else _as_array(r, oc.xp, op.zero_dim_outputs), ctx))
        else:
            for r in res:
                outputs.append(cls(r if type(r) is nd_type else oc.xp.asarray(r), ctx))
    else:
        outs_nd = [out] if isinstance(out, NDArray) else list(out)
        outputs = _fill_out(op, res, outs_nd, oc.xp, ctx)
    # an operator without MXNet's FGradient is recorded too: backward raises when a
    # gradient reaches it (autograd.backward), as MXNet does
    if rec and (op.differentiable or not op.has_fgradient):
        record_op(op, attrs, inputs, datas, outputs, [y._data for y in outputs],
                  oc.is_train, ctx, saved)
    n_vis = op._n_visible_static
    if n_vis is None:
        n_vis = op.num_visible_outputs(attrs)
    return outputs[0] if n_vis == 1 else outputs[:n_vis]


def invoke_unary(op, x, attrs):
    """:func:`invoke` for an operator with one input and one output (no aux states, no
    ``out``), as ``nd.relu(x)`` calls it: the same work with less bookkeeping."""
    ctx = x._ctx
    rec = _state.recording
    if ctx.device_typeid == 2 or (rec and op.saved_state) or profiler is not None:
        return invoke(op, [x], attrs)
    pair = ctx._op_contexts
    oc = (pair if pair is not None else _make_pair(ctx))[_state.training]
    datas = [x._data]
    try:
        r = op.forward(oc, attrs, datas, None)[0]
    except MXNetError:
        raise
    except Exception as err:  # a NumPy error: name the operator and the shapes
        raise _explain(op, attrs, datas, err) from err
    if type(r) is not oc.xp.ndarray or not r.ndim:
        r = _as_array(r, oc.xp)
    y = NDArray(r, ctx)
    if rec and (op.differentiable or not op.has_fgradient):
        record_op(op, attrs, [x], datas, [y], [r], oc.is_train, ctx)
    return y


def _forward_keeping(op, oc, attrs, inputs, datas, bufs):
    """``(results, state)`` of a recorded call of a ``saved_state`` operator.

    The state is asked for only when an input takes part in a gradient (otherwise the
    call is not put on the tape and nothing would read it).
    """
    for x in inputs:
        if x._entry is not None or (x._grad_req is not None and x._grad_req != "null"):
            break
    else:
        return _run_forward(op, oc, attrs, datas, bufs), None
    return _run_forward(op, oc, attrs, datas, bufs, keep_state=True)


def _run_forward(op, oc, attrs, datas, bufs, **kwargs):
    ctx = oc.ctx
    if ctx.device_typeid == 2:
        with oc.xp.cuda.Device(ctx.device_id):
            return op.forward(oc, attrs, datas, bufs, **kwargs)
    return op.forward(oc, attrs, datas, bufs, **kwargs)


def _explain(op, attrs, datas, err) -> MXNetError:
    """The error to raise for a failed forward.

    Shape inference is skipped on the hot path; when forward fails it is run once, since
    its message (which input, which shapes) says more than NumPy's.
    """
    try:
        op.infer_shape(attrs, [tuple(d.shape) for d in datas])
    except MXNetError as inferred:
        msg = str(inferred)
        if "input shapes" not in msg:
            msg += f" (input shapes: {_shapes(datas)})"
        return MXNetError(msg)
    except Exception:  # noqa: BLE001 - fall back to the array library's message
        pass
    return MXNetError(f"Operator {op.name}: {type(err).__name__}: {err} "
                      f"(input shapes: {_shapes(datas)})")


def _out_buffers(out, ctx):
    """The raw arrays of ``out`` for an ``inplace_out`` operator, or None when one of
    them lives elsewhere (the result is then copied as for other operators)."""
    outs = [out] if isinstance(out, NDArray) else list(out)
    for o in outs:
        if o._ctx is not ctx and o._ctx != ctx or type(o) is not NDArray:
            return None
    return [o._data for o in outs]


def _make_pair(ctx):
    _op_context(ctx, False)
    return ctx._op_contexts


def _as_array(r, xp, zero_dim: bool = False):
    if type(r) is not xp.ndarray:
        r = xp.asarray(r)
    if r.ndim == 0 and not zero_dim:  # MXNet has no 0-d arrays (but allclose's)
        r = r.reshape(1)
    return r


def _fill_out(op, res, outs_nd, xp, ctx):
    """Make the given ``out`` arrays hold the results; extra (hidden) outputs get new arrays."""
    outputs = []
    for i, r in enumerate(res):
        r = _as_array(r, xp, op.zero_dim_outputs)
        if i >= len(outs_nd):
            outputs.append(NDArray(r, ctx))
            continue
        dst = outs_nd[i]
        if type(dst) is not NDArray:  # a sparse array: store the dense result its way
            dst._assign_raw(r)
        elif r is not dst._data:
            if dst.shape != tuple(r.shape):
                raise MXNetError(f"Operator {op.name}: out= has shape {dst.shape} but the "
                                 f"result has shape {tuple(r.shape)}")
            dst._data[...] = r
        dst._bump()
        dst._entry = None
        outputs.append(dst)
    return outputs
