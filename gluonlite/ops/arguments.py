"""An operator's arguments as MXNet documents them (``mx.operator.get_operator_arguments``).

MXNet lists an operator's array inputs first (``NDArray-or-Symbol``, or
``NDArray-or-Symbol[]`` for a variadic input), then its parameters in declaration
order, each with a type string from its C++ field: ``"int, required"``, ``"boolean,
optional, default=0"``, ``"Shape(tuple), optional, default=[]"``, ``"{'relu',
'sigmoid'}, required"``, ``"float, optional, default=0.899999976"`` (a C float printed
with 9 significant digits), ``"int or None, optional, default='None'"``.  The strings
here are generated from the registry's declared :class:`~gluonlite.ops.attrs.Attr`
kinds, defaults and choices; ``Attr.mx_type`` names the C++ type where the kind does
not tell it (``double``, ``int (non-negative)``, ``long (non-negative)``).
"""
from __future__ import annotations

import numpy as np

from .attrs import REQUIRED, Attr

__all__ = ["operator_arguments", "describe_attr"]

INPUT = "NDArray-or-Symbol"

# the dtype names MXNet's dtype enums offer where an operator declares no choices
_DTYPES = ("bfloat16", "bool", "float16", "float32", "float64", "int32", "int64", "int8",
           "uint8")


def _float_text(value, word: str) -> str:
    if word.startswith("double"):
        return "%.17g" % float(value)
    return "%.9g" % float(np.float32(value))


def _enum_text(choices, with_none: bool) -> str:
    names = sorted(str(c) for c in choices if c is not None)
    items = (["None"] if with_none else []) + [f"'{c}'" for c in names]
    return "{" + ", ".join(items) + "}"


def _shape_text(value) -> str:
    return "[" + ",".join(("%g" % d) if isinstance(d, float) else str(d) for d in value) + "]"


def describe_attr(attr: Attr) -> str:
    """MXNet's type string of one declared attribute."""
    kind, default, required = attr.kind, attr.default, attr.default is REQUIRED
    if kind == "dtype" or attr.choices is not None:
        choices = attr.choices if attr.choices is not None else _DTYPES
        with_none = attr.optional or None in choices
        word = attr.mx_type or _enum_text(choices, with_none)
        if required:
            return f"{word}, required"
        text = default.name if isinstance(default, np.dtype) else str(default)
        return f"{word},optional, default='{text}'"
    if kind == "int":
        word = attr.mx_type or "int"
        quote = attr.mx_type is None  # dmlc quotes the default of a plain (enum-able) int
    elif kind == "float":
        word, quote = attr.mx_type or "float", False
    elif kind == "bool":
        word, quote = attr.mx_type or "boolean", False
    elif kind == "shape":
        if attr.optional and not required:
            return f"{attr.mx_type or 'Shape or None'}, optional, default=None"
        word, quote = attr.mx_type or "Shape(tuple)", False
    elif kind == "floats":
        word, quote = attr.mx_type or "tuple of <float>", False
    else:
        word, quote = attr.mx_type or "string", True
    if attr.optional and kind in ("int", "float", "bool"):
        word += " or None"
    if required:
        return f"{word}, required"
    if default is None:
        text = "None"
    elif kind == "float":
        text = _float_text(default, word)
    elif kind == "bool":
        text = str(int(bool(default)))
    elif kind in ("shape", "floats"):
        text = _shape_text(default)
    else:
        text = str(default)
    if quote:
        text = f"'{text}'"
    return f"{word}, optional, default={text}"


def _input_names(op) -> tuple[list, bool]:
    """The operator's input names, and whether it is variadic (one list argument)."""
    if op.key_var_num_args is not None:
        return [op.variadic_input], True
    if op._static_inputs is not None:
        return list(op._static_inputs), False
    try:
        attrs = op.parse_attrs({})
    except Exception:  # noqa: BLE001 - a required attribute: structure from defaults
        from .registry import OpAttrs
        attrs = OpAttrs({k: (None if a.default is REQUIRED else a.default)
                         for k, a in op.attrs.items()}, {})
    try:
        return list(op.input_names(attrs)), False
    except Exception:  # noqa: BLE001 - inputs that need a real attribute value
        return [op.variadic_input], True


def operator_arguments(op) -> tuple[list, list]:
    """``(names, types)`` of an operator's arguments as MXNet lists them: inputs, then
    the declared attributes (runtime objects left out)."""
    names, variadic = _input_names(op)
    types = [INPUT + "[]" if variadic else INPUT] * len(names)
    for key, attr in op.attrs.items():
        if attr.kind == "object":
            continue
        names.append(key)
        types.append(describe_attr(attr))
    return names, types
