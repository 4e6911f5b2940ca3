"""Typed operator attributes, parsed from and printed to MXNet's attribute strings.

MXNet stores every attribute as a string (``"(3, 3)"``, ``"True"``, ``"None"``,
``"0.001"``).  Each attribute of an operator declares a kind; the parser accepts
either such a string or a Python value, and ``format_attr`` prints the value the
way MXNet's front end writes it into graph JSON.
"""
from __future__ import annotations

import ast

import numpy as np

from ..base import MXNetError

REQUIRED = object()

_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def _parse_bool(v):
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise ValueError(v)
    return bool(v)


def _literal(v):
    if isinstance(v, str):
        s = v.strip()
        if s in ("None", ""):
            return None
        s = s.replace("L", "") if s.endswith("L)") else s
        return ast.literal_eval(s)
    return v


def _parse_int(v):
    v = _literal(v)
    if v is None:
        raise ValueError("None")
    if isinstance(v, float) and not v.is_integer():
        raise ValueError(v)
    return int(v)


def _parse_float(v):
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("inf", "+inf", "infinity"):
            return float("inf")
        if s in ("-inf", "-infinity"):
            return float("-inf")
        if s == "nan":
            return float("nan")
        return float(s)
    return float(v)


def _parse_shape(v):
    """A tuple of ints; ``None`` entries are kept (MXNet's optional dims)."""
    v = _literal(v)
    if v is None:
        return ()
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(None if d is None else int(d) for d in v)


def _parse_float_tuple(v):
    v = _literal(v)
    if v is None:
        return ()
    if isinstance(v, (int, float, np.number)):
        return (float(v),)
    return tuple(float(d) for d in v)


class UnsupportedDtypeError(ValueError):
    """A dtype gluonlite cannot compute in (bfloat16, record dtypes); its message is
    passed on to the user."""


_NO_BF16 = ("bfloat16 is not supported: NumPy and CuPy have no bfloat16 arithmetic "
            "(MXNet's bfloat16 is the record dtype [('bfloat16', '<u2')] over oneDNN kernels)")


def _parse_dtype(v):
    if v is None or (isinstance(v, str) and v.strip() in ("None", "")):
        return None
    if isinstance(v, str):
        v = v.strip().strip("'\"")
        if v == "bfloat16":
            raise UnsupportedDtypeError(_NO_BF16)
    dtype = np.dtype(v)
    if dtype.kind == "V":
        # MXNet's ``bfloat16`` (np.dtype([('bfloat16', np.uint16)])) and other records:
        # casting to them would reinterpret values as raw integers
        if dtype.names == ("bfloat16",):
            raise UnsupportedDtypeError(_NO_BF16)
        raise UnsupportedDtypeError(f"record/void dtype {dtype} is not an array dtype")
    return dtype


def _parse_str(v):
    if v is None:
        return None
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        # a dtype given as ``np.float64`` or ``np.dtype('int32')`` to a string attribute
        # with dtype-name choices (topk's, argsort's ``dtype``): MXNet takes its name
        return np.dtype(v).name
    return str(v).strip().strip("'\"") if isinstance(v, str) else str(v)


def _parse_any(v):
    return v


_PARSERS = {
    "int": _parse_int,
    "float": _parse_float,
    "bool": _parse_bool,
    "shape": _parse_shape,
    "floats": _parse_float_tuple,
    "dtype": _parse_dtype,
    "str": _parse_str,
    "any": _parse_any,
    # a runtime object (a control-flow node's subgraphs): kept as given, never written
    # into JSON as an attribute string
    "object": _parse_any,
}


class Attr:
    """Declaration of one operator attribute.

    Parameters
    ----------
    kind : str
        One of ``int``, ``float``, ``bool``, ``shape``, ``floats``, ``dtype``,
        ``str``, ``any``, ``object`` (a Python object the layers above hand in, not an
        MXNet attribute string: left out of the given attributes).
    default : object
        MXNet's default, or ``REQUIRED``.
    optional : bool
        Whether ``None`` is a legal value (MXNet's ``dmlc::optional``).
    choices : tuple of str, optional
        Legal values of a string attribute.
    mx_type : str, optional
        The C++ type word MXNet's documentation gives the field where the kind alone
        does not tell it (``"double"``, ``"int (non-negative)"``, ``"long
        (non-negative)"``); see :mod:`gluonlite.ops.arguments`.
    """

    __slots__ = ("kind", "default", "optional", "choices", "parser", "mx_type")

    def __init__(self, kind: str, default=REQUIRED, optional: bool = False,
                 choices: tuple | None = None, mx_type: str | None = None):
        if kind not in _PARSERS:
            raise ValueError(f"unknown attribute kind {kind}")
        self.kind = kind
        self.default = default
        self.optional = optional or default is None
        self.choices = choices
        self.parser = _PARSERS[kind]
        self.mx_type = mx_type

    def parse(self, op_name: str, name: str, value):
        """Parse ``value`` (string or Python value); raise ``MXNetError`` if invalid."""
        if value is None or (isinstance(value, str) and value.strip() == "None"
                             and self.kind not in ("str",)):
            if self.optional or self.kind == "any":
                return None
            raise MXNetError(f"Operator {op_name}: attribute '{name}' cannot be None")
        try:
            out = self.parser(value)
        except UnsupportedDtypeError as err:
            raise MXNetError(f"Operator {op_name}: attribute '{name}': {err}") from err
        except (ValueError, SyntaxError, TypeError) as err:
            raise MXNetError(f"Operator {op_name}: invalid value {value!r} for attribute "
                             f"'{name}' ({self.kind} expected)") from err
        if self.choices is not None and out not in self.choices:
            raise MXNetError(f"Operator {op_name}: attribute '{name}' must be one of "
                             f"{list(self.choices)}, got {out!r}")
        return out


def format_attr(value) -> str:
    """Print an attribute value the way MXNet writes it into graph JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, np.dtype):
        # MXNet's bfloat16 record dtype is written by its name, as MXNet does
        return "bfloat16" if value.names == ("bfloat16",) else value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, list):
        return "[" + ", ".join(format_attr(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(format_attr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)
