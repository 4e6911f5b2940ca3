"""How each operator is written as ONNX (opset 13) nodes, for ``mx.onnx.export_model``.

Operator knowledge, so it lives with the operators; the exporter
(:mod:`gluonlite.onnx`) walks a graph and calls :func:`converter` of each node's
operator with two objects of its own (this module never imports ``onnx``):

* a *builder* ``b``: ``b.node(op_type, inputs, outputs=None, n_out=1, **attrs) ->
  output names`` adds one ONNX node (fresh output names unless ``outputs`` are
  given); ``b.const(array, hint) -> name`` adds an initializer; ``b.ints(values,
  hint)`` an int64 1-D one;
* a *node view* ``n``: ``n.name``, ``n.attrs`` (parsed), ``n.inputs`` (tensor names),
  ``n.in_shapes``/``n.in_dtypes``, ``n.out_shapes``/``n.out_dtypes`` (from inference:
  exports are for static shapes), ``n.outputs`` (the names the node's outputs must
  take), ``n.param(i)`` (the value of input ``i`` when it is a parameter, else
  ``None``), ``n.unsupported(why)`` (an ``MXNetError`` naming the node) and
  ``n.static(what)``, which refuses a conversion that bakes in a shape when the export
  has dynamic input shapes.

A converter writes the node's visible outputs under ``n.outputs``.  Semantics are
MXNet's inference semantics (Dropout is the identity, BatchNorm uses the running
statistics).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["converter", "supported"]

OPSET = 13
_INT_MAX = np.iinfo(np.int64).max

_CONVERTERS: dict = {}


def _register(*names):
    def wrap(fn):
        for name in names:
            _CONVERTERS[name] = fn
        return fn
    return wrap


def converter(op_name: str):
    """The converter of the operator named ``op_name`` (canonical name), or ``None``."""
    return _CONVERTERS.get(op_name)


def supported() -> list:
    """Names of the operators :func:`converter` knows, sorted."""
    return sorted(_CONVERTERS)


def _scalar(b, value, dtype, hint="scalar"):
    return b.const(np.array(value, dtype=dtype), hint)


# -- elementwise ------------------------------------------------------------------------
_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log",
          "sqrt": "Sqrt", "abs": "Abs", "negative": "Neg", "reciprocal": "Reciprocal",
          "floor": "Floor", "ceil": "Ceil", "erf": "Erf", "sin": "Sin", "cos": "Cos",
          "tan": "Tan", "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan", "sinh": "Sinh",
          "cosh": "Cosh", "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh",
          "sign": "Sign", "softsign": "Softsign", "_copy": "Identity",
          "BlockGrad": "Identity", "identity": "Identity"}


def _unary(onnx_op):
    def convert(b, n):
        b.node(onnx_op, n.inputs[:1], outputs=n.outputs)
    return convert


for _mx, _ox in _UNARY.items():
    _CONVERTERS[_mx] = _unary(_ox)


@_register("square")
def _square(b, n):
    b.node("Mul", [n.inputs[0], n.inputs[0]], outputs=n.outputs)


@_register("rsqrt")
def _rsqrt(b, n):
    root = b.node("Sqrt", n.inputs[:1])
    b.node("Reciprocal", root, outputs=n.outputs)


@_register("Activation")
def _activation(b, n):
    act = n.attrs.act_type
    simple = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus",
              "softsign": "Softsign"}
    if act in simple:
        b.node(simple[act], n.inputs, outputs=n.outputs)
    else:
        raise n.unsupported(f"act_type={act!r}")


@_register("LeakyReLU")
def _leaky_relu(b, n):
    act, x = n.attrs.act_type, n.inputs[0]
    if act == "leaky":
        b.node("LeakyRelu", [x], outputs=n.outputs, alpha=float(n.attrs.slope))
    elif act == "rrelu":  # inference: the mean of the random slopes
        b.node("LeakyRelu", [x], outputs=n.outputs,
               alpha=float(n.attrs.lower_bound + n.attrs.upper_bound) / 2)
    elif act == "elu":
        b.node("Elu", [x], outputs=n.outputs, alpha=float(n.attrs.slope))
    elif act == "selu":
        b.node("Selu", [x], outputs=n.outputs, alpha=1.6732632423543772,
               gamma=1.0507009873554805)
    elif act == "prelu":
        ndim = len(n.in_shapes[0])
        gamma = n.inputs[1]
        if ndim > 2 and n.in_shapes[1][0] != 1:  # one slope per channel (axis 1)
            gamma = b.node("Reshape", [gamma, b.ints((-1,) + (1,) * (ndim - 2), "shape")])[0]
        b.node("PRelu", [x, gamma], outputs=n.outputs)
    elif act == "gelu":  # x * (1 + erf(x / sqrt(2))) / 2
        dt = n.in_dtypes[0]
        scaled = b.node("Div", [x, _scalar(b, math.sqrt(2.0), dt)])
        plus = b.node("Add", [b.node("Erf", scaled)[0], _scalar(b, 1.0, dt)])
        half = b.node("Mul", [x, _scalar(b, 0.5, dt)])
        b.node("Mul", [half[0], plus[0]], outputs=n.outputs)
    else:
        raise n.unsupported(f"act_type={act!r}")


_BINARY = {"elemwise_add": "Add", "elemwise_sub": "Sub", "elemwise_mul": "Mul",
           "elemwise_div": "Div", "broadcast_add": "Add", "broadcast_sub": "Sub",
           "broadcast_mul": "Mul", "broadcast_div": "Div", "broadcast_maximum": "Max",
           "broadcast_minimum": "Min", "broadcast_power": "Pow", "_maximum": "Max",
           "_minimum": "Min", "_power": "Pow", "broadcast_mod": "Mod"}
_COMPARE = {"broadcast_equal": "Equal", "broadcast_greater": "Greater",
            "broadcast_lesser": "Less", "broadcast_greater_equal": "GreaterOrEqual",
            "broadcast_lesser_equal": "LessOrEqual", "_equal": "Equal", "_greater": "Greater",
            "_lesser": "Less", "_greater_equal": "GreaterOrEqual",
            "_lesser_equal": "LessOrEqual"}


def _binary(onnx_op):
    def convert(b, n):
        attrs = {"fmod": 1} if onnx_op == "Mod" and n.in_dtypes[0].kind == "f" else {}
        b.node(onnx_op, n.inputs[:2], outputs=n.outputs, **attrs)
    return convert


def _as_dtype(b, n, boolean):
    """A boolean result cast to the node's dtype (MXNet's comparisons keep it)."""
    b.node("Cast", boolean, outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))


def _compare(onnx_op, scalar=False):
    def convert(b, n):
        rhs = _scalar(b, n.attrs.scalar, n.in_dtypes[0]) if scalar else n.inputs[1]
        _as_dtype(b, n, b.node(onnx_op, [n.inputs[0], rhs]))
    return convert


for _mx, _ox in _BINARY.items():
    _CONVERTERS[_mx] = _binary(_ox)
for _mx, _ox in _COMPARE.items():
    _CONVERTERS[_mx] = _compare(_ox)
for _mx, _ox in {"_equal_scalar": "Equal", "_greater_scalar": "Greater",
                 "_lesser_scalar": "Less", "_greater_equal_scalar": "GreaterOrEqual",
                 "_lesser_equal_scalar": "LessOrEqual"}.items():
    _CONVERTERS[_mx] = _compare(_ox, scalar=True)


def _with_scalar(onnx_op, scalar_first=False):
    def convert(b, n):
        s = _scalar(b, n.attrs.scalar, n.in_dtypes[0])
        ins = [s, n.inputs[0]] if scalar_first else [n.inputs[0], s]
        b.node(onnx_op, ins, outputs=n.outputs)
    return convert


for _mx, (_ox, _first) in {"_plus_scalar": ("Add", False), "_minus_scalar": ("Sub", False),
                           "_rminus_scalar": ("Sub", True), "_mul_scalar": ("Mul", False),
                           "_div_scalar": ("Div", False), "_rdiv_scalar": ("Div", True),
                           "_power_scalar": ("Pow", False), "_rpower_scalar": ("Pow", True),
                           "_maximum_scalar": ("Max", False),
                           "_minimum_scalar": ("Min", False)}.items():
    _CONVERTERS[_mx] = _with_scalar(_ox, _first)


@_register("add_n")
def _add_n(b, n):
    b.node("Sum", n.inputs, outputs=n.outputs)


@_register("clip")
def _clip(b, n):
    dt = n.in_dtypes[0]
    b.node("Clip", [n.inputs[0], _scalar(b, n.attrs.a_min, dt), _scalar(b, n.attrs.a_max, dt)],
           outputs=n.outputs)


@_register("Cast")
def _cast(b, n):
    b.node("Cast", n.inputs, outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))


@_register("where")
def _where(b, n):
    cond = b.node("Cast", n.inputs[:1], to=b.tensor_type(np.dtype(bool)))
    b.node("Where", [cond[0], n.inputs[1], n.inputs[2]], outputs=n.outputs)


@_register("Dropout")
def _dropout(b, n):
    if n.attrs.mode == "always":
        raise n.unsupported("mode='always' drops at inference too")
    b.node("Identity", n.inputs[:1], outputs=n.outputs[:1])


# -- layers -----------------------------------------------------------------------------
def _pads(pad, nd):
    pad = tuple(pad) or (0,) * nd
    return list(pad) + list(pad)


def _channel_first(n):
    if getattr(n.attrs, "layout", None) not in (None, "NCW", "NCHW", "NCDHW"):
        raise n.unsupported(f"layout={n.attrs.layout!r} (ONNX convolutions are channel-first)")


@_register("Convolution")
def _convolution(b, n):
    _channel_first(n)
    a = n.attrs
    nd = len(a.kernel)
    b.node("Conv", n.inputs, outputs=n.outputs, kernel_shape=list(a.kernel),
           strides=list(a.stride or (1,) * nd), dilations=list(a.dilate or (1,) * nd),
           pads=_pads(a.pad, nd), group=int(a.num_group))


@_register("Deconvolution")
def _deconvolution(b, n):
    _channel_first(n)
    a = n.attrs
    nd = len(a.kernel)
    stride = list(a.stride or (1,) * nd)
    dilate = list(a.dilate or (1,) * nd)
    begin, end, out_pad = [], [], []
    target = tuple(a.target_shape or ())
    for j in range(nd):
        full = (n.in_shapes[0][2 + j] - 1) * stride[j] + dilate[j] * (a.kernel[j] - 1) + 1
        if target and target[j] > 0:
            # MXNet pads ceil(total / 2) on both sides and takes the odd one back at the
            # end (``adj``): the begin side gets the larger half
            total = full - target[j]
            if total < 0:
                raise n.unsupported(f"target_shape {target} larger than the full output")
            begin.append((total + 1) // 2)
            end.append(total - (total + 1) // 2)
            out_pad.append(0)
        else:
            pad = (tuple(a.pad) or (0,) * nd)[j]
            begin.append(pad)
            end.append(pad)
            out_pad.append((tuple(a.adj) or (0,) * nd)[j])
    b.node("ConvTranspose", n.inputs, outputs=n.outputs, kernel_shape=list(a.kernel),
           strides=stride, dilations=dilate, pads=begin + end, group=int(a.num_group),
           output_padding=out_pad)


@_register("FullyConnected")
def _fully_connected(b, n):
    x, w = n.inputs[0], n.inputs[1]
    bias = [] if n.attrs.no_bias else [n.inputs[2]]
    if n.attrs.flatten or len(n.in_shapes[0]) == 2:
        if len(n.in_shapes[0]) != 2:
            x = b.node("Flatten", [x], axis=1)[0]
        b.node("Gemm", [x, w] + bias, outputs=n.outputs, alpha=1.0, beta=1.0, transA=0,
               transB=1)
        return
    wt = b.node("Transpose", [w], perm=[1, 0])
    if not bias:
        b.node("MatMul", [x, wt[0]], outputs=n.outputs)
        return
    b.node("Add", [b.node("MatMul", [x, wt[0]])[0], bias[0]], outputs=n.outputs)


@_register("BatchNorm")
def _batch_norm(b, n):
    a = n.attrs
    axis = a.axis % len(n.in_shapes[0])
    if axis != 1:
        raise n.unsupported(f"axis={a.axis} (ONNX normalizes axis 1)")
    gamma = n.inputs[1]
    if a.fix_gamma:
        gamma = b.const(np.ones(n.in_shapes[1], n.in_dtypes[1]), "gamma_fixed")
    b.node("BatchNormalization", [n.inputs[0], gamma] + list(n.inputs[2:5]),
           outputs=n.outputs[:1], epsilon=float(a.eps), momentum=float(a.momentum))


@_register("InstanceNorm")
def _instance_norm(b, n):
    b.node("InstanceNormalization", n.inputs, outputs=n.outputs, epsilon=float(n.attrs.eps))


@_register("LayerNorm")
def _layer_norm(b, n):
    """mean and variance over ``axis``, as opset 13 has no LayerNormalization."""
    a = n.attrs
    ndim = len(n.in_shapes[0])
    axis = a.axis % ndim
    dt = n.in_dtypes[0]
    x, gamma, beta = n.inputs[:3]
    mean = b.node("ReduceMean", [x], axes=[axis], keepdims=1)
    centered = b.node("Sub", [x, mean[0]])
    var = b.node("ReduceMean", [b.node("Mul", [centered[0], centered[0]])[0]], axes=[axis],
                 keepdims=1)
    std = b.node("Sqrt", [b.node("Add", [var[0], _scalar(b, a.eps, dt)])[0]])
    normed = b.node("Div", [centered[0], std[0]])
    if axis != ndim - 1:  # gamma and beta run along ``axis``
        shape = [-1] + [1] * (ndim - 1 - axis)
        gamma = b.node("Reshape", [gamma, b.ints(shape, "shape")])[0]
        beta = b.node("Reshape", [beta, b.ints(shape, "shape")])[0]
    b.node("Add", [b.node("Mul", [normed[0], gamma])[0], beta], outputs=n.outputs[:1])


@_register("L2Normalization")
def _l2_normalization(b, n):
    a = n.attrs
    ndim = len(n.in_shapes[0])
    axes = {"instance": list(range(1, ndim)), "channel": [1],
            "spatial": list(range(2, ndim))}[a.mode]
    x = n.inputs[0]
    dt = n.in_dtypes[0]
    sq = b.node("ReduceSum", [b.node("Mul", [x, x])[0], b.ints(axes, "axes")], keepdims=1)
    norm = b.node("Sqrt", [b.node("Add", [sq[0], _scalar(b, a.eps, dt)])[0]])
    b.node("Div", [x, norm[0]], outputs=n.outputs)


@_register("LRN")
def _lrn(b, n):
    a = n.attrs
    b.node("LRN", n.inputs, outputs=n.outputs[:1], size=int(a.nsize), alpha=float(a.alpha),
           beta=float(a.beta), bias=float(a.knorm))


@_register("Pooling")
def _pooling(b, n):
    _channel_first(n)
    a = n.attrs
    nd = len(n.in_shapes[0]) - 2
    if a.pool_type not in ("max", "avg"):
        raise n.unsupported(f"pool_type={a.pool_type!r}")
    if a.global_pool:
        b.node("GlobalMaxPool" if a.pool_type == "max" else "GlobalAveragePool", n.inputs,
               outputs=n.outputs)
        return
    if a.pooling_convention == "same":
        raise n.unsupported("pooling_convention='same'")
    attrs = dict(kernel_shape=list(a.kernel), strides=list(a.stride or (1,) * nd),
                 pads=_pads(a.pad, nd), ceil_mode=int(a.pooling_convention == "full"))
    if a.pool_type == "avg":
        include = True if a.count_include_pad is None else bool(a.count_include_pad)
        b.node("AveragePool", n.inputs, outputs=n.outputs, count_include_pad=int(include),
               **attrs)
    else:
        b.node("MaxPool", n.inputs, outputs=n.outputs, **attrs)


@_register("Embedding")
def _embedding(b, n):
    idx = b.node("Cast", n.inputs[:1], to=b.tensor_type(np.dtype(np.int64)))
    b.node("Gather", [n.inputs[1], idx[0]], outputs=n.outputs, axis=0)


# -- softmax ---------------------------------------------------------------------------
def _temperature(b, n, x):
    t = getattr(n.attrs, "temperature", None)
    if t is None or t == 1.0:
        return x
    return b.node("Div", [x, _scalar(b, t, n.in_dtypes[0])])[0]


@_register("softmax", "log_softmax")
def _softmax(b, n):
    if getattr(n.attrs, "use_length", False):
        raise n.unsupported("use_length=True")
    kind = "Softmax" if n.op_name == "softmax" else "LogSoftmax"
    b.node(kind, [_temperature(b, n, n.inputs[0])], outputs=n.outputs, axis=int(n.attrs.axis))


@_register("SoftmaxActivation")
def _softmax_activation(b, n):
    b.node("Softmax", n.inputs[:1], outputs=n.outputs,
           axis=1 if n.attrs.mode == "channel" else -1)


def _flat_softmax(b, n):
    """Softmax over everything but axis 0, in the input's shape."""
    flat = b.node("Flatten", n.inputs[:1], axis=1)
    soft = b.node("Softmax", flat, axis=1)
    b.node("Reshape", [soft[0], b.node("Shape", n.inputs[:1])[0]], outputs=n.outputs)


