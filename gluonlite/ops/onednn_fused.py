"""MXNet 1.9.1's fused oneDNN nodes: ``_sg_mkldnn_conv`` and ``_sg_mkldnn_fully_connected``.

MXNet's CPU build rewrites graphs for oneDNN (``optimize_for(backend='MKLDNN')``,
``get_backend_symbol('MKLDNN')``, and every CPU INT8 model from ``quantize_net`` or
GluonCV's ``*_int8`` exports): a Convolution with its BatchNorm, activation and
residual ``elemwise_add`` (or a FullyConnected with its activation) becomes one node
that carries the original layers as its subgraph.  The exported ``-symbol.json`` keeps
that node, so loading such a model needs these operators.

* ``quantized=False`` (a float fusion): the node means its subgraph; it runs the
  subgraph, forward and backward (MXNet folds the BatchNorm into the weights, which
  agrees to float32 rounding).
* ``quantized=True``: int8/uint8 data with its ``(min, max)`` range in, and out either
  int8/uint8 over the calibrated ``min_calib_range``/``max_calib_range``, int32 with the
  product's range, or float32 (``enable_float_output``), with MXNet's arithmetic
  (:mod:`gluonlite.ops._onednn_int8`).  Inference only; the gradient is zero, as MXNet's.

Inputs, in MXNet's order: the subgraph's inputs (``data``, ``weight``, ``bias``, the
BatchNorm's ``gamma``/``beta``/``mean``/``var``, the ``sum`` operand), then for a quantized
convolution ``data_min``, ``data_max`` (and ``sum_min``, ``sum_max``); for a quantized
fully connected layer ``min_data``, ``max_data`` and, unless ``channel_wise_quantize``,
the ranges of its int8 weight and bias.

The subgraph comes as ``attrs.subgraphs[0]``, used through the protocol of
:mod:`gluonlite.ops.control_flow` plus ``input_names()``, ``op_nodes()`` (``(operator
name, attributes)`` in topological order) and ``aux_positions()``.
"""
from __future__ import annotations

import numpy as np

from . import _onednn_int8 as q8
from . import _quantized_math as qm
from .attrs import Attr
from .common import fail
from .control_flow import _finish_grads, _merge, _subgraphs, _write
from .quantized_common import CALIB_ATTRS, F32
from .registry import OpAttrs, OpDef, get_op, register

f32 = np.float32  # scalars: MXNet computes its scales in float32

__all__ = ["SG_CONV", "SG_FC"]

_ACTS = ("Activation", "LeakyReLU", "clip")
_FC_ELTWISE = _ACTS + ("square", "sqrt", "exp", "abs")
_UINT8_ACTS = ("relu", "sigmoid", "softrelu")


def _sub(attrs, op: str):
    return _subgraphs(attrs, op, 1)[0]


def _n_base(attrs, op: str) -> int:
    return len(_sub(attrs, op).input_names())


def _find(nodes, name: str):
    return next((a for n, a in nodes if n == name), None)


def _acts(nodes, names=_ACTS) -> list:
    return [(n, a) for n, a in nodes if n in names]


def _uint8_act(act, fc: bool = False) -> bool:
    """MXNet's ``IsOutputUInt8``: whether the activation makes a calibrated output uint8
    (relu, sigmoid, softrelu, clip; for a fully connected layer also square, sqrt, exp,
    abs and a leaky relu, whose oneDNN algorithm is relu: MXNet's test ignores the slope
    there, so the negative side saturates to 0)."""
    name, a = act
    if name == "Activation":
        return a.act_type in _UINT8_ACTS
    if name == "LeakyReLU":
        return fc and a.act_type == "leaky"
    return name in _FC_ELTWISE


def _act_fn(oc, act, alpha_scale=f32(1)):
    """The post-op of one activation node on float32 values (oneDNN's eltwise: relu with
    its slope, clip as bounded relu with ``a_max * alpha_scale``, else the operator)."""
    name, a = act
    xp = oc.xp
    if name == "Activation" and a.act_type == "relu":
        return lambda y: q8.relu_in_place(xp, y)  # y: the node's own scratch
    if name == "LeakyReLU" and a.act_type == "leaky":
        slope = f32(a.slope)
        return lambda y: xp.where(y > 0, y, y * slope)
    if name == "clip":
        top = f32(a.a_max) * f32(alpha_scale)
        return lambda y: xp.minimum(xp.maximum(y, f32(0)), top)
    op = get_op(name)
    return lambda y: op.forward(oc, a, [y], None)[0].astype(f32)


