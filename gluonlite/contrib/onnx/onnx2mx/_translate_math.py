"""ONNX elementwise, comparison, logical and reduction operators as gluonlite symbols.

Each translation takes ``(attrs, inputs, proto_obj)`` and returns ``(op, attrs,
inputs)`` (see ``import_onnx.GraphProto._convert_operator``).
"""
from __future__ import annotations

from functools import reduce as _fold

from .... import symbol
from . import _translation_utils as tu

# -- arithmetic ------------------------------------------------------------------------


def _legacy_broadcast(op: str, attrs: dict, inputs: list, proto_obj):
    """Opset < 7 ``broadcast=1, axis=k``: B's axes line up with A's from ``k``."""
    if int(attrs.get("broadcast", 0)) != 1 or "axis" not in attrs:
        return op, {}, inputs
    a_shape = tu.input_shape(proto_obj, inputs[0], op)
    b_shape = tu.input_shape(proto_obj, inputs[1], op)
    axis = tu.normalize_axis(attrs["axis"], len(a_shape))
    shape = [1] * len(a_shape)
    shape[axis:axis + len(b_shape)] = b_shape
    b = symbol.reshape(inputs[1], shape=tuple(shape))
    return getattr(symbol, op)(inputs[0], b), attrs, inputs


def _binary(op: str):
    def translate(attrs, inputs, proto_obj):
        return _legacy_broadcast(op, attrs, inputs, proto_obj)
    translate.__name__ = op
    translate.__doc__ = f"ONNX's broadcasting binary operator as ``{op}``."
    return translate


add = _binary("broadcast_add")
subtract = _binary("broadcast_sub")
multiply = _binary("broadcast_mul")
divide = _binary("broadcast_div")


def power(attrs, inputs, proto_obj):
    """``Pow``: elementwise power with broadcasting."""
    return _legacy_broadcast("broadcast_power", attrs, inputs, proto_obj)


def _chain(op: str, inputs: list):
    return _fold(lambda a, b: getattr(symbol, op)(a, b), inputs)


def add_n(attrs, inputs, proto_obj):
    """``Sum``: the sum of any number of (broadcastable) inputs."""
    if len(inputs) == 1:
        return "identity", {}, inputs
    return _chain("broadcast_add", inputs), {}, inputs


def mean(attrs, inputs, proto_obj):
    """``Mean``: the elementwise mean of the inputs."""
    return _chain("broadcast_add", inputs) / float(len(inputs)), {}, inputs


def maximum(attrs, inputs, proto_obj):
    """``Max``: the elementwise maximum of the inputs."""
    if len(inputs) == 1:
        return "identity", {}, inputs
    return _chain("broadcast_maximum", inputs), {}, inputs


def minimum(attrs, inputs, proto_obj):
    """``Min``: the elementwise minimum of the inputs."""
    if len(inputs) == 1:
        return "identity", {}, inputs
    return _chain("broadcast_minimum", inputs), {}, inputs


# -- unary -----------------------------------------------------------------------------


def _unary(op: str, onnx_name: str):
    def translate(attrs, inputs, proto_obj):
        return op, {}, inputs[:1]
    translate.__name__ = op
    translate.__doc__ = f"``{onnx_name}`` as ``mx.sym.{op}``."
    return translate


absolute = _unary("abs", "Abs")
negative = _unary("negative", "Neg")
ceil = _unary("ceil", "Ceil")
floor = _unary("floor", "Floor")
round_even = _unary("rint", "Round")
sign = _unary("sign", "Sign")
reciprocal = _unary("reciprocal", "Reciprocal")
squareroot = _unary("sqrt", "Sqrt")
exponent = _unary("exp", "Exp")
_log = _unary("log", "Log")
erf = _unary("erf", "Erf")
tanh = _unary("tanh", "Tanh")
sigmoid = _unary("sigmoid", "Sigmoid")
relu = _unary("relu", "Relu")
softsign = _unary("softsign", "Softsign")
_cos = _unary("cos", "Cos")
_sin = _unary("sin", "Sin")
_tan = _unary("tan", "Tan")
arccos = _unary("arccos", "Acos")
arcsin = _unary("arcsin", "Asin")
arctan = _unary("arctan", "Atan")
_cosh = _unary("cosh", "Cosh")
_sinh = _unary("sinh", "Sinh")
arccosh = _unary("arccosh", "Acosh")
arcsinh = _unary("arcsinh", "Asinh")
arctanh = _unary("arctanh", "Atanh")
logical_not = _unary("logical_not", "Not")


def identity(attrs, inputs, proto_obj):
    """``Identity``."""
    return "identity", {}, inputs[:1]


def clip(attrs, inputs, proto_obj):
    """``Clip``: limits from attributes (opset < 11) or constant inputs (11+)."""
    if proto_obj.opset_version >= 11:
        a_min = a_max = None
        if len(inputs) > 1 and inputs[1] is not None:
            a_min = tu.const_scalar(proto_obj, inputs[1], "min", "Clip")
        if len(inputs) > 2 and inputs[2] is not None:
            a_max = tu.const_scalar(proto_obj, inputs[2], "max", "Clip")
    else:
        a_min, a_max = attrs.get("min"), attrs.get("max")
    new_attrs = {"a_min": float("-inf") if a_min is None else float(a_min),
                 "a_max": float("inf") if a_max is None else float(a_max)}
    return "clip", new_attrs, inputs[:1]


