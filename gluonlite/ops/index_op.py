"""The internal ``_index`` operator: ``data[key]`` as a recorded, differentiable copy.

``gluonlite/ndarray/indexing.py`` uses it while autograd records.  The ``key``
attribute holds an object whose ``.key`` is a NumPy-style index (ints, slices,
``None``, ``Ellipsis`` and integer or boolean arrays of the data's array module).  A
0-d result becomes shape ``(1,)`` (MXNet has no 0-d arrays) unless ``np_shape`` is set
(``mx.np`` arrays).  The gradient scatters
the head gradient back with ``xp.add.at`` (repeated indices accumulate).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register


def _raw(attrs):
    key = attrs.key
    return getattr(key, "key", key)


def _on(xp, key):
    """The key with its array parts moved to ``xp`` (numpy or cupy)."""
    if isinstance(key, tuple):
        return tuple(_on(xp, k) for k in key)
    if hasattr(key, "shape") and not np.isscalar(key):
        if hasattr(key, "get") and xp is np:  # a cupy array indexing numpy data
            key = key.get()
        return xp.asarray(key)
    return key


def _result_shape(shape, key):
    """Shape of ``data[key]`` for data of ``shape``, without touching data."""
    probe = np.broadcast_to(np.empty((), dtype=np.int8), tuple(shape))

    def host(k):
        if isinstance(k, tuple):
            return tuple(host(p) for p in k)
        if hasattr(k, "shape") and not np.isscalar(k):
            return np.zeros(tuple(k.shape), dtype=np.int64)
        return k
    try:
        return probe[host(key)].shape
    except IndexError as err:
        fail("_index", f"index {key!r} is invalid: {err}", shape)


def _index_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    try:
        y = x[_on(xp, _raw(attrs))]
    except IndexError as err:
        fail("_index", f"index is invalid: {err}", x.shape)
    y = xp.array(y, copy=True)
    if y.ndim == 0 and not attrs.np_shape:
        y = y.reshape(1)
    return [put(out, 0, y)]


def _index_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    key = _on(xp, _raw(attrs))
    # flat positions of the selected elements: a 1-D integer scatter works on both modules
    where = xp.arange(x.size).reshape(x.shape)[key].reshape(-1)
    dx = xp.zeros(x.size, dtype=out_grads[0].dtype)
    xp.add.at(dx, where, out_grads[0].reshape(-1))
    return [dx.reshape(x.shape)]


def _index_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or 0 in tuple(s):
        return [s], [None]
    shape = _result_shape(tuple(s), _raw(attrs))
    return [tuple(s)], [shape if shape or attrs.np_shape else (1,)]


register(OpDef("_index", _index_fwd, backward=_index_bwd,
               attrs={"key": Attr("any", None), "np_shape": Attr("bool", False)},
               infer_shape=_index_infer, backward_uses=("inputs",),
               doc="``data[key]`` as a copy (internal: recorded NDArray indexing)."))
