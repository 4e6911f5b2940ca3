"""Convolution and Deconvolution on cuDNN (forward, data and weight gradients, bias).

A :class:`ConvPlan` holds the descriptors of one geometry (input and filter
shapes, dtype, pad, stride, dilate, groups) and, per direction, the algorithm
cuDNN's heuristics rank first among those that fit MXNet's ``workspace`` limit
(in MB), with its workspace size; plans are cached by that key, so a call is
a dictionary lookup plus one ``ctypes`` call per direction.  As in MXNet
(``MXNET_CUDNN_AUTOTUNE_DEFAULT=1``, ``cudnn_tune``), the first call of a
geometry benchmarks the algorithms on its own arrays (``cudnnFind*Ex``) and keeps
the fastest that fits; ``cudnn_tune='off'`` or the variable at 0 keep the ranking.

A 1-D convolution runs as a 2-D one over a height of 1 (cuDNN's descriptors
start at 4 dimensions).  Deconvolution is the transposed direction of the same
plan: its forward is a data gradient, its data gradient a forward, its weight
gradient a weight gradient with data and head gradient swapped.

Numerics: float32 runs with ``CUDNN_FMA_MATH`` (full float32, like the NumPy
path and MXNet; ``MXNET_CUDA_TENSOR_OP_MATH_ALLOW_CONVERSION=1`` lets cuDNN use
TF32 tensor cores instead); float16 on tensor cores with float32 accumulation
(``MXNET_CUDA_ALLOW_TENSOR_CORE=0`` turns that off); float64 in double.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

from . import _cudnn_lib as L
from .common import fail

_FWD, _BWD_DATA, _BWD_FILTER = 0, 1, 2
_HEURISTICS = ("cudnnGetConvolutionForwardAlgorithm_v7",
               "cudnnGetConvolutionBackwardDataAlgorithm_v7",
               "cudnnGetConvolutionBackwardFilterAlgorithm_v7")
_RUN = ("cudnnConvolutionForward", "cudnnConvolutionBackwardData",
        "cudnnConvolutionBackwardFilter")
_FIND = ("cudnnFindConvolutionForwardAlgorithmEx", "cudnnFindConvolutionBackwardDataAlgorithmEx",
         "cudnnFindConvolutionBackwardFilterAlgorithmEx")
# the most workspace autotuning lends cuDNN's trial runs (it stays in CuPy's pool)
_FIND_WORKSPACE_MAX = 256 << 20
_MAX_ALGOS = 10
# CUDNN_CONVOLUTION_{FWD,BWD_DATA,BWD_FILTER}_ALGO_WINOGRAD_NONFUSED
_WINOGRAD_NONFUSED = (7, 5, 5)
_PLAN_CACHE_MAX = 1024


class _AlgoPerf(ctypes.Structure):
    # cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout
    _fields_ = [("algo", ctypes.c_int), ("status", ctypes.c_int), ("time", ctypes.c_float),
                ("memory", ctypes.c_size_t), ("determinism", ctypes.c_int),
                ("mathType", ctypes.c_int), ("reserved", ctypes.c_int * 3)]


# MXNet's switches, read once at import
_TENSOR_CORE = os.environ.get("MXNET_CUDA_ALLOW_TENSOR_CORE", "1") != "0"
_TF32 = os.environ.get("MXNET_CUDA_TENSOR_OP_MATH_ALLOW_CONVERSION", "0") == "1"
_AUTOTUNE = os.environ.get("MXNET_CUDNN_AUTOTUNE_DEFAULT", "1") != "0"
_MATH = {"e": L.TENSOR_OP_MATH if _TENSOR_CORE else L.DEFAULT_MATH,
         "f": L.DEFAULT_MATH if _TF32 else L.FMA_MATH, "d": L.DEFAULT_MATH}


def _math_type(dtype) -> int:
    return _MATH[np.dtype(dtype).char]


def autotune(attrs) -> bool:
    """MXNet's ``cudnn_tune``: benchmark the algorithms on the first call of a geometry
    (``MXNET_CUDNN_AUTOTUNE_DEFAULT``, default 1) unless ``cudnn_tune='off'``."""
    tune = getattr(attrs, "cudnn_tune", None)
    if tune is not None:
        return tune != "off"
    return _AUTOTUNE


def _as_4d(shape, nd: int):
    """A 1-D convolution's ``(N, C, W)`` as ``(N, C, 1, W)``."""
    return (shape[0], shape[1], 1, shape[2]) if nd == 1 else tuple(shape)


