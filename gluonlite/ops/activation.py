"""``Activation`` and ``LeakyReLU`` (MXNet 1.9 semantics).

``LeakyReLU`` act types:

* ``leaky``: ``x > 0 ? x : slope * x``;
* ``prelu``: like leaky with a learned ``gamma`` input, one slope per channel
  (axis 1) or a single shared slope of shape ``(1,)``;
* ``rrelu``: in training a random slope per element drawn from
  ``U(lower_bound, upper_bound)``, otherwise ``(lower_bound + upper_bound) / 2``;
  it has two visible outputs ``(output, mask)``: ``mask`` holds the slopes drawn
  in training and zeros in predict mode;
* ``elu``: ``x > 0 ? x : slope * (exp(x) - 1)``;
* ``selu``: ``lambda * (x > 0 ? x : alpha * (exp(x) - 1))``; like MXNet 1.9 its
  backward uses ``lambda * (y + alpha)`` for ``x <= 0`` (not the true derivative
  ``y + lambda * alpha``);
* ``gelu``: ``0.5 * x * (1 + erf(x / sqrt(2)))``.

MXNet parses ``slope``/``lower_bound``/``upper_bound`` as float32; they are
rounded the same way here.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put, same_shape_infer
from .elemwise_unary import sigmoid_kernel, softsign_kernel
from .expr import ElemMath, fn, head_grad_kernel, numpy_kernel, var, where
from .registry import OpDef, register
from . import _visual

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _f32(v: float) -> float:
    return float(np.float32(v))


# -- Activation -----------------------------------------------------------------------
X, Y = var("data"), var("y")

# act_type -> (forward over data, dy/dx over the output y only, so backward keeps just
# the output); MXNet's Activation relu maps NaN to 0 (the relu operator keeps NaN)
_ACT_MATH = {
    act: ElemMath(fwd, (grad,), ("data",)) for act, (fwd, grad) in {
        "relu": (where(X > 0, X, 0), Y > 0),
        "sigmoid": (1 / (1 + fn.exp(-X)), Y * (1 - Y)),
        "tanh": (fn.tanh(X), 1 - Y * Y),
        "softrelu": (where(X > 0, X, 0) + fn.log1p(fn.exp(-fn.fabs(X))), -fn.expm1(-Y)),
        "softsign": (X / (1 + fn.fabs(X)), (1 - fn.fabs(Y)) * (1 - fn.fabs(Y))),
    }.items()}

_ACT_GRAD = {act: head_grad_kernel(m.grads[0], ("y",)) for act, m in _ACT_MATH.items()}


def _softrelu(xp, x, out=None):
    # log(1 + exp(x)) without overflow
    t = xp.abs(x)  # x is read again below: the temporary must not be out (out may be x)
    xp.negative(t, out=t)
    xp.exp(t, out=t)
    xp.log1p(t, out=t)
    o = xp.maximum(x, 0) if out is None else xp.maximum(x, 0, out=out)
    return xp.add(o, t, out=o)


def _relu(xp, x, out=None):
    return xp.fmax(x, 0) if out is None else xp.fmax(x, 0, out=out)


def _tanh(xp, x, out=None):
    return xp.tanh(x) if out is None else xp.tanh(x, out=out)


# hand-tuned NumPy kernels of _ACT_MATH's forwards (the op harness checks them against
# it), ``f(xp, x, out=None)``; each stays correct when ``out`` is ``x`` (in-place plans)
_ACT_KERNEL = {"relu": _relu, "sigmoid": sigmoid_kernel, "tanh": _tanh,
               "softrelu": _softrelu, "softsign": softsign_kernel}


def _act_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.dtype.kind != "f" and attrs.act_type != "relu":
        fail("Activation", f"act_type '{attrs.act_type}' needs floating point data, got "
             f"{x.dtype.name}", x.shape)
    kernel = _ACT_KERNEL[attrs.act_type]
    if out is not None and out[0].dtype == x.dtype:
        kernel(oc.xp, x, out[0])
        return [out[0]]
    y = kernel(oc.xp, x)
    return [put(out, 0, y.astype(x.dtype, copy=False))]


def _act_backward(oc, attrs, inputs, outputs, out_grads):
    return [_ACT_GRAD[attrs.act_type](oc.xp, out_grads[0], outputs[0])]


def _act_math(attrs):
    return _ACT_MATH[attrs.act_type]


def _act_fuse_int(attrs) -> bool:
    return attrs.act_type == "relu"  # the only act type whose C meaning holds on integers


register(OpDef(
    "Activation", _act_forward, backward=_act_backward,
    math=_act_math, fuse_int=_act_fuse_int,
    attrs={"act_type": Attr("str", choices=("relu", "sigmoid", "softrelu", "softsign",
                                             "tanh"))},
    infer_shape=same_shape_infer("Activation"), backward_uses=("outputs",),
    plot_style=_visual.activation_style,
    doc="Elementwise activation ``relu``, ``sigmoid``, ``tanh``, ``softrelu`` or "
        "``softsign`` (MXNet ``Activation``).", listed_inputs=False))


# -- LeakyReLU ------------------------------------------------------------------------
def _lrelu_inputs(attrs):
    return ("data", "gamma") if attrs.act_type == "prelu" else ("data",)


def _lrelu_nout(attrs):
    return 2 if attrs.act_type == "rrelu" else 1


def _lrelu_names(attrs):
    return ("output", "mask") if attrs.act_type == "rrelu" else ("output",)


def _prelu_gamma_shape(gshape, dshape):
    """Where prelu's gamma lies on the data (MXNet's rule): its axes, from the last,
    match data axes 1 and 0 (equal, or 1); every other data axis is 1.  ``None`` when
    gamma does not fit."""
    result = [1] * len(dshape)
    s = len(gshape) - 1
    for i in range(len(dshape) - 1, -1, -1):
        if s >= 0 and i <= 1 and (gshape[s] == dshape[i] or gshape[s] == 1):
            result[i] = gshape[s]
            s -= 1
    return tuple(result) if s == -1 else None


def _prelu_gamma(gamma, dshape):
    """gamma reshaped to broadcast over data of shape ``dshape``: one slope per channel
    (axis 1), one shared slope, or per (batch, channel) when gamma is 2-D."""
    shape = _prelu_gamma_shape(tuple(gamma.shape), tuple(dshape))
    if shape is None:
        fail("LeakyReLU", f"cannot broadcast prelu gamma {tuple(gamma.shape)} to data "
             f"{tuple(dshape)} (gamma's axes lie on data axes 0 and 1)",
             tuple(dshape), tuple(gamma.shape))
    return gamma.reshape(shape)


def _leaky_into(xp, attrs, inputs, o):
    """leaky/prelu into ``o`` as ``x * (x > 0 ? 1 : slope)``: ``x * 1`` is ``x`` exactly and
    ``x * slope`` is the product ``where`` picks, and x is only read before o is written."""
    x = inputs[0]
    t = x.dtype.type
    if attrs.act_type == "leaky":
        slope = t(_f32(attrs.slope))
    else:
        slope = _prelu_gamma(inputs[1], x.shape)  # x's dtype (the caller checks)
    factor = xp.where(x > 0, t(1), slope)
    return xp.multiply(x, factor, out=o)


def _lrelu_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    act = attrs.act_type
    if out is not None and x.dtype.kind == "f" and out[0].dtype == x.dtype and (
            act == "leaky" or (act == "prelu" and inputs[1].dtype == x.dtype)):
        return [_leaky_into(xp, attrs, inputs, out[0])]
    if act == "prelu":
        y = xp.where(x > 0, x, x * _prelu_gamma(inputs[1], x.shape))
    elif act == "rrelu":
        lo, hi = _f32(attrs.lower_bound), _f32(attrs.upper_bound)
        if oc.is_train:
            mask = oc.rng.uniform(lo, hi, size=x.shape).astype(x.dtype)
            y = xp.where(x > 0, x, x * mask)
        else:
            mask = xp.zeros(x.shape, dtype=x.dtype)
            y = xp.where(x > 0, x, x * ((lo + hi) / 2))
        return [put(out, 0, y.astype(x.dtype, copy=False)), put(out, 1, mask)]
    else:  # leaky, elu, selu, gelu: generated from the expression
        y = _lrelu_kernels(act, attrs.slope)[1](xp, x)
    return [put(out, 0, y.astype(x.dtype, copy=False))]


def _lrelu_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    y = outputs[0]
    dy = out_grads[0]
    act = attrs.act_type
    if act not in ("prelu", "rrelu"):
        return [_lrelu_kernels(act, attrs.slope)[2](xp, dy, x, y)]
    pos = x > 0
    if act == "prelu":
        gamma = inputs[1]
        gb = _prelu_gamma(gamma, x.shape)
        dx = dy * xp.where(pos, xp.ones((), dtype=x.dtype), gb)
        dg_full = xp.where(pos, 0, dy * x)
        summed = tuple(i for i in range(x.ndim) if gb.shape[i] == 1 and x.shape[i] != 1)
        dg = dg_full.sum(axis=summed, keepdims=True).reshape(gamma.shape)
        return [dx.astype(x.dtype, copy=False), dg.astype(gamma.dtype, copy=False)]
    if act == "rrelu":
        if oc.is_train:
            slope = outputs[1]
        else:
            slope = (_f32(attrs.lower_bound) + _f32(attrs.upper_bound)) / 2
    return [(dy * xp.where(pos, 1.0, slope)).astype(x.dtype, copy=False)]


@functools.lru_cache(maxsize=256)
def _lrelu_kernels(act: str, slope: float):
    """``(math, forward kernel, backward kernel)`` of an act type without a second input
    or random slopes; ``None`` for prelu (a second, broadcast input) and rrelu (random)."""
    x, y = var("data"), var("y")
    slope = _f32(slope)  # MXNet parses it as float32
    if act == "leaky":
        fwd, d = where(x > 0, x, x * slope), where(x > 0, 1, slope)
    elif act == "elu":
        fwd, d = where(x > 0, x, slope * fn.expm1(x)), where(x > 0, 1, y + slope)
    elif act == "selu":
        # MXNet 1.9's selu gradient for x <= 0 is lambda * (y + alpha) (see above)
        fwd = _SELU_LAMBDA * where(x > 0, x, _SELU_ALPHA * fn.expm1(x))
        d = where(x > 0, _SELU_LAMBDA, _SELU_LAMBDA * (y + _SELU_ALPHA))
    elif act == "gelu":
        fwd = 0.5 * x * (1 + fn.erf(x * _INV_SQRT2))
        d = 0.5 * (1 + fn.erf(x * _INV_SQRT2)) + x * _INV_SQRT_2PI * fn.exp(-0.5 * x * x)
    else:
        return None
    return (ElemMath(fwd, (d,), ("data",)), numpy_kernel(fwd, ("data",)),
            head_grad_kernel(d, ("data", "y")))


def _lrelu_math(attrs):
    kernels = _lrelu_kernels(attrs.act_type, attrs.slope)
    return None if kernels is None else kernels[0]


def _lrelu_elementwise(attrs) -> bool:
    return attrs.act_type != "prelu"  # prelu's gamma has one slope per channel


def _lrelu_infer_shape(attrs, in_shapes):
    data = merge_shapes("LeakyReLU", "data", None, in_shapes[0])
    n_out = _lrelu_nout(attrs)
    if attrs.act_type != "prelu":
        return [data], [data] * n_out
    gamma = in_shapes[1]
    if data is not None:
        if gamma is None:
            if len(data) < 2:
                fail("LeakyReLU", "prelu needs data with a channel axis (ndim >= 2) to "
                     "infer gamma's shape", *in_shapes)
            gamma = (data[1],)
        elif all(gamma) and all(data) and _prelu_gamma_shape(gamma, data) is None:
            fail("LeakyReLU", f"prelu gamma {gamma} does not fit data {data}: gamma's "
                 f"axes lie on data axes 0 and 1, e.g. ({data[1] if len(data) > 1 else 1},)"
                 " or (1,)", *in_shapes)
    return [data, gamma], [data]


register(OpDef(
    "LeakyReLU", _lrelu_forward, backward=_lrelu_backward,
    attrs={
        "act_type": Attr("str", "leaky", choices=("elu", "gelu", "leaky", "prelu", "rrelu",
                                                   "selu")),
        "slope": Attr("float", 0.25),
        "lower_bound": Attr("float", 0.125),
        "upper_bound": Attr("float", 0.334),
    },
    inputs=_lrelu_inputs, num_outputs=_lrelu_nout, output_names=_lrelu_names,
    infer_shape=_lrelu_infer_shape, random=True, backward_uses=("inputs", "outputs"),
    elementwise=_lrelu_elementwise, math=_lrelu_math,
    input_init={"gamma": '["Constant", {"value": 0.25}]'},
    plot_style=_visual.activation_style,
    doc="Leaky rectifiers: leaky, prelu, rrelu, elu, selu, gelu (MXNet ``LeakyReLU``)."))