@_register("SoftmaxOutput")
def _softmax_output(b, n):
    """The forward of MXNet's training output layer: a softmax (the label is unused)."""
    if n.attrs.multi_output:
        b.node("Softmax", n.inputs[:1], outputs=n.outputs, axis=1)
    elif len(n.in_shapes[0]) == 2:
        b.node("Softmax", n.inputs[:1], outputs=n.outputs, axis=1)
    else:
        _flat_softmax(b, n)


@_register("LinearRegressionOutput", "MAERegressionOutput")
def _regression_output(b, n):
    b.node("Identity", n.inputs[:1], outputs=n.outputs)


@_register("LogisticRegressionOutput")
def _logistic_output(b, n):
    b.node("Sigmoid", n.inputs[:1], outputs=n.outputs)


# -- shapes ----------------------------------------------------------------------------
@_register("Flatten")
def _flatten(b, n):
    b.node("Flatten", n.inputs, outputs=n.outputs, axis=1)


@_register("Reshape")
def _reshape(b, n):
    a = n.attrs
    shape = tuple(a.shape)
    # 0 (copy) and -1 (infer) mean the same in ONNX; MXNet's other codes are resolved
    # from the inferred output shape
    if a.reverse or any(d < -1 for d in shape) or not shape:
        n.static(f"Reshape's target shape {tuple(a.shape)} (resolved to {n.out_shapes[0]})")
        shape = tuple(n.out_shapes[0])
    b.node("Reshape", [n.inputs[0], b.ints(shape, "shape")], outputs=n.outputs)