def _spatial(values, nd: int, one: int):
    return (one,) + tuple(values) if nd == 1 else tuple(values)


class ConvPlan:
    """Descriptors and chosen algorithms of one convolution geometry.

    ``x_shape`` is the convolution's input (the deconvolution's output), ``y_shape``
    its output, ``w_shape`` the filter ``(K, C / groups, *kernel)``.
    """

    def __init__(self, op: str, x_shape, w_shape, y_shape, dtype, pad, stride, dilate,
                 groups: int, workspace_mb: int, tune: bool = False):
        self.op = op
        self.tune = [tune] * 3                  # directions still to benchmark
        nd = len(w_shape) - 2
        code = L.data_type(op, dtype)
        compute = L.DATA_TYPE["float64"] if dtype == np.float64 else L.DATA_TYPE["float32"]
        self.dtype = np.dtype(dtype)
        self.x = L.TensorDesc(code, _as_4d(x_shape, nd))
        self.y = L.TensorDesc(code, _as_4d(y_shape, nd))
        self.w = L.FilterDesc(code, _as_4d(w_shape, nd))
        self.x_shape, self.y_shape = tuple(x_shape), tuple(y_shape)
        ones = (1,) * max(nd, 2)
        self.bias = L.TensorDesc(code, (1, y_shape[1]) + ones)    # Convolution's bias
        self.xbias = L.TensorDesc(code, (1, x_shape[1]) + ones)   # Deconvolution's bias
        self.math = _math_type(self.dtype)
        conv = (_spatial(pad, nd, 0), _spatial(stride, nd, 1), _spatial(dilate, nd, 1),
                groups, compute)
        # one descriptor per direction: each carries its algorithm's math type
        self.conv = [L.ConvDesc(*conv, self.math) for _ in range(3)]
        self.limit = int(workspace_mb) << 20
        self.algo = [None, None, None]          # (algo, workspace bytes) per direction
        self.one, self.zero = L.scalars(dtype)

    def _choose(self, xp, direction: int):
        """The first algorithm of cuDNN's ranking that runs within the workspace limit."""
        lib = L.library()
        h = L.handle(xp)
        perf = (_AlgoPerf * _MAX_ALGOS)()
        n = ctypes.c_int()
        desc = self.conv[direction]
        a, b = ((self.x, self.w), (self.w, self.y), (self.x, self.y))[direction]
        c = (self.y, self.x, self.w)[direction]
        lib.check(_HEURISTICS[direction], h, a.ptr, b.ptr, desc.ptr, c.ptr, _MAX_ALGOS,
                  ctypes.byref(n), perf)
        # float32 stays on FMA kernels unless TF32 is allowed: keep the requested math
        # type there; elsewhere the algorithm's own (tensor ops for float16)
        fits = self._usable(perf[:n.value], self.limit, direction)
        if not fits:
            fits = sorted(self._usable(perf[:n.value], None, direction),
                          key=lambda p: p.memory)[:1]
        if not fits:
            raise L.CudnnError(_HEURISTICS[direction], 9, "no algorithm for this geometry")
        return self._take(direction, fits[0])

    def _usable(self, perf, limit, direction: int):
        """Algorithms that ran, fit ``limit`` and keep full float32 where asked: no
        tensor-op kernels (the descriptor stays ``CUDNN_FMA_MATH``) and no non-fused
        Winograd, whose float32 error reached 1e-2 of the largest value on a 5x5 data
        gradient once autotuning picked it (H100, cuDNN 9.19)."""
        strict = self.math == L.FMA_MATH
        return [p for p in perf if p.status == 0 and (limit is None or p.memory <= limit)
                and not (strict and (p.mathType not in (L.DEFAULT_MATH, L.FMA_MATH)
                                     or p.algo == _WINOGRAD_NONFUSED[direction]))]

    def _take(self, direction: int, best):
        if self.math != L.FMA_MATH:
            self.conv[direction].set_math(best.mathType)
        self.algo[direction] = (best.algo, int(best.memory))
        return self.algo[direction]

    def _find(self, xp, direction: int, a, b, out) -> None:
        """Benchmark the algorithms on this call's arrays (MXNet's autotuning) and keep
        the fastest that fits; the heuristic choice stays where benchmarking fails."""
        self.tune[direction] = False
        nbytes = min(self.limit, _FIND_WORKSPACE_MAX)
        ws, ws_ptr = L.workspace(xp, nbytes)
        perf = (_AlgoPerf * _MAX_ALGOS)()
        n = ctypes.c_int()
        da, db, dc = ((self.x, self.w, self.y), (self.w, self.y, self.x),
                      (self.x, self.y, self.w))[direction]
        if self.math != L.FMA_MATH:   # let the benchmark see every math type allowed
            self.conv[direction].set_math(self.math)
        try:
            L.library().check(_FIND[direction], L.handle(xp), da.ptr, a.data.ptr, db.ptr,
                              b.data.ptr, self.conv[direction].ptr, dc.ptr, out.data.ptr,
                              _MAX_ALGOS, ctypes.byref(n), perf, ws_ptr, nbytes)
        except L.CudnnError:
            return
        del ws
        fits = self._usable(perf[:n.value], nbytes, direction)
        if fits:
            self._take(direction, fits[0])

    def supports(self, xp, directions) -> bool:
        """Choose the algorithms of ``directions`` (0 forward, 1 data gradient, 2 weight
        gradient); False when cuDNN has none for one of them."""
        for d in directions:
            if self.algo[d] is None:
                try:
                    self._choose(xp, d)
                except L.CudnnError:
                    self.algo[d] = False
            if self.algo[d] is False:
                return False
        return True

    def _run(self, xp, direction: int, a, b, out):
        if self.tune[direction]:
            self._find(xp, direction, a, b, out)
        algo = self.algo[direction]
        ws, ws_ptr = L.workspace(xp, algo[1])
        name = _RUN[direction]
        da, db, dc = ((self.x, self.w, self.y), (self.w, self.y, self.x),
                      (self.x, self.y, self.w))[direction]
        try:
            L.library().check(name, L.handle(xp), self.one, da.ptr, a.data.ptr, db.ptr,
                              b.data.ptr, self.conv[direction].ptr, algo[0], ws_ptr, algo[1],
                              self.zero, dc.ptr, out.data.ptr)
        except L.CudnnError as e:
            fail(self.op, str(e), self.x_shape, self.y_shape)
        del ws  # back to the pool: CuPy's pool is stream-ordered
        L.count(name)
        return out

    def forward(self, xp, x, w, out):
        """``out = conv(x, w)``; shapes as the plan's ``x``, ``w``, ``y``."""
        return self._run(xp, _FWD, x, w, out)

    def backward_data(self, xp, w, dy, out):
        """``out`` (shaped like ``x``) = the data gradient of ``dy`` (shaped like ``y``)."""
        return self._run(xp, _BWD_DATA, w, dy, out)

    def backward_filter(self, xp, x, dy, out):
        """``out`` (shaped like ``w``) = the weight gradient."""
        return self._run(xp, _BWD_FILTER, x, dy, out)

    def add_bias(self, xp, y, bias):
        """``y += bias`` broadcast over channel axis 1 (``y`` shaped like the plan's ``y``)."""
        L.library().check("cudnnAddTensor", L.handle(xp), self.one, self.bias.ptr,
                          bias.data.ptr, self.one, self.y.ptr, y.data.ptr)

    def bias_grad(self, xp, dy, out, x_side: bool = False):
        """``out`` = sums of ``dy`` over all but axis 1; ``dy`` shaped like the plan's
        ``y`` (or its ``x`` with ``x_side``, for Deconvolution)."""
        t, b = (self.x, self.xbias) if x_side else (self.y, self.bias)
        L.library().check("cudnnConvolutionBackwardBias", L.handle(xp), self.one, t.ptr,
                          dy.data.ptr, self.zero, b.ptr, out.data.ptr)
        return out