def _chain(*fns) -> list:
    """The post-ops for :func:`~._onednn_int8.finish` (those given)."""
    return [f for f in fns if f is not None]


# -- the float fusion: run the subgraph ------------------------------------------------
def _float_forward(oc, attrs, op, inputs, out, keep_state):
    res, state = _sub(attrs, op).run(oc, list(inputs), keep_state)
    results = _write(list(res), out)
    return (results, state) if keep_state else results


def fused_forward(op: str, quantized):
    """``forward`` of a fused node: the subgraph when float, ``quantized(oc, attrs,
    inputs, out)`` when INT8 (no state: there is no gradient to keep it for; an
    operator with ``prepare`` gets its prepared weights as ``prepared``)."""
    def forward(oc, attrs, inputs, out, keep_state: bool = False, prepared=None):
        if not attrs.quantized:
            return _float_forward(oc, attrs, op, inputs, out, keep_state)
        if prepared is None:
            results = quantized(oc, attrs, inputs, out)
        else:
            results = quantized(oc, attrs, inputs, out, prepared=prepared)
        return (results, None) if keep_state else results
    return forward


def fused_infer_shape(op: str, n_outputs):
    """Shapes through the subgraph; a quantized node's ranges (inputs past the
    subgraph's, outputs after the first) are ``(1,)``."""
    def infer(attrs, in_shapes):
        n = _n_base(attrs, op)
        base = [_merge(s, None) for s in in_shapes[:n]]
        s_in, s_out = _sub(attrs, op).infer_shape(base)
        ins = [_merge(a, b) for a, b in zip(base, s_in)]
        if not attrs.quantized:
            return ins, list(s_out)
        return (ins + [(1,)] * (len(in_shapes) - n),
                [s_out[0]] + [(1,)] * (n_outputs(attrs) - 1))
    return infer


def _backward(op):
    def backward(oc, attrs, inputs, outputs, out_grads, need=None, state=None):
        if attrs.quantized:  # MXNet: zero gradients
            return [None] * len(inputs)
        sub = _sub(attrs, op)
        if state is None:
            _, state = _float_forward(oc, attrs, op, inputs, None, keep_state=True)
        return _finish_grads(oc.xp, inputs, list(sub.backward(oc, state, list(out_grads))),
                             need)
    return backward


# -- _sg_mkldnn_conv ----------------------------------------------------------------------
_CONV = "_sg_mkldnn_conv"


def _conv_layout(attrs) -> dict:
    """Positions of the node's inputs (MXNet's ``SgMKLDNNConvListInputNames``)."""
    nodes = _sub(attrs, _CONV).op_nodes()
    conv = _find(nodes, "Convolution")
    if conv is None:
        fail(_CONV, "its subgraph has no Convolution")
    names = ["data", "weight"] + ([] if conv.no_bias else ["bias"])
    if attrs.with_bn:
        names += ["gamma", "beta", "mean", "var"]
    if attrs.with_sum:
        names.append("sum")
    if attrs.quantized:
        names += ["data_min", "data_max"] + (["sum_min", "sum_max"] if attrs.with_sum else [])
    return {"names": tuple(names), "nodes": nodes, "conv": conv}


def _conv_inputs(attrs) -> tuple:
    return _conv_layout(attrs)["names"]


def _with_act(attrs) -> bool:
    return attrs.with_act or attrs.with_relu  # ``with_relu``: MXNet's older name


def _with_postsum_act(attrs) -> bool:
    return attrs.with_postsum_act or attrs.with_postsum_relu


def _conv_acts(attrs, nodes):
    """``(act, postsum act)`` nodes, as MXNet assigns them."""
    acts = _acts(nodes)
    act = acts.pop(0) if _with_act(attrs) and acts else None
    post = acts.pop(0) if _with_postsum_act(attrs) and acts else None
    return act, post


def _conv_out_kind(attrs, nodes) -> str:
    if attrs.min_calib_range is None or attrs.max_calib_range is None:
        return "int32"
    act, post = _conv_acts(attrs, nodes)
    if not attrs.with_sum and act is not None:
        return "uint8" if _uint8_act(act) else "int8"
    if _with_postsum_act(attrs) and post is not None:
        return "uint8" if _uint8_act(post) else "int8"
    return "int8"


