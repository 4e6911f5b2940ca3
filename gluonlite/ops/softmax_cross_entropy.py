"""``softmax_cross_entropy(data, label)``: the summed cross-entropy of a softmax.

``data`` is ``(batch, classes)``, ``label`` holds class indices ``(batch,)`` of the
same dtype; the output is one value, ``-sum_i log softmax(data_i)[label_i]``.  The
gradient with respect to ``data`` is ``softmax(data) - one_hot(label)`` times the head
gradient; ``label`` gets none.
"""
from __future__ import annotations

from .common import fail, put
from .registry import OpDef, register

_OP = "softmax_cross_entropy"


def _log_softmax(xp, data):
    shifted = data - data.max(axis=1, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))


def _labels(xp, label, classes):
    idx = label.astype("int64").reshape(-1)
    return xp.clip(idx, 0, classes - 1)


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, label = inputs
    if data.ndim != 2 or label.shape != (data.shape[0],):
        _infer_shape(attrs, [data.shape, label.shape])  # raises with the shapes
    logp = _log_softmax(xp, data)
    idx = _labels(xp, label, data.shape[1])
    picked = logp[xp.arange(data.shape[0]), idx]
    return [put(out, 0, (-picked.sum()).reshape(1).astype(data.dtype))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, label = inputs
    grad = xp.exp(_log_softmax(xp, data))
    grad[xp.arange(data.shape[0]), _labels(xp, label, data.shape[1])] -= 1
    return [grad * out_grads[0].reshape(()), None]


def _infer_shape(attrs, shapes):
    data, label = shapes
    if data is not None and len(data) != 2:
        fail(_OP, f"only 2-D data is accepted, got {len(data)}-D", data, label)
    if data is None and label is not None:
        data = (label[0], 0) if len(label) else None
    if data is not None:
        if label is not None and tuple(label) != (data[0],):
            fail(_OP, "label must have shape (batch,) matching data", data, label)
        label = (data[0],)
    return [data, label], [(1,)]


register(OpDef(_OP, _forward, backward=_backward, inputs=("data", "label"),
               infer_shape=_infer_shape, backward_uses=("inputs",),
               doc="Summed softmax cross-entropy of 2-D data against class labels."))