# -- comparison and logic ----------------------------------------------------------------


def _compare(op: str, onnx_name: str):
    def translate(attrs, inputs, proto_obj):
        return op, {}, inputs
    translate.__name__ = op
    translate.__doc__ = f"``{onnx_name}`` as ``mx.sym.{op}`` (1.0/0.0, not bool)."
    return translate


lesser = _compare("broadcast_lesser", "Less")
lesser_equal = _compare("broadcast_lesser_equal", "LessOrEqual")
greater = _compare("broadcast_greater", "Greater")
greater_equal = _compare("broadcast_greater_equal", "GreaterOrEqual")
equal = _compare("broadcast_equal", "Equal")
logical_and = _compare("broadcast_logical_and", "And")
logical_or = _compare("broadcast_logical_or", "Or")
logical_xor = _compare("broadcast_logical_xor", "Xor")


def where(attrs, inputs, proto_obj):
    """``Where``: broadcast the three inputs to one shape, then select."""
    shapes = [tu.input_shape(proto_obj, s, "Where", required=False) for s in inputs]
    if any(s is None for s in shapes):
        return "where", {}, inputs
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    target = tuple(max(dims) for dims in zip(*padded))
    parts = []
    for sym, shape, full in zip(inputs, shapes, padded):
        if tuple(shape) != full:
            sym = symbol.reshape(sym, shape=full)
        if full != target:
            sym = symbol.broadcast_to(sym, shape=target)
        parts.append(sym)
    return "where", {}, parts


# -- reductions -------------------------------------------------------------------------


def _axes(attrs: dict, inputs: list, proto_obj, op: str):
    """Reduction axes from the attribute or (opset 13/18) the second input."""
    if len(inputs) > 1 and inputs[1] is not None:
        axes = tu.const_ints(proto_obj, inputs[1], "axes", op)
    else:
        axes = attrs.get("axes")
    return tuple(int(a) for a in axes) if axes else None


def _reduce(op: str, onnx_name: str, extra: dict | None = None):
    def translate(attrs, inputs, proto_obj):
        axes = _axes(attrs, inputs, proto_obj, onnx_name)
        if axes is None and int(attrs.get("noop_with_empty_axes", 0)):
            return "identity", {}, inputs[:1]
        new_attrs = {"axis": axes, "keepdims": bool(int(attrs.get("keepdims", 1)))}
        new_attrs.update(extra or {})
        return op, new_attrs, inputs[:1]
    translate.__name__ = f"reduce_{op}"
    translate.__doc__ = f"``{onnx_name}`` as ``mx.sym.{op}``."
    return translate


reduce_max = _reduce("max", "ReduceMax")
reduce_min = _reduce("min", "ReduceMin")
reduce_mean = _reduce("mean", "ReduceMean")
reduce_sum = _reduce("sum", "ReduceSum")
reduce_prod = _reduce("prod", "ReduceProd")
reduce_l1 = _reduce("norm", "ReduceL1", {"ord": 1})
reduce_l2 = _reduce("norm", "ReduceL2", {"ord": 2})


def _reduce_then(onnx_name: str, before, after):
    def translate(attrs, inputs, proto_obj):
        axes = _axes(attrs, inputs, proto_obj, onnx_name)
        keepdims = bool(int(attrs.get("keepdims", 1)))
        data = before(inputs[0]) if before else inputs[0]
        out = symbol.sum(data, axis=axes, keepdims=keepdims)
        return (after(out) if after else out), attrs, inputs
    translate.__doc__ = f"``{onnx_name}`` as a sum between elementwise operators."
    return translate


reduce_log_sum = _reduce_then("ReduceLogSum", None, symbol.log)
reduce_log_sum_exp = _reduce_then("ReduceLogSumExp", symbol.exp, symbol.log)
reduce_sum_square = _reduce_then("ReduceSumSquare", symbol.square, None)


def _arg_reduce(op: str, onnx_name: str):
    def translate(attrs, inputs, proto_obj):
        if int(attrs.get("select_last_index", 0)):
            raise tu.UnsupportedOnnxError(
                f"ONNX import: operator {onnx_name} with select_last_index=1 is not "
                "supported")
        out = getattr(symbol, op)(inputs[0], axis=int(attrs.get("axis", 0)),
                                  keepdims=bool(int(attrs.get("keepdims", 1))))
        return "cast", {"dtype": "int64"}, [out]
    translate.__name__ = op
    translate.__doc__ = f"``{onnx_name}``: ``mx.sym.{op}`` cast to int64."
    return translate


argmax = _arg_reduce("argmax", "ArgMax")
argmin = _arg_reduce("argmin", "ArgMin")
