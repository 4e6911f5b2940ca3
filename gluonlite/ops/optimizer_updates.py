"""Optimizer update operators (``sgd_update``, ``adam_update``, ...), MXNet 1.9 semantics.

Each update rule is written once as ``rule(xp, attrs, weight, grad, *states)``: it
updates the state arrays in place and returns the new weight, computed in the
weight's dtype with the order of rescaling, clipping and weight decay MXNet's
kernels use.  The operators call a rule; the multi-precision (``mp_``) variants run
it on the float32 master copy and cast the result to the weight's dtype; the
aggregated ``multi_*`` operators (``optimizer_multi.py``) run it per weight.

The states are declared as auxiliary inputs: they are mutated, as MXNet's
``FMutateInputs`` inputs are.  Users call these operators as MXNet's optimizers do,
``nd.sgd_mom_update(weight, grad, mom, out=weight, lr=..)``.

Sparse gradients (MXNet's ``FComputeEx``): with a ``row_sparse`` gradient the operators
MXNet gives a lazy path (``sgd_update``, ``sgd_mom_update``, ``adam_update`` with
``lazy_update=True``; ``ftrl_update`` when weight and states are ``row_sparse`` too;
``_sparse_adagrad_update`` and ``_contrib_group_adagrad_update``) gather the rows of
weight and states listed in the gradient's indices, run the same rule on them and
scatter the results back: the other rows, weight decay included, are left alone.
Every other combination (``lazy_update=False``, mixed dense/sparse states, csr, the
``mp_`` variants) runs the dense rule on densified arrays, MXNet's storage fallback,
and the results are cast back into sparse weights and states.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from ._blocked import run_rule
from .common import fail, put
from .registry import OpDef, register
from .sparse_storage import IDX_DTYPE, to_dense

# ----------------------------------------------------------------------------- helpers


def _clip(xp, g, bound: float):
    """MXNet's clip: bound < 0 means no clipping."""
    return xp.clip(g, -bound, bound) if bound >= 0 else g


def _scaled(xp, attrs, grad, dtype):
    """``clip(rescale_grad * grad)`` in ``dtype`` (read-only: may be ``grad`` itself)."""
    g = grad.astype(dtype, copy=False)
    if attrs.rescale_grad != 1.0:
        g = g * dtype.type(attrs.rescale_grad)
    return _clip(xp, g, attrs.clip_gradient)


def _scaled_wd(xp, attrs, weight, grad, dtype, clip_name="clip_gradient"):
    """``clip(rescale_grad * grad + wd * weight)`` (the Adam/RMSProp/FTML order)."""
    g = grad.astype(dtype, copy=False)
    if attrs.rescale_grad != 1.0:
        g = g * dtype.type(attrs.rescale_grad)
    if attrs.wd != 0.0:
        g = g + dtype.type(attrs.wd) * weight
    return _clip(xp, g, getattr(attrs, clip_name))


def _c(dtype, value):
    return dtype.type(value)


# ----------------------------------------------------------------------------- rules


def sgd_rule(xp, attrs, w, g):
    dt = w.dtype
    return _c(dt, 1.0 - attrs.lr * attrs.wd) * w - _c(dt, attrs.lr) * _scaled(xp, attrs, g, dt)


def sgd_mom_rule(xp, attrs, w, g, mom):
    dt = w.dtype
    mom *= _c(dt, attrs.momentum)
    if attrs.wd != 0.0:
        mom -= _c(dt, attrs.lr * attrs.wd) * w
    if attrs.clip_gradient < 0:  # one multiply: lr * rescale_grad folded
        mom -= _c(dt, attrs.lr * attrs.rescale_grad) * g.astype(dt, copy=False)
    else:
        mom -= _c(dt, attrs.lr) * _scaled(xp, attrs, g, dt)
    return w + mom


def nag_mom_rule(xp, attrs, w, g, mom):
    """Nesterov momentum.  The momentum step takes the weight decay of the already
    updated weight: MXNet's kernels write the weight first and read it back, and its
    NAG optimizer always updates in place (``out=weight``)."""
    dt = w.dtype
    g = _scaled(xp, attrs, g, dt)
    mom *= _c(dt, attrs.momentum)
    new_w = w - mom + _c(dt, attrs.momentum + 1) * (mom - _c(dt, attrs.lr)
                                                    * (g + _c(dt, attrs.wd) * w))
    mom -= _c(dt, attrs.lr) * (g + _c(dt, attrs.wd) * new_w)
    return new_w