_plans: dict = {}


def plan(op: str, x_shape, w_shape, y_shape, dtype, geo, groups: int, workspace_mb: int,
         pad=None, tune: bool = False):
    """The cached :class:`ConvPlan` of a geometry, or ``None`` where cuDNN refused it.

    ``geo`` is the op's ``ConvGeometry``; ``pad`` overrides ``geo.pad`` (Deconvolution's
    left crop).
    """
    pad = geo.pad if pad is None else pad
    key = (op, tuple(x_shape), tuple(w_shape), tuple(y_shape), dtype.char, pad,
           geo.stride, geo.dilate, groups, workspace_mb, tune)
    p = _plans.get(key, False)
    if p is False:
        if len(_plans) >= _PLAN_CACHE_MAX:
            _plans.clear()
        try:
            p = ConvPlan(op, x_shape, w_shape, y_shape, dtype, pad, geo.stride, geo.dilate,
                         groups, workspace_mb, tune)
        except L.CudnnError:
            p = None  # e.g. CUDNN_STATUS_NOT_SUPPORTED: the op's own kernels serve it
        _plans[key] = p
    return p


def usable(xp, attrs, *arrays) -> bool:
    """Whether a Convolution/Deconvolution call can run on cuDNN: CuPy with cuDNN
    loaded, ``cudnn_off`` unset, one float dtype for all operands, a non-empty batch."""
    if getattr(attrs, "cudnn_off", False) or not L.usable(xp):
        return False
    dt = arrays[0].dtype
    if dt.char not in L.FLOAT_CHARS or any(a.dtype != dt for a in arrays[1:]):
        return False
    return all(a.size for a in arrays[:2])


