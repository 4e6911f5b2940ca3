"""ONNX conversions of elementwise operators, activations, scalar and comparison
operators, reductions and products (see :mod:`gluonlite.ops.onnx_export`)."""
from __future__ import annotations

import math

import numpy as np

from .onnx_export import CONVERTERS, register, scalar


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
    CONVERTERS[_mx] = _unary(_ox)


@register("square")
def _square(b, n):
    b.node("Mul", [n.inputs[0], n.inputs[0]], outputs=n.outputs)


@register("rsqrt")
def _rsqrt(b, n):
    root = b.node("Sqrt", n.inputs[:1])
    b.node("Reciprocal", root, outputs=n.outputs)


@register("Activation")
def _activation(b, n):
    act = n.attrs.act_type
    simple = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus",
              "softsign": "Softsign"}
    if act in simple:
        b.node(simple[act], n.inputs, outputs=n.outputs)
    else:
        raise n.unsupported(f"act_type={act!r}")


@register("LeakyReLU")
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
        scaled = b.node("Div", [x, scalar(b, math.sqrt(2.0), dt)])
        plus = b.node("Add", [b.node("Erf", scaled)[0], scalar(b, 1.0, dt)])
        half = b.node("Mul", [x, scalar(b, 0.5, dt)])
        b.node("Mul", [half[0], plus[0]], outputs=n.outputs)
    else:
        raise n.unsupported(f"act_type={act!r}")


_BINARY = {"elemwise_add": "Add", "elemwise_sub": "Sub", "elemwise_mul": "Mul",
           "elemwise_div": "Div", "broadcast_add": "Add", "broadcast_sub": "Sub",
           "broadcast_mul": "Mul", "broadcast_div": "Div", "broadcast_maximum": "Max",
           "broadcast_minimum": "Min", "broadcast_power": "Pow", "_maximum": "Max",
           "_minimum": "Min", "_power": "Pow"}
_COMPARE = {"broadcast_equal": "Equal", "broadcast_greater": "Greater",
            "broadcast_lesser": "Less", "broadcast_greater_equal": "GreaterOrEqual",
            "broadcast_lesser_equal": "LessOrEqual", "_equal": "Equal", "_greater": "Greater",
            "_lesser": "Less", "_greater_equal": "GreaterOrEqual",
            "_lesser_equal": "LessOrEqual"}


def _binary(onnx_op):
    def convert(b, n):
        b.node(onnx_op, n.inputs[:2], outputs=n.outputs)
    return convert


def _mod(b, n, x, y, dt):
    """MXNet's ``mod``: the remainder takes the divisor's sign (Python's ``%``), and a
    zero divisor gives 0.  ONNX's integer ``Mod`` already takes the divisor's sign but
    must not see a zero divisor; its float ``Mod`` (``fmod=1``) takes the dividend's
    sign, corrected by adding the divisor where the signs differ."""
    zero = scalar(b, 0, dt, "zero")
    is_zero = b.node("Equal", [y, zero])[0]
    safe = b.node("Where", [is_zero, scalar(b, 1, dt, "one"), y])[0]
    if dt.kind != "f":
        r = b.node("Mod", [x, safe])[0]
    else:
        r = b.node("Mod", [x, safe], fmod=1)[0]
        r_neg = b.node("Less", [r, zero])[0]
        y_neg = b.node("Less", [safe, zero])[0]
        nonzero = b.node("Not", b.node("Equal", [r, zero]))[0]
        fix = b.node("And", [nonzero, b.node("Xor", [r_neg, y_neg])[0]])[0]
        r = b.node("Where", [fix, b.node("Add", [r, safe])[0], r])[0]
    b.node("Where", [is_zero, zero, r], outputs=n.outputs)


@register("broadcast_mod", "_mod")
def _broadcast_mod(b, n):
    _mod(b, n, n.inputs[0], n.inputs[1], n.in_dtypes[0])


@register("_mod_scalar", "_rmod_scalar")
def _mod_scalar(b, n):
    dt = n.in_dtypes[0]
    s = scalar(b, n.attrs.scalar, dt)
    x, y = (n.inputs[0], s) if n.op_name == "_mod_scalar" else (s, n.inputs[0])
    _mod(b, n, x, y, dt)


