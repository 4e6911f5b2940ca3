"""Aggregated and layer-wise optimizer operators, MXNet 1.9 semantics.

* ``multi_sgd_update``, ``multi_sgd_mom_update``, ``multi_mp_sgd_update``,
  ``multi_mp_sgd_mom_update``: one call updates ``num_weights`` weights (inputs
  interleaved per weight: weight, grad[, mom][, weight32]) with per-weight ``lrs`` and
  ``wds``; the rules are those of ``optimizer_updates.py``.
* ``multi_sum_sq`` (sum of squares of each array, float32) and ``multi_lars``
  (layer-wise learning rates from those sums), as MXNet's LARS uses them.
* ``lamb_update_phase1``/``phase2`` and their ``mp_`` variants.
* ``_adamw_update``/``_mp_adamw_update`` (``nd.contrib.adamw_update``): decoupled
  weight decay; ``rescale_grad`` is an array input and a non-finite value skips
  the update, which is how dynamic loss scaling uses it.
"""
from __future__ import annotations

import math

import numpy as np

from .attrs import Attr
from ._blocked import run_rule
from .common import fail, put
from .optimizer_updates import _clip, _scaled, sgd_mom_rule, sgd_rule
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
_MAX_WEIGHTS = 64  # MXNet's aggregated kernels take at most this many weights per call


class _PerWeight:
    """The attributes one weight of a multi op sees (``lr``, ``wd`` picked from the lists)."""

    __slots__ = ("lr", "wd", "momentum", "rescale_grad", "clip_gradient")

    def __init__(self, attrs, lr, wd):
        self.lr = lr
        self.wd = wd
        self.momentum = attrs.momentum
        self.rescale_grad = attrs.rescale_grad
        self.clip_gradient = attrs.clip_gradient


def _group_shapes(name: str, shapes: list, num_weights: int, step: int) -> list:
    """Shape inference of an aggregated update: the ``step`` inputs of each weight
    (weight, gradient, states) share one shape, filled in ``shapes``; returns the output
    (weight) shapes."""
    outs = []
    for i in range(num_weights):
        group = shapes[i * step:(i + 1) * step]
        known = next((s for s in group if s is not None), None)
        for j in range(step):
            if group[j] is not None and known is not None and tuple(group[j]) != tuple(known):
                fail(name, f"weight {i}: weight, gradient and states differ in shape", *group)
            shapes[i * step + j] = known
        outs.append(known)
    return outs