@_register("transpose")
def _transpose(b, n):
    axes = list(n.attrs.axes) or list(range(len(n.in_shapes[0])))[::-1]
    b.node("Transpose", n.inputs, outputs=n.outputs, perm=axes)


@_register("expand_dims")
def _expand_dims(b, n):
    axis = n.attrs.axis
    if axis < 0:
        axis += len(n.in_shapes[0]) + 1
    b.node("Unsqueeze", [n.inputs[0], b.ints([axis], "axes")], outputs=n.outputs)


@_register("squeeze")
def _squeeze(b, n):
    axes = n.attrs.axis
    if axes is None:
        n.static("the axes of size 1")
        axes = [i for i, d in enumerate(n.in_shapes[0]) if d == 1]
    axes = [axes] if isinstance(axes, int) else list(axes)
    if len(axes) == len(n.in_shapes[0]):  # MXNet keeps one dimension
        axes = axes[1:]
    if not axes:
        b.node("Identity", n.inputs, outputs=n.outputs)
        return
    b.node("Squeeze", [n.inputs[0], b.ints(axes, "axes")], outputs=n.outputs)


@_register("Concat")
def _concat(b, n):
    b.node("Concat", n.inputs, outputs=n.outputs, axis=int(n.attrs.dim))


@_register("stack")
def _stack(b, n):
    axis = n.attrs.axis % (len(n.in_shapes[0]) + 1)
    axes = b.ints([axis], "axes")
    parts = [b.node("Unsqueeze", [x, axes])[0] for x in n.inputs]
    b.node("Concat", parts, outputs=n.outputs, axis=axis)


