"""``Deconvolution``: the transposed convolution, 1-D, 2-D and 3-D.

The weight has shape ``(C_in, num_filter / num_group, *kernel)`` and, as in
MXNet 1.9, ``no_bias`` defaults to True.  The output length along each axis is
``(in - 1) * stride - 2 * pad + dilate * (kernel - 1) + 1 + adj``; with
``target_shape`` the output has that length, ``pad``/``adj`` are ignored and the
implicit padding on the left is ``ceil(total / 2)`` of the
``total = full - target`` cropped elements (MXNet's reference kernel).

Forward is one GEMM per group from channel-major data to columns followed by
``col2im`` (the data gradient of a convolution); backward is one im2col and a
GEMM for the data gradient and one GEMM for the weight gradient.
"""
from __future__ import annotations

from .common import fail, merge_shapes, put
from .convolution import ConvGeometry, conv_attrs
from .registry import OpDef, register
from .channel_last import support_channel_last
from . import _cudnn_conv
from ._window import (col2im, from_channel_major, im2col, matmul_scratch, scratch,
                      spatial_tuple, to_channel_major)


def _prod(t) -> int:
    p = 1
    for v in t:
        p *= v
    return p

_OP = "Deconvolution"


class _DeconvPlan:
    """Geometry of one call: output sizes, left crop and scatter-buffer sizes."""

    def __init__(self, attrs, spatial):
        geo = ConvGeometry(_OP, attrs)
        self.geo = geo
        nd = geo.nd
        adj = spatial_tuple(_OP, "adj", attrs.adj, nd, 0)
        target = tuple(attrs.target_shape) if attrs.target_shape else ()
        if target and len(target) != nd:
            fail(_OP, f"'target_shape' must have {nd} entries, got {target}")
        outs, lo, full = [], [], []
        for i, n in enumerate(spatial):
            ext = geo.dilate[i] * (geo.kernel[i] - 1) + 1
            f = (n - 1) * geo.stride[i] + ext
            if target and target[i]:
                total = f - target[i]
                if total < 0:
                    fail(_OP, f"target_shape {target} is too big for input length {n} "
                              f"(at most {f})")
                outs.append(target[i])
                lo.append((total + 1) // 2)
            else:
                o = f - 2 * geo.pad[i] + adj[i]
                if o <= 0:
                    fail(_OP, f"output length {o} along axis {i + 2} is not positive")
                outs.append(o)
                lo.append(geo.pad[i])
            full.append(max(f, lo[-1] + outs[-1]))
        self.out = tuple(outs)
        self.lo = tuple(lo)
        self.full = tuple(full)


def _check(x, w, attrs, nd):
    if x.ndim != nd + 2:
        fail(_OP, f"data must have {nd + 2} dimensions for a {nd}-D kernel", x.shape)
    g = attrs.num_group
    if x.shape[1] % g or attrs.num_filter % g:
        fail(_OP, f"channels ({x.shape[1]}) and num_filter ({attrs.num_filter}) must be "
                  f"divisible by num_group ({g})", x.shape)
    expect = (x.shape[1], attrs.num_filter // g) + tuple(attrs.kernel)
    if tuple(w.shape) != expect:
        fail(_OP, f"weight has shape {tuple(w.shape)}, expected {expect}", x.shape, w.shape)


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    x, w = inputs[0], inputs[1]
    plan = _DeconvPlan(attrs, x.shape[2:])
    geo = plan.geo
    _check(x, w, attrs, geo.nd)
    n, c = x.shape[:2]
    g, f = attrs.num_group, attrs.num_filter
    bias = None if attrs.no_bias else inputs[2]
    cplan = _cudnn_plan(xp, attrs, x, w, bias, plan, (1,))
    if cplan is not None:
        y = _cudnn_conv.deconv_forward(xp, cplan, x, w, bias, (n, f) + plan.out,
                                       None if out is None else out[0])
        return [y]
    wm = w.reshape(g, c // g, -1)                              # (g, Cg, Fg*K)
    xt = to_channel_major(xp, x, g)                            # (g, Cg, N*P)
    dcol = matmul_scratch(xp, wm.transpose(0, 2, 1), xt, "dcol")  # (g, Fg*K, N*P)
    dcol = dcol.reshape((f,) + geo.kernel + (n,) + tuple(x.shape[2:]))
    buf = col2im(xp, dcol, (f, n) + plan.full, x.shape[2:], geo.kernel, geo.stride,
                 geo.dilate, crop=(plan.lo, plan.out))
    y = buf.swapaxes(0, 1)                                     # (N, F, *out) view
    if not attrs.no_bias:
        b = inputs[2].reshape((1, f) + (1,) * geo.nd)
        return [xp.add(y, b, out=None if out is None else out[0])]
    return [put(out, 0, y.copy() if out is None else y)]  # buf is a scratch buffer


def _padded_grad(xp, dy, plan):
    """The head gradient placed at ``lo`` in a zero buffer of the scatter size."""
    if plan.full == plan.out and not any(plan.lo):
        return dy
    buf = scratch(xp, dy.shape[:2] + plan.full, dy.dtype, "dpad", zero=True)
    buf[(slice(None), slice(None)) + tuple(slice(a, a + o) for a, o in
                                           zip(plan.lo, plan.out))] = dy
    return buf


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, w = inputs[0], inputs[1]
    plan = _DeconvPlan(attrs, x.shape[2:])
    geo = plan.geo
    dy = out_grads[0]
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    n, c = x.shape[:2]
    g = attrs.num_group
    mask = (True, True, not attrs.no_bias)
    cplan = _cudnn_plan(xp, attrs, x, w, None, plan, (0, 2))
    if cplan is not None:
        grads = _cudnn_conv.deconv_backward(xp, cplan, x, w, dy, mask)
        return grads if not attrs.no_bias else grads[:2]
    dyp = _padded_grad(xp, dy, plan)
    col = im2col(xp, dyp, x.shape[2:], geo.kernel, geo.stride, geo.dilate)
    npos = n * _prod(x.shape[2:])
    col = col.reshape(g, -1, npos)                             # (g, Fg*K, N*P)
    wm = w.reshape(g, c // g, -1)                              # (g, Cg, Fg*K)
    dx = from_channel_major(xp, matmul_scratch(xp, wm, col, "mm"), n, x.shape[2:])
    xt = to_channel_major(xp, x, g)                            # (g, Cg, N*P)
    dw = xp.matmul(xt, col.transpose(0, 2, 1))                 # (g, Cg, Fg*K)
    grads = [dx, dw.reshape(w.shape)]
    if not attrs.no_bias:
        grads.append(dy.sum(axis=(0,) + tuple(range(2, dy.ndim))))
    return grads


def _cudnn_plan(xp, attrs, x, w, bias, plan, directions):
    """The cuDNN plan of this call (a convolution from the output to ``x``, padded by
    the left crop), or ``None`` where cuDNN's symmetric padding cannot express the
    crop (e.g. an odd ``target_shape`` remainder at stride 1)."""
    operands = (x, w) if bias is None else (x, w, bias)
    if not _cudnn_conv.usable(xp, attrs, *operands):
        return None
    geo = plan.geo
    for n, o, p, k, s, d in zip(x.shape[2:], plan.out, plan.lo, geo.kernel, geo.stride,
                                geo.dilate):
        span = o + 2 * p - (d * (k - 1) + 1)
        if span < 0 or span // s + 1 != n:
            return None
    y_shape = (x.shape[0], attrs.num_filter) + plan.out
    cplan = _cudnn_conv.plan("Deconvolution", y_shape, w.shape, x.shape, x.dtype, geo,
                             attrs.num_group, attrs.workspace, pad=plan.lo,
                             tune=_cudnn_conv.autotune(attrs))
    return cplan if cplan is not None and cplan.supports(xp, directions) else None


def _infer_shape(attrs, in_shapes):
    geo = ConvGeometry(_OP, attrs)
    nd = geo.nd
    f, g = attrs.num_filter, attrs.num_group
    data = in_shapes[0]
    weight = in_shapes[1] if len(in_shapes) > 1 else None
    if data is not None and len(data) != nd + 2:
        fail(_OP, f"data must have {nd + 2} dimensions for a {nd}-D kernel", data)
    c = data[1] if data is not None else 0
    if not c and weight is not None and weight[0]:
        c = weight[0]
    weight = merge_shapes(_OP, "weight", (c, f // g) + geo.kernel, weight)
    if data is not None:
        data = merge_shapes(_OP, "data", data, (0, c) + (0,) * nd)
    ins = [data, weight]
    if not attrs.no_bias:
        ins.append(merge_shapes(_OP, "bias", (f,), in_shapes[2] if len(in_shapes) > 2 else None))
    if data is None:
        return ins, [None]
    if all(data[2:]):
        out = _DeconvPlan(attrs, data[2:]).out
    else:
        out = (0,) * nd
    return ins, [(data[0], f) + out]


def _attrs():
    a = conv_attrs(workspace=512, no_bias=True)
    from .attrs import Attr
    a["adj"] = Attr("shape", ())
    a["target_shape"] = Attr("shape", ())
    return a


def _inputs(attrs):
    return ("data", "weight") if attrs.no_bias else ("data", "weight", "bias")


register(support_channel_last(OpDef(
    _OP, _forward, backward=_backward, attrs=_attrs(), inputs=_inputs,
    infer_shape=_infer_shape, backward_uses=("inputs",),
    doc="N-D transposed convolution (MXNet ``Deconvolution``); channel-last layouts via "
        "``channel_last``."), moved_inputs=(0, 1)))
