"""Helpers the ONNX operator translations share (``onnx2mx._translation_utils``).

Attribute renaming, ONNX's pad order turned into MXNet's, the values of constant inputs
(initializers and ``Constant`` nodes, which opset 10+ uses for shapes, axes and
bounds), the input shapes the importer can infer, and the errors the importer raises.
"""
from __future__ import annotations

import numpy as np

from ....base import MXNetError

__all__ = ["UnsupportedOnnxError", "require_onnx", "onnx_dtype", "rename", "drop",
           "with_defaults", "pads_to_mxnet", "split_pads", "const_value", "const_ints",
           "const_scalar", "input_shape", "normalize_axis"]

INSTALL_HINT = ("Onnx and protobuf need to be installed. Instructions to install - "
                "https://github.com/onnx/onnx")


class UnsupportedOnnxError(MXNetError, NotImplementedError):
    """An MXNetError where MXNet raises ``NotImplementedError``: an ONNX operator, or a
    form of one, that the importer cannot translate."""


def require_onnx():
    """The ``onnx`` module, or ImportError with MXNet's message when it is missing."""
    try:
        import onnx
    except ImportError as err:
        raise ImportError(INSTALL_HINT) from err
    return onnx


def onnx_dtype(elem_type: int) -> np.dtype:
    """The NumPy dtype of an ONNX ``TensorProto`` element type."""
    onnx = require_onnx()
    helper = onnx.helper
    if hasattr(helper, "tensor_dtype_to_np_dtype"):
        return np.dtype(helper.tensor_dtype_to_np_dtype(int(elem_type)))
    from onnx.mapping import TENSOR_TYPE_TO_NP_TYPE  # onnx < 1.13
    return np.dtype(TENSOR_TYPE_TO_NP_TYPE[int(elem_type)])


def rename(attrs: dict, changes: dict) -> dict:
    """A copy of ``attrs`` with the keys in ``changes`` renamed."""
    return {changes.get(k, k): v for k, v in attrs.items()}


def drop(attrs: dict, names) -> dict:
    """A copy of ``attrs`` without ``names``."""
    return {k: v for k, v in attrs.items() if k not in set(names)}


def with_defaults(attrs: dict, defaults: dict) -> dict:
    """A copy of ``attrs`` with ``defaults`` added where a key is missing."""
    out = dict(defaults)
    out.update(attrs)
    return out


def pads_to_mxnet(pads, ndim: int | None = None) -> tuple:
    """ONNX's ``(x1_begin, x2_begin, ..., x1_end, x2_end, ...)`` as MXNet's
    ``pad_width`` order ``(x1_begin, x1_end, x2_begin, x2_end, ...)``, padded with
    zeros to ``ndim`` axes."""
    pads = [int(p) for p in pads]
    half = len(pads) // 2
    out = []
    for k in range(half):
        out += [pads[k], pads[half + k]]
    if ndim is not None:
        out += [0, 0] * (ndim - half)
    return tuple(out)


def split_pads(pads, ndim: int) -> tuple[tuple, tuple]:
    """ONNX ``pads`` of ``ndim`` spatial axes as ``(begins, ends)`` (zeros when absent)."""
    if not pads:
        return (0,) * ndim, (0,) * ndim
    pads = [int(p) for p in pads]
    return tuple(pads[:ndim]), tuple(pads[ndim:2 * ndim])


def const_value(proto_obj, sym, what: str, op: str) -> np.ndarray:
    """The value of an input that must be constant (an initializer or a ``Constant``
    node), in its ONNX dtype."""
    name = None if sym is None else sym.name
    if name is None or name not in proto_obj._consts:
        raise UnsupportedOnnxError(
            f"ONNX import: operator {op} needs its {what} input to be constant (an "
            f"initializer or a Constant node); '{name}' is computed in the graph")
    return proto_obj._consts[name]


def const_ints(proto_obj, sym, what: str, op: str) -> tuple:
    """A constant input as a tuple of Python ints."""
    return tuple(int(v) for v in np.asarray(const_value(proto_obj, sym, what, op)).ravel())


def const_scalar(proto_obj, sym, what: str, op: str) -> float:
    """A constant one-element input as a Python float."""
    value = np.asarray(const_value(proto_obj, sym, what, op)).ravel()
    if value.size != 1:
        raise MXNetError(f"ONNX import: operator {op} expects a scalar {what}, got "
                         f"{value.size} values")
    return value[0].item()


def input_shape(proto_obj, sym, op: str, required: bool = True):
    """The shape of ``sym`` when the model's input shapes fix it, else ``None`` (or an
    error naming ``op`` when ``required``)."""
    shape = proto_obj._infer_shape(sym)
    if shape is None and required:
        raise MXNetError(f"ONNX import: operator {op} needs the shape of its input, which "
                         "the model's input shapes do not fix")
    return shape


def normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` counted from the front."""
    return int(axis) + ndim if int(axis) < 0 else int(axis)