@_register("SliceChannel")
def _slice_channel(b, n):
    a = n.attrs
    axis = a.axis % len(n.in_shapes[0])
    count = int(a.num_outputs)
    if not a.squeeze_axis:  # equal parts: ONNX's Split without sizes
        b.node("Split", n.inputs[:1], outputs=n.outputs, axis=axis)
        return
    parts = b.node("Split", n.inputs[:1], n_out=count, axis=axis)
    axes = b.ints([axis], "axes")
    for part, name in zip(parts, n.outputs):
        b.node("Squeeze", [part, axes], outputs=[name])


@_register("slice_axis")
def _slice_axis(b, n):
    a = n.attrs
    end = _INT_MAX if a.end is None else a.end
    b.node("Slice", [n.inputs[0], b.ints([a.begin], "starts"), b.ints([end], "ends"),
                     b.ints([a.axis], "axes")], outputs=n.outputs)


@_register("slice")
def _slice(b, n):
    a = n.attrs
    ndim = len(a.begin)
    begin = [0 if v is None else v for v in a.begin]
    step = [1 if v is None else v for v in (tuple(a.step) or (None,) * ndim)]
    end = [(_INT_MAX if s > 0 else -_INT_MAX) if v is None else v
           for v, s in zip(a.end, step)]
    b.node("Slice", [n.inputs[0], b.ints(begin, "starts"), b.ints(end, "ends"),
                     b.ints(list(range(ndim)), "axes"), b.ints(step, "steps")],
           outputs=n.outputs)