def _result(xp, out, shape, dtype):
    """The array cuDNN writes into: ``out`` itself when it can, else a fresh one."""
    return out if L.writable(out, shape, dtype) else xp.empty(shape, dtype)


def _deliver(y, out):
    if out is not None and out is not y:
        out[...] = y
        return out
    return y


def conv_forward(xp, p: ConvPlan, x, w, bias, out):
    """Convolution forward on plan ``p`` (``bias`` may be ``None``)."""
    x, w = L.operand(x), L.operand(w)
    y = _result(xp, out, p.y_shape, x.dtype)
    p.forward(xp, x, w, y)
    if bias is not None:
        p.add_bias(xp, y, L.operand(bias))
    return _deliver(y, out)


def conv_backward(xp, p: ConvPlan, x, w, dy, mask):
    """``[dx, dw, db]`` (``None`` where ``mask`` is False) of a convolution on plan ``p``."""
    dy = L.operand(dy)
    dx = dw = db = None
    if mask[0]:
        dx = p.backward_data(xp, L.operand(w), dy, xp.empty(x.shape, x.dtype))
    if mask[1]:
        dw = p.backward_filter(xp, L.operand(x), dy, xp.empty(w.shape, w.dtype))
    if len(mask) > 2 and mask[2]:
        db = p.bias_grad(xp, dy, xp.empty((dy.shape[1],), dy.dtype))
    return [dx, dw, db]


def deconv_forward(xp, p: ConvPlan, x, w, bias, y_shape, out):
    """Deconvolution forward: the data gradient of the plan's convolution."""
    x, w = L.operand(x), L.operand(w)
    y = _result(xp, out, y_shape, x.dtype)
    p.backward_data(xp, w, x, y)
    if bias is not None:
        # the plan's "x" side is the deconvolution's output: add the bias there
        L.library().check("cudnnAddTensor", L.handle(xp), p.one, p.xbias.ptr,
                          L.operand(bias).data.ptr, p.one, p.x.ptr, y.data.ptr)
        L.count("cudnnAddTensor")
    return _deliver(y, out)


def deconv_backward(xp, p: ConvPlan, x, w, dy, mask):
    """``[dx, dw, db]`` of a deconvolution on plan ``p`` (``dy`` is its output's gradient)."""
    dy = L.operand(dy)
    dx = dw = db = None
    if mask[0]:
        dx = p.forward(xp, dy, L.operand(w), xp.empty(x.shape, x.dtype))
    if mask[1]:
        dw = p.backward_filter(xp, dy, L.operand(x), xp.empty(w.shape, w.dtype))
    if len(mask) > 2 and mask[2]:
        db = p.bias_grad(xp, dy, xp.empty((dy.shape[1],), dy.dtype), x_side=True)
    return [dx, dw, db]
