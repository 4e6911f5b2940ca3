"""Loss output layers: ``SoftmaxOutput`` (``Softmax``), the regression outputs,
``MakeLoss`` and ``make_loss``.

Their backward ignores the head gradient (MXNet semantics) and the label gets no
gradient.  MXNet computes the gradient scale (``grad_scale / normalizer``) in
float32; it is rounded the same way here.

``SoftmaxOutput`` views its data as ``(n, classes, s)``:

* ``multi_output``: ``(N, C, prod(rest))``, softmax over axis 1, label ``(N, rest)``;
* ``preserve_shape``: ``(prod(shape[:-1]), shape[-1], 1)``, softmax over the last axis;
* otherwise ``(N, prod(shape[1:]), 1)``; the label has shape ``data.shape[:-1]`` as
  MXNet infers it, of which the first ``N`` values (in memory order) are used.

Gradient: ``(softmax - target) * grad_scale / norm`` where the target is the
one-hot label (smoothed by ``smooth_alpha``: ``1 - alpha`` on the label,
``alpha / (C - 1)`` elsewhere; MXNet 1.9 ignores ``smooth_alpha`` with
``multi_output``).  With ``use_ignore`` the rows whose label equals
``ignore_label`` get 0.  ``norm`` is 1 for ``null`` (``s`` with ``multi_output``),
``n * s`` for ``batch`` and the number of labels different from ``ignore_label``
for ``valid`` (counted even without ``use_ignore``, as MXNet does).  With
``out_grad=True`` MXNet 1.9 multiplies by its own output instead of the head
gradient; that is reproduced.  A label of the data's own shape (without
``multi_output``) holds probabilities: the gradient is ``(softmax - label) *
grad_scale``, with no normalization, ignoring or smoothing, as in MXNet.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put, same_shape_infer
from .registry import OpDef, register
from .softmax import onednn_softmax, softmax_along
from . import _visual


def _scale(grad_scale: float, norm: float) -> float:
    """``grad_scale / norm`` computed in float32 like MXNet."""
    return float(np.float32(grad_scale) / np.float32(max(norm, 1)))


def _cdt(dtype):
    return np.promote_types(dtype, np.float32)


# -- SoftmaxOutput -------------------------------------------------------------------
def _so_view(attrs, shape):
    """(n, classes, s) of the 3-D view and the axis of the softmax in it."""
    if attrs.multi_output:
        rest = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
        return shape[0], shape[1] if len(shape) > 1 else 1, rest
    if attrs.preserve_shape:
        lead = int(np.prod(shape[:-1], dtype=np.int64)) if len(shape) > 1 else 1
        return lead, shape[-1], 1
    return shape[0], int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1, 1


def _so_labels(attrs, label, n, s):
    """Labels as an (n, s) array of the compute dtype."""
    if attrs.multi_output or attrs.preserve_shape:
        return label.reshape(n, s)
    return label.reshape(-1)[:n].reshape(n, 1)


def _so_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    n, c, s = _so_view(attrs, x.shape)
    xc = x.astype(_cdt(x.dtype), copy=False).reshape(n, c, s)
    # over (n, c, 1) the class axis is the data's last: MXNet's CPU build runs oneDNN
    onednn = s == 1 and onednn_softmax(x.dtype, x.dtype, axis=1, ndim=2, temperature=None)
    y = softmax_along(xp, xc, 1, onednn=onednn)
    return [put(out, 0, y.reshape(x.shape).astype(x.dtype, copy=False))]


def _so_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, label = inputs
    y = outputs[0]
    n, c, s = _so_view(attrs, x.shape)
    cdt = _cdt(x.dtype)
    p = y.astype(cdt, copy=False).reshape(n, c, s)
    if _soft_labels(attrs, x.shape, label.shape):
        # probabilities as labels: MXNet's gradient is (p - label) * grad_scale, without
        # normalization, ignore_label or smoothing
        grad = (p - label.astype(cdt, copy=False).reshape(n, c, s)) * \
            _scale(attrs.grad_scale, 1)
        return [grad.reshape(x.shape).astype(x.dtype, copy=False), xp.zeros_like(label)]
    lab = _so_labels(attrs, label, n, s).astype(cdt, copy=False)          # (n, s)
    classes = xp.arange(c, dtype=cdt).reshape(1, c, 1)
    onehot = (classes == lab[:, None, :]).astype(cdt)
    alpha = float(np.float32(attrs.smooth_alpha))
    if alpha != 0.0 and not attrs.multi_output:  # MXNet ignores smooth_alpha there
        target = onehot * (1 - alpha) + (1 - onehot) * (alpha / max(c - 1, 1))
    else:
        target = onehot
    grad = p - target
    ignore = float(np.float32(attrs.ignore_label))
    valid = lab != ignore
    if attrs.use_ignore:
        grad = grad * valid[:, None, :].astype(cdt)
    if attrs.normalization == "batch":
        norm = n * s
    elif attrs.normalization == "valid":
        norm = int(valid.sum())
    else:
        norm = s if attrs.multi_output else 1
    grad = grad * _scale(attrs.grad_scale, norm)
    if attrs.out_grad:
        grad = grad * p
    return [grad.reshape(x.shape).astype(x.dtype, copy=False), xp.zeros_like(label)]


def _soft_labels(attrs, data, label) -> bool:
    """A label of the data's own shape holds probabilities (MXNet accepts it without
    ``multi_output``)."""
    return not attrs.multi_output and label is not None and data is not None and \
        len(data) > 1 and tuple(label) == tuple(data)


def _so_label_shape(attrs, data):
    if attrs.multi_output:
        rest = int(np.prod(data[2:], dtype=np.int64)) if len(data) > 2 else 1
        return (data[0], rest)
    return tuple(data[:-1])


def _so_infer_shape(attrs, in_shapes):
    data, label = in_shapes
    if data is None:
        return [None, label], [None]
    if len(data) < 2 and not attrs.preserve_shape:
        fail("SoftmaxOutput", "data must have at least 2 dimensions", *in_shapes)
    expect = _so_label_shape(attrs, data)
    if label is None:
        label = expect
    elif attrs.multi_output and tuple(label) == (data[0],) + tuple(data[2:]):
        pass  # (N, d1, d2, ...) labels are accepted as well as (N, d1 * d2 * ...)
    elif _soft_labels(attrs, data, label):
        pass  # probabilities of every class
    else:
        label = merge_shapes("SoftmaxOutput", "label", expect, label)
    return [data, label], [data]


def _label_type(op, attrs, in_dtypes):
    data = in_dtypes[0]
    ins = list(in_dtypes)
    if ins[1] is None:
        ins[1] = data
    return ins, [data]


register(OpDef(
    "SoftmaxOutput", _so_forward, backward=_so_backward,
    attrs={
        "grad_scale": Attr("float", 1.0),
        "ignore_label": Attr("float", -1.0),
        "multi_output": Attr("bool", False),
        "use_ignore": Attr("bool", False),
        "preserve_shape": Attr("bool", False),
        "normalization": Attr("str", "null", choices=("batch", "null", "valid")),
        "out_grad": Attr("bool", False),
        "smooth_alpha": Attr("float", 0.0),
    },
    inputs=("data", "label"), infer_shape=_so_infer_shape, infer_type=_label_type,
    aliases=("Softmax",), backward_uses=("inputs", "outputs"),
    plot_style=_visual.family("output"),
    doc="Softmax with the cross-entropy gradient in backward (MXNet ``SoftmaxOutput``)."))


# -- regression outputs --------------------------------------------------------------
def _reg_infer_shape(name):
    def infer(attrs, in_shapes):
        data, label = in_shapes
        if data is None:
            return [None, label], [None]
        if label is not None and len(data) == 2 and data[1] == 1 and len(label) == 1:
            label = merge_shapes(name, "label", (data[0],), label)
        else:
            label = merge_shapes(name, "label", data, label)
        return [data, label], [data]
    return infer


def _register_regression(name, transform, grad_fn, doc):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        y = transform(oc.xp, x)
        return [put(out, 0, y.astype(x.dtype, copy=False))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        x, label = inputs
        y = outputs[0]
        per_row = x.size // x.shape[0] if x.ndim and x.shape[0] else 1
        diff = grad_fn(oc.xp, y, label.reshape(y.shape).astype(y.dtype, copy=False))
        g = diff * _scale(attrs.grad_scale, per_row)
        return [g.astype(x.dtype, copy=False), oc.xp.zeros_like(label)]

    register(OpDef(name, forward, backward=backward,
                   attrs={"grad_scale": Attr("float", 1.0)},
                   inputs=("data", "label"), infer_shape=_reg_infer_shape(name),
                   infer_type=_label_type, backward_uses=("inputs", "outputs"),
                   plot_style=_visual.family("output"), doc=doc))


_register_regression(
    "LinearRegressionOutput", lambda xp, x: x.copy(), lambda xp, y, l: y - l,
    "Identity forward; backward ``(data - label) * grad_scale / num_output``.")
_register_regression(
    "LogisticRegressionOutput", lambda xp, x: 1 / (1 + xp.exp(-x)), lambda xp, y, l: y - l,
    "Sigmoid forward; backward ``(sigmoid(data) - label) * grad_scale / num_output``.")
_register_regression(
    "MAERegressionOutput", lambda xp, x: x.copy(), lambda xp, y, l: xp.sign(y - l),
    "Identity forward; backward ``sign(data - label) * grad_scale / num_output``.")


# -- MakeLoss / make_loss ------------------------------------------------------------
def _identity_forward(oc, attrs, inputs, out):
    return [put(out, 0, inputs[0].copy())]


def _makeloss_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    y = outputs[0]
    if attrs.normalization == "batch":
        norm = y.size // y.shape[-1] if y.ndim and y.shape[-1] else 1
    elif attrs.normalization == "valid":
        norm = int((y > float(np.float32(attrs.valid_thresh))).sum())
    else:
        norm = 1
    return [xp.full(y.shape, _scale(attrs.grad_scale, norm), dtype=y.dtype)]


register(OpDef(
    "MakeLoss", _identity_forward, backward=_makeloss_backward,
    attrs={
        "grad_scale": Attr("float", 1.0),
        "valid_thresh": Attr("float", 0.0),
        "normalization": Attr("str", "null", choices=("batch", "null", "valid")),
    },
    infer_shape=same_shape_infer("MakeLoss"), backward_uses=("outputs",),
    doc="Marks a loss: identity forward, gradient ``grad_scale / norm`` (MXNet ``MakeLoss``)."))


def _make_loss_backward(oc, attrs, inputs, outputs, out_grads):
    y = outputs[0]
    return [oc.xp.ones(y.shape, dtype=y.dtype)]


register(OpDef(
    "make_loss", _identity_forward, backward=_make_loss_backward,
    infer_shape=same_shape_infer("make_loss"), backward_uses=("outputs",),
    output_names=("loss",),  # MXNet lists it as ``<name>_loss``
    doc="Identity forward whose gradient is ones, ignoring the head gradient.",
    listed_inputs=False))

