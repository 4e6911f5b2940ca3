"""Gradient and forward checkers of ``gluonlite.test_utils``.

``sym`` is either a Symbol (anything with ``list_arguments`` and MXNet's ``bind`` /
``Executor`` API) or a Python callable over NDArrays, e.g. ``lambda x, w: nd.dot(x, w)``.
A callable receives the location positionally (list) or by keyword (dict) and returns an
NDArray or a list/tuple of NDArrays; its gradients come from ``gluonlite.autograd``.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

import numpy as np

from .. import autograd
from ..base import MXNetError
from ..ndarray.ndarray import array
from .core import _np, assert_almost_equal, default_context, default_numeric_eps

__all__ = ["numeric_grad", "check_numeric_gradient", "check_symbolic_forward",
           "check_symbolic_backward"]

# finite differences are far less exact than a forward pass: looser defaults than
# default_rtols()/default_atols()
_FD_RTOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-2, np.dtype(np.float64): 1e-4}
_FD_ATOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-6}


def _nd_array(value, ctx, dtype):
    return array(np.asarray(value), ctx=ctx, dtype=dtype)


def _as_list(outs) -> list:
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


class _CallableRunner:
    """Runs a Python function over NDArrays forward and (through autograd) backward."""

    def __init__(self, fn: Callable, names: List[str], keyword: bool, ctx, dtype):
        self.fn, self.names, self.keyword, self.ctx, self.dtype = fn, names, keyword, ctx, dtype

    def _call(self, arrays):
        if self.keyword:
            return _as_list(self.fn(**dict(zip(self.names, arrays))))
        return _as_list(self.fn(*arrays))

    def output_names(self, n: int) -> List[str]:
        return [f"output{i}" for i in range(n)]

    def forward(self, values: Dict[str, np.ndarray], is_train: bool) -> list:
        arrays = [_nd_array(values[n], self.ctx, values[n].dtype) for n in self.names]
        scope = autograd.train_mode() if is_train else autograd.predict_mode()
        with scope:
            return self._call(arrays)

    def backward(self, values, head_grads, reqs: Dict[str, str], init: Dict[str, np.ndarray],
                 is_train: bool) -> Dict[str, Optional[np.ndarray]]:
        arrays = [_nd_array(values[n], self.ctx, values[n].dtype) for n in self.names]
        marked = [(a, n) for a, n in zip(arrays, self.names) if reqs[n] != "null"]
        grads = {n: _nd_array(init.get(n, np.zeros_like(values[n])), self.ctx, values[n].dtype)
                 for _, n in marked}
        if marked:
            autograd.mark_variables([a for a, _ in marked], [grads[n] for _, n in marked],
                                    [reqs[n] for _, n in marked])
        with autograd.record(train_mode=is_train):
            outs = self._call(arrays)
        # outputs that depend on no marked input are not in the graph: they add nothing
        pairs = [(o, _nd_array(h, self.ctx, o.dtype)) for h, o in zip(head_grads, outs)
                 if o._entry is not None or o._grad_req not in (None, "null")]
        if pairs:
            autograd.backward([o for o, _ in pairs], head_grads=[h for _, h in pairs],
                              train_mode=is_train)
        return {n: (grads[n].asnumpy() if n in grads else None) for n in self.names}


class _SymbolRunner:
    """Runs a Symbol through MXNet's ``bind``/``Executor`` API."""

    def __init__(self, sym, names: List[str], aux: Dict[str, np.ndarray], ctx, dtype,
                 stypes: Dict[str, str] | None = None):
        self.sym, self.names, self.aux, self.ctx, self.dtype = sym, names, aux, ctx, dtype
        # storage types of the arguments as given (sparse locations are bound sparse)
        self.stypes = stypes or {}
        self.last_grads: dict = {}

    def output_names(self, n: int) -> List[str]:
        return list(self.sym.list_outputs())

    def _array(self, value, stype: str):
        arr = _nd_array(value, self.ctx, value.dtype)
        return arr if stype == "default" else arr.tostype(stype)

    def _bind(self, values, args_grad=None, grad_req="null"):
        args = {n: self._array(values[n], self.stypes.get(n, "default")) for n in self.names}
        aux = {n: _nd_array(v, self.ctx, v.dtype) for n, v in self.aux.items()}
        return self.sym.bind(self.ctx, args=args, args_grad=args_grad, grad_req=grad_req,
                             aux_states=aux)

    def forward(self, values, is_train: bool) -> list:
        exe = self._bind(values)
        exe.forward(is_train=is_train)
        return list(exe.outputs)

    def backward(self, values, head_grads, reqs, init, is_train: bool, grad_stypes=None):
        grad_stypes = grad_stypes or {}
        args_grad = {n: self._array(init.get(n, np.zeros_like(values[n])),
                                    grad_stypes.get(n, "default"))
                     for n in self.names if reqs[n] != "null"}
        self.last_grads = args_grad
        exe = self._bind(values, args_grad=args_grad, grad_req=dict(reqs))
        exe.forward(is_train=is_train)
        outs = list(exe.outputs)
        exe.backward([_nd_array(h, self.ctx, o.dtype) for h, o in zip(head_grads, outs)])
        return {n: (args_grad[n].asnumpy() if n in args_grad else None) for n in self.names}


