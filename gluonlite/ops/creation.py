"""Creation operators without array inputs (``_zeros``, ``_ones``, ``_full``,
``_arange``, ``_linspace``, ``_eye``) and ``_contrib_arange_like``.

The output lives on the device of the call (``ctx=`` of the ``nd`` function,
which picks ``oc.xp``); the ``ctx`` attribute is kept only so that graph JSON
round-trips.  The default dtype is float32, as in MXNet.

``_arange`` computes ``start + i * step`` in the output dtype, with ``start`` and
``step`` first cast to it (so an int32 ``arange(0, 5, 1.5)`` is ``0, 1, 2, 3``), and
its length is ``ceil((stop - start) / step)`` computed in double precision.
``_linspace`` computes in double precision and casts.
"""
from __future__ import annotations

import math

import numpy as np

from ..util import is_np_shape
from .attrs import Attr
from .common import fail, norm_axis, put
from .gather import cast_scalar
from .registry import OpDef, register

_F32 = np.dtype("float32")
# MXNet's type flags, used by _zeros_without_dtype's integer dtype attribute
_TYPE_FLAGS = {0: "float32", 1: "float64", 2: "float16", 3: "uint8", 4: "int32",
               5: "int8", 6: "int64", 7: "bool"}


def _no_inputs_type(op, attrs, in_dtypes):
    return [], [attrs.dtype if attrs.dtype is not None else _F32]


def check_output_shape(op: str, shape) -> tuple:
    """The output shape of creation operator ``op``, checked as MXNet 1.x checks it.

    Parameters
    ----------
    op : str
        The operator's name, for the error message.
    shape : sequence of int
        The requested shape.

    Returns
    -------
    tuple
        ``shape`` as a tuple.

    Raises
    ------
    MXNetError
        Outside ``np_shape`` mode, for ``()`` or a 0 dimension (both mean "unknown"
        there); under it, for a negative dimension.
    """
    shape = tuple(shape)
    if is_np_shape():  # npx.set_np(): 0 is a zero-size axis, () a 0-d array
        if any(d is None or d < 0 for d in shape):
            fail(op, f"the output shape {shape} has a negative dimension")
        return shape
    if not shape or any(d is None or d <= 0 for d in shape):
        fail(op, f"the output shape {shape} is not fully given; pass shape=(d0, d1, ...)")
    return shape


# -- zeros / ones / full ----------------------------------------------------------------
def _fill_op(name: str, value_of, dtype_of=lambda attrs: attrs.dtype):
    def forward(oc, attrs, inputs, out):
        dt = dtype_of(attrs)
        value = value_of(attrs)
        if out is not None:  # a planned buffer: its shape has the inferred dimensions
            out[0][...] = cast_scalar(value, dt)
            return [out[0]]
        shape = check_output_shape(name, attrs.shape)
        return [oc.xp.full(shape, cast_scalar(value, dt), dtype=dt)]

    def infer(attrs, in_shapes):
        shape = tuple(attrs.shape)
        # () is a 0-d array under npx.set_np(), an unknown shape otherwise
        return [], [shape if shape or is_np_shape() else None]
    return forward, infer


def _ctx_attr():
    return Attr("str", "")


