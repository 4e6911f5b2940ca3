"""The op test harness: every registered operator is checked against its samples.

A sample (:class:`Sample`) gives NumPy inputs, attributes and a NumPy reference.
For each sample the harness checks

* forward through ``nd.<op>`` against the reference (float64 unless the sample
  says otherwise);
* ``infer_shape`` (from the inputs named in ``infer_from``) against the shapes
  forward actually produced, hidden outputs included, and ``infer_type``;
* that outputs never alias inputs, and that forward fills given ``out`` buffers;
* the gradient of every differentiable input against central finite differences
  in float64 (or against ``grad_ref`` for loss layers whose backward ignores the
  head gradient);
* for operators declaring ``saved_state``: ``forward(..., keep_state=True)`` gives the
  same outputs, and backward with the state the same gradients as without it;
* on a GPU (marker ``gpu``), CuPy forward and backward against NumPy.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

import gluonlite as mx
from gluonlite.ndarray import _api
from gluonlite.ops._binary_math import reduce_to
from gluonlite.ops.expr import head_grad_kernel, numpy_kernel, variables
from gluonlite.ops.registry import OpContext, get_op


@dataclasses.dataclass
class Sample:
    """One test case of an operator.

    Attributes
    ----------
    inputs : list of numpy arrays
        Inputs in the operator's input order (aux states included).
    attrs : dict
        Attributes passed to ``nd.<op>``.
    ref : callable, optional
        ``ref(*inputs, **attrs)`` returning the visible output(s) as NumPy arrays.
    check : callable, optional
        ``check(outputs, inputs)`` for random operators: asserts properties.
    grad : bool or sequence of int
        Inputs whose gradient is checked (``True``: every floating input not aux).
    grad_ref : callable, optional
        ``grad_ref(*inputs, **attrs)`` giving expected input gradients for head
        gradients of ones, for operators whose backward ignores the head gradient.
    train : bool
        Run in training mode.
    infer_from : sequence of int, optional
        Inputs whose shapes are given to ``infer_shape`` (default: all).
    rtol, atol : float
        Forward tolerances; gradient checks use ``grad_rtol``/``grad_atol``.
    eps : float
        Finite-difference step.
    """

    inputs: list
    attrs: dict = dataclasses.field(default_factory=dict)
    ref: Callable | None = None
    check: Callable | None = None
    grad: bool | Sequence[int] = True
    grad_ref: Callable | None = None
    train: bool = False
    infer_from: Sequence[int] | None = None
    rtol: float = 1e-6
    atol: float = 1e-8
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-6
    eps: float = 1e-6
    name: str = ""


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def run_forward(op_name, sample, ctx=None, inputs=None):
    """Call ``nd.<op_name>`` on the sample; return the visible outputs as NDArrays."""
    ctx = ctx or mx.cpu()
    arrs = inputs if inputs is not None else [
        mx.nd.array(a, ctx=ctx, dtype=a.dtype) for a in sample.inputs]
    fn = _api.function(op_name)
    scope = mx.autograd.train_mode() if sample.train else mx.autograd.predict_mode()
    with scope:
        res = fn(*arrs, **sample.attrs)
    return _as_list(res), arrs


def check_forward(op_name, sample):
    """Forward against the NumPy reference (or the sample's ``check``)."""
    if sample.check is not None:
        # random operators: the same draws whatever ran before, so a statistical
        # check cannot fail by chance in one run and pass in the next
        mx.random.seed(1234)
    outs, _ = run_forward(op_name, sample)
    got = [o.asnumpy() for o in outs]
    if sample.check is not None:
        sample.check(got, [a.copy() for a in sample.inputs])
    if sample.ref is not None:
        expected = _as_list(sample.ref(*[a.copy() for a in sample.inputs], **sample.attrs))
        assert len(got) == len(expected), f"{op_name}: {len(got)} outputs, expected {len(expected)}"
        for g, e in zip(got, expected):
            e = np.asarray(e)
            if e.ndim == 0 and g.shape == (1,):  # nd.<op> gives 0-d results shape (1,)
                e = e.reshape(1)
            assert g.shape == e.shape, f"{op_name}: output shape {g.shape}, expected {e.shape}"
            np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64),
                                       rtol=sample.rtol, atol=sample.atol,
                                       err_msg=f"{op_name} forward")
    return outs