def _is_symbol(sym) -> bool:
    return hasattr(sym, "list_arguments") and hasattr(sym, "bind")


def _runner(sym, location, aux_states, ctx, dtype):
    """(runner, names, {name: numpy value}) for a Symbol or a callable."""
    ctx = ctx if ctx is not None else default_context()
    # as MXNet: NumPy arrays are cast to ``dtype``, NDArrays keep theirs; with
    # ``dtype='asnumpy'`` NumPy arrays keep theirs too
    keep = isinstance(dtype, str) and dtype == "asnumpy"
    dtype = None if keep else np.dtype(dtype)

    def conv(v):
        own = hasattr(v, "asnumpy")
        v = np.asarray(_np(v))
        return v if keep or own else v.astype(dtype)

    if hasattr(location, "asnumpy") or isinstance(location, np.ndarray):
        location = [location]
    if _is_symbol(sym):
        names = list(sym.list_arguments())
        if isinstance(location, dict):
            missing = set(names) - set(location)
            if missing:
                raise ValueError(f"location is missing arguments {sorted(missing)}")
            values = {n: conv(location[n]) for n in names}
        else:
            # as MXNet, arrays are paired with the arguments in order and surplus
            # arrays are ignored (MXNet's test_mkldnn passes a bias to a no_bias
            # Deconvolution); too few leave arguments unbound, an error
            if len(location) < len(names):
                raise ValueError(f"location has {len(location)} arrays, the symbol has "
                                 f"arguments {names}")
            location = list(location)[:len(names)]
            values = {n: conv(v) for n, v in zip(names, location)}
        aux_names = list(sym.list_auxiliary_states()) if hasattr(sym, "list_auxiliary_states") else []
        if aux_states is None:
            aux = {}
        elif isinstance(aux_states, dict):
            aux = {n: conv(v) for n, v in aux_states.items()}
        else:
            aux = {n: conv(v) for n, v in zip(aux_names, aux_states)}
        given = location if isinstance(location, dict) else dict(zip(names, location))
        stypes = {n: getattr(v, "stype", "default") for n, v in given.items()}
        return _SymbolRunner(sym, names, aux, ctx, dtype, stypes), names, values
    if hasattr(sym, "list_arguments") or not callable(sym):
        raise MXNetError(f"test_utils: {type(sym).__name__} has list_arguments() but no "
                         "bind(); pass a Symbol or a Python callable over NDArrays")
    if aux_states:
        raise MXNetError("test_utils: aux_states are only meaningful for Symbols")
    if isinstance(location, dict):
        names, keyword = list(location), True
        values = {n: conv(v) for n, v in location.items()}
    else:
        names, keyword = [f"arg{i}" for i in range(len(location))], False
        values = {n: conv(v) for n, v in zip(names, location)}
    return _CallableRunner(sym, names, keyword, ctx, dtype), names, values


def _by_name(spec, names: List[str], what: str, extra_ok: bool = False):
    """A list (in ``names`` order) or dict spec -> dict name -> value (with ``extra_ok``,
    entries past ``names`` are ignored, as MXNet's executor ignores surplus head
    gradients)."""
    if isinstance(spec, dict):
        return dict(spec)
    spec = _as_list(spec)
    if extra_ok and len(spec) > len(names):
        spec = spec[:len(names)]
    if len(spec) != len(names):
        raise ValueError(f"{what}: got {len(spec)} values for {len(names)} entries {names}")
    return dict(zip(names, spec))


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=np.float32):
    """Central finite-difference gradient of the sum of all outputs.

    ``executor`` is a Symbol or a callable over NDArrays (see the module doc); returns a
    dict name -> gradient (names ``arg0, arg1, ...`` for a positional callable).
    """
    runner, names, values = _runner(executor, location, aux_states, None, dtype)
    return _fd(runner, names, values, None, eps, use_forward_train)


