"""``mxnet.onnx.mx2onnx._op_translations._op_translations_opset13``: the operators
gluonlite converts to opset 13 and their conversions.

Each conversion is defined with its operator (:mod:`gluonlite.ops.onnx_export`) as
``convert(builder, node_view)``: the protocol of gluonlite's exporter, not MXNet's
``convert_xxx(node, **kwargs)`` over JSON nodes.
"""
from __future__ import annotations

from typing import Callable

from ....ops import onnx_export
from ._attr_helpers import (convert_string_to_list, get_boolean_attribute_value,  # noqa: F401
                            parse_helper, transform_padding)

__all__ = ["OPSET_VERSION", "supported_ops", "get_converter", "parse_helper",
           "transform_padding", "convert_string_to_list", "get_boolean_attribute_value"]

OPSET_VERSION = onnx_export.OPSET


def supported_ops() -> list:
    """The names of the operators converted at this opset, sorted."""
    return onnx_export.supported()


def get_converter(op_name: str) -> Callable | None:
    """The conversion of operator ``op_name`` (its canonical name), or ``None``."""
    return onnx_export.converter(op_name)