_CONV_WEIGHTS = ("weight", "bias", "gamma", "beta", "mean", "var")


def _conv_prepared_inputs(attrs) -> tuple:
    """A quantized node's weight, bias and BatchNorm parameters (positions)."""
    if not attrs.quantized:
        return ()
    return tuple(i for i, n in enumerate(_conv_inputs(attrs)) if n in _CONV_WEIGHTS)


def _prepare_conv(oc, attrs, inputs) -> q8.PreparedWeights:
    """The weight with the BatchNorm folded in, and what comes from it alone."""
    lay = _conv_layout(attrs)
    x = dict(zip(lay["names"], inputs))
    weight, bias = x["weight"], x.get("bias")
    if attrs.with_bn:
        bn = _find(lay["nodes"], "BatchNorm")
        weight, bias = q8.fold_batch_norm(oc.xp, weight, bias, x["gamma"], x["beta"],
                                          x["mean"], x["var"], bn.eps, bn.fix_gamma)
    return q8.PreparedWeights(oc.xp, weight, bias)


def _quantized_conv(oc, attrs, inputs, out, prepared=None):
    xp = oc.xp
    lay = _conv_layout(attrs)
    names, nodes, conv_attrs = lay["names"], lay["nodes"], lay["conv"]
    x = dict(zip(names, inputs))
    data = x["data"]
    if data.dtype not in (np.int8, np.uint8):
        fail(_CONV, f"quantized: expects int8/uint8 data, got {data.dtype}", data.shape)
    d_lo, d_hi = qm.scalar(xp, x["data_min"]), qm.scalar(xp, x["data_max"])
    d_kind = qm.kind(data.dtype)
    if d_lo < 0 and d_kind != "int8":
        fail(_CONV, "expects int8 data when data_min < 0", data.shape)
    if prepared is None:
        prepared = _prepare_conv(oc, attrs, inputs)
    calib = attrs.min_calib_range is not None and attrs.max_calib_range is not None
    d_scale = q8.quantize_scale(d_kind, d_lo, d_hi)
    w_scales, w_range = prepared.scales(d_scale, channelwise=calib)
    w_q, memo = prepared.levels(xp, w_scales)
    bias = prepared.bias
    b_q = None if bias is None else q8.reorder(xp, bias, w_scales * d_scale, "int32")
    conv = get_op("Convolution")
    # cudnn_off: the integer sums must be exact, and cuDNN may pick FFT or Winograd
    # algorithms, which are not; our own kernels are one GEMM over the columns
    cattrs = conv.parse_attrs(dict(conv_attrs._given, no_bias=True, cudnn_off=True))
    if "bound" not in memo:
        memo["bound"] = qm.conv_bound(xp, w_q, int(cattrs.num_group),
                                      _channel_axis(cattrs) == -1)
    dtype = qm.conv_exact_dtype(xp, data, memo["bound"], _channel_axis(cattrs))
    acc = conv.forward(oc, cattrs, [data.astype(dtype), w_q.astype(dtype, copy=False)],
                       None)[0]
    out_kind = _conv_out_kind(attrs, nodes)
    act, post = _conv_acts(attrs, nodes)
    if calib:
        lo, hi = float(attrs.min_calib_range), float(attrs.max_calib_range)
        out_scale = q8.quantize_scale(out_kind, lo, hi)
        scales = ((out_scale / d_scale) / w_scales).astype(f32)
    else:
        hi = q8.int32_product_range(w_range, (d_lo, d_hi), d_kind == "uint8")
        lo, out_scale, scales = -hi, f32(d_scale * w_scales[0]), None
    act_fn = None
    if act is not None:
        if act[0] == "clip" and calib and not attrs.with_sum:
            act_fn = None  # MXNet drops it: the calibrated range does the clipping
        else:
            act_fn = _act_fn(oc, act, out_scale if (act[0] == "clip" and calib) else f32(1))
    sum_fn, dst_kind = None, out_kind
    if attrs.with_sum:
        s = x["sum"]
        s_scale = q8.quantize_scale(qm.kind(s.dtype), qm.scalar(xp, x["sum_min"]),
                                    qm.scalar(xp, x["sum_max"]))
        sum_fn = q8.Residual(s, f32(out_scale / s_scale))
        if out_kind != "int32":
            dst_kind = qm.kind(s.dtype)
    post_fn = _act_fn(oc, post) if post is not None else None
    y = q8.finish(xp, acc, b_q, scales, _chain(act_fn, sum_fn, post_fn), dst_kind)
    if dst_kind != out_kind:
        # MXNet runs the sum in place in the residual's buffer: the result saturates to
        # the residual's type and its bytes become the output (an int8 residual under a
        # uint8 output caps it at 127; MXNet's numbers, kept)
        y = y.view(np.dtype(out_kind))
    lo_a, hi_a = qm.range_arrays(xp, lo, hi)
    return _write([y, lo_a, hi_a], out)