def raw_forward(op_name, sample):
    """Call the operator's forward directly: all outputs, hidden ones included."""
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    oc = mx.ops.OpContext(np, sample.train, mx.cpu())
    inputs = [a.copy() for a in sample.inputs]
    return op, attrs, inputs, [np.asarray(r) for r in op.forward(oc, attrs, inputs, None)]


def check_inference(op_name, sample):
    """infer_shape and infer_type against what forward produced; no aliasing; out buffers."""
    op, attrs, inputs, outs = raw_forward(op_name, sample)
    n_out = op.num_outputs(attrs)
    assert len(outs) == n_out, f"{op_name}: forward gave {len(outs)} outputs, declared {n_out}"
    assert len(inputs) == op.num_inputs(attrs), f"{op_name}: sample has wrong input count"
    given = [tuple(a.shape) if (sample.infer_from is None or i in sample.infer_from) else None
             for i, a in enumerate(inputs)]
    in_shapes, out_shapes = op.infer_shape(attrs, given)
    assert [tuple(s) for s in in_shapes] == [tuple(a.shape) for a in inputs], \
        f"{op_name}: inferred input shapes {in_shapes}, actual {[a.shape for a in inputs]}"
    # a 0-d result is shape (1,) for the legacy operators, () where infer_shape says so
    # (the ``mx.np`` operators)
    actual_out = [tuple(o.shape) if o.ndim or (s is not None and tuple(s) == ()) else (1,)
                  for o, s in zip(outs, out_shapes)]
    # a 0 marks a dimension only the values decide (boolean_mask's length)
    out_shapes = [tuple(a if i == 0 and a != 0 else i for i, a in zip(s, actual))
                  if len(s) == len(actual) else s for s, actual in zip(out_shapes, actual_out)]
    assert [tuple(s) for s in out_shapes] == actual_out, \
        f"{op_name}: inferred output shapes {out_shapes}, actual {actual_out}"
    in_types, out_types = op.infer_type(attrs, [a.dtype for a in inputs])
    assert [np.dtype(t) for t in out_types] == [o.dtype for o in outs], \
        f"{op_name}: inferred output dtypes {out_types}, actual {[o.dtype for o in outs]}"
    for o in outs:
        for a in inputs:
            assert not np.shares_memory(o, a), f"{op_name}: an output aliases an input"
    # forward into preallocated buffers
    bufs = [np.full(o.shape if o.ndim else (1,), np.nan if o.dtype.kind == "f" else 0,
                    dtype=o.dtype) for o in outs]
    if sample.check is None:
        oc = mx.ops.OpContext(np, sample.train, mx.cpu())
        again = op.forward(oc, attrs, [a.copy() for a in sample.inputs], bufs)
        for b, r, o in zip(bufs, again, outs):
            assert r is b, f"{op_name}: forward ignored its out buffer"
            np.testing.assert_allclose(b.reshape(o.shape), o, rtol=1e-12, atol=0,
                                       err_msg=f"{op_name} out buffer")


def _grad_inputs(op, attrs, sample):
    aux = set(op.aux_indices(attrs))
    if sample.grad is True:
        return [i for i, a in enumerate(sample.inputs)
                if i not in aux and a.dtype.kind == "f"]
    if sample.grad is False:
        return []
    return list(sample.grad)


def _loss(op_name, sample, inputs_np, heads):
    outs, _ = run_forward(op_name, sample, inputs=[mx.nd.array(a, dtype=a.dtype) for a in inputs_np])
    return sum(float(np.sum(o.asnumpy().astype(np.float64) * h)) for o, h in zip(outs, heads))


