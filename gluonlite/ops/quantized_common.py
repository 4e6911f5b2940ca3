"""Plumbing shared by the INT8 operators: output names, ``(min, max)`` range outputs,
calibrated-range attributes, shape and dtype inference of ``(data, min, max)`` operators.

The scales and rounding rules themselves are in :mod:`gluonlite.ops._quantized_math`.
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from .attrs import Attr
from .common import merge_shapes, put

OUT_TYPES = ("auto", "int8", "uint8")
RANGE_OUTS = ("output", "min_output", "max_output")
NUMBERED_OUTS = ("output0", "output1", "output2")
RANGE_IN = ("data", "min_data", "max_data")
F32 = np.dtype(np.float32)

CALIB_ATTRS = {"min_calib_range": Attr("float", None, optional=True),
               "max_calib_range": Attr("float", None, optional=True)}


def ranges_out(xp, out, value, lo, hi) -> list:
    """``[value, min, max]`` written into ``out`` when given, the range as ``(1,)``
    float32 arrays."""
    lo_a, hi_a = qm.range_arrays(xp, lo, hi)
    return [put(out, 0, value), put(out, 1, lo_a), put(out, 2, hi_a)]


def calib_range(attrs) -> tuple | None:
    """``(min_calib_range, max_calib_range)`` as floats, or None unless both are given."""
    lo, hi = attrs.min_calib_range, attrs.max_calib_range
    return None if lo is None or hi is None else (float(lo), float(hi))


def resolve_out_type(attrs) -> str:
    """``auto`` means uint8 when a calibrated range starts at or above zero, else int8."""
    if attrs.out_type != "auto":
        return attrs.out_type
    calib = calib_range(attrs)
    return "uint8" if calib is not None and calib[0] >= 0 else "int8"


def scalar_shapes(n: int) -> list:
    """``n`` range shapes ``(1,)``."""
    return [(1,)] * n


def same_data_shape(in_shape, out_shape):
    """The one shape of an operator's data input and output, merged from what each side
    knows (unknown dimensions are 0: a graph's begin state ``(0, 64)`` gets its batch
    size from its consumers)."""
    return merge_shapes("quantized operator", "data", in_shape, out_shape)


def unary_range_infer(attrs, in_shapes, out_shapes=(None,)):
    """Same shape in and out (either side gives it); ranges are ``(1,)``."""
    data = same_data_shape(in_shapes[0], out_shapes[0])
    return [data] + scalar_shapes(len(in_shapes) - 1), [data, (1,), (1,)]


def typed(out_dtype_fn, data_dtype=None):
    """dtype inference of a ``(data, [min, max]) -> (data, min, max)`` operator: the
    ranges are float32, ``data`` is ``data_dtype`` when given (float32 for quantize)."""
    def infer(op, attrs, in_dtypes):
        ins = list(in_dtypes)
        if data_dtype is not None:
            ins[0] = np.dtype(data_dtype)
        ins[1:] = [F32] * (len(ins) - 1)
        return ins, [out_dtype_fn(attrs, ins), F32, F32]
    return infer


def passthrough_types(op, attrs, in_dtypes, n_data: int = 1):
    """Quantized data keeps its dtype (the first known of the ``n_data`` data inputs');
    ranges are float32."""
    data = next((d for d in in_dtypes[:n_data] if d is not None), None)
    ins = [data] * n_data + [F32] * (len(in_dtypes) - n_data)
    return ins, [data, F32, F32]
