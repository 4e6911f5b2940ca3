"""ONNX shape, indexing, joining, type and generator operators as gluonlite symbols.

Each translation takes ``(attrs, inputs, proto_obj)`` and returns ``(op, attrs,
inputs)`` (see ``import_onnx.GraphProto._convert_operator``); a translation that knows
its value at import (``Constant``, ``Shape`` of a known shape) returns it as a NumPy
array instead of an operator name.
"""
from __future__ import annotations

import numpy as np

from .... import symbol
from ....base import MXNetError
from . import _translation_utils as tu

_BIG = 2 ** 31  # ONNX writes "to the end" as INT_MAX / INT64_MAX

# -- constants -----------------------------------------------------------------------------


def constant(attrs, inputs, proto_obj):
    """``Constant``: its value, from whichever ``value*`` attribute holds it."""
    tu.require_onnx()
    from onnx.numpy_helper import to_array
    if "value" in attrs:
        return to_array(attrs["value"]), attrs, inputs
    for key, dtype in (("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        if key in attrs:
            return np.asarray(attrs[key], dtype=dtype), attrs, inputs
    raise tu.UnsupportedOnnxError(f"ONNX import: Constant with attributes {sorted(attrs)} "
                                  "is not supported (sparse or string values)")


def constant_of_shape(attrs, inputs, proto_obj):
    """``ConstantOfShape`` with a constant shape: its value."""
    shape = tu.const_ints(proto_obj, inputs[0], "shape", "ConstantOfShape")
    fill = np.zeros(1, np.float32)
    if "value" in attrs:
        tu.require_onnx()
        from onnx.numpy_helper import to_array
        fill = to_array(attrs["value"]).ravel()
    return np.full(shape, fill[0], dtype=fill.dtype), attrs, inputs


def shape(attrs, inputs, proto_obj):
    """``Shape``: a constant when the input shapes fix it, else ``shape_array``."""
    known = tu.input_shape(proto_obj, inputs[0], "Shape", required=False)
    if known is None:
        if "start" in attrs or "end" in attrs:
            raise tu.UnsupportedOnnxError("ONNX import: Shape with start/end needs a known "
                                          "input shape")
        return "shape_array", {}, inputs
    start, end = int(attrs.get("start", 0)), attrs.get("end")
    return np.asarray(known[start:None if end is None else int(end)], np.int64), attrs, inputs


def size(attrs, inputs, proto_obj):
    """``Size``: a constant when the input shapes fix it, else ``size_array``."""
    known = tu.input_shape(proto_obj, inputs[0], "Size", required=False)
    if known is None:
        return "size_array", {}, inputs
    return np.asarray(int(np.prod(known)), np.int64), attrs, inputs


def range_(attrs, inputs, proto_obj):
    """``Range`` of constant bounds: its value."""
    start, limit, delta = (np.asarray(tu.const_value(proto_obj, s, what, "Range")).ravel()[0]
                           for s, what in zip(inputs, ("start", "limit", "delta")))
    return np.arange(start, limit, delta).astype(np.asarray(start).dtype), attrs, inputs


# -- shapes -----------------------------------------------------------------------------------


def reshape(attrs, inputs, proto_obj):
    """``Reshape``: the shape from the attribute (opset < 5) or a constant input; ONNX's
    0 (copy) and -1 (infer) are MXNet's codes too."""
    if len(inputs) > 1:
        new_shape = tu.const_ints(proto_obj, inputs[1], "shape", "Reshape")
    else:
        new_shape = tuple(int(d) for d in attrs["shape"])
    if int(attrs.get("allowzero", 0)) and 0 in new_shape:
        raise tu.UnsupportedOnnxError("ONNX import: Reshape with allowzero=1 and a 0 in "
                                      "the shape is not supported")
    return "reshape", {"shape": new_shape}, inputs[:1]


def flatten(attrs, inputs, proto_obj):
    """``Flatten``: ``Flatten`` at axis 1, else a ``reshape`` to 2-D."""
    axis = int(attrs.get("axis", 1))
    if axis == 1:
        return "Flatten", {}, inputs
    if axis == 0:
        return "reshape", {"shape": (1, -1)}, inputs
    known = tu.input_shape(proto_obj, inputs[0], "Flatten")
    axis = tu.normalize_axis(axis, len(known))
    return "reshape", {"shape": (int(np.prod(known[:axis])), -1)}, inputs


def transpose(attrs, inputs, proto_obj):
    """``Transpose`` (``perm``, reversed axes by default)."""
    perm = attrs.get("perm")
    return "transpose", ({"axes": tuple(int(p) for p in perm)} if perm else {}), inputs


def _axes_of(attrs, inputs, proto_obj, op):
    if len(inputs) > 1 and inputs[1] is not None:
        return tu.const_ints(proto_obj, inputs[1], "axes", op)
    axes = attrs.get("axes")
    return tuple(int(a) for a in axes) if axes else None


def squeeze(attrs, inputs, proto_obj):
    """``Squeeze``: the axes from the attribute or (opset 13) a constant input."""
    axes = _axes_of(attrs, inputs, proto_obj, "Squeeze")
    return "squeeze", ({"axis": axes} if axes else {}), inputs[:1]


def unsqueeze(attrs, inputs, proto_obj):
    """``Unsqueeze``: one ``expand_dims`` per new axis, in ascending order."""
    axes = _axes_of(attrs, inputs, proto_obj, "Unsqueeze")
    if not axes:
        raise MXNetError("ONNX import: Unsqueeze needs axes")
    if any(a < 0 for a in axes):
        ndim = len(tu.input_shape(proto_obj, inputs[0], "Unsqueeze")) + len(axes)
        axes = tuple(tu.normalize_axis(a, ndim) for a in axes)
    out = inputs[0]
    for axis in sorted(axes):
        out = symbol.expand_dims(out, axis=axis)
    return out, attrs, inputs


def expand(attrs, inputs, proto_obj):
    """``Expand``: NumPy broadcasting to a constant shape, as ``broadcast_to``."""
    target = tu.const_ints(proto_obj, inputs[1], "shape", "Expand")
    known = tu.input_shape(proto_obj, inputs[0], "Expand")
    out_shape = tuple(np.broadcast_shapes(tuple(known), tuple(target)))
    data = inputs[0]
    if len(known) < len(out_shape):
        data = symbol.reshape(data, shape=(1,) * (len(out_shape) - len(known)) + tuple(known))
    return "broadcast_to", {"shape": out_shape}, [data]


def tile(attrs, inputs, proto_obj):
    """``Tile`` with constant repeats."""
    return "tile", {"reps": tu.const_ints(proto_obj, inputs[1], "repeats", "Tile")}, inputs[:1]


def depthtospace(attrs, inputs, proto_obj):
    """``DepthToSpace`` (mode DCR) as ``depth_to_space``."""
    if attrs.get("mode", "DCR") != "DCR":
        raise tu.UnsupportedOnnxError("ONNX import: DepthToSpace mode CRD is not supported")
    return "depth_to_space", {"block_size": int(attrs["blocksize"])}, inputs


def spacetodepth(attrs, inputs, proto_obj):
    """``SpaceToDepth`` as ``space_to_depth``."""
    return "space_to_depth", {"block_size": int(attrs["blocksize"])}, inputs


# -- joining, splitting, slicing ----------------------------------------------------------------


def concat(attrs, inputs, proto_obj):
    """``Concat`` along ``axis``."""
    return "concat", {"dim": int(attrs.get("axis", 1))}, inputs


def split(attrs, inputs, proto_obj):
    """``Split``: ``split`` for equal parts, slices for unequal ones."""
    node = proto_obj._node
    n_out = len(node.output)
    axis = int(attrs.get("axis", 0))
    if len(inputs) > 1 and inputs[1] is not None:
        sizes = tu.const_ints(proto_obj, inputs[1], "split", "Split")
    else:
        sizes = tuple(int(s) for s in attrs.get("split") or ())
    if not sizes or len(set(sizes)) == 1:
        return "split", {"num_outputs": n_out, "axis": axis}, inputs[:1]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    parts = [symbol.slice_axis(inputs[0], axis=axis, begin=int(b), end=int(b + s))
             for b, s in zip(starts, sizes)]
    return symbol.Group(parts), attrs, inputs


def _slice_bounds(begin, end, step, dim):
    """One axis of ``Slice`` as MXNet's ``slice`` bounds (``None``: to the edge)."""
    if dim is not None:
        if step > 0:
            begin = min(max(begin + dim if begin < 0 else begin, 0), dim)
            end = min(max(end + dim if end < 0 else end, 0), dim)
            return begin, end
        begin = min(max(begin + dim if begin < 0 else begin, -1), dim - 1)
        end = min(max(end + dim if end < 0 else end, -1), dim - 1)
        return begin, (None if end < 0 else end)
    begin = None if abs(begin) >= _BIG else begin
    end = None if abs(end) >= _BIG else end
    return begin, end


def _slice(attrs, inputs, proto_obj):
    """``Slice``: bounds from attributes (opset < 10) or constant inputs, as ``slice``."""
    if proto_obj.opset_version >= 10 and len(inputs) > 1:
        starts = tu.const_ints(proto_obj, inputs[1], "starts", "Slice")
        ends = tu.const_ints(proto_obj, inputs[2], "ends", "Slice")
        axes = tu.const_ints(proto_obj, inputs[3], "axes", "Slice") \
            if len(inputs) > 3 and inputs[3] is not None else None
        steps = tu.const_ints(proto_obj, inputs[4], "steps", "Slice") \
            if len(inputs) > 4 and inputs[4] is not None else None
    else:
        starts, ends = tuple(attrs["starts"]), tuple(attrs["ends"])
        axes, steps = attrs.get("axes"), None
    axes = tuple(axes) if axes else tuple(range(len(starts)))
    steps = tuple(steps) if steps else (1,) * len(starts)
    known = tu.input_shape(proto_obj, inputs[0], "Slice", required=False)
    if known is None and any(a < 0 for a in axes):
        known = tu.input_shape(proto_obj, inputs[0], "Slice")
    if known is not None:
        axes = tuple(tu.normalize_axis(a, len(known)) for a in axes)
    width = max(axes) + 1
    begin, end, step = [None] * width, [None] * width, [None] * width
    for axis, b, e, s in zip(axes, starts, ends, steps):
        if s == 0:
            raise MXNetError("ONNX import: Slice step 0")
        dim = known[axis] if known is not None else None
        begin[axis], end[axis] = _slice_bounds(int(b), int(e), int(s), dim)
        step[axis] = int(s)
    return "slice", {"begin": tuple(begin), "end": tuple(end), "step": tuple(step)}, inputs[:1]


def gather(attrs, inputs, proto_obj):
    """``Gather`` as ``take`` (negative indices count from the end)."""
    return "take", {"axis": int(attrs.get("axis", 0)), "mode": "wrap"}, inputs


def gather_nd(attrs, inputs, proto_obj):
    """``GatherND`` (batch_dims 0) as ``gather_nd`` with the index axis moved first."""
    if int(attrs.get("batch_dims", 0)):
        raise tu.UnsupportedOnnxError("ONNX import: GatherND with batch_dims is not "
                                      "supported")
    ndim = len(tu.input_shape(proto_obj, inputs[1], "GatherND"))
    indices = symbol.transpose(inputs[1], axes=(ndim - 1,) + tuple(range(ndim - 1)))
    return "gather_nd", {}, [inputs[0], indices]


def pad(attrs, inputs, proto_obj):
    """``Pad``: pads from the attribute (opset < 11) or constant inputs, in MXNet's
    ``pad_width`` order."""
    mode = attrs.get("mode", "constant")
    if proto_obj.opset_version >= 11 and len(inputs) > 1:
        pads = tu.const_ints(proto_obj, inputs[1], "pads", "Pad")
        value = tu.const_scalar(proto_obj, inputs[2], "constant_value", "Pad") \
            if len(inputs) > 2 and inputs[2] is not None else 0.0
        if len(inputs) > 3 and inputs[3] is not None:
            ndim = len(tu.input_shape(proto_obj, inputs[0], "Pad"))
            axes = [tu.normalize_axis(a, ndim)
                    for a in tu.const_ints(proto_obj, inputs[3], "axes", "Pad")]
            full = [0] * (2 * ndim)
            for k, axis in enumerate(axes):
                full[axis], full[ndim + axis] = pads[k], pads[len(axes) + k]
            pads = tuple(full)
    else:
        pads = tuple(attrs.get("pads") or attrs.get("paddings"))
        value = float(attrs.get("value", 0.0))
    if any(p < 0 for p in pads):
        raise tu.UnsupportedOnnxError("ONNX import: Pad with negative pads is not supported")
    return "pad", {"mode": mode, "pad_width": tu.pads_to_mxnet(pads),
                   "constant_value": float(value)}, inputs[:1]


def topk(attrs, inputs, proto_obj):
    """``TopK``: values and int64 indices, k from the attribute or a constant input."""
    k = tu.const_ints(proto_obj, inputs[1], "k", "TopK")[0] if len(inputs) > 1 \
        else int(attrs["k"])
    return "topk", {"axis": int(attrs.get("axis", -1)), "k": int(k), "ret_typ": "both",
                    "is_ascend": not bool(int(attrs.get("largest", 1))),
                    "dtype": "int64"}, inputs[:1]


# -- types and random numbers ---------------------------------------------------------------------


def cast(attrs, inputs, proto_obj):
    """``Cast`` to the NumPy dtype of ``to``."""
    return "cast", {"dtype": tu.onnx_dtype(attrs["to"]).name}, inputs


def _random_shape(attrs, inputs, proto_obj, op):
    if "shape" in attrs:
        return tuple(int(d) for d in attrs["shape"])
    return tuple(tu.input_shape(proto_obj, inputs[0], op))


def random_uniform(attrs, inputs, proto_obj):
    """``RandomUniform``/``RandomUniformLike`` (seed ignored)."""
    dtype = tu.onnx_dtype(attrs.get("dtype", 1)).name
    out = symbol.random_uniform(low=float(attrs.get("low", 0.0)),
                                high=float(attrs.get("high", 1.0)),
                                shape=_random_shape(attrs, inputs, proto_obj, "RandomUniform"),
                                dtype=dtype)
    return out, attrs, inputs


def random_normal(attrs, inputs, proto_obj):
    """``RandomNormal``/``RandomNormalLike`` (seed ignored)."""
    dtype = tu.onnx_dtype(attrs.get("dtype", 1)).name
    out = symbol.random_normal(loc=float(attrs.get("mean", 0.0)),
                               scale=float(attrs.get("scale", 1.0)),
                               shape=_random_shape(attrs, inputs, proto_obj, "RandomNormal"),
                               dtype=dtype)
    return out, attrs, inputs


def sample_multinomial(attrs, inputs, proto_obj):
    """``Multinomial``: samples of the softmax of the (unnormalized log-probability)
    input."""
    probs = symbol.softmax(inputs[0], axis=-1)
    out = symbol.sample_multinomial(probs, shape=int(attrs.get("sample_size", 1)),
                                    dtype=tu.onnx_dtype(attrs.get("dtype", 6)).name)
    return out, attrs, inputs