def adam_rule(xp, attrs, w, g, mean, var):
    # the same operations in the same order as
    #   mean = b1 * mean + (1 - b1) * g;  var = b2 * var + ((1 - b2) * g) * g
    #   w - lr * mean / (sqrt(var) + eps)
    # written into two scratch arrays instead of a temporary per operation
    dt = w.dtype
    g = _scaled_wd(xp, attrs, w, g, dt)
    mean *= _c(dt, attrs.beta1)
    tmp = g * _c(dt, 1 - attrs.beta1)
    mean += tmp
    var *= _c(dt, attrs.beta2)
    xp.multiply(g, _c(dt, 1 - attrs.beta2), out=tmp)
    tmp *= g
    var += tmp
    xp.sqrt(var, out=tmp)
    tmp += _c(dt, attrs.epsilon)
    step = mean * _c(dt, attrs.lr)
    step /= tmp
    return xp.subtract(w, step, out=step)


def rmsprop_rule(xp, attrs, w, g, n):
    dt = w.dtype
    g = _scaled_wd(xp, attrs, w, g, dt)
    n *= _c(dt, attrs.gamma1)
    n += _c(dt, 1 - attrs.gamma1) * g * g
    new_w = w - _c(dt, attrs.lr) * (g / xp.sqrt(n + _c(dt, attrs.epsilon)))
    return _clip(xp, new_w, attrs.clip_weights)


def rmspropalex_rule(xp, attrs, w, g, n, g_avg, delta):
    dt = w.dtype
    g = _scaled_wd(xp, attrs, w, g, dt)
    n *= _c(dt, attrs.gamma1)
    n += _c(dt, 1 - attrs.gamma1) * g * g
    g_avg *= _c(dt, attrs.gamma1)
    g_avg += _c(dt, 1 - attrs.gamma1) * g
    delta *= _c(dt, attrs.gamma2)
    delta -= _c(dt, attrs.lr) * g / xp.sqrt(n - g_avg * g_avg + _c(dt, attrs.epsilon))
    return _clip(xp, w + delta, attrs.clip_weights)


def ftrl_rule(xp, attrs, w, g, z, n):
    dt = w.dtype
    g = _scaled(xp, attrs, g, dt)
    lr = _c(dt, attrs.lr)
    z += g - (xp.sqrt(n + g * g) - xp.sqrt(n)) * w / lr
    n += g * g
    lamda1 = _c(dt, attrs.lamda1)
    shrunk = (xp.sign(z) * lamda1 - z) / ((_c(dt, attrs.beta) + xp.sqrt(n)) / lr
                                         + _c(dt, attrs.wd))
    return shrunk * (xp.abs(z) > lamda1)


def ftml_rule(xp, attrs, w, g, d, v, z):
    dt = w.dtype
    g = _scaled_wd(xp, attrs, w, g, dt, "clip_grad")
    b1, b2, t = attrs.beta1, attrs.beta2, attrs.t
    v *= _c(dt, b2)
    v += _c(dt, 1 - b2) * g * g
    d_t = _c(dt, (1 - b1 ** t) / attrs.lr) * (xp.sqrt(v / _c(dt, 1 - b2 ** t))
                                               + _c(dt, attrs.epsilon))
    z *= _c(dt, b1)
    z += _c(dt, 1 - b1) * g - (d_t - _c(dt, b1) * d) * w
    d[...] = d_t
    return -z / d_t


def signsgd_rule(xp, attrs, w, g):
    dt = w.dtype
    # MXNet's SignSGD ignores rescale_grad and clip_gradient: only the sign matters
    return _c(dt, 1.0 - attrs.lr * attrs.wd) * w - _c(dt, attrs.lr) * xp.sign(g).astype(dt)


def signum_rule(xp, attrs, w, g, mom):
    dt = w.dtype
    keep = _c(dt, 1 - attrs.momentum)
    mom *= _c(dt, attrs.momentum)
    mom -= keep * _c(dt, attrs.wd) * w
    mom -= keep * _scaled(xp, attrs, g, dt)
    return _c(dt, 1.0 - attrs.lr * attrs.wd_lh) * w + _c(dt, attrs.lr) * xp.sign(mom).astype(dt)


def _no_wd(name: str, attrs) -> None:
    if attrs.wd != 0.0:
        fail(name, f"weight decay is not supported, got wd={attrs.wd}")


def adagrad_rule(xp, attrs, w, g, history):
    """MXNet's ``_sparse_adagrad_update``; weight decay is refused."""
    _no_wd("_sparse_adagrad_update", attrs)
    dt = w.dtype
    g = _scaled(xp, attrs, g, dt)
    history += g * g
    return w - _c(dt, attrs.lr) * g / xp.sqrt(history + _c(dt, attrs.epsilon))


