"""Aggregated LAMB updates: ``_multi_lamb_update`` and ``_multi_mp_lamb_update``
(``nd.contrib.multi_lamb_update`` / ``multi_mp_lamb_update`` in MXNet 1.9.1).

One call updates ``num_tensors`` weights; the inputs are interleaved per tensor
(weight, grad, mean, var[, weight32]), ``mean``/``var`` (and ``weight32``) being
auxiliary states updated in place.  Per tensor ``i``, with ``w`` the weight (the float32
master copy ``weight32`` in the mixed-precision variant):

* ``g = clip(grad * rescale_grad, clip_gradient)``; ``mean = beta1 mean + (1 - beta1) g``;
  ``var = beta2 var + (1 - beta2) g^2`` (what ``lamb_update_phase1`` does);
* ``d = m / (sqrt(v) + epsilon) + wds[i] * w``, with ``m, v`` bias-corrected by
  ``1 - beta^step_count[i]`` when ``bias_correction``; MXNet keeps ``d`` in float32;
* ``r1 = ||weight||`` (the low-precision weight, also in the mixed variant) clamped to
  ``[lower_bound, upper_bound]`` where those are >= 0, ``r2 = ||d||`` (both float32);
* ``w -= learning_rates[i] * (r1 / r2 if r1 and r2 else 1) * d`` (``lamb_update_phase2``).

MXNet names every input of these operators ``weight_0``/``grad_1`` alike (a slip in its
name list); here they are ``weight_i``, ``grad_i``, ``mean_i``, ``var_i``, ``weight32_i``.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
_MAX_TENSORS = 64


def _master_dtype(dtype) -> np.dtype:
    """MXNet's computation type: float32 for float16, else the weight's own type."""
    return _F32 if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _lamb_tensor(xp, attrs, i: int, weight, grad, mean, var, master):
    """Update one tensor's states in place; return its new master weight."""
    mp = _master_dtype(weight.dtype) if master is None else master.dtype
    f = mp.type
    w = master if master is not None else weight.astype(mp)
    g = grad.astype(mp) * f(attrs.rescale_grad)
    if attrs.clip_gradient >= 0:
        g = xp.clip(g, -f(attrs.clip_gradient), f(attrs.clip_gradient))
    b1, b2 = f(attrs.beta1), f(attrs.beta2)
    mean[...] = b1 * mean + (f(1) - b1) * g
    var[...] = b2 * var + (f(1) - b2) * g * g
    m, v = mean.astype(mp), var.astype(mp)
    if attrs.bias_correction:
        step = f(attrs.step_count[i])
        m = m / (f(1) - b1 ** step)
        v = v / (f(1) - b2 ** step)
    direction = (m / (xp.sqrt(v) + f(attrs.epsilon)) + f(attrs.wds[i]) * w).astype(_F32)
    wide = "float64" if weight.dtype == np.float64 else "float32"
    r1 = float(xp.sqrt(xp.square(weight.astype(wide)).sum()).astype(_F32))
    r2 = float(xp.sqrt(xp.square(direction).sum()))
    if attrs.lower_bound >= 0:
        r1 = max(r1, float(np.float32(attrs.lower_bound)))
    if attrs.upper_bound >= 0:
        r1 = min(r1, float(np.float32(attrs.upper_bound)))
    ratio = 1.0 if r1 == 0.0 or r2 == 0.0 else float(np.float32(r1) / np.float32(r2))
    lr = f(np.float32(attrs.learning_rates[i])) * f(ratio)
    return w - lr * direction.astype(mp)


def _multi_lamb(name: str, mixed: bool):
    names = ("weight", "grad", "mean", "var") + (("weight32",) if mixed else ())
    step = len(names)

    def input_names(attrs):
        return tuple(f"{n}_{i}" for i in range(attrs.num_tensors) for n in names)

    def check(attrs, count):
        if not 1 <= attrs.num_tensors <= _MAX_TENSORS:
            fail(name, f"num_tensors must be in [1, {_MAX_TENSORS}], got {attrs.num_tensors}")
        for what in ("learning_rates", "wds", "step_count"):
            if len(getattr(attrs, what)) != attrs.num_tensors:
                fail(name, f"{what} needs num_tensors={attrs.num_tensors} values, got "
                           f"{len(getattr(attrs, what))}")
        if count != step * attrs.num_tensors:
            fail(name, f"expected {step * attrs.num_tensors} inputs, got {count}")

    def forward(oc, attrs, inputs, out):
        check(attrs, len(inputs))
        xp = oc.xp
        results = []
        for i in range(attrs.num_tensors):  # a loop over tensors, each a whole-array update
            group = inputs[i * step:(i + 1) * step]
            shapes = {tuple(x.shape) for x in group}
            if len(shapes) != 1:
                fail(name, f"tensor {i}: weight, grad, mean, var"
                           f"{', weight32' if mixed else ''} differ in shape",
                     *[x.shape for x in group])
            weight, grad, mean, var = group[:4]
            master = group[4] if mixed else None
            new = _lamb_tensor(xp, attrs, i, weight, grad, mean, var, master)
            if mixed:
                master[...] = new
            results.append(put(out, i, new.astype(weight.dtype)))
        return results

    def infer_shape(attrs, shapes):
        check(attrs, len(shapes))
        outs = []
        for i in range(attrs.num_tensors):
            group = shapes[i * step:(i + 1) * step]
            known = next((s for s in group if s is not None), None)
            for j, s in enumerate(group):
                if s is not None and known is not None and tuple(s) != tuple(known):
                    fail(name, f"tensor {i}: weight, grad and states differ in shape", *group)
                shapes[i * step + j] = known
            outs.append(known)
        return shapes, outs

    def infer_type(op, attrs, dtypes):
        outs = []
        for i in range(attrs.num_tensors):
            low = dtypes[i * step]
            for j, n in enumerate(names):
                if mixed and n in ("mean", "var", "weight32"):
                    dtypes[i * step + j] = _F32
                else:
                    dtypes[i * step + j] = low
            outs.append(low)
        return dtypes, outs

    attrs = {"learning_rates": Attr("floats"), "beta1": Attr("float", 0.9),
             "beta2": Attr("float", 0.999), "epsilon": Attr("float", 1e-6),
             "wds": Attr("floats"), "rescale_grad": Attr("float", 1.0),
             "lower_bound": Attr("float", -1.0), "upper_bound": Attr("float", -1.0),
             "clip_gradient": Attr("float", -1.0), "bias_correction": Attr("bool", True),
             "step_count": Attr("shape"), "num_tensors": Attr("int", 1)}
    aux_names = tuple(f"{n}_{i}" for i in range(_MAX_TENSORS) for n in names
                      if n in ("mean", "var", "weight32"))
    register(OpDef(name, forward, inputs=input_names, num_outputs=lambda a: a.num_tensors,
                   attrs=attrs, aux=aux_names, infer_shape=infer_shape, infer_type=infer_type,
                   key_var_num_args="num_tensors", differentiable=False, inplace_out=True,
                   doc="LAMB steps for several tensors in one call"
                       + (" (float32 master weights)." if mixed else ".")))


_multi_lamb("_multi_lamb_update", mixed=False)
_multi_lamb("_multi_mp_lamb_update", mixed=True)
