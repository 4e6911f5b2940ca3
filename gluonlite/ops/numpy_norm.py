"""``_npi_norm``: NumPy's ``linalg.norm`` as one operator (vector norms of any order over
one axis; 'fro', 'nuc', 1, -1, 2, -2, inf, -inf matrix norms over two axes), so that
``mx.np`` and ``mx.sym.np`` (hybridized blocks, whose rank is unknown when traced) build
the same node.

``flag`` says how ``ord`` was given (MXNet's encoding): -2 none (2-norm of vectors,
Frobenius of matrices, of the flattened input when ``axis`` is None), -1 a number, 1
'fro', 2 'nuc'.  float16 inputs are reduced in float32.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register

_OP = "_npi_norm"
_ORD_NONE, _ORD_NUMBER, _ORD_FRO, _ORD_NUC = -2, -1, 1, 2


def norm_attrs(ord, axis=None, keepdims: bool = False) -> dict:  # noqa: A002 - NumPy's name
    """The attributes of ``_npi_norm`` for NumPy's ``norm(x, ord, axis, keepdims)``
    arguments (``ord`` may also be the strings 'inf' and '-inf', as MXNet allows).

    Parameters
    ----------
    ord : None, number or str
        NumPy's norm order.
    axis : None, int or tuple of int
        The axis (vector norm) or axes (matrix norm).
    keepdims : bool
        Keep the reduced axes as size one.

    Returns
    -------
    dict
        ``ord``, ``flag``, ``axis`` and ``keepdims``.
    """
    if ord is None:
        flag, value = _ORD_NONE, 2.0
    elif isinstance(ord, str) and ord in ("fro", "f"):
        flag, value = _ORD_FRO, 2.0
    elif isinstance(ord, str) and ord == "nuc":
        flag, value = _ORD_NUC, 2.0
    else:
        try:
            flag, value = _ORD_NUMBER, float(ord)
        except (TypeError, ValueError):
            fail(_OP, f"invalid norm order {ord!r}")
    if axis is not None:
        axis = (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(
            int(a) for a in axis)
    return dict(ord=value, flag=flag, axis=axis, keepdims=bool(keepdims))


def _axes(attrs, shape):
    """The reduced axes (normalized) and whether the norm is a matrix norm; an empty
    tuple for the flattened 2-norm."""
    ndim = len(shape)
    if attrs.axis is None:
        if attrs.flag in (_ORD_NONE, _ORD_FRO) or ndim == 0:
            return None, False
        if ndim == 1:
            return (0,), False
        if ndim == 2:
            return (0, 1), True
        fail(_OP, f"improper number of dimensions to norm with ord={attrs.ord}", shape)
    axes = tuple(norm_axis(_OP, int(a), ndim) for a in attrs.axis)
    if len(axes) == 1:
        if attrs.flag in (_ORD_FRO, _ORD_NUC):
            fail(_OP, "invalid norm order for vectors", shape)
        return axes, False
    if len(axes) == 2:
        if axes[0] == axes[1]:
            fail(_OP, f"duplicate axes {tuple(attrs.axis)}", shape)
        return axes, True
    fail(_OP, f"improper number of axes {tuple(attrs.axis)}", shape)


def _out_shape(attrs, shape):
    axes, _ = _axes(attrs, shape)
    if axes is None:
        axes = tuple(range(len(shape)))
    if attrs.keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _compute_dtype(dtype):
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype.kind != "f" or dtype.itemsize < 4 else dtype


def _matrix_kind(attrs):
    if attrs.flag == _ORD_NUC:
        return "nuc"
    if attrs.flag in (_ORD_NONE, _ORD_FRO):
        return "fro"
    p = attrs.ord
    if p in (1.0, -1.0, 2.0, -2.0, np.inf, -np.inf):
        return p
    fail(_OP, f"invalid norm order {p} for matrices")


def _vector(xp, x, p, axis):
    ax = xp.abs(x)
    if p == 2:
        return xp.sqrt((x * x).sum(axis=axis))
    if p == np.inf:
        return ax.max(axis=axis) if x.shape[axis] else xp.zeros(
            x.shape[:axis] + x.shape[axis + 1:], x.dtype)
    if p == -np.inf:
        return ax.min(axis=axis)
    if p == 0:
        return (x != 0).sum(axis=axis).astype(x.dtype)
    if p == 1:
        return ax.sum(axis=axis)
    return (ax ** p).sum(axis=axis) ** (1.0 / p)


def _matrix(xp, m, kind):
    """The norm of the matrices in the last two axes of ``m``."""
    if kind == "fro":
        return xp.sqrt((m * m).sum(axis=(-2, -1)))
    if kind in (1.0, -1.0):
        s = xp.abs(m).sum(axis=-2)
        return s.max(axis=-1) if kind > 0 else s.min(axis=-1)
    if kind in (np.inf, -np.inf):
        s = xp.abs(m).sum(axis=-1)
        return s.max(axis=-1) if kind > 0 else s.min(axis=-1)
    sv = xp.linalg.svd(m, compute_uv=False)
    return {2.0: sv.max, -2.0: sv.min, "nuc": sv.sum}[kind](axis=-1)


def _to_end(xp, x, axes):
    return xp.moveaxis(x, axes, (-2, -1))


def _norm(xp, attrs, x):
    """The norm (without kept axes) in the compute dtype."""
    axes, matrix = _axes(attrs, x.shape)
    if axes is None:
        return xp.sqrt((x * x).sum())
    if not matrix:
        return _vector(xp, x, attrs.ord if attrs.flag == _ORD_NUMBER else 2.0, axes[0])
    return _matrix(xp, _to_end(xp, x, axes), _matrix_kind(attrs))


def _forward(oc, attrs, inputs, out):
    x = inputs[0]
    cdt = _compute_dtype(x.dtype)
    y = _norm(oc.xp, attrs, x.astype(cdt, copy=False))
    y = oc.xp.asarray(y).reshape(_out_shape(attrs, x.shape))
    odt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    return [put(out, 0, y.astype(odt))]


def _safe_div(xp, a, b):
    return a / xp.where(b == 0, 1, b) * (b != 0)


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    cdt = _compute_dtype(x.dtype)
    xc = x.astype(cdt, copy=False)
    axes, matrix = _axes(attrs, x.shape)
    keep_shape = _out_shape(SimpleNamespace(ord=attrs.ord, flag=attrs.flag, axis=attrs.axis,
                                             keepdims=True), x.shape)
    n = xp.asarray(_norm(xp, attrs, xc)).reshape(keep_shape)
    g = out_grads[0].astype(cdt, copy=False).reshape(keep_shape)
    if axes is None or (matrix and _matrix_kind(attrs) == "fro"):
        dx = _safe_div(xp, xc, n)
    elif not matrix:
        p = attrs.ord if attrs.flag == _ORD_NUMBER else 2.0
        ax = xp.abs(xc)
        if p == 2:
            dx = _safe_div(xp, xc, n)
        elif p in (np.inf, -np.inf):
            dx = xp.sign(xc) * (ax == n)
        elif p == 0:
            dx = xp.zeros_like(xc)
        elif p == 1:
            dx = xp.sign(xc)
        else:
            dx = xp.sign(xc) * _safe_div(xp, ax, n) ** (p - 1)
    else:
        dx = _matrix_grad(xp, _to_end(xp, xc, axes), _matrix_kind(attrs),
                          _to_end(xp, n, axes))
        dx = xp.moveaxis(dx, (-2, -1), axes)
    return [(dx * g).astype(x.dtype, copy=False)]


def _matrix_grad(xp, m, kind, n):
    """d norm / d m for the matrices in the last two axes (``n``: the norms, kept axes)."""
    if kind in (1.0, -1.0, np.inf, -np.inf):
        along = -2 if kind in (1.0, -1.0) else -1
        s = xp.abs(m).sum(axis=along, keepdims=True)
        return xp.sign(m) * (s == n)
    u, sv, vt = xp.linalg.svd(m, full_matrices=False)
    if kind == "nuc":
        return u @ vt
    k = sv.argmax(axis=-1) if kind == 2.0 else sv.argmin(axis=-1)
    uk = xp.take_along_axis(u, k[..., None, None], axis=-1)
    vk = xp.take_along_axis(vt, k[..., None, None], axis=-2)
    return uk @ vk


def _infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [tuple(s)], [_out_shape(attrs, tuple(s))]


def _infer_type(op, attrs, in_dtypes):
    d = in_dtypes[0]
    if d is None:
        return [None], [None]
    return [d], [np.dtype(d) if np.dtype(d).kind == "f" else np.dtype(np.float32)]


register(OpDef(_OP, _forward, backward=_backward, inputs=("x",),
               attrs={"ord": Attr("float", 2.0), "axis": Attr("shape", None, optional=True),
                      "keepdims": Attr("bool", False), "flag": Attr("int", -1)},
               infer_shape=_infer, infer_type=_infer_type, backward_uses=("inputs",),
               doc="NumPy ``linalg.norm``: vector norms of order ``ord`` over one axis, "
                   "matrix norms over two ('fro' when ``flag`` is 1, 'nuc' when 2), the "
                   "2-norm of the flattened input when ``axis`` is None and ``ord`` is "
                   "not given (``flag`` -2)."))