def check_gradient(op_name, sample, seed=0):
    """Autograd gradients against central finite differences (float64)."""
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    which = _grad_inputs(op, attrs, sample)
    if not op.differentiable or not which:
        return
    rng = np.random.default_rng(seed)
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in sample.inputs]
    for i in which:
        arrs[i].attach_grad()
    with mx.autograd.record(train_mode=sample.train):
        outs = _as_list(_api.function(op_name)(*arrs, **sample.attrs))
    if sample.grad_ref is not None:
        mx.autograd.backward(outs)
        expected = _as_list(sample.grad_ref(*[a.copy() for a in sample.inputs], **sample.attrs))
        for i, e in zip(which, expected):
            np.testing.assert_allclose(arrs[i].grad.asnumpy(), e, rtol=sample.grad_rtol,
                                       atol=sample.grad_atol, err_msg=f"{op_name} grad {i}")
        return
    heads = [rng.uniform(-1, 1, size=o.shape) for o in outs]
    mx.autograd.backward(outs, [mx.nd.array(h, dtype=o.dtype) for h, o in zip(heads, outs)])
    for i in which:
        base = [a.copy() for a in sample.inputs]
        x = base[i]
        num = np.zeros(x.shape)
        flat = x.reshape(-1)
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + sample.eps
            plus = _loss(op_name, sample, [b.copy() for b in base], heads)
            flat[j] = orig - sample.eps
            minus = _loss(op_name, sample, [b.copy() for b in base], heads)
            flat[j] = orig
            num.reshape(-1)[j] = (plus - minus) / (2 * sample.eps)
        np.testing.assert_allclose(arrs[i].grad.asnumpy(), num, rtol=sample.grad_rtol,
                                   atol=sample.grad_atol,
                                   err_msg=f"{op_name}: gradient of input {i}")


def check_saved_state(op_name, sample):
    """A ``saved_state`` operator's state changes nothing but the work done: the same
    outputs, and the same gradients as a backward that recomputes (without state)."""
    op = get_op(op_name)
    if not op.saved_state or sample.check is not None:
        return
    attrs = op.parse_attrs(dict(sample.attrs))
    oc = mx.ops.OpContext(np, sample.train, mx.cpu())
    plain = op.forward(oc, attrs, [a.copy() for a in sample.inputs], None)
    inputs = [a.copy() for a in sample.inputs]
    outs, state = op.forward(oc, attrs, inputs, None, keep_state=True)
    assert len(outs) == len(plain), f"{op_name}: keep_state changed the output count"
    for a, b in zip(outs, plain):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b),
                                      err_msg=f"{op_name} forward with keep_state")
    if not op.differentiable:
        return
    rng = np.random.default_rng(1)
    heads = [rng.uniform(-1, 1, size=np.shape(o)).astype(np.asarray(o).dtype) for o in outs]
    kwargs = {"need": (True,) * len(inputs)} if op.backward_mask else {}
    with_state = op.backward(oc, attrs, inputs, outs, [h.copy() for h in heads], state=state,
                             **kwargs)
    without = op.backward(oc, attrs, inputs, outs, [h.copy() for h in heads], **kwargs)
    for i, (a, b) in enumerate(zip(with_state, without)):
        if a is None or b is None:
            assert a is None and b is None, f"{op_name}: gradient {i} with/without state"
            continue
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12,
                                   err_msg=f"{op_name}: gradient {i} with saved state")


def _noncontiguous(a):
    """``a``'s values as a strided view into a larger array (every other element of the
    last axis; a transposed view for 0-d/1-element cases is not needed)."""
    if a.ndim == 0 or a.size == 0:
        return a
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
    view = big[..., ::2]
    view[...] = a
    assert not view.flags.c_contiguous or a.shape[-1] == 1
    return view


