"""Counting and index operators of MXNet 1.9: ``_histogram``, ``ravel_multi_index``
(``_ravel_multi_index``), ``unravel_index`` (``_unravel_index``), ``all_finite`` and
``multi_all_finite`` (the other operators of this family are in
:mod:`gluonlite.ops.math_extra`).

Behaviour learned by running MXNet 1.9.1:

* ``_histogram`` (``nd.histogram`` is a Python wrapper over it) counts the flattened
  data into ``bin_cnt`` uniform bins over ``range`` or into the bins given by the edge
  array ``bins``; outputs the counts (int64) and the edges (data dtype).  Uniform edges
  are ``(lo * (n - i) + hi * i) / n`` in float64 cast to the data dtype (``lo == hi``
  widens the range by 0.5 on both sides); a value counts when ``lo <= x <= hi`` and
  ``x >= edges[0]``, into the last edge at or below it (the last bin closed on the
  right).  No gradient.
* ``_ravel_multi_index`` / ``_unravel_index`` truncate the indices to integers and use
  C arithmetic (no bounds check; the first dimension of ``shape`` is never used); the
  output has the input's dtype; the gradient is zero.  ``_unravel_index`` of N-D data
  gives ``(len(shape),) + data.shape`` as ``numpy.unravel_index`` does (MXNet 1.9.1
  only handles 1-D data: for N-D data it returns a ``(len(shape), data.shape[0])``
  array holding the raw data, not indices).
* ``all_finite`` / ``multi_all_finite`` give a float32 ``(1,)`` flag: 1 when every
  element is finite.  With ``init_output=False`` the flag is only ever cleared, so an
  ``out`` array accumulates over calls (AMP's loss scaler); without ``out`` it starts
  at 1 (MXNet leaves it uninitialized).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .math_extra import _need_float
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)


# -- _histogram --------------------------------------------------------------------------
def _hist_uniform(attrs):
    """``(bin_cnt, lo, hi)`` of the uniform case, or None when bins come as an input."""
    cnt, rng = attrs.bin_cnt, attrs.range
    if (cnt is None) != (rng is None):
        fail("_histogram", "bin_cnt and range should both or neither be specified")
    if cnt is None:
        return None
    if cnt < 0:
        fail("_histogram", f"bin_cnt must not be negative, got {cnt}")
    if len(rng) != 2:
        fail("_histogram", f"range should be a tuple with only 2 elements, got {rng}")
    lo, hi = rng
    if lo > hi:
        fail("_histogram", f"the left hand side of range ({lo}) should be less than or "
                           f"equal to the right hand side ({hi})")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return cnt, lo, hi


def _hist_inputs(attrs):
    return ("data",) if attrs.bin_cnt is not None else ("data", "bins")


def _hist_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0].reshape(-1)
    uniform = _hist_uniform(attrs)
    if uniform is not None:
        cnt, lo, hi = uniform
        i = xp.arange(cnt + 1, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            edges = ((lo * (cnt - i) + hi * i) / cnt).astype(x.dtype)
        if cnt == 0:
            return [put(out, 0, xp.zeros((0,), dtype=_I64)), put(out, 1, edges)]
        xd = x.astype(np.float64, copy=False)
        inside = (xd >= lo) & (xd <= hi) & (x >= edges[0])
    else:
        edges = inputs[1]
        _hist_bins_check(edges.shape)
        if edges.dtype != x.dtype:
            fail("_histogram", f"bins have dtype {edges.dtype}, data {x.dtype}: they must "
                               "match", inputs[0].shape, edges.shape)
        edges = xp.array(edges)
        cnt = edges.shape[0] - 1
        inside = (x >= edges[0]) & (x <= edges[-1])
    idx = xp.clip(xp.searchsorted(edges, x, side="right") - 1, 0, cnt - 1)
    counts = xp.bincount(idx[inside], minlength=cnt).astype(_I64)
    return [put(out, 0, counts), put(out, 1, edges)]


def _hist_bins_check(shape):
    if len(shape) != 1:
        fail("_histogram", "bins should be a 1-D vector of bin edges", shape)
    if shape[0] and shape[0] < 2:
        fail("_histogram", "bins should hold at least 2 edges", shape)


def _hist_infer(attrs, in_shapes):
    uniform = _hist_uniform(attrs)
    if uniform is not None:
        cnt = uniform[0]
        return list(in_shapes), [(cnt,), (cnt + 1,)]
    bins = in_shapes[1]
    if bins is None:
        return list(in_shapes), [None, None]
    _hist_bins_check(bins)
    n = bins[0]
    return list(in_shapes), [(n - 1 if n else 0,), (n,)]


def _hist_type(op, attrs, in_dtypes):
    known = [np.dtype(d) for d in in_dtypes if d is not None]
    if len(known) == 2 and known[0] != known[1]:
        fail("_histogram", f"bins have dtype {known[1]}, data {known[0]}: they must match")
    d = known[0] if known else None
    return [d] * len(in_dtypes), [_I64, d]


register(OpDef("_histogram", _hist_forward, inputs=_hist_inputs, num_outputs=2,
               attrs={"bin_cnt": Attr("int", None), "range": Attr("floats", None)},
               infer_shape=_hist_infer, infer_type=_hist_type, differentiable=False,
               doc="Histogram of the flattened data: counts (int64) and bin edges."))


# -- ravel_multi_index / unravel_index ---------------------------------------------------
def _index_shape(op, attrs):
    if not attrs.shape:
        fail(op, "empty shape parameter")
    return tuple(int(d) for d in attrs.shape)


def _ravel_check(attrs, s):
    shape = _index_shape("ravel_multi_index", attrs)
    if len(s) != 2:
        fail("ravel_multi_index", "the input must be two-dimensional", s)
    if s[0] and s[0] != len(shape):
        fail("ravel_multi_index", f"the first dimension of the input must be {len(shape)}, "
                                  f"the length of shape={shape}", s)
    return shape


def _ravel_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    shape = _ravel_check(attrs, x.shape)
    strides = np.cumprod((1,) + shape[:0:-1])[::-1].astype(np.int64)
    idx = x.astype(np.int64)
    flat = (idx * xp.asarray(strides)[:, None]).sum(axis=0)
    return [put(out, 0, flat.astype(x.dtype))]


def _unravel_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    shape = _index_shape("unravel_index", attrs)
    if 0 in shape[1:]:
        fail("unravel_index", f"shape {shape} has a zero dimension", x.shape)
    rest = x.astype(np.int64)
    coords = []
    for d in shape[:0:-1]:
        r = xp.fmod(rest, d)  # C remainder: the sign of the dividend
        coords.append(r)
        rest = (rest - r) // d
    coords.append(rest)
    return [put(out, 0, xp.stack(coords[::-1]).astype(x.dtype))]


def _zero_index_backward(oc, attrs, inputs, outputs, out_grads):
    return [oc.xp.zeros_like(inputs[0])]


def _ravel_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    _ravel_check(attrs, tuple(s))
    return [tuple(s)], [(s[1],)]


def _unravel_infer(attrs, in_shapes):
    s = in_shapes[0]
    shape = _index_shape("unravel_index", attrs)
    if s is None:
        return [None], [None]
    return [tuple(s)], [(len(shape),) + tuple(s)]


register(OpDef("_ravel_multi_index", _ravel_forward, backward=_zero_index_backward,
               aliases=("ravel_multi_index",), attrs={"shape": Attr("shape", None)},
               infer_shape=_ravel_infer, backward_uses=("inputs",), zero_gradient=True,
               doc="Flat indices of the multi-indices in the columns of ``data`` for an "
                   "array of ``shape``."))
register(OpDef("_unravel_index", _unravel_forward, backward=_zero_index_backward,
               aliases=("unravel_index",), attrs={"shape": Attr("shape", None)},
               infer_shape=_unravel_infer, backward_uses=("inputs",), zero_gradient=True,
               doc="Multi-indices (one per column of the output) of the flat indices in "
                   "``data`` for an array of ``shape``."))


# -- all_finite / multi_all_finite -------------------------------------------------------
def _finite_flag(oc, attrs, op, arrays, out):
    xp = oc.xp
    ok = None
    for x in arrays:
        _need_float(op, x)
        f = xp.isfinite(x).all()
        ok = f if ok is None else ok & f
    if out is None:
        return [xp.where(ok, xp.ones((1,), _F32), xp.zeros((1,), _F32))]
    buf = out[0]
    if attrs.init_output:
        buf[...] = 1
    buf[...] = xp.where(ok, buf, xp.zeros((), dtype=buf.dtype))
    return [buf]


def _all_finite_forward(oc, attrs, inputs, out):
    return _finite_flag(oc, attrs, "all_finite", inputs, out)


def _multi_all_finite_forward(oc, attrs, inputs, out):
    if len(inputs) != attrs.num_arrays:
        fail("multi_all_finite", f"num_arrays={attrs.num_arrays} but {len(inputs)} inputs",
             *[x.shape for x in inputs])
    return _finite_flag(oc, attrs, "multi_all_finite", inputs, out)


def _flag_type(op, attrs, in_dtypes):
    return list(in_dtypes), [_F32]


def _flag_infer(attrs, in_shapes):
    return list(in_shapes), [(1,)]


register(OpDef("all_finite", _all_finite_forward, attrs={"init_output": Attr("bool", True)},
               infer_shape=_flag_infer, infer_type=_flag_type, differentiable=False,
               inplace_out=True,
               doc="1 (float32, shape (1,)) when every element of ``data`` is finite, else "
                   "0; with ``init_output=False`` the ``out`` flag is only cleared."))
register(OpDef("multi_all_finite", _multi_all_finite_forward,
               attrs={"num_arrays": Attr("int", 1), "init_output": Attr("bool", True)},
               inputs=lambda attrs: tuple(f"array_{i}" for i in range(attrs.num_arrays)),
               key_var_num_args="num_arrays", infer_shape=_flag_infer,
               infer_type=_flag_type, differentiable=False, inplace_out=True,
               doc="1 (float32, shape (1,)) when every element of every input is finite, "
                   "else 0; with ``init_output=False`` the ``out`` flag is only cleared."))