def _multi(name, per_weight, momentum: bool, mixed: bool, preloaded: bool = False):
    """An aggregated update.  ``preloaded`` ops take ``lrs`` and ``wds`` as two trailing
    array inputs (LARS computes them on the device) instead of attributes."""
    names = ("weight", "grad") + (("mom",) if momentum else ()) + (("weight32",) if mixed else ())
    step = len(names)
    extra = 2 if preloaded else 0

    def input_names(attrs):
        per = tuple(f"{n}_{i}" for i in range(attrs.num_weights) for n in names)
        return per + (("lrs", "wds") if preloaded else ())

    def check(attrs, count):
        if not 1 <= attrs.num_weights <= _MAX_WEIGHTS:
            fail(name, f"num_weights must be in [1, {_MAX_WEIGHTS}], got {attrs.num_weights}")
        if not preloaded and (len(attrs.lrs) != attrs.num_weights
                              or len(attrs.wds) != attrs.num_weights):
            fail(name, f"lrs and wds need num_weights={attrs.num_weights} values, got "
                       f"{len(attrs.lrs)} and {len(attrs.wds)}")
        if count != step * attrs.num_weights + extra:
            fail(name, f"expected {step * attrs.num_weights + extra} inputs, got {count}")

    def forward(oc, attrs, inputs, out):
        check(attrs, len(inputs))
        xp = oc.xp
        if preloaded:
            lrs = [float(v) for v in inputs[-2].tolist()]
            wds = [float(v) for v in inputs[-1].tolist()]
        else:
            lrs, wds = attrs.lrs, attrs.wds
        results = []
        for i in range(attrs.num_weights):
            group = inputs[i * step:(i + 1) * step]
            a = _PerWeight(attrs, lrs[i], wds[i])
            weight, grad = group[0], group[1]
            states = list(group[2:])
            if mixed:
                master = states.pop()
                run_rule(xp, per_weight, a, [master, grad.astype(np.float32)] + states, master)
                results.append(put(out, i, master.astype(weight.dtype)))
            else:
                results.append(run_rule(xp, per_weight, a, [weight, grad] + states,
                                        out[i] if out is not None else None))
        return results

    def infer_shape(attrs, shapes):
        check(attrs, len(shapes))
        outs = _group_shapes(name, shapes, attrs.num_weights, step)
        if preloaded:
            shapes[-2] = shapes[-1] = (attrs.num_weights,)
        return shapes, outs

    def infer_type(op, attrs, dtypes):
        outs = []
        for i in range(attrs.num_weights):
            low = dtypes[i * step]
            for j, n in enumerate(names):
                if n in ("mom", "weight32") and mixed:
                    dtypes[i * step + j] = _F32
                else:
                    dtypes[i * step + j] = low
            outs.append(low)
        if preloaded:
            dtypes[-2] = dtypes[-1] = _F32
        return dtypes, outs

    attrs = {"momentum": Attr("float", 0.0), "rescale_grad": Attr("float", 1.0),
             "clip_gradient": Attr("float", -1.0), "num_weights": Attr("int", 1)}
    if not preloaded:
        attrs.update(lrs=Attr("floats"), wds=Attr("floats"))
    aux_names = tuple(f"{n}_{i}" for i in range(_MAX_WEIGHTS) for n in names
                      if n in ("mom", "weight32"))
    register(OpDef(name, forward, inputs=input_names, num_outputs=lambda a: a.num_weights,
                   attrs=attrs, aux=aux_names, infer_shape=infer_shape, infer_type=infer_type,
                   key_var_num_args="num_weights", differentiable=False, inplace_out=True))


# the per-weight rules are sgd_update's and sgd_mom_update's: MXNet's aggregated kernel
# writes w + (-lr*wd*w - lr*clip(g)), the same value as sgd_update (and the GPU runs
# them as the same fused kernels, ``_gpu_update``)
_plain_rule, _mom_rule = sgd_rule, sgd_mom_rule
_multi("multi_sgd_update", _plain_rule, momentum=False, mixed=False)
_multi("multi_sgd_mom_update", _mom_rule, momentum=True, mixed=False)
_multi("multi_mp_sgd_update", _plain_rule, momentum=False, mixed=True)
_multi("multi_mp_sgd_mom_update", _mom_rule, momentum=True, mixed=True)
_multi("preloaded_multi_sgd_update", _plain_rule, momentum=False, mixed=False, preloaded=True)
_multi("preloaded_multi_sgd_mom_update", _mom_rule, momentum=True, mixed=False, preloaded=True)
_multi("preloaded_multi_mp_sgd_update", _plain_rule, momentum=False, mixed=True, preloaded=True)
_multi("preloaded_multi_mp_sgd_mom_update", _mom_rule, momentum=True, mixed=True,
       preloaded=True)


# ----------------------------------------------------------------------------- LARS


def _multi_sum_sq(oc, attrs, inputs, out):
    xp = oc.xp
    if len(inputs) != attrs.num_arrays:
        fail("multi_sum_sq", f"num_arrays={attrs.num_arrays} but {len(inputs)} inputs")
    sums = [xp.square(x.astype(np.float32)).sum() for x in inputs]
    return [put(out, 0, xp.stack(sums).astype(np.float32))]


register(OpDef("multi_sum_sq", _multi_sum_sq,
               inputs=lambda a: tuple(f"data_{i}" for i in range(a.num_arrays)),
               attrs={"num_arrays": Attr("int")}, key_var_num_args="num_arrays",
               infer_shape=lambda a, s: (s, [(a.num_arrays,)]),
               infer_type=lambda op, a, d: (d, [_F32]), differentiable=False))


def _multi_lars(oc, attrs, inputs, out):
    xp = oc.xp
    lrs, w_sq, g_sq, wds = inputs
    w_norm = xp.sqrt(w_sq)
    g_norm = xp.sqrt(g_sq) * lrs.dtype.type(attrs.rescale_grad)
    ok = (w_norm > 0) & (g_norm > 0)
    scaled = lrs * attrs.eta * w_norm / (g_norm + wds * w_norm + attrs.eps)
    return [put(out, 0, xp.where(ok, scaled, lrs).astype(lrs.dtype))]