def _channel_axis(cattrs) -> int:
    layout = cattrs.layout or "NC"
    return 1 if layout.startswith("NC") else -1


def _conv_infer_type(op, attrs, in_dtypes):
    sub = _sub(attrs, _CONV)
    n = _n_base(attrs, _CONV)
    if not attrs.quantized:
        s_in, s_out = sub.infer_type(list(in_dtypes))
        return list(s_in), list(s_out)
    names = _conv_inputs(attrs)
    keep = {0} | ({names.index("sum")} if attrs.with_sum else set())
    base = [F32 if i in keep else d for i, d in enumerate(in_dtypes[:n])]
    s_in, _ = sub.infer_type(base)
    ins = [in_dtypes[i] if i in keep else s_in[i] for i in range(n)]
    ins += [F32] * (len(in_dtypes) - n)
    out_kind = _conv_out_kind(attrs, sub.op_nodes())
    return ins, [np.dtype(out_kind), F32, F32]


def _quantized_outputs(attrs) -> int:
    return 3 if attrs.quantized else 1


class _FusedOpDef(OpDef):
    """A fused node's auxiliary inputs are those its subgraph mutates (the BatchNorm's
    moving statistics), as for ``_CachedOp``."""

    def aux_indices(self, attrs: OpAttrs) -> tuple:
        subs = getattr(attrs, "subgraphs", ())
        positions = getattr(subs[0], "aux_positions", None) if len(subs) == 1 else None
        return tuple(positions()) if positions is not None else ()


_COMMON = dict(saved_state=True, capturable=False, backward_uses=("inputs",),
               backward_mask=True, num_subgraphs=1)

SG_CONV = register(_FusedOpDef(
    _CONV, fused_forward(_CONV, _quantized_conv), backward=_backward(_CONV),
    prepare=_prepare_conv, prepared_inputs=_conv_prepared_inputs,
    mutates_aux=lambda attrs, is_train: is_train and not attrs.quantized,
    attrs={"with_bn": Attr("bool", False), "with_act": Attr("bool", False),
           "with_sum": Attr("bool", False), "with_postsum_act": Attr("bool", False),
           "with_relu": Attr("bool", False), "with_postsum_relu": Attr("bool", False),
           "quantized": Attr("bool", False), **CALIB_ATTRS,
           "subgraphs": Attr("object", ())},
    inputs=_conv_inputs, num_outputs=_quantized_outputs,
    output_names=lambda attrs: (("output", "output_min", "output_max") if attrs.quantized
                                else ("output",)),
    infer_shape=fused_infer_shape(_CONV, _quantized_outputs), infer_type=_conv_infer_type,
    doc="A Convolution fused with its BatchNorm, activation and residual sum by MXNet's "
        "oneDNN backend (its subgraph), float32 or INT8.", **_COMMON))
SG_CONV.aux_names = ("<subgraph's mutated inputs>",)


# -- _sg_mkldnn_fully_connected ----------------------------------------------------------
_FC = "_sg_mkldnn_fully_connected"


def _fc_channelwise(attrs) -> bool:
    return bool(attrs.channel_wise_quantize)


def _fc_inputs(attrs) -> tuple:
    nodes = _sub(attrs, _FC).op_nodes()
    fc = _find(nodes, "FullyConnected")
    if fc is None:
        fail(_FC, "its subgraph has no FullyConnected")
    names = ["data", "weight"] + ([] if fc.no_bias else ["bias"])
    if attrs.quantized:
        names += ["min_data", "max_data"]
        if not _fc_channelwise(attrs):
            names += ["min_weight", "max_weight"]
            if not fc.no_bias:
                names += ["min_bias", "max_bias"]
    return tuple(names)