def _as_dtype(b, n, boolean):
    """A boolean result cast to the node's dtype (MXNet's comparisons keep it)."""
    b.node("Cast", boolean, outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))


def _compare(onnx_op, with_scalar=False):
    def convert(b, n):
        rhs = scalar(b, n.attrs.scalar, n.in_dtypes[0]) if with_scalar else n.inputs[1]
        _as_dtype(b, n, b.node(onnx_op, [n.inputs[0], rhs]))
    return convert


for _mx, _ox in _BINARY.items():
    CONVERTERS[_mx] = _binary(_ox)
for _mx, _ox in _COMPARE.items():
    CONVERTERS[_mx] = _compare(_ox)
for _mx, _ox in {"_equal_scalar": "Equal", "_greater_scalar": "Greater",
                 "_lesser_scalar": "Less", "_greater_equal_scalar": "GreaterOrEqual",
                 "_lesser_equal_scalar": "LessOrEqual"}.items():
    CONVERTERS[_mx] = _compare(_ox, with_scalar=True)


def _with_scalar(onnx_op, scalar_first=False):
    def convert(b, n):
        s = scalar(b, n.attrs.scalar, n.in_dtypes[0])
        ins = [s, n.inputs[0]] if scalar_first else [n.inputs[0], s]
        b.node(onnx_op, ins, outputs=n.outputs)
    return convert


for _mx, (_ox, _first) in {"_plus_scalar": ("Add", False), "_minus_scalar": ("Sub", False),
                           "_rminus_scalar": ("Sub", True), "_mul_scalar": ("Mul", False),
                           "_div_scalar": ("Div", False), "_rdiv_scalar": ("Div", True),
                           "_power_scalar": ("Pow", False), "_rpower_scalar": ("Pow", True),
                           "_maximum_scalar": ("Max", False),
                           "_minimum_scalar": ("Min", False)}.items():
    CONVERTERS[_mx] = _with_scalar(_ox, _first)


@register("add_n")
def _add_n(b, n):
    b.node("Sum", n.inputs, outputs=n.outputs)


@register("clip")
def _clip(b, n):
    dt = n.in_dtypes[0]
    b.node("Clip", [n.inputs[0], scalar(b, n.attrs.a_min, dt), scalar(b, n.attrs.a_max, dt)],
           outputs=n.outputs)


@register("Cast")
def _cast(b, n):
    b.node("Cast", n.inputs, outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))


@register("where")
def _where(b, n):
    cond = _bool(b, n.inputs[0])
    ndim = len(n.in_shapes[1])
    if len(n.in_shapes[0]) == 1 and ndim > 1:  # MXNet: a 1-D condition picks whole rows
        cond = b.node("Reshape", [cond, b.ints([-1] + [1] * (ndim - 1), "shape")])[0]
    b.node("Where", [cond, n.inputs[1], n.inputs[2]], outputs=n.outputs)


@register("Dropout")
def _dropout(b, n):
    if n.attrs.mode == "always":
        raise n.unsupported("mode='always' drops at inference too")
    b.node("Identity", n.inputs[:1], outputs=n.outputs[:1])


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


CONVERTERS["sum"] = _reduce("ReduceSum", True)
CONVERTERS["mean"] = _reduce("ReduceMean", False)
CONVERTERS["max"] = _reduce("ReduceMax", False)
CONVERTERS["min"] = _reduce("ReduceMin", False)
_reduce_prod = _reduce("ReduceProd", False)


@register("prod")
def _prod(b, n):
    """Floats: ``ReduceProd``.  Integers: a tree of ``Mul`` over the reduced axes, so that
    an overflow wraps around as MXNet's integer arithmetic does (ONNX Runtime's integer
    ``ReduceProd`` does not)."""
    if n.in_dtypes[0].kind == "f":
        _reduce_prod(b, n)
        return
    n.static("the shape of the integer product's reduction")
    shape = list(n.in_shapes[0])
    axes = _axes(n)
    kept = [i for i in range(len(shape)) if i not in axes]
    x = n.inputs[0]
    if axes != list(range(len(shape) - len(axes), len(shape))):
        x = b.node("Transpose", [x], perm=kept + axes)[0]
    length = int(math.prod(shape[i] for i in axes))
    x = b.node("Reshape", [x, b.ints([shape[i] for i in kept] + [length], "shape")])[0]
    last = len(kept)
    while length > 1:
        half = length // 2

        def part(lo, hi):
            return b.node("Slice", [x, b.ints([lo], "starts"), b.ints([hi], "ends"),
                                    b.ints([last], "axes")])[0]

        prod = b.node("Mul", [part(0, half), part(half, 2 * half)])[0]
        x = b.node("Concat", [prod, part(2 * half, length)], axis=last)[0] \
            if length % 2 else prod
        length = half + length % 2
    b.node("Reshape", [x, b.ints(n.out_shapes[0], "shape")], outputs=n.outputs)


