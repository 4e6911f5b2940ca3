"""One-launch CuPy kernels for the hot update rules: SGD, SGD with momentum, Adam,
and BatchNorm's running statistics.

Written op by op, an SGD-momentum step is about seven CuPy launches per weight
and BatchNorm's running-statistics update about a dozen per layer; each launch
costs ~10-40 us of host time, which made a ResNet-18 train step host-bound on an
H100.  Here each is one ``ElementwiseKernel`` that follows the NumPy rule's
operations in order (``optimizer_updates.py``, ``batch_norm._update_moving``),
with scalars in the weight's dtype as the rule rounds them.  Used only on the
real CuPy (:func:`usable`); the NumPy rules stay the reference everywhere else.
"""
from __future__ import annotations

import numpy as np

# clip first (``clip_gradient >= 0``), then the scaled gradient: MXNet's ``_scaled``
_CLIPPED = """
T gs = (T)g * rescale;
if (clip >= (T)0) { if (gs > clip) gs = clip; else if (gs < -clip) gs = -clip; }
"""

_SOURCES = {
    # sgd_rule: (1 - lr * wd) * w - lr * clip(rescale * g)
    "sgd": ("T w, G g, T c1, T lr, T rescale, T clip", "T out",
            _CLIPPED + "out = c1 * w - lr * gs;"),
    # sgd_mom_rule: mom = momentum * mom - lr * wd * w - lr * clip(rescale * g); w + mom
    "sgd_mom": ("T w, G g, T momentum, T lrwd, T lr_rescale, T lr, T rescale, T clip, "
                "int32 has_wd", "T out, T mom",
                "T m = mom * momentum;\n"
                "if (has_wd) m = m - lrwd * w;\n"
                "if (clip < (T)0) { m = m - lr_rescale * (T)g; }\n"
                "else {" + _CLIPPED + "m = m - lr * gs; }\n"
                "mom = m;\nout = w + m;"),
    # adam_rule: g = clip(rescale * g + wd * w); mean = b1 mean + (1 - b1) g;
    # var = b2 var + ((1 - b2) g) g; w - lr mean / (sqrt(var) + eps)
    "adam": ("T w, G g, T rescale, T wd, T clip, T b1, T ob1, T b2, T ob2, T eps, T lr, "
             "int32 has_wd", "T out, T mean, T var",
             "T gs = (T)g * rescale;\n"
             "if (has_wd) gs = gs + wd * w;\n"
             "if (clip >= (T)0) { if (gs > clip) gs = clip; else if (gs < -clip) gs = -clip; }\n"
             "T m = mean * b1 + gs * ob1;\n"
             "T v = var * b2 + (gs * ob2) * gs;\n"
             "mean = m;\nvar = v;\n"
             "T den = (T)sqrt((double)v) + eps;\n"
             "out = w - (m * lr) / den;"),
    # batch_norm._update_moving: var = 1 / inv_std**2 - eps (in double), then
    # moving = moving * momentum + batch * (1 - momentum)
    "bn_moving": ("T mean, T inv_std, float64 eps, T momentum, T rest", "T mm, T mv",
                  "double iv = (double)inv_std;\n"
                  "T v = (T)(1.0 / (iv * iv) - eps);\n"
                  "mm = mm * momentum + mean * rest;\n"
                  "mv = mv * momentum + v * rest;"),
}

_kernels: dict = {}


def usable(xp) -> bool:
    return getattr(xp, "__name__", "") == "cupy" and hasattr(xp, "ElementwiseKernel")


def _kernel(xp, name: str):
    k = _kernels.get(name)
    if k is None:
        ins, outs, body = _SOURCES[name]
        k = _kernels[name] = xp.ElementwiseKernel(ins, outs, body, f"gluonlite_{name}")
    return k


def _dense(xp, arrays) -> bool:
    return all(isinstance(a, xp.ndarray) for a in arrays) and \
        all(a.shape == arrays[0].shape for a in arrays)


def sgd(xp, a, inputs, out):
    w, g = inputs
    t = w.dtype.type
    res = out if out is not None else xp.empty_like(w)
    _kernel(xp, "sgd")(w, g, t(1.0 - a.lr * a.wd), t(a.lr), t(a.rescale_grad),
                       t(a.clip_gradient), res)
    return res


def sgd_mom(xp, a, inputs, out):
    w, g, mom = inputs
    t = w.dtype.type
    res = out if out is not None else xp.empty_like(w)
    _kernel(xp, "sgd_mom")(w, g, t(a.momentum), t(a.lr * a.wd), t(a.lr * a.rescale_grad),
                           t(a.lr), t(a.rescale_grad), t(a.clip_gradient),
                           np.int32(a.wd != 0.0), res, mom)
    return res


def adam(xp, a, inputs, out):
    w, g, mean, var = inputs
    t = w.dtype.type
    res = out if out is not None else xp.empty_like(w)
    _kernel(xp, "adam")(w, g, t(a.rescale_grad), t(a.wd), t(a.clip_gradient), t(a.beta1),
                        t(1 - a.beta1), t(a.beta2), t(1 - a.beta2), t(a.epsilon), t(a.lr),
                        np.int32(a.wd != 0.0), res, mean, var)
    return res


def fused_rule(xp, rule, inputs):
    """The fused kernel standing for NumPy ``rule`` (``sgd_rule``, ...) on these inputs,
    or ``None`` (another rule, sparse or mismatched inputs, not the real CuPy)."""
    fused = RULES.get(getattr(rule, "__name__", ""))
    if fused is None or not usable(xp) or not _dense(xp, inputs):
        return None
    w = inputs[0]
    if w.dtype.kind != "f" or any(s.dtype != w.dtype for s in inputs[2:]):
        return None
    return fused


RULES = {"sgd_rule": sgd, "sgd_mom_rule": sgd_mom, "adam_rule": adam}


def bn_moving_update(xp, momentum: float, eps: float, moving_mean, moving_var, mean,
                     inv_std) -> bool:
    """BatchNorm's running statistics in one launch; False where it does not apply."""
    arrays = (moving_mean, moving_var, mean, inv_std)
    if not usable(xp) or not _dense(xp, arrays) or \
            any(a.dtype != moving_mean.dtype for a in arrays):
        return False
    t = moving_mean.dtype.type
    _kernel(xp, "bn_moving")(mean, inv_std, float(eps), t(momentum), t(1.0 - momentum),
                             moving_mean, moving_var)
    return True