# inputs an operator overwrites on purpose besides its auxiliary states, as MXNet's kernel
# does (checked in the oracle: adamw_update leaves the rescaled gradient in ``grad``)
MUTATED_INPUTS = {"_adamw_update": {1}}


def check_raw_inputs(op_name, sample):
    """Forward and backward leave their inputs as they were (auxiliary states excepted)
    and give the same results on non-contiguous inputs (strided views)."""
    op = get_op(op_name)
    if sample.check is not None:
        return  # random: two forwards draw differently
    attrs = op.parse_attrs(dict(sample.attrs))
    aux = set(op.aux_indices(attrs)) | MUTATED_INPUTS.get(op_name, set())
    oc = mx.ops.OpContext(np, sample.train, mx.cpu())
    inputs = [a.copy() for a in sample.inputs]
    outs = [np.asarray(o) for o in op.forward(oc, attrs, inputs, None)]
    for i, (a, b) in enumerate(zip(inputs, sample.inputs)):
        if i not in aux:
            np.testing.assert_array_equal(a, b, err_msg=f"{op_name}: forward changed input {i}")
    strided = [_noncontiguous(a.copy()) for a in sample.inputs]
    again = [np.asarray(o) for o in op.forward(oc, attrs, strided, None)]
    for k, (a, b) in enumerate(zip(again, outs)):
        # strided inputs may take another summation path (NumPy's matmul without BLAS on
        # NumPy 1.x), whose float rounding is relative to the terms summed, so to the
        # output's scale rather than to each (possibly cancelled) element
        want = b.astype(np.float64)
        scale = float(np.abs(want).max()) if want.size and np.isfinite(want).all() else 0.0
        np.testing.assert_allclose(a.astype(np.float64), want, rtol=1e-6,
                                   atol=max(1e-9, 1e-6 * scale),
                                   err_msg=f"{op_name}: output {k} with non-contiguous inputs")
    if not op.differentiable or not _grad_inputs(op, attrs, sample):
        return  # backward runs only where a gradient is asked for (floating inputs)
    rng = np.random.default_rng(4)
    heads = [rng.uniform(-1, 1, size=o.shape).astype(o.dtype) for o in outs]
    ins = [a.copy() for a in sample.inputs]
    outs_c, heads_c = [o.copy() for o in outs], [h.copy() for h in heads]
    kwargs = {"need": (True,) * len(ins)} if op.backward_mask else {}
    op.backward(oc, attrs, ins, outs_c, heads_c, **kwargs)
    for what, got, want in (("input", ins, sample.inputs), ("output", outs_c, outs),
                            ("head gradient", heads_c, heads)):
        for i, (a, b) in enumerate(zip(got, want)):
            if what == "input" and i in aux:
                continue
            np.testing.assert_array_equal(a, b, err_msg=f"{op_name}: backward changed "
                                                        f"{what} {i}")


def check_backward_graph(op_name, sample):
    """The recorded gradient (``backward_graph``, what ``create_graph=True`` runs) equals
    the plain ``backward``, which :func:`check_gradient` holds to finite differences."""
    op = get_op(op_name)
    if not op.differentiable or not op.second_order or op.backward_graph is None \
            or sample.check is not None:
        return
    attrs = op.parse_attrs(dict(sample.attrs))
    which = _grad_inputs(op, attrs, sample)
    if not which:
        return
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in sample.inputs]
    for i in which:
        arrs[i].attach_grad()
    with mx.autograd.record(train_mode=sample.train):
        outs = _as_list(_api.function(op_name)(*arrs, **sample.attrs))
    rng = np.random.default_rng(6)
    heads = [mx.nd.array(rng.uniform(-1, 1, size=o.shape), dtype=o.dtype) for o in outs]
    variables = [arrs[i] for i in which]
    with mx.autograd.record(train_mode=sample.train):
        recorded = mx.autograd.grad(outs, variables, head_grads=heads, retain_graph=True,
                                    create_graph=True)
    plain = mx.autograd.grad(outs, variables, head_grads=heads, retain_graph=False)
    for i, a, b in zip(which, recorded, plain):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-7, atol=1e-10,
                                   err_msg=f"{op_name}: backward_graph gradient of input {i}")