@register("dot", "batch_dot")
def _dot(b, n):
    a = n.attrs
    x, y = n.inputs[:2]
    if n.op_name == "dot" and (len(n.in_shapes[0]) != 2 or len(n.in_shapes[1]) != 2):
        _dot_nd(b, n)
        return
    for flag, pos in ((a.transpose_a, 0), (a.transpose_b, 1)):
        if flag:
            nd = len(n.in_shapes[pos])
            perm = list(range(nd - 2)) + [nd - 1, nd - 2]
            t = b.node("Transpose", [(x, y)[pos]], perm=perm)[0]
            x, y = (t, y) if pos == 0 else (x, t)
    b.node("MatMul", [x, y], outputs=n.outputs)


def _bool(b, x):
    return b.node("Cast", [x], to=b.tensor_type(np.dtype(bool)))[0]


@register("hard_sigmoid")
def _hard_sigmoid(b, n):
    b.node("HardSigmoid", n.inputs, outputs=n.outputs, alpha=float(n.attrs.alpha),
           beta=float(n.attrs.beta))


@register("logical_not")
def _logical_not(b, n):
    _as_dtype(b, n, b.node("Not", [_bool(b, n.inputs[0])]))


def _logical(onnx_op):
    def convert(b, n):
        _as_dtype(b, n, b.node(onnx_op, [_bool(b, n.inputs[0]), _bool(b, n.inputs[1])]))
    return convert


for _mx, _ox in {"broadcast_logical_and": "And", "broadcast_logical_or": "Or",
                 "broadcast_logical_xor": "Xor", "_logical_and": "And", "_logical_or": "Or",
                 "_logical_xor": "Xor"}.items():
    CONVERTERS[_mx] = _logical(_ox)
CONVERTERS["broadcast_not_equal"] = lambda b, n: _as_dtype(
    b, n, b.node("Not", b.node("Equal", n.inputs[:2])))
CONVERTERS["_not_equal"] = CONVERTERS["broadcast_not_equal"]
CONVERTERS["_not_equal_scalar"] = lambda b, n: _as_dtype(b, n, b.node("Not", b.node(
    "Equal", [n.inputs[0], scalar(b, n.attrs.scalar, n.in_dtypes[0])])))


@register("norm")
def _norm(b, n):
    a = n.attrs
    if a.ord not in (1, 2):
        raise n.unsupported(f"ord={a.ord}")
    _reduce("ReduceL1" if a.ord == 1 else "ReduceL2", False)(b, n)


def _arg_reduce(onnx_op):
    def convert(b, n):
        a = n.attrs
        x = n.inputs[0]
        if a.axis is None:  # over the flattened array; MXNet keeps a 1-element result
            x = b.node("Reshape", [x, b.ints([-1], "shape")])[0]
            idx = b.node(onnx_op, [x], axis=0, keepdims=1)
        else:
            idx = b.node(onnx_op, [x], axis=int(a.axis), keepdims=int(bool(a.keepdims)))
        b.node("Cast", idx, outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))
    return convert


CONVERTERS["argmax"] = _arg_reduce("ArgMax")
CONVERTERS["argmin"] = _arg_reduce("ArgMin")


def _topk_core(b, n, k, axis):
    x = n.inputs[0]
    if axis is None:
        x = b.node("Reshape", [x, b.ints([-1], "shape")])[0]
        axis = 0
    return b.node("TopK", [x, b.ints([k], "k")], n_out=2, axis=int(axis),
                  largest=int(not n.attrs.is_ascend), sorted=1)