def _fc_outputs(attrs) -> int:
    return 3 if attrs.quantized and not attrs.enable_float_output else 1


def _fc_out_kind(attrs, nodes) -> str | None:
    if attrs.enable_float_output:
        return None
    if attrs.min_calib_range is None or attrs.max_calib_range is None:
        return "int32"
    acts = _acts(nodes, _FC_ELTWISE)
    if (attrs.with_eltwise or attrs.with_relu) and acts and _uint8_act(acts[0], fc=True):
        return "uint8"
    return "int8"


def _fc_prepared_inputs(attrs) -> tuple:
    """A quantized node's weight (and, channel-wise, its float bias): positions."""
    if not attrs.quantized:
        return ()
    kept = ("weight", "bias") if _fc_channelwise(attrs) else ("weight",)
    return tuple(i for i, n in enumerate(_fc_inputs(attrs)) if n in kept)


def _prepare_fc(oc, attrs, inputs):
    """Channel-wise: the float weight's :class:`~._onednn_int8.PreparedWeights`; else the
    offline int8 weight as float32 values, with a memo for the GEMM's bound."""
    x = dict(zip(_fc_inputs(attrs), inputs))
    if _fc_channelwise(attrs):
        return q8.PreparedWeights(oc.xp, x["weight"], x.get("bias"))
    return x["weight"].astype(f32), {}


def _quantized_fc(oc, attrs, inputs, out, prepared=None):
    xp = oc.xp
    names = _fc_inputs(attrs)
    nodes = _sub(attrs, _FC).op_nodes()
    fc = _find(nodes, "FullyConnected")
    x = dict(zip(names, inputs))
    data, weight, bias = x["data"], x["weight"], x.get("bias")
    if data.dtype not in (np.int8, np.uint8):
        fail(_FC, f"quantized: expects int8/uint8 data, got {data.dtype}", data.shape)
    d_lo, d_hi = qm.scalar(xp, x["min_data"]), qm.scalar(xp, x["max_data"])
    d_kind = qm.kind(data.dtype)
    d_scale = q8.quantize_scale(d_kind, d_lo, d_hi)
    calib = attrs.min_calib_range is not None and attrs.max_calib_range is not None
    out_kind = _fc_out_kind(attrs, nodes)
    if _fc_channelwise(attrs):
        if not (calib or attrs.enable_float_output):
            fail(_FC, "channel-wise quantization needs a calibrated output range or "
                      "enable_float_output", data.shape)
        if prepared is None:
            prepared = _prepare_fc(oc, attrs, inputs)
        w_scales, w_range = prepared.scales(d_scale, channelwise=True)
        w_q, memo = prepared.levels(xp, w_scales)
        b_q = None if bias is None else q8.reorder(xp, prepared.bias, w_scales * d_scale,
                                                    "int32")
    else:
        if weight.dtype != np.int8:
            fail(_FC, f"quantized: expects an int8 weight, got {weight.dtype}", weight.shape)
        w_range = (qm.scalar(xp, x["min_weight"]), qm.scalar(xp, x["max_weight"]))
        w_scales = np.asarray([q8.quantize_scale("int8", *w_range)], dtype=f32)
        w_q, memo = prepared if prepared is not None else (weight, None)
        b_q = None
        if bias is not None:
            rescaled, b_q, w_scales = _fc_int32_bias(xp, weight, bias, x, d_scale, w_scales)
            if rescaled is not weight:   # the weight's scale was lowered for the bias
                w_q, memo = rescaled, None
    rows = data.reshape(data.shape[0], -1) if fc.flatten else data.reshape(-1, data.shape[-1])
    if rows.shape[1] != w_q.shape[1]:
        fail(_FC, f"data's {rows.shape[1]} features do not match the weight's "
                  f"{w_q.shape[1]}", data.shape, weight.shape)
    acc = qm.int_matmul(xp, rows, w_q.T, memo)
    acts = _acts(nodes, _FC_ELTWISE)
    act = acts[0] if (attrs.with_eltwise or attrs.with_relu) and acts else None
    lo = hi = None
    if calib or attrs.enable_float_output:
        inv = f32(1.0 / float(d_scale))
        if calib:
            lo, hi = float(attrs.min_calib_range), float(attrs.max_calib_range)
            o_scale = q8.quantize_scale(out_kind, lo, hi)
        post = None
        if act is not None:
            eltwise_scale = o_scale if calib else f32(1)
            fn = _act_fn(oc, act)
            post = lambda y: fn(y) * eltwise_scale  # noqa: E731
            tmp = inv
        else:
            tmp = f32(o_scale / d_scale) if calib else inv
        scales = (tmp / w_scales).astype(f32)
        y = q8.finish(xp, acc, b_q, scales, _chain(post), out_kind)
    else:
        hi = q8.int32_product_range((d_lo, d_hi), w_range, d_kind == "uint8")
        lo = -hi
        y = q8.finish(xp, acc, b_q, None, _chain(_act_fn(oc, act) if act else None),
                      "int32")
    shape = _fc_out_shape(fc, data, w_q.shape[0])
    y = y.reshape(shape)
    if out_kind is None:
        return _write([y], out)
    lo_a, hi_a = qm.range_arrays(xp, lo, hi)
    return _write([y, lo_a, hi_a], out)


