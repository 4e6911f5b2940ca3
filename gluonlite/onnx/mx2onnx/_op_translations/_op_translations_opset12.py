"""``mxnet.onnx.mx2onnx._op_translations._op_translations_opset12``: MXNet's opset-12
conversions.

gluonlite writes opset 13 only (see :mod:`._op_translations_opset13`), so no
operator has an opset-12 conversion here: :func:`supported_ops` is empty and
:func:`get_converter` gives ``None``.  The attribute helpers are MXNet's.
"""
from __future__ import annotations

from typing import Callable

from ._attr_helpers import (convert_string_to_list, get_boolean_attribute_value,  # noqa: F401
                            parse_helper, transform_padding)

__all__ = ["OPSET_VERSION", "supported_ops", "get_converter", "parse_helper",
           "transform_padding", "convert_string_to_list", "get_boolean_attribute_value"]

OPSET_VERSION = 12


def supported_ops() -> list:
    """No operator: gluonlite has no opset-12 conversions."""
    return []


def get_converter(op_name: str) -> Callable | None:
    """``None``: gluonlite has no opset-12 conversions."""
    return None