register(OpDef("multi_lars", _multi_lars, inputs=("lrs", "weights_sum_sq", "grads_sum_sq", "wds"),
               attrs={"eta": Attr("float"), "eps": Attr("float"),
                      "rescale_grad": Attr("float", 1.0)},
               infer_shape=lambda a, s: ([s[0]] * 4, [s[0]]), differentiable=False))


# ----------------------------------------------------------------------------- LAMB

_LAMB1 = {"beta1": Attr("float", 0.9), "beta2": Attr("float", 0.999),
          "epsilon": Attr("float", 1e-6), "t": Attr("int"),
          "bias_correction": Attr("bool", True), "wd": Attr("float"),
          "rescale_grad": Attr("float", 1.0), "clip_gradient": Attr("float", -1.0)}


def _lamb_direction(xp, attrs, w, g, mean, var):
    """Phase 1: update the moments and return ``m / (sqrt(v) + eps) + wd * w``."""
    dt = w.dtype
    g = _scaled(xp, attrs, g, dt)
    mean *= dt.type(attrs.beta1)
    mean += dt.type(1 - attrs.beta1) * g
    var *= dt.type(attrs.beta2)
    var += dt.type(1 - attrs.beta2) * g * g
    m, v = mean, var
    if attrs.bias_correction:
        m = mean / dt.type(1 - attrs.beta1 ** attrs.t)
        v = var / dt.type(1 - attrs.beta2 ** attrs.t)
    return m / (xp.sqrt(v) + dt.type(attrs.epsilon)) + dt.type(attrs.wd) * w


def _lamb1(oc, attrs, inputs, out):
    return [put(out, 0, _lamb_direction(oc.xp, attrs, *inputs))]


def _mp_lamb1(oc, attrs, inputs, out):
    weight, grad, mean, var, weight32 = inputs
    return [put(out, 0, _lamb_direction(oc.xp, attrs, weight32, grad.astype(np.float32),
                                        mean, var))]


def _trust_lr(attrs, r1, r2) -> float:
    r1 = float(r1.reshape(-1)[0])
    r2 = float(r2.reshape(-1)[0])
    if attrs.lower_bound >= 0:
        r1 = max(r1, attrs.lower_bound)
    if attrs.upper_bound >= 0:
        r1 = min(r1, attrs.upper_bound)
    return attrs.lr if r1 == 0.0 or r2 == 0.0 else attrs.lr * r1 / r2


def _lamb2(oc, attrs, inputs, out):
    weight, g, r1, r2 = inputs
    return [put(out, 0, weight - weight.dtype.type(_trust_lr(attrs, r1, r2))
                * g.astype(weight.dtype))]


def _mp_lamb2(oc, attrs, inputs, out):
    weight, g, r1, r2, weight32 = inputs
    weight32 -= np.float32(_trust_lr(attrs, r1, r2)) * g
    return [put(out, 0, weight32.astype(weight.dtype))]


def _same_as_first(attrs, shapes):
    known = next((s for s in shapes if s is not None), None)
    return [known] * len(shapes), [known]


def _lamb2_shapes(attrs, shapes):
    w = shapes[0] if shapes[0] is not None else shapes[1]
    new = list(shapes)
    new[0] = new[1] = w
    new[2] = new[3] = (1,)
    if len(new) > 4:
        new[4] = w
    return new, [w]


_LAMB2 = {"lr": Attr("float"), "lower_bound": Attr("float", -1.0),
          "upper_bound": Attr("float", -1.0)}


def _f32_states(op, attrs, dtypes):
    low = dtypes[0]
    names = op.input_names(attrs)
    return ([_F32 if n in ("mean", "var", "weight32", "g", "r1", "r2") else low for n in names],
            [_F32 if op.name == "mp_lamb_update_phase1" else low])


register(OpDef("lamb_update_phase1", _lamb1, inputs=("weight", "grad", "mean", "var"),
               aux=("mean", "var"), attrs=_LAMB1, infer_shape=_same_as_first,
               differentiable=False))