@_register("tile")
def _tile(b, n):
    reps = list(n.attrs.reps)
    ndim = len(n.in_shapes[0])
    x = n.inputs[0]
    if len(reps) > ndim:  # MXNet prepends axes of size 1
        n.static("the input shape with the axes tile adds")
        x = b.node("Reshape", [x, b.ints((1,) * (len(reps) - ndim) + tuple(n.in_shapes[0]),
                                         "shape")])[0]
    reps = [1] * (max(ndim, len(reps)) - len(reps)) + reps
    b.node("Tile", [x, b.ints(reps, "repeats")], outputs=n.outputs)


@_register("broadcast_to", "broadcast_like", "broadcast_axis")
def _broadcast(b, n):
    n.static(f"the broadcast shape {n.out_shapes[0]}")
    b.node("Expand", [n.inputs[0], b.ints(n.out_shapes[0], "shape")], outputs=n.outputs)


@_register("Pad")
def _pad(b, n):
    a = n.attrs
    widths = list(a.pad_width)
    pads = widths[0::2] + widths[1::2]
    ins = [n.inputs[0], b.ints(pads, "pads")]
    if a.mode == "constant":
        ins.append(_scalar(b, a.constant_value, n.in_dtypes[0], "value"))
    b.node("Pad", ins, outputs=n.outputs, mode=a.mode)