def _fc_int32_bias(xp, weight, bias, x, d_scale, w_scales):
    """MXNet's offline-quantized int8 bias as int32 (``std::round``: half away from zero),
    lowering the weights' scale where the bias would pass ``INT32_MAX / 2``."""
    b_lo, b_hi = qm.scalar(xp, x["min_bias"]), qm.scalar(xp, x["max_bias"])
    b_scale = q8.quantize_scale("int8", b_lo, b_hi)
    rescale = f32(f32(d_scale * w_scales[0]) / b_scale)
    b_range = qm.max_abs(b_lo, b_hi)
    cap = f32(f32(1073741823) / f32(b_range)) / b_scale if b_range else f32(np.inf)
    w_q = weight
    if rescale > cap:
        w_rescale = f32(f32(f32(cap * b_scale) / d_scale) / w_scales[0])
        w_q = _round_away(xp, weight.astype(f32) * w_rescale).astype(np.int8)
        w_scales = (w_scales * w_rescale).astype(f32)
        rescale = cap
    b_q = _round_away(xp, bias.astype(f32) * rescale).astype(np.int32)
    return w_q, b_q, w_scales


def _round_away(xp, v):
    """C's ``std::round``: halves away from zero."""
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


def _fc_out_shape(fc, data, num_hidden: int) -> tuple:
    if fc.flatten:
        return (data.shape[0], num_hidden)
    return tuple(data.shape[:-1]) + (num_hidden,)


def _fc_infer_type(op, attrs, in_dtypes):
    sub = _sub(attrs, _FC)
    n = _n_base(attrs, _FC)
    if not attrs.quantized:
        s_in, s_out = sub.infer_type(list(in_dtypes))
        return list(s_in), list(s_out)
    params = F32 if _fc_channelwise(attrs) else np.dtype(np.int8)
    ins = [in_dtypes[0]] + [params] * (n - 1) + [F32] * (len(in_dtypes) - n)
    kind = _fc_out_kind(attrs, sub.op_nodes())
    if kind is None:
        return ins, [F32]
    return ins, [np.dtype(kind), F32, F32]


SG_FC = register(_FusedOpDef(
    _FC, fused_forward(_FC, _quantized_fc), backward=_backward(_FC),
    prepare=_prepare_fc, prepared_inputs=_fc_prepared_inputs,
    attrs={"quantized": Attr("bool", False), "enable_float_output": Attr("bool", False),
           "with_eltwise": Attr("bool", False), "with_relu": Attr("bool", False),
           **CALIB_ATTRS,
           "channel_wise_quantize": Attr("bool", None, optional=True),
           "subgraphs": Attr("object", ())},
    inputs=_fc_inputs, num_outputs=_fc_outputs,
    output_names=lambda attrs: (("output", "min_output", "max_output")
                                if _fc_outputs(attrs) == 3 else ("output",)),
    infer_shape=fused_infer_shape(_FC, _fc_outputs), infer_type=_fc_infer_type,
    doc="A FullyConnected fused with its elementwise activation by MXNet's oneDNN "
        "backend (its subgraph), float32 or INT8.", **_COMMON))
