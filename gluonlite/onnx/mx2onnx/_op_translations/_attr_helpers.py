"""Parsing MXNet attribute strings for ONNX attributes (the helpers MXNet's
``_op_translations_opset12``/``13`` modules define)."""
from __future__ import annotations

import ast
import re

__all__ = ["parse_helper", "transform_padding", "convert_string_to_list",
           "get_boolean_attribute_value"]

_TUPLE = re.compile(r"\([0-9L|,| ]+\)")


def parse_helper(attrs: dict | None, attrs_name: str, alt_value=None):
    """Attribute ``attrs_name`` of ``attrs`` read as a tuple of ints (``"(2, 2)"``,
    ``"(3L,)"``); ``alt_value`` when absent or not such a tuple.

    Raises
    ------
    AttributeError
        When the value holds a tuple among other text (``"(1, 2)x"``).
    """
    if not attrs or attrs.get(attrs_name) is None:
        return alt_value
    text = str(attrs[attrs_name])
    match = _TUPLE.search(text)
    if match is None:
        return alt_value
    if match.span() != (0, len(text)):
        raise AttributeError(f"Malformed {attrs_name} dimensions: {text}")
    return ast.literal_eval(text.replace("L", ""))


def transform_padding(pad_width) -> list:
    """MXNet's ``pad_width`` (``(before0, after0, before1, after1, ...)``) in ONNX's
    order (all befores, then all afters)."""
    pad_width = list(pad_width)
    return pad_width[0::2] + pad_width[1::2]


def convert_string_to_list(string_val: str) -> list:
    """A shape string (``"(1, None, 3L)"``, ``"[2,3]"``) as a list of ints and
    ``None``."""
    out = []
    for item in string_val.split(","):
        item = item.strip()
        for char in "()L[]":
            item = item.replace(char, "")
        if item == "None":
            out.append(None)
        elif item:
            out.append(int(item))
    return out


def get_boolean_attribute_value(attrs: dict, attr_name: str) -> int:
    """1 when ``attrs[attr_name]`` is ``"True"`` or ``"1"``, else 0 (ONNX's boolean
    attributes are ints)."""
    return 1 if attrs.get(attr_name, 0) in ("True", "1") else 0