def group_adagrad_rule(xp, attrs, w, g, history):
    """One history value per row: the mean square of the row's gradient."""
    _no_wd("_contrib_group_adagrad_update", attrs)
    dt = w.dtype
    g = _scaled(xp, attrs, g, dt)
    # the mean over every axis but the first (no reshape: a row_sparse gradient may
    # hold no rows)
    history += (g * g).mean(axis=tuple(range(1, g.ndim))).reshape(history.shape)
    scale = (_c(dt, attrs.lr) / xp.sqrt(history + _c(dt, attrs.epsilon)))
    return w - scale.reshape((-1,) + (1,) * (w.ndim - 1)) * g


# ----------------------------------------------------------------------------- op builders

_COMMON = {"lr": Attr("float"), "wd": Attr("float", 0.0), "rescale_grad": Attr("float", 1.0),
           "clip_gradient": Attr("float", -1.0)}


def _check_shapes(name, shapes):
    known = [s for s in shapes if s is not None]
    if not known:
        return [None] * len(shapes), [None]
    first = tuple(known[0])
    for s in known:
        if tuple(s) != first:
            fail(name, "weight, gradient and states must have the same shape", *shapes)
    return [first] * len(shapes), [first]


def _infer_shape_for(name):
    return lambda attrs, shapes: _check_shapes(name, shapes)


# ----------------------------------------------------------------------------- lazy updates


def _stype(a) -> str:
    return getattr(a, "stype", "default")


def _all_rows(xp, name: str, arr, what: str):
    """The full-shape array of rows of ``arr``: a dense array itself, or the values of a
    row_sparse record holding every row.  A row_sparse state missing rows (a new
    ``zeros(.., stype='row_sparse')`` holds none) first gets them as zero rows, as MXNet
    fills it; a row_sparse weight must hold every row, as MXNet requires."""
    if _stype(arr) == "default":
        return arr
    n_rows = arr.shape[0]
    if arr.indices.shape[0] != n_rows:
        if what == "weight":
            fail(name, "the lazy update of a row_sparse weight needs every row of the "
                       f"weight stored, got {arr.indices.shape[0]} of {n_rows} rows",
                 arr.shape)
        arr.values = to_dense(xp, arr)
        arr.indices = xp.arange(n_rows, dtype=IDX_DTYPE)
    return arr.values


def _lazy_update(name: str, rule, xp, a, inputs, out):
    """``rule`` on the rows of weight and states listed in the row_sparse gradient
    ``inputs[1]``; states are updated in place, the new weight written into ``out`` (the
    weight itself when ``out`` is the weight) or into a copy."""
    weight, grad, *states = inputs
    w_full = _all_rows(xp, name, weight, "weight")
    s_full = [_all_rows(xp, name, s, f"state {i}") for i, s in enumerate(states)]
    result = weight if out is not None and out[0] is weight else weight.copy()
    r_full = w_full if result is weight else _all_rows(xp, name, result, "weight")
    rows = grad.indices
    s_rows = [s[rows] for s in s_full]  # copies: the rule updates them in place
    r_full[rows] = rule(xp, a, w_full[rows], grad.values, *s_rows)
    for s, updated in zip(s_full, s_rows):
        s[rows] = updated
    return [result]


def _lazy_kernel(name: str, rule, when, infer_shape):
    """A ``sparse_forward`` running :func:`_lazy_update` when the gradient is row_sparse
    and ``when(attrs, weight, states)`` holds; None (the dense fallback) otherwise.
    ``infer_shape`` (the operator's) refuses mismatched shapes first."""

    def kernel(oc, a, inputs, out):
        weight, grad, *states = inputs
        if _stype(grad) != "row_sparse" or _stype(weight) not in ("default", "row_sparse") \
                or not when(a, weight, states):
            return None
        infer_shape(a, [tuple(x.shape) for x in inputs])
        return _lazy_update(name, rule, oc.xp, a, inputs, out)

    return kernel


def _if_lazy(a, weight, states) -> bool:
    """MXNet's lazy path: ``lazy_update`` set, states of the weight's storage type."""
    return a.lazy_update and all(_stype(s) == _stype(weight) for s in states)


def _if_all_row_sparse(a, weight, states) -> bool:
    return all(_stype(x) == "row_sparse" for x in [weight] + list(states))


def _if_same_stype(a, weight, states) -> bool:
    return all(_stype(s) == _stype(weight) for s in states)


def _group_adagrad_infer(attrs, shapes):
    (w, g, h) = shapes
    (w, g), _ = _check_shapes("_contrib_group_adagrad_update", [w, g])
    if w is not None:
        if len(w) < 2:
            fail("_contrib_group_adagrad_update", "the weight needs at least 2 dimensions", w)
        rows = (w[0], 1)
        if h is not None and tuple(h) != rows:
            fail("_contrib_group_adagrad_update",
                 f"the history must have shape {rows} for a weight of shape {w}", w, g, h)
        h = rows
    return [w, g, h], [w]


