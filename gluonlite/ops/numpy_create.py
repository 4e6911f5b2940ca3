"""Creation operators of MXNet's NumPy interface: ``_npi_logspace``, ``_npi_indices``,
the windows ``_npi_hanning``/``hamming``/``blackman``, ``_npi_diag_indices_from``,
``_npi_arange``, ``_npi_eye`` and ``_npi_full_like``.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put, same_shape_infer
from .creation import _ctx_attr, _no_inputs_type
from .registry import OpDef, register

_F32 = np.dtype(np.float32)


# -- creation: logspace, indices, windows, diag_indices_from ----------------------------------
def _logspace_forward(oc, attrs, inputs, out):
    if attrs.num < 0:
        fail("_npi_logspace", f"num must be non-negative, got {attrs.num}")
    y = oc.xp.logspace(attrs.start, attrs.stop, attrs.num, endpoint=attrs.endpoint,
                       base=attrs.base, dtype=np.float64)
    return [put(out, 0, y.astype(attrs.dtype))]


register(OpDef("_npi_logspace", _logspace_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [(max(attrs.num, 0),)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"start": Attr("float"), "stop": Attr("float"), "num": Attr("int"),
                      "endpoint": Attr("bool", True), "base": Attr("float", 10.0),
                      "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
               doc="NumPy ``logspace``: ``base ** linspace(start, stop, num)``."))


def _indices_forward(oc, attrs, inputs, out):
    dims = tuple(attrs.dimensions)
    if any(d < 0 for d in dims):
        fail("_npi_indices", f"dimensions {dims} must be non-negative")
    return [put(out, 0, oc.xp.indices(dims, dtype=attrs.dtype))]


register(OpDef("_npi_indices", _indices_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [(len(attrs.dimensions),)
                                                  + tuple(attrs.dimensions)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"dimensions": Attr("shape"), "dtype": Attr("dtype", np.dtype(np.int32)),
                      "ctx": _ctx_attr()},
               doc="NumPy ``indices``: a grid of the indices of an array of ``dimensions``."))


# NumPy's windows as cosine sums: ``sum_k c_k cos(2 pi k n / (M - 1))``
_WINDOWS = {"hanning": (0.5, -0.5), "hamming": (0.54, -0.46), "blackman": (0.42, -0.5, 0.08)}


def _register_window(name: str, np_fn: str):
    coeffs = _WINDOWS[np_fn]

    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        m = int(attrs.M)
        if m <= 1:
            y = xp.ones(max(m, 0), np.float64)
        else:
            t = 2 * np.pi * xp.arange(m, dtype=np.float64) / (m - 1)
            y = sum(c * xp.cos(k * t) for k, c in enumerate(coeffs))
        return [put(out, 0, y.astype(attrs.dtype))]
    register(OpDef(name, forward, inputs=(),
                   infer_shape=lambda attrs, s: ([], [(max(int(attrs.M), 0),)]),
                   infer_type=_no_inputs_type, differentiable=False,
                   attrs={"M": Attr("int"), "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
                   doc=f"NumPy ``{np_fn}``: the window of ``M`` points."))


_register_window("_npi_hanning", "hanning")
_register_window("_npi_hamming", "hamming")
_register_window("_npi_blackman", "blackman")


def _dif_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.ndim < 2 or len(set(x.shape)) != 1:
        fail("_npi_diag_indices_from", "needs an input of at least 2 dimensions, all of "
             "equal length", x.shape)
    idx = oc.xp.arange(x.shape[0], dtype=np.int64)
    return [put(out, 0, oc.xp.broadcast_to(idx, (x.ndim, x.shape[0])).copy())]


register(OpDef("_npi_diag_indices_from", _dif_forward,
               infer_shape=lambda attrs, s: (list(s), [None if s[0] is None else
                                                       (len(s[0]), s[0][0])]),
               infer_type=lambda op, attrs, d: (list(d), [np.dtype(np.int64)]),
               differentiable=False,
               doc="NumPy ``diag_indices_from``: the indices of the main diagonal, one row "
                   "per axis."))


# -- arange -------------------------------------------------------------------------------------
def _np_arange_len(attrs) -> int:
    start, stop, step = attrs.start, attrs.stop, attrs.step
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        fail("_npi_arange", "step must not be 0")
    return max(int(np.ceil((stop - start) / step)), 0), start


def _np_arange_forward(oc, attrs, inputs, out):
    n, start = _np_arange_len(attrs)
    y = oc.xp.arange(n, dtype=np.float64) * attrs.step + start
    return [put(out, 0, y.astype(attrs.dtype))]


register(OpDef("_npi_arange", _np_arange_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [(_np_arange_len(attrs)[0],)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"start": Attr("float"), "stop": Attr("float", None, optional=True),
                      "step": Attr("float", 1.0), "repeat": Attr("int", 1),
                      "infer_range": Attr("bool", False), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", _F32)},
               doc="NumPy ``arange``: ``start + i * step`` for the ``ceil((stop - start) / "
                   "step)`` values of ``[start, stop)`` (empty when the range is)."))


# -- eye, full_like -------------------------------------------------------------------------
def _eye_dims(attrs):
    n = int(attrs.N)
    m = n if attrs.M is None else int(attrs.M)
    if n < 0 or m < 0:
        fail("_npi_eye", f"negative dimensions are not allowed (N={n}, M={m})")
    return n, m


def _eye_forward(oc, attrs, inputs, out):
    n, m = _eye_dims(attrs)
    return [put(out, 0, oc.xp.eye(n, m, int(attrs.k), dtype=attrs.dtype))]


register(OpDef("_npi_eye", _eye_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [_eye_dims(attrs)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"N": Attr("int"), "M": Attr("int", None, optional=True),
                      "k": Attr("int", 0), "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
               doc="NumPy ``eye``: an ``N`` x ``M`` array (``M`` = ``N`` when None) with ones "
                   "on the ``k``-th diagonal; ``N = 0`` gives an empty array."))


def _fill_value(value, dtype):
    """``value`` in ``dtype`` as NumPy's ``full`` stores it (``bool`` of a number is its
    truth, integers truncate), as a Python scalar."""
    return np.array(value).astype(dtype).item()


def _full_like_forward(oc, attrs, inputs, out):
    a = inputs[0]
    dt = a.dtype if attrs.dtype is None else np.dtype(attrs.dtype)
    return [put(out, 0, oc.xp.full(a.shape, _fill_value(attrs.fill_value, dt), dtype=dt))]


def _full_like_backward(oc, attrs, inputs, outputs, out_grads):
    return [None]  # the values of ``a`` do not matter: no gradient


register(OpDef("_npi_full_like", _full_like_forward, backward=_full_like_backward,
               inputs=("a",), infer_shape=same_shape_infer("_npi_full_like"),
               infer_type=lambda op, attrs, d: (list(d), [d[0] if attrs.dtype is None
                                                          else np.dtype(attrs.dtype)]),
               attrs={"fill_value": Attr("float"), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", None, optional=True)},
               backward_uses=(),
               doc="NumPy ``full_like``: an array of ``a``'s shape (and dtype, unless "
                   "``dtype`` is given) filled with ``fill_value``."))