def _fd(runner, names, values, projections, eps, is_train):
    def outputs(vals):
        return [o.asnumpy().astype(np.float64) for o in runner.forward(vals, is_train)]

    def projected_difference(plus, minus):
        # outputs the step leaves alone cancel exactly before they are weighted and summed
        projs = projections if projections is not None else [1.0] * len(plus)
        return sum(float(np.sum((a - b) * p)) for a, b, p in zip(plus, minus, projs))

    grads = {}
    for name in names:
        base = values[name]
        flat_grad = np.zeros(base.size, dtype=np.float64)
        for i in range(base.size):
            vals = dict(values)
            plus = base.copy()
            plus.reshape(-1)[i] += eps / 2
            vals[name] = plus
            f_plus = outputs(vals)
            minus = base.copy()
            minus.reshape(-1)[i] -= eps / 2
            vals[name] = minus
            flat_grad[i] = projected_difference(f_plus, outputs(vals)) / eps
        grads[name] = flat_grad.reshape(base.shape)
    return grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=np.float32) -> None:
    """Compare backward gradients with central finite differences.

    The outputs are reduced to one scalar with random projections (the same for both
    sides), as MXNet does.  ``sym`` is a Symbol or a callable over NDArrays; ``location``
    a list (argument order / positional) or dict of arrays.  ``grad_nodes`` (names, or
    ``argN`` for positional callables) restricts the checked inputs.  Default tolerances:
    rtol 1e-2 / atol 1e-3 in float32 (1e-4 / 1e-6 in float64, 1e-1 / 1e-1 in float16).
    """
    dtype = np.dtype(dtype)
    eps = numeric_eps if numeric_eps is not None else default_numeric_eps()[dtype]
    rtol = rtol if rtol is not None else _FD_RTOL.get(dtype, 1e-2)
    atol = atol if atol is not None else _FD_ATOL.get(dtype, 1e-3)
    runner, names, values = _runner(sym, location, aux_states, ctx, dtype)
    if grad_nodes is None:
        check = list(names)
    elif isinstance(grad_nodes, dict):
        check = [n for n, req in grad_nodes.items() if req != "null"]
    else:
        check = list(grad_nodes)
    unknown = set(check) - set(names)
    if unknown:
        raise ValueError(f"grad_nodes {sorted(unknown)} are not among the inputs {names}")
    outs = runner.forward(values, use_forward_train)
    rng = np.random.RandomState(1234)
    # MXNet's projection: positive weights in [0.1, 1.1) (its tolerances are set for it:
    # with mixed signs a gradient can cancel to near zero, where the finite difference's
    # float32 rounding exceeds ``atol``)
    projections = [np.asarray(rng.rand(*o.shape) + 0.1) for o in outs]  # 0-d outputs too
    reqs = {n: ("write" if n in check else "null") for n in names}
    analytic = runner.backward(values, [p.astype(np.float64) for p in projections], reqs, {},
                               use_forward_train)
    numeric = _fd(runner, check, values, projections, eps, use_forward_train)
    for name in check:
        assert_almost_equal(numeric[name], analytic[name].astype(np.float64), rtol=rtol,
                               atol=atol, names=(f"NUMERICAL_{name}", f"BACKWARD_{name}"))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=np.float32) -> list:
    """Compare the forward outputs with ``expected`` (list, or dict by output name).

    Returns the outputs (NDArrays).
    """
    runner, names, values = _runner(sym, location, aux_states, ctx, dtype)
    outs = runner.forward(values, False)
    out_names = runner.output_names(len(outs))
    expected = _by_name(expected, out_names, "check_symbolic_forward expected")
    for name, out in zip(out_names, outs):
        if name not in expected:
            continue
        assert_almost_equal(expected[name], out, rtol, atol,
                               (f"EXPECTED_{name}", f"FORWARD_{name}"), equal_nan=equal_nan)
    return outs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=np.float32) -> dict:
    """Compare backward gradients with ``expected`` (list in input order, or dict by name).

    ``out_grads``: head gradients (list, dict by output name, or None for ones).
    ``grad_req``: 'write', 'add' (gradients start from random values, which the check
    accounts for) or 'null', as a str, list or dict.  Returns dict name -> gradient
    (NDArray) for the inputs whose ``grad_req`` is not 'null'.
    """
    runner, names, values = _runner(sym, location, aux_states, ctx, dtype)
    outs = runner.forward(values, True)
    out_names = runner.output_names(len(outs))
    if out_grads is None:
        heads = [np.ones(o.shape) for o in outs]
    else:
        by_name = _by_name(out_grads, out_names, "check_symbolic_backward out_grads",
                           extra_ok=True)
        heads = [np.asarray(_np(by_name[n])) for n in out_names]
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in names}
    else:
        reqs = _by_name(grad_req, names, "check_symbolic_backward grad_req")
        reqs = {n: reqs.get(n, "null") for n in names}
    rng = np.random.RandomState(4321)
    init = {n: rng.normal(size=values[n].shape).astype(values[n].dtype)
            for n in names if reqs[n] == "add"}
    if isinstance(runner, _SymbolRunner):
        grads = runner.backward(values, heads, reqs, init, True, grad_stypes)
    else:
        grads = runner.backward(values, heads, reqs, init, True)
    expected = _by_name(expected, names, "check_symbolic_backward expected")
    for name in names:
        if name not in expected or reqs[name] == "null":
            continue
        want = np.asarray(_np(expected[name]))
        if reqs[name] == "add":
            want = want + init[name]
        assert_almost_equal(want, grads[name], rtol, atol,
                               (f"EXPECTED_{name}", f"BACKWARD_{name}"), equal_nan=equal_nan)
    if isinstance(runner, _SymbolRunner):
        return dict(runner.last_grads)   # the gradient buffers, in their storage types
    return {n: _nd_array(g, runner.ctx, g.dtype) for n, g in grads.items() if g is not None}