@_register("UpSampling")
def _upsampling(b, n):
    a = n.attrs
    if a.sample_type != "nearest" or len(n.inputs) != 1:
        raise n.unsupported(f"sample_type={a.sample_type!r} with {len(n.inputs)} input(s)")
    nd = len(n.in_shapes[0]) - 2
    scales = b.const(np.array([1.0, 1.0] + [float(a.scale)] * nd, np.float32), "scales")
    b.node("Resize", [n.inputs[0], "", scales], outputs=n.outputs, mode="nearest",
           coordinate_transformation_mode="asymmetric", nearest_mode="floor")


# -- reductions and products -------------------------------------------------------------
def _axes(n):
    ndim = len(n.in_shapes[0])
    axis = n.attrs.axis
    axes = list(range(ndim)) if axis is None or axis == () else \
        [axis] if isinstance(axis, int) else list(axis)
    axes = sorted(x % ndim for x in axes)
    if getattr(n.attrs, "exclude", False):
        axes = [x for x in range(ndim) if x not in axes]
    return axes


def _reduce(onnx_op, axes_input):
    def convert(b, n):
        axes = _axes(n)
        keep = int(bool(n.attrs.keepdims))
        if not keep and len(axes) == len(n.in_shapes[0]):
            # MXNet keeps a 1-element result where ONNX would give a scalar
            out = b.node(onnx_op, [n.inputs[0]] + ([b.ints(axes, "axes")] if axes_input
                                                   else []),
                         keepdims=0, **({} if axes_input else {"axes": axes}))
            b.node("Reshape", [out[0], b.ints([1], "shape")], outputs=n.outputs)
            return
        if axes_input:
            b.node(onnx_op, [n.inputs[0], b.ints(axes, "axes")], outputs=n.outputs,
                   keepdims=keep)
        else:
            b.node(onnx_op, n.inputs[:1], outputs=n.outputs, axes=axes, keepdims=keep)
    return convert


_CONVERTERS["sum"] = _reduce("ReduceSum", True)
_CONVERTERS["mean"] = _reduce("ReduceMean", False)
_CONVERTERS["max"] = _reduce("ReduceMax", False)
_CONVERTERS["min"] = _reduce("ReduceMin", False)
_CONVERTERS["prod"] = _reduce("ReduceProd", False)


@_register("dot", "batch_dot")
def _dot(b, n):
    a = n.attrs
    x, y = n.inputs[:2]
    if n.op_name == "dot" and (len(n.in_shapes[0]) != 2 or len(n.in_shapes[1]) != 2):
        raise n.unsupported("dot of arrays other than matrices")
    for flag, pos in ((a.transpose_a, 0), (a.transpose_b, 1)):
        if flag:
            nd = len(n.in_shapes[pos])
            perm = list(range(nd - 2)) + [nd - 1, nd - 2]
            t = b.node("Transpose", [(x, y)[pos]], perm=perm)[0]
            x, y = (t, y) if pos == 0 else (x, t)
    b.node("MatMul", [x, y], outputs=n.outputs)