def check_math(op_name, sample):
    """An operator that states its math in the expression form (``OpDef.math``): its
    NumPy forward and backward equal the expression's generated kernels on the sample's
    floating inputs, so a hand-tuned kernel cannot drift from the expression that
    fusion, the recorded backward and the compiled kernels are generated from."""
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    math = op.math(attrs) if callable(op.math) else op.math
    if math is None or any(a.dtype.kind != "f" for a in sample.inputs):
        return
    oc = OpContext(np, sample.train, mx.cpu())
    inputs = [np.array(a) for a in sample.inputs]
    # attributes the expressions read (``scalar``) are variables too
    read = variables(math.forward).union(*[variables(d) for d in math.grads])
    consts = sorted(read - set(math.inputs) - {"y"})
    env = dict(zip(math.inputs, inputs))
    env.update({c: getattr(attrs, c) for c in consts})
    outs = op.forward(oc, attrs, list(inputs), None)
    y = outs[0]
    names = tuple(math.inputs) + tuple(consts)
    want = numpy_kernel(math.forward, names + ("y",))(np, *[env[n] for n in names], None)
    # float16 kernels follow MXNet's rounding steps (float32 compute), which the math
    # does not state
    rtol = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 1e-6}.get(y.dtype, 1e-12)
    np.testing.assert_allclose(y, np.broadcast_to(want, y.shape), rtol=rtol, atol=rtol,
                               equal_nan=True, err_msg=f"{op_name}: forward vs expression")
    if not op.differentiable:
        return
    g = np.random.default_rng(7).uniform(-1, 1, size=y.shape).astype(y.dtype)
    got = op.backward(oc, attrs, list(inputs), list(outs), [g])
    env["y"] = y
    args = [env.get(n) for n in names + ("y",)]
    for k, d in enumerate(math.grads):
        want_k = head_grad_kernel(d, names + ("y",))(np, g, *args)
        got_k = got[k]
        if got_k.shape != np.shape(want_k):  # broadcast operands: reduce like backward
            want_k = reduce_to(np.broadcast_to(want_k, g.shape), got_k.shape)
        np.testing.assert_allclose(got_k, want_k, rtol=rtol, atol=rtol, equal_nan=True,
                                   err_msg=f"{op_name}: gradient {k} vs expression")


def check_gpu_parity(op_name, sample):
    """CuPy forward and backward against NumPy for one sample (needs a GPU)."""
    cpu_outs, _ = run_forward(op_name, sample)
    gpu_outs, _ = run_forward(op_name, sample, ctx=mx.gpu(0))
    # a sample's own (looser) tolerances hold on the GPU too: float32 samples sum in
    # another order there (cuDNN's algorithms, cuBLAS)
    rtol, atol = max(1e-5, sample.rtol), max(1e-7, sample.atol)
    if sample.check is None:
        for c, g in zip(cpu_outs, gpu_outs):
            np.testing.assert_allclose(g.asnumpy(), c.asnumpy(), rtol=rtol, atol=atol,
                                       err_msg=f"{op_name} gpu forward")
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    which = _grad_inputs(op, attrs, sample)
    if not op.differentiable or not which or sample.check is not None:
        return
    grads = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        arrs = [mx.nd.array(a, ctx=ctx, dtype=a.dtype) for a in sample.inputs]
        for i in which:
            arrs[i].attach_grad()
        with mx.autograd.record(train_mode=sample.train):
            outs = _as_list(_api.function(op_name)(*arrs, **sample.attrs))
        mx.autograd.backward(outs)
        grads.append([arrs[i].grad.asnumpy() for i in which])
    for c, g in zip(*grads):
        np.testing.assert_allclose(g, c, rtol=rtol, atol=atol, err_msg=f"{op_name} gpu grad")