@register("topk")
def _topk(b, n):
    a = n.attrs
    axis = a.axis
    size = int(np.prod(n.in_shapes[0])) if axis is None else n.in_shapes[0][axis]
    k = size if a.k < 1 else min(int(a.k), size)
    if a.ret_typ == "mask":
        raise n.unsupported("ret_typ='mask'")
    values, indices = _topk_core(b, n, k, axis)
    idx_type = b.tensor_type(np.dtype(a.dtype))
    if a.ret_typ == "value":
        b.node("Identity", [values], outputs=n.outputs)
    elif a.ret_typ == "indices":
        b.node("Cast", [indices], outputs=n.outputs, to=idx_type)
    else:
        b.node("Identity", [values], outputs=n.outputs[:1])
        b.node("Cast", [indices], outputs=n.outputs[1:2], to=idx_type)


@register("argsort", "sort")
def _sort(b, n):
    axis = n.attrs.axis
    size = int(np.prod(n.in_shapes[0])) if axis is None else n.in_shapes[0][axis]
    values, indices = _topk_core(b, n, size, axis)
    if n.op_name == "sort":
        b.node("Identity", [values], outputs=n.outputs)
    else:
        b.node("Cast", [indices], outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))


@register("_linalg_gemm2")
def _gemm2(b, n):
    a = n.attrs
    if a.axis % len(n.in_shapes[0]) != len(n.in_shapes[0]) - 2:  # rows on axis -2
        raise n.unsupported(f"axis={a.axis}")
    x, y = n.inputs[:2]
    for flag, pos in ((a.transpose_a, 0), (a.transpose_b, 1)):
        if flag:
            nd = len(n.in_shapes[pos])
            t = b.node("Transpose", [(x, y)[pos]],
                       perm=list(range(nd - 2)) + [nd - 1, nd - 2])[0]
            x, y = (t, y) if pos == 0 else (x, t)
    if a.alpha == 1.0:
        b.node("MatMul", [x, y], outputs=n.outputs)
        return
    prod = b.node("MatMul", [x, y])
    b.node("Mul", [prod[0], scalar(b, a.alpha, n.in_dtypes[0])], outputs=n.outputs)


@register("_contrib_div_sqrt_dim")
def _div_sqrt_dim(b, n):
    b.node("Div", [n.inputs[0], scalar(b, np.sqrt(n.in_shapes[0][-1]), n.in_dtypes[0])],
           outputs=n.outputs)


def _dot_nd(b, n):
    """MXNet's ``dot`` of N-D arrays as one matrix product: the last axis of ``lhs``
    against the first of ``rhs``; ``transpose_a`` contracts the first axis of ``lhs``
    and ``transpose_b`` the last of ``rhs`` (the other axes keep their order)."""
    a = n.attrs
    n.static("the shapes around the matrix product")
    xs, ys = list(n.in_shapes[0]), list(n.in_shapes[1])
    if a.transpose_a:
        x = b.node("Reshape", [n.inputs[0], b.ints([xs[0], -1], "shape")])
        x = b.node("Transpose", x, perm=[1, 0])
    else:
        x = b.node("Reshape", [n.inputs[0], b.ints([-1, xs[-1]], "shape")])
    if a.transpose_b:
        y = b.node("Reshape", [n.inputs[1], b.ints([-1, ys[-1]], "shape")])
        y = b.node("Transpose", y, perm=[1, 0])
    else:
        y = b.node("Reshape", [n.inputs[1], b.ints([ys[0], -1], "shape")])
    prod = b.node("MatMul", [x[0], y[0]])
    b.node("Reshape", [prod[0], b.ints(n.out_shapes[0], "shape")], outputs=n.outputs)


def _log_base(base):
    def convert(b, n):
        b.node("Div", [b.node("Log", n.inputs[:1])[0], scalar(b, math.log(base), n.in_dtypes[0])],
               outputs=n.outputs)
    return convert


CONVERTERS["log2"] = _log_base(2.0)
CONVERTERS["log10"] = _log_base(10.0)


@register("log1p")
def _log1p(b, n):
    b.node("Log", [b.node("Add", [n.inputs[0], scalar(b, 1.0, n.in_dtypes[0])])[0]],
           outputs=n.outputs)


@register("expm1")
def _expm1(b, n):
    b.node("Sub", [b.node("Exp", n.inputs[:1])[0], scalar(b, 1.0, n.in_dtypes[0])],
           outputs=n.outputs)