_zf, _zi = _fill_op("_zeros", lambda a: 0.0)
register(OpDef("_zeros", _zf, inputs=(), infer_shape=_zi, infer_type=_no_inputs_type,
               attrs={"shape": Attr("shape", ()), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", _F32)},
               differentiable=False, doc="An array of zeros of ``shape``."))

_of, _oi = _fill_op("_ones", lambda a: 1.0)
register(OpDef("_ones", _of, inputs=(), infer_shape=_oi, infer_type=_no_inputs_type,
               attrs={"shape": Attr("shape", ()), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", _F32)},
               differentiable=False, doc="An array of ones of ``shape``."))

_ff, _fi = _fill_op("_full", lambda a: a.value)
register(OpDef("_full", _ff, inputs=(), infer_shape=_fi, infer_type=_no_inputs_type,
               attrs={"shape": Attr("shape", ()), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", _F32), "value": Attr("float")},
               aliases=("_npi_full",), differentiable=False,
               doc="An array of ``shape`` filled with ``value`` (cast like C)."))


def _zwd_dtype(attrs):
    flag = attrs.dtype
    if flag == -1:
        return _F32
    if flag not in _TYPE_FLAGS:
        fail("_zeros_without_dtype", f"unknown type flag {flag}")
    return np.dtype(_TYPE_FLAGS[flag])


_wf, _wi = _fill_op("_zeros_without_dtype", lambda a: 0.0, _zwd_dtype)
register(OpDef("_zeros_without_dtype", _wf, inputs=(), infer_shape=_wi,
               infer_type=lambda op, attrs, ins: ([], [_zwd_dtype(attrs)]),
               attrs={"shape": Attr("shape", ()), "ctx": _ctx_attr(),
                      "dtype": Attr("int", -1)},
               differentiable=False,
               doc="Zeros of ``shape``; ``dtype`` is MXNet's type flag (-1: float32)."))


# -- arange ------------------------------------------------------------------------------
def _arange_len(attrs) -> tuple[float, float, int]:
    start, stop, step = attrs.start, attrs.stop, attrs.step
    if stop is None:
        if attrs.infer_range:
            fail("_arange", "infer_range=True needs the output shape from the graph; "
                 "give stop instead")
        start, stop = 0.0, start
    if step == 0:
        fail("_arange", f"Range does not support step=0, received {step}")
    if step > 0 and not start < stop or step < 0 and not start > stop:
        fail("_arange", f"Invalid range (start, stop, step) = ({start}, {stop}, {step})")
    if attrs.repeat < 1:
        fail("_arange", f"repeat must be positive, got {attrs.repeat}")
    n = int(math.ceil((stop - start) / step))
    return start, step, n


def _ramp(xp, n: int, start: float, step: float, repeat: int, dt):
    """``start + (i // repeat) * step`` for ``i < n`` in dtype ``dt`` (C casts)."""
    i = xp.arange(n, dtype=np.int64)
    if repeat > 1:
        i //= repeat
    s = cast_scalar(start, dt)
    d = cast_scalar(step, dt)
    return (i.astype(dt) * d + s).astype(dt, copy=False)


def _inferred_range(attrs) -> bool:
    # infer_range with no stop: the length comes from the graph (a consumer's shape)
    return attrs.stop is None and attrs.infer_range


def _arange_fwd(oc, attrs, inputs, out):
    if _inferred_range(attrs):
        if out is None or out[0] is None:
            _arange_len(attrs)  # raises: imperatively there is no graph to ask
        y = _ramp(oc.xp, out[0].shape[0], attrs.start, attrs.step, attrs.repeat, attrs.dtype)
        return [put(out, 0, y)]
    start, step, n = _arange_len(attrs)
    y = _ramp(oc.xp, n * attrs.repeat, start, step, attrs.repeat, attrs.dtype)
    return [put(out, 0, y)]


def _arange_infer(attrs, in_shapes):
    if _inferred_range(attrs):
        return [], [None]
    _, _, n = _arange_len(attrs)
    return [], [(n * attrs.repeat,)]


register(OpDef(
    "_arange", _arange_fwd, inputs=(), infer_shape=_arange_infer, infer_type=_no_inputs_type,
    attrs={"start": Attr("float"), "stop": Attr("float", None), "step": Attr("float", 1.0),
           "repeat": Attr("int", 1), "infer_range": Attr("bool", False),
           "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
    differentiable=False,
    doc="Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times "
        "(MXNet ``arange``; ``stop=None`` means ``[0, start)``)."))


# -- linspace ----------------------------------------------------------------------------
def _linspace_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    num = attrs.num
    if num < 0:
        fail("_linspace", f"num must be non-negative, got {num}")
    div = num - 1 if attrs.endpoint else num
    step = (attrs.stop - attrs.start) / div if div > 0 else 0.0
    y = xp.arange(num, dtype=np.float64) * step + attrs.start
    return [put(out, 0, y.astype(attrs.dtype))]


def _linspace_infer(attrs, in_shapes):
    return [], [(attrs.num,)]


register(OpDef(
    "_linspace", _linspace_fwd, inputs=(), infer_shape=_linspace_infer,
    infer_type=_no_inputs_type,
    attrs={"start": Attr("float"), "stop": Attr("float"), "num": Attr("int"),
           "endpoint": Attr("bool", True), "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
    aliases=("_npi_linspace",), differentiable=False,
    doc="``num`` evenly spaced values from ``start`` to ``stop`` (MXNet ``linspace``)."))


# -- eye ----------------------------------------------------------------------------------
def _eye_dims(attrs):
    n = attrs.N
    m = attrs.M if attrs.M > 0 else n
    if n <= 0:
        fail("_eye", f"N must be positive, got {n}")
    return n, m


def _eye_fwd(oc, attrs, inputs, out):
    n, m = _eye_dims(attrs)
    return [put(out, 0, oc.xp.eye(n, m, attrs.k, dtype=attrs.dtype))]


def _eye_infer(attrs, in_shapes):
    return [], [_eye_dims(attrs)]


register(OpDef(
    "_eye", _eye_fwd, inputs=(), infer_shape=_eye_infer, infer_type=_no_inputs_type,
    attrs={"N": Attr("int"), "M": Attr("int", 0), "k": Attr("int", 0),
           "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
    differentiable=False,
    doc="A 2-D array with ones on the ``k``-th diagonal (MXNet ``eye``; ``M=0`` means N)."))


# -- arange_like ---------------------------------------------------------------------------
def _arange_like_len(attrs, shape) -> int:
    if attrs.axis is None:
        return int(np.prod(shape, dtype=np.int64))
    return shape[norm_axis("_contrib_arange_like", attrs.axis, len(shape))]


def _arange_like_fwd(oc, attrs, inputs, out):
    data = inputs[0]
    if attrs.repeat < 1:
        fail("_contrib_arange_like", f"repeat must be positive, got {attrs.repeat}")
    n = _arange_like_len(attrs, data.shape)
    y = _ramp(oc.xp, n, attrs.start, attrs.step, attrs.repeat, data.dtype)
    y = y.reshape(data.shape) if attrs.axis is None else y
    return [put(out, 0, y)]


def _arange_like_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None]
    if attrs.axis is None:
        return in_shapes, [tuple(data)]
    return in_shapes, [(_arange_like_len(attrs, tuple(data)),)]


register(OpDef(
    "_contrib_arange_like", _arange_like_fwd, inputs=("data",),
    infer_shape=_arange_like_infer,
    attrs={"start": Attr("float", 0.0), "step": Attr("float", 1.0), "repeat": Attr("int", 1),
           "ctx": _ctx_attr(), "axis": Attr("int", None)},
    aliases=("_npx_arange_like",), differentiable=False,
    doc="``start + (i // repeat) * step`` shaped like ``data`` (or along ``axis``), "
        "in ``data``'s dtype (MXNet ``contrib.arange_like``)."))
