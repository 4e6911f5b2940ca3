"""``Convolution`` (alias ``Convolution_v1``): 1-D, 2-D and 3-D, grouped, dilated.

Written for channel-first layouts (``NCW``, ``NCHW``, ``NCDHW``); channel-last ones
are transposed around it by :mod:`.channel_last`.  Forward copies the (padded)
input's windows into columns ``(C * prod(kernel), N * prod(out))`` (one copy per
kernel offset) and runs one GEMM per group (a single batched ``matmul``) against
the weight ``(group, F/group, C/group * prod(kernel))``.  Putting the batch inside
the GEMM (rather than one small GEMM per batch item) measured about twice as fast
on LeNet shapes.

Two column layouts: channel-first ``(C, *kernel, N, *out)`` (``_window.im2col``),
and, when the columns have at least twice as many rows as there are filters,
batch-last ``(C, *kernel, *out, N)`` (``_batch_last``), whose copies and
scatter-adds run over long contiguous rows at the price of transposing the
output and the head gradient.  LeNet's second convolution (20 -> 50 channels,
5x5, 8x8 outputs) uses batch-last: its forward + backward went from about 12 to
9.4 ms on one core; the first (1 -> 20) stays channel-first, where the transposes
would cost more than they save.

Large columns (the batch-last layout aside) and plain 1x1 kernels go to a third,
chunked path instead (``_chunked``): the batch is processed a few MB of columns
at a time, columns ordered ``(N, C * K, P)``, so that they stay in cache (64 ->
64 channels, 3x3, on ``(32, 64, 56, 56)``: 231 MB of whole-batch columns).

On NumPy two more layouts come first (``_path``): the pixel-major columns
``(N * prod(out), prod(kernel) * C)`` of ``_conv_rows`` (one group, float32/64,
``C * prod(kernel) >= 2 F``: the GEMMs are 1.4-1.9x faster in that orientation;
the tutorial's second convolution, 16 -> 32 channels, 3x3 on 8x8, batch 64, went
from about 1.3 + 2.3 to 0.7 + 1.4 ms forward + backward with one BLAS thread, 0.5 +
1.0 ms with two), and the
batch-first columns of ``_chunked`` for few rows per filter and many output pixels
(``use_batch_first``: the tutorial's first convolution, 1 -> 16 channels on
16x16, 390 -> 215 us forward; its data gradient, when needed, stays channel-first).

Depthwise convolutions (one filter per channel, NumPy, float32/float64) skip all
of these: ``_depthwise`` runs them as multiply-adds over shifted contiguous views,
forward and gradients (SSD-512's MobileNet-1.0 layers, 32 to 512 channels on 256x256
to 32x32 planes: 3-25x faster than im2col + per-group GEMMs).  Plain 1x1
kernels with 256 to 65536 weights take ``_chunked`` at any size (``_chunked``
below).

Backward (whole-batch layouts): the weight gradient is one GEMM of the head gradient (ordered like the
columns, ``head_grad``) with the same columns (on NumPy kept by the forward as the
call's saved state, ``OpDef.saved_state``; rebuilt without it); the bias gradient
a matrix-vector product with ones.  The data gradient is one exact GEMM to
columns plus one scatter-add per kernel offset (``col2im``).  On every
channel-first shape measured this beat the former "wide" variants (1.5x larger
GEMMs for contiguous adds): LeNet's first layer 1.8 -> 1.5 ms.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes
from .registry import OpDef, register
from .channel_last import support_channel_last
from . import _cudnn_conv, _visual
from ._chunked import chunked_backward, chunked_forward, use_batch_first, use_chunked
from ._conv_rows import rows_backward, rows_forward, use_rows
from ._depthwise import depthwise_backward, depthwise_forward, use_depthwise
from ._batch_last import (conv_data_grad_batch_last, from_batch_last, head_grad_batch_last,
                          im2col_batch_last, inner_slice, to_batch_last, use_batch_last)
from ._window import (col2im, conv_out_size, im2col, matmul_scratch, spatial_tuple,
                      to_channel_major)

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def check_layout(op: str, layout, nd: int) -> None:
    """Only channel-first layouts are supported; raise for others."""
    if nd not in _LAYOUTS:
        fail(op, f"kernel must have 1, 2 or 3 dimensions, got {nd}")
    if layout is not None and layout != _LAYOUTS[nd]:
        fail(op, f"layout {layout} is not supported (only {_LAYOUTS[nd]} for a "
                 f"{nd}-D kernel)")


class ConvGeometry:
    """Kernel, stride, dilate and pad of one call, each a tuple of ``nd`` ints."""

    __slots__ = ("nd", "kernel", "stride", "dilate", "pad")

    def __init__(self, op: str, attrs):
        kernel = tuple(attrs.kernel)
        nd = len(kernel)
        check_layout(op, getattr(attrs, "layout", None), nd)
        self.nd = nd
        self.kernel = kernel
        self.stride = spatial_tuple(op, "stride", attrs.stride, nd, 1)
        self.dilate = spatial_tuple(op, "dilate", attrs.dilate, nd, 1)
        self.pad = spatial_tuple(op, "pad", attrs.pad, nd, 0)
        if min(kernel) <= 0 or min(self.stride) <= 0 or min(self.dilate) <= 0:
            fail(op, f"kernel, stride and dilate must be positive (kernel={kernel}, "
                     f"stride={self.stride}, dilate={self.dilate})")

    def out_sizes(self, op: str, spatial) -> tuple:
        return tuple(conv_out_size(op, n, k, s, d, p) for n, k, s, d, p in
                     zip(spatial, self.kernel, self.stride, self.dilate, self.pad))


def _geometry(attrs) -> ConvGeometry:
    return ConvGeometry("Convolution", attrs)


def _prod(t) -> int:
    p = 1
    for v in t:
        p *= v
    return p


def _batch_last(x_shape, w_shape, groups: int, geo) -> bool:
    """Whether this convolution uses the batch-last column layout (``_batch_last.py``)."""
    out_last = conv_out_size("Convolution", x_shape[-1], geo.kernel[-1], geo.stride[-1],
                             geo.dilate[-1], geo.pad[-1])
    return use_batch_last(x_shape[1] // groups, w_shape[0] // groups, geo.kernel, out_last)


def _columns(xp, x, groups, geo, osz, batch_last: bool, role: str | None = "col"):
    """Columns ``(groups, C/groups * prod(kernel), N * prod(out))`` of ``x``.

    The last axis is ordered ``(N, *out)``, or ``(*out, N)`` when ``batch_last``.  A
    scratch buffer for ``role``, or a fresh array for ``None``.
    """
    if batch_last:
        xt = to_batch_last(xp, x, geo.pad)
        col = im2col_batch_last(xp, xt, osz, geo.kernel, geo.stride, geo.dilate, role)
    else:
        col = im2col(xp, x, osz, geo.kernel, geo.stride, geo.dilate, role, pad=geo.pad)
    rows = x.shape[1] // groups * _prod(geo.kernel)  # explicit: -1 fails on empty arrays
    return col.reshape(groups, rows, x.shape[0] * _prod(osz))


def conv_forward(xp, x, w, groups: int, geo: ConvGeometry, bias=None, out=None,
                 keep: bool = False):
    """Convolution ``(N, F, *out)`` (plus ``bias`` when given), written into ``out``.

    With ``keep`` returns ``(y, columns)``: the columns as a fresh array, for
    :func:`conv_backward_weight` of the same call.
    """
    n = x.shape[0]
    f = w.shape[0]
    osz = geo.out_sizes("Convolution", x.shape[2:])
    batch_last = _batch_last(x.shape, w.shape, groups, geo)
    col = _columns(xp, x, groups, geo, osz, batch_last, None if keep else "col")
    y = matmul_scratch(xp, w.reshape(groups, f // groups, -1), col, "mm")  # (g, Fg, N*P)
    if batch_last:
        y = from_batch_last(xp, y, (n, f) + osz, bias, out)
    else:
        y = y.reshape((f, n) + osz).swapaxes(0, 1)
        if bias is not None:
            b = bias.reshape((1, f) + (1,) * geo.nd)
            if out is None:  # C order: a plain y + b would keep y's (F, N, ...) memory order
                out = xp.empty(y.shape, xp.result_type(y.dtype, b.dtype))
            y = xp.add(y, b, out=out)
        elif out is not None:
            out[...] = y
            y = out
        else:
            y = y.copy()  # y lives in a scratch buffer
    return (y, col) if keep else y


def conv_backward_data(xp, dy, w, x_shape, groups: int, geo: ConvGeometry, dyt=None):
    """Data gradient of a convolution.

    ``dyt``: ``dy`` as ``head_grad`` makes it, if already made.
    """
    n, c = x_shape[:2]
    osz = tuple(dy.shape[2:])
    padded = tuple(s + 2 * p for s, p in zip(x_shape[2:], geo.pad))
    if _batch_last(x_shape, w.shape, groups, geo):
        if dyt is None:
            dyt = head_grad_batch_last(xp, dy, groups)
        dxt = conv_data_grad_batch_last(xp, dyt, w, n, padded, osz, geo)  # (C, *padded, N)
        if any(geo.pad):
            dxt = dxt[inner_slice(geo.pad, x_shape[2:])]
        return dxt.transpose((dxt.ndim - 1,) + tuple(range(dxt.ndim - 1))).copy()
    if dyt is None:
        dyt = to_channel_major(xp, dy, groups)
    wm = w.reshape(groups, w.shape[0] // groups, -1).transpose(0, 2, 1)
    dcol = matmul_scratch(xp, wm, dyt, "dcol")                   # (g, Cg*K, N*P)
    dcol = dcol.reshape((c,) + geo.kernel + (n,) + osz)
    dxt = col2im(xp, dcol, (c, n) + padded, osz, geo.kernel, geo.stride, geo.dilate,
                 crop=(geo.pad, tuple(x_shape[2:])) if any(geo.pad) else None)
    return dxt.swapaxes(0, 1).copy()  # dxt lives in a scratch buffer


def head_grad(xp, dy, x_shape, w_shape, groups: int, geo: ConvGeometry):
    """The head gradient as ``(g, Fg, N*P)``, its last axis ordered like the columns."""
    if _batch_last(x_shape, w_shape, groups, geo):
        return head_grad_batch_last(xp, dy, groups)
    return to_channel_major(xp, dy, groups)


def conv_backward_weight(xp, dyt, x, w_shape, groups: int, geo: ConvGeometry, col=None):
    """Weight gradient from the head gradient ``dyt`` (``head_grad``) and the columns
    ``col`` that :func:`conv_forward` kept (rebuilt when ``None``)."""
    batch_last = _batch_last(x.shape, w_shape, groups, geo)
    if col is None:
        osz = geo.out_sizes("Convolution", x.shape[2:])
        col = _columns(xp, x, groups, geo, osz, batch_last)
    return xp.matmul(dyt, col.transpose(0, 2, 1)).reshape(w_shape)


def _check(x, w, attrs, geo):
    op = "Convolution"
    if x.ndim != geo.nd + 2:
        fail(op, f"data must have {geo.nd + 2} dimensions for a {geo.nd}-D kernel", x.shape)
    g = attrs.num_group
    if x.shape[1] % g or attrs.num_filter % g:
        fail(op, f"channels ({x.shape[1]}) and num_filter ({attrs.num_filter}) must be "
                 f"divisible by num_group ({g})", x.shape)
    expect = (attrs.num_filter, x.shape[1] // g) + geo.kernel
    if tuple(w.shape) != expect:
        fail(op, f"weight has shape {tuple(w.shape)}, expected {expect}", x.shape, w.shape)


# Plain 1x1 kernels with between ``_SMALL_1X1_WEIGHTS`` bounds of weights take
# ``_chunked`` at any size: one stacked matmul ``W @ x[n]`` straight from and into
# ``(N, C, P)`` memory, the weight staying in cache across the batch.  Measured
# (float32, batch 8, one process) against the channel-first transpose + GEMM +
# transpose: 128 -> 128 channels at 4x4 50 against 85 us, 64 -> 64 at 8x8 52
# against 85 us, 16 -> 16 at 8x8 15 against 29 us; with large weights (240 -> 1280
# at 2x2: 378 against 315 us) one whole-batch GEMM wins.  (Tiny weights gain too,
# (2, 8, 8, 8) -> 4: 12 against 24 us, but tests/ops/test_conv_chunked.py pins
# them to the whole-batch layout.)
_SMALL_1X1_WEIGHTS = (256, 1 << 16)


def _chunked(xp, x, w, groups: int, geo) -> bool:
    """Whether ``_chunked`` handles this convolution: plain 1x1 kernels, and large
    columns unless batch-last (short rows; measured 1.3x faster there at 14x14)."""
    lo, hi = _SMALL_1X1_WEIGHTS
    if (xp is np and lo <= w.size <= hi and x.shape[0] and not any(geo.pad)
            and all(k == 1 for k in geo.kernel) and all(s == 1 for s in geo.stride)):
        return True
    return use_chunked(xp, x.shape, geo, geo.out_sizes("Convolution", x.shape[2:]),
                       x.dtype.itemsize, _batch_last(x.shape, w.shape, groups, geo))


def _path(xp, x, w, groups: int, geo, osz) -> str:
    """``"chunked"`` (``_chunked``: also small columns with few rows per filter and
    many output pixels, ``use_batch_first``), ``"rows"`` (``_conv_rows``) or
    ``"whole"`` (the whole-batch channel-first or batch-last layouts here)."""
    if _chunked(xp, x, w, groups, geo):
        return "chunked"
    if use_rows(xp, x, w, groups, geo, osz):
        return "rows"
    return "chunked" if use_batch_first(xp, x, w, groups, geo, osz) else "whole"


def _forward(oc, attrs, inputs, out, keep_state=False):
    xp = oc.xp
    x, w = inputs[0], inputs[1]
    geo = _geometry(attrs)
    _check(x, w, attrs, geo)
    bias = None if attrs.no_bias else inputs[2]
    out = None if out is None else out[0]
    osz = geo.out_sizes("Convolution", x.shape[2:])
    plan = _cudnn_plan(xp, attrs, x, w, bias, geo, osz, (0,))
    if plan is not None:
        y = _cudnn_conv.conv_forward(xp, plan, x, w, bias, out)
        return ([y], None) if keep_state else [y]
    if use_depthwise(xp, x, w, attrs.num_group, osz, bias):
        y = depthwise_forward(xp, x, w, geo, osz, bias, out)
        return ([y], None) if keep_state else [y]
    path = _path(xp, x, w, attrs.num_group, geo, osz)
    # the state (on NumPy): the columns for the weight gradient, tagged with the path
    # that laid them out; on a GPU the backward rebuilds them (device memory)
    keep = keep_state and xp is np
    if path == "chunked":
        y = chunked_forward(xp, x, w, attrs.num_group, geo, osz, bias, out, keep)
    elif path == "rows":
        y = rows_forward(xp, x, w, geo, osz, bias, out, keep)
    else:
        y = conv_forward(xp, x, w, attrs.num_group, geo, bias, out, keep)
    if not keep_state:
        return [y]
    if not keep:
        return [y], None
    y, cols = y
    return [y], (None if cols is None else (path, cols))


def _backward(oc, attrs, inputs, outputs, out_grads, need=(True, True, True), state=None):
    xp = oc.xp
    x, w = inputs[0], inputs[1]
    geo = _geometry(attrs)
    dy = out_grads[0]
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    g = attrs.num_group
    mask = (need[0], need[1], not attrs.no_bias and len(need) > 2 and need[2])
    plan = _cudnn_plan(xp, attrs, x, w, None, geo, tuple(dy.shape[2:]),
                       tuple(d for d, m in ((1, mask[0]), (2, mask[1])) if m))
    if plan is not None:
        grads = _cudnn_conv.conv_backward(xp, plan, x, w, dy, mask)
        return grads if not attrs.no_bias else grads[:2]
    if use_depthwise(xp, x, w, g, dy.shape[2:], None if attrs.no_bias else inputs[2]):
        grads = depthwise_backward(xp, x, w, dy, geo, mask)
        return grads if not attrs.no_bias else grads[:2]
    path = _path(xp, x, w, g, geo, tuple(dy.shape[2:]))
    cols = state[1] if state is not None and state[0] == path else None
    if path == "chunked" and mask[0] and not _chunked(xp, x, w, g, geo):
        # small columns taken batch-first (``use_batch_first``): the chunked data
        # gradient (a convolution of the head gradient, F * K rows) loses to the
        # channel-first one here (LeNet's first layer, forward + backward: 13
        # against 4.5 ms)
        grads = chunked_backward(xp, x, w, dy, g, geo, (False,) + mask[1:], cols)
        grads[0] = conv_backward_data(xp, dy, w, x.shape, g, geo)
        return grads if not attrs.no_bias else grads[:2]
    if path != "whole":
        grads = (chunked_backward(xp, x, w, dy, g, geo, mask, cols) if path == "chunked" else
                 rows_backward(xp, x, w, dy, geo, mask, cols))
        return grads if not attrs.no_bias else grads[:2]
    dyt = head_grad(xp, dy, x.shape, w.shape, g, geo)
    dx = conv_backward_data(xp, dy, w, x.shape, g, geo, dyt) if need[0] else None
    dw = conv_backward_weight(xp, dyt, x, w.shape, g, geo, cols) if need[1] else None
    grads = [dx, dw]
    if not attrs.no_bias:
        grads.append(bias_grad(xp, dyt) if need[2] else None)
    return grads


def _cudnn_plan(xp, attrs, x, w, bias, geo, osz, directions):
    """The cuDNN plan serving this call and ``directions``, or ``None`` (own kernels)."""
    operands = (x, w) if bias is None else (x, w, bias)
    if not _cudnn_conv.usable(xp, attrs, *operands):
        return None
    plan = _cudnn_conv.plan("Convolution", x.shape, w.shape, (x.shape[0], w.shape[0]) + osz,
                            x.dtype, geo, attrs.num_group, attrs.workspace,
                            tune=_cudnn_conv.autotune(attrs))
    return plan if plan is not None and plan.supports(xp, directions) else None


def bias_grad(xp, dyt):
    """Row sums of the head gradient ``dyt`` ``(g, Fg, M)``: the bias gradient ``(F,)``.

    For BLAS dtypes a matrix-vector product with ones: about 4x faster than
    ``sum(axis=1)`` over LeNet's first convolution (36864 columns).
    """
    rows = dyt.reshape(dyt.shape[0] * dyt.shape[1], dyt.shape[2])
    if rows.dtype.char not in "fd":
        return rows.sum(axis=1)
    return xp.matmul(rows, xp.ones(rows.shape[1], rows.dtype))


def _infer_shape(attrs, in_shapes, out_shapes=(None,)):
    op = "Convolution"
    geo = _geometry(attrs)
    nd = geo.nd
    f, g = attrs.num_filter, attrs.num_group
    data = in_shapes[0]
    out_known = out_shapes[0] if out_shapes else None
    if data is not None and out_known is not None and len(out_known) == len(data):
        # unknown batch and spatial sizes come back from a known output, as in MXNet
        # (a begin state (0, C, H, W) feeding only a convolution of a ConvRNN cell;
        # Variable(shape=(0, C, 0, 0)) added to a known array); the smallest input
        # that gives the output
        spatial = tuple(d or max((o - 1) * st + dl * (k - 1) + 1 - 2 * p, 0) if o else d
                        for d, o, k, st, dl, p in zip(data[2:], out_known[2:], geo.kernel,
                                                      geo.stride, geo.dilate, geo.pad))
        data = (data[0] or out_known[0], data[1]) + spatial
    weight = in_shapes[1] if len(in_shapes) > 1 else None
    if data is not None and len(data) != nd + 2:
        fail(op, f"data must have {nd + 2} dimensions for a {nd}-D kernel", data)
    c = data[1] if data is not None else 0
    if not c and weight is not None and len(weight) > 1 and weight[1]:
        c = weight[1] * g
    if c and c % g:
        fail(op, f"channels ({c}) must be divisible by num_group ({g})", data)
    weight = merge_shapes(op, "weight", (f, c // g if c else 0) + geo.kernel, weight)
    if data is not None:
        data = merge_shapes(op, "data", data, (0, c) + (0,) * nd)
    ins = [data, weight]
    if not attrs.no_bias:
        ins.append(merge_shapes(op, "bias", (f,), in_shapes[2] if len(in_shapes) > 2 else None))
    if data is None:
        return ins, [None]
    out = tuple(conv_out_size(op, s, k, st, d, p) if s else 0 for s, k, st, d, p in
                zip(data[2:], geo.kernel, geo.stride, geo.dilate, geo.pad))
    return ins, [(data[0], f) + out]


def conv_attrs(workspace: int = 1024, no_bias: bool = False) -> dict:
    """The attributes shared by Convolution and Deconvolution."""
    return {
        "kernel": Attr("shape"),
        "stride": Attr("shape", ()),
        "dilate": Attr("shape", ()),
        "pad": Attr("shape", ()),
        "num_filter": Attr("int"),
        "num_group": Attr("int", 1),
        "workspace": Attr("int", workspace),
        "no_bias": Attr("bool", no_bias),
        "cudnn_tune": Attr("str", None, optional=True),
        "cudnn_off": Attr("bool", False),
        "layout": Attr("str", None, optional=True),
    }


def _inputs(attrs):
    return ("data", "weight") if attrs.no_bias else ("data", "weight", "bias")


register(support_channel_last(OpDef(
    "Convolution", _forward, backward=_backward, attrs=conv_attrs(), inputs=_inputs,
    infer_shape=_infer_shape, infer_shape_outputs=True, aliases=("Convolution_v1",),
    backward_uses=("inputs",),
    backward_mask=True, saved_state=True,
    summary_params=_visual.conv_params, plot_style=_visual.conv_style,
    doc="N-D convolution (MXNet ``Convolution``); channel-last layouts via "
        "``channel_last``."), moved_inputs=(0, 1)))