register(OpDef("mp_lamb_update_phase1", _mp_lamb1,
               inputs=("weight", "grad", "mean", "var", "weight32"), aux=("mean", "var"),
               attrs=_LAMB1, infer_shape=_same_as_first, infer_type=_f32_states,
               differentiable=False))
register(OpDef("lamb_update_phase2", _lamb2, inputs=("weight", "g", "r1", "r2"),
               attrs=_LAMB2, infer_shape=_lamb2_shapes, differentiable=False))
register(OpDef("mp_lamb_update_phase2", _mp_lamb2,
               inputs=("weight", "g", "r1", "r2", "weight32"), aux=("weight32",),
               attrs=_LAMB2, infer_shape=_lamb2_shapes, infer_type=_f32_states,
               differentiable=False))


# ----------------------------------------------------------------------------- AdamW

_ADAMW = {"lr": Attr("float"), "beta1": Attr("float", 0.9), "beta2": Attr("float", 0.999),
          "epsilon": Attr("float", 1e-8), "wd": Attr("float", 0.0), "eta": Attr("float"),
          "clip_gradient": Attr("float", -1.0)}


def _adamw_step(xp, attrs, w, g, mean, var, scale: float):
    dt = w.dtype
    g = _clip(xp, g.astype(dt, copy=False) * dt.type(scale), attrs.clip_gradient)
    # MXNet casts beta to the weight dtype first, then forms 1 - beta in that dtype
    b1, b2 = dt.type(attrs.beta1), dt.type(attrs.beta2)
    mean *= b1
    mean += (dt.type(1) - b1) * g
    var *= b2
    var += (dt.type(1) - b2) * g * g
    step = dt.type(attrs.lr) * mean / (xp.sqrt(var) + dt.type(attrs.epsilon)) \
        + dt.type(attrs.wd) * w
    return w - dt.type(attrs.eta) * step


def _scale_of(rescale) -> float:
    return float(rescale.reshape(-1)[0])


def _adamw(oc, attrs, inputs, out):
    weight, grad, mean, var, rescale = inputs
    scale = _scale_of(rescale)
    if not math.isfinite(scale) or scale == 0:  # a skipped step of dynamic loss scaling
        return [put(out, 0, weight.copy())]
    new = _adamw_step(oc.xp, attrs, weight, grad, mean, var, scale)
    # MXNet's kernel leaves the rescaled, clipped gradient in the grad input
    grad[...] = _clip(oc.xp, grad * grad.dtype.type(scale), attrs.clip_gradient)
    return [put(out, 0, new)]


def _mp_adamw(oc, attrs, inputs, out):
    weight, grad, mean, var, weight32, rescale = inputs
    scale = _scale_of(rescale)
    if not math.isfinite(scale) or scale == 0:
        return [put(out, 0, weight.copy())]
    weight32[...] = _adamw_step(oc.xp, attrs, weight32, grad.astype(np.float32), mean, var, scale)
    return [put(out, 0, weight32.astype(weight.dtype))]


def _adamw_shapes(attrs, shapes):
    known = next((s for s in shapes[:-1] if s is not None), None)
    new = [known] * (len(shapes) - 1) + [(1,)]
    return new, [known]


def _adamw_types(op, attrs, dtypes):
    low = dtypes[0]
    names = op.input_names(attrs)
    mixed = op.name.startswith("_mp")
    return ([_F32 if mixed and n in ("mean", "var", "weight32", "rescale_grad") else
             (dtypes[i] or low) if n == "rescale_grad" else low
             for i, n in enumerate(names)], [low])


register(OpDef("_adamw_update", _adamw,
               inputs=("weight", "grad", "mean", "var", "rescale_grad"), aux=("mean", "var"),
               attrs=_ADAMW, infer_shape=_adamw_shapes, infer_type=_adamw_types,
               differentiable=False, aliases=("_contrib_adamw_update",)))
register(OpDef("_mp_adamw_update", _mp_adamw,
               inputs=("weight", "grad", "mean", "var", "weight32", "rescale_grad"),
               aux=("mean", "var", "weight32"), attrs=_ADAMW, infer_shape=_adamw_shapes,
               infer_type=_adamw_types, differentiable=False,
               aliases=("_contrib_mp_adamw_update",)))


# ----------------------------------------------------------------------------- multi AdamW