def _single(name, rule, states, attrs, aliases=(), lazy_when=None, infer_shape=None):
    """An update op: inputs ``weight, grad, *states``; output the new weight.  With
    ``lazy_when``, a row_sparse gradient takes the lazy path when it holds."""

    def forward(oc, a, inputs, out):
        return [run_rule(oc.xp, rule, a, inputs, out[0] if out is not None else None)]

    infer_shape = infer_shape or _infer_shape_for(name)
    sparse = _lazy_kernel(name, rule, lazy_when, infer_shape) if lazy_when else None
    register(OpDef(name, forward, attrs={**_COMMON, **attrs},
                   inputs=("weight", "grad") + tuple(states), aux=tuple(states),
                   infer_shape=infer_shape, differentiable=False, aliases=aliases,
                   inplace_out=True, sparse_forward=sparse))


def _mp_infer_type(op, attrs, in_dtypes):
    # weight and grad in the low precision; momentum and master weight in float32
    names = op.input_names(attrs)
    low = in_dtypes[0] if in_dtypes[0] is not None else in_dtypes[1]
    ins = [np.dtype(np.float32) if n in ("mom", "weight32") else low for n in names]
    return ins, [low]


def _mixed(name, rule, states, attrs):
    """A multi-precision op: inputs ``weight, grad, *states, weight32`` (float32 states and
    master weight); the rule runs on the master copy, the output is cast back."""

    def forward(oc, a, inputs, out):
        weight, grad, *rest = inputs
        weight32 = rest[-1]
        run_rule(oc.xp, rule, a, [weight32, grad.astype(np.float32)] + rest[:-1], weight32)
        return [put(out, 0, weight32.astype(weight.dtype))]

    register(OpDef(name, forward, attrs={**_COMMON, **attrs},
                   inputs=("weight", "grad") + tuple(states) + ("weight32",),
                   aux=tuple(states) + ("weight32",), infer_shape=_infer_shape_for(name),
                   infer_type=_mp_infer_type, differentiable=False, inplace_out=True))


_MOM = {"momentum": Attr("float", 0.0), "lazy_update": Attr("bool", True)}
_single("sgd_update", sgd_rule, (), {"lazy_update": Attr("bool", True)}, lazy_when=_if_lazy)
_single("sgd_mom_update", sgd_mom_rule, ("mom",), _MOM, lazy_when=_if_lazy)
_single("nag_mom_update", nag_mom_rule, ("mom",), {"momentum": Attr("float", 0.0)})
_mixed("mp_sgd_update", sgd_rule, (), {"lazy_update": Attr("bool", True)})
_mixed("mp_sgd_mom_update", sgd_mom_rule, ("mom",), _MOM)
_mixed("mp_nag_mom_update", nag_mom_rule, ("mom",), {"momentum": Attr("float", 0.0)})
_single("adam_update", adam_rule, ("mean", "var"),
        {"beta1": Attr("float", 0.9), "beta2": Attr("float", 0.999),
         "epsilon": Attr("float", 1e-8), "lazy_update": Attr("bool", True)},
        lazy_when=_if_lazy)
_single("rmsprop_update", rmsprop_rule, ("n",),
        {"gamma1": Attr("float", 0.95), "epsilon": Attr("float", 1e-8),
         "clip_weights": Attr("float", -1.0)})
_single("rmspropalex_update", rmspropalex_rule, ("n", "g", "delta"),
        {"gamma1": Attr("float", 0.95), "gamma2": Attr("float", 0.9),
         "epsilon": Attr("float", 1e-8), "clip_weights": Attr("float", -1.0)})
_single("ftrl_update", ftrl_rule, ("z", "n"),
        {"lamda1": Attr("float", 0.01), "beta": Attr("float", 1.0)},
        lazy_when=_if_all_row_sparse)
_single("ftml_update", ftml_rule, ("d", "v", "z"),
        {"beta1": Attr("float", 0.6), "beta2": Attr("float", 0.999),
         "epsilon": Attr("float", 1e-8), "t": Attr("int"), "clip_grad": Attr("float", -1.0)})
_single("signsgd_update", signsgd_rule, (), {})
_single("signum_update", signum_rule, ("mom",),
        {"momentum": Attr("float", 0.0), "wd_lh": Attr("float", 0.0)})
_single("_sparse_adagrad_update", adagrad_rule, ("history",),
        {"epsilon": Attr("float", 1e-7)}, lazy_when=_if_same_stype)
_single("_contrib_group_adagrad_update", group_adagrad_rule, ("history",),
        {"epsilon": Attr("float", 1e-5)}, lazy_when=_if_same_stype,
        infer_shape=_group_adagrad_infer)