def _multi_adamw_op(name: str, mixed: bool):
    """``_multi_adamw_update``/``_multi_mp_adamw_update``: ``num_weights`` AdamW steps in
    one call, inputs interleaved per weight (weight, grad, mean, var[, weight32]) and one
    trailing ``rescale_grad`` array; per-weight ``lrs``, ``wds`` and ``etas``.  A
    non-finite (or zero) ``rescale_grad`` skips every update, as in MXNet."""
    names = ("weight", "grad", "mean", "var") + (("weight32",) if mixed else ())
    step = len(names)

    def input_names(attrs):
        return tuple(f"{n}_{i}" for i in range(attrs.num_weights) for n in names) \
            + ("rescale_grad",)

    def check(attrs, count):
        if not 1 <= attrs.num_weights <= _MAX_WEIGHTS:
            fail(name, f"num_weights must be in [1, {_MAX_WEIGHTS}], got {attrs.num_weights}")
        for what in ("lrs", "wds", "etas"):
            if len(getattr(attrs, what)) != attrs.num_weights:
                fail(name, f"{what} needs num_weights={attrs.num_weights} values, got "
                           f"{len(getattr(attrs, what))}")
        if count != step * attrs.num_weights + 1:
            fail(name, f"expected {step * attrs.num_weights + 1} inputs, got {count}")

    def forward(oc, attrs, inputs, out):
        check(attrs, len(inputs))
        xp = oc.xp
        scale = _scale_of(inputs[-1])
        skip = not math.isfinite(scale) or scale == 0
        results = []
        for i in range(attrs.num_weights):
            group = inputs[i * step:(i + 1) * step]
            weight, grad, mean, var = group[:4]
            if skip:
                results.append(put(out, i, weight.copy()))
                continue
            a = _PerAdamW(attrs, i)
            if mixed:
                master = group[4]
                master[...] = _adamw_step(xp, a, master, grad.astype(np.float32), mean, var,
                                          scale)
                results.append(put(out, i, master.astype(weight.dtype)))
            else:
                results.append(put(out, i, _adamw_step(xp, a, weight, grad, mean, var, scale)))
        return results

    def infer_shape(attrs, shapes):
        check(attrs, len(shapes))
        outs = _group_shapes(name, shapes, attrs.num_weights, step)
        shapes[-1] = (1,)
        return shapes, outs

    def infer_type(op, attrs, dtypes):
        outs = []
        for i in range(attrs.num_weights):
            low = dtypes[i * step]
            for j, n in enumerate(names):
                dtypes[i * step + j] = _F32 if mixed and n in ("mean", "var", "weight32") \
                    else low
            outs.append(low)
        dtypes[-1] = _F32 if mixed else (dtypes[-1] or dtypes[0])
        return dtypes, outs

    attrs = {"lrs": Attr("floats"), "wds": Attr("floats"), "etas": Attr("floats"),
             "beta1": Attr("float", 0.9), "beta2": Attr("float", 0.999),
             "epsilon": Attr("float", 1e-8), "clip_gradient": Attr("float", -1.0),
             "num_weights": Attr("int", 1)}
    aux_names = tuple(f"{n}_{i}" for i in range(_MAX_WEIGHTS) for n in names
                      if n in ("mean", "var", "weight32"))
    register(OpDef(name, forward, inputs=input_names, num_outputs=lambda a: a.num_weights,
                   attrs=attrs, aux=aux_names, infer_shape=infer_shape, infer_type=infer_type,
                   key_var_num_args="num_weights", differentiable=False, inplace_out=True))


class _PerAdamW:
    """The attributes weight ``i`` of a multi AdamW op sees."""

    __slots__ = ("lr", "wd", "eta", "beta1", "beta2", "epsilon", "clip_gradient")

    def __init__(self, attrs, i):
        self.lr, self.wd, self.eta = attrs.lrs[i], attrs.wds[i], attrs.etas[i]
        self.beta1, self.beta2 = attrs.beta1, attrs.beta2
        self.epsilon, self.clip_gradient = attrs.epsilon, attrs.clip_gradient


_multi_adamw_op("_multi_adamw_update", mixed=False)
_multi_adamw_op("_multi_mp_adamw_update", mixed=True)
