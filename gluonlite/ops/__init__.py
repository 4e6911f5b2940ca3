"""Operator registry and definitions.  See ``registry.py`` for the pattern."""
from .registry import OpDef, OpContext, OpAttrs, Attr, register, get_op, find_op, all_ops, op_names

__all__ = ["OpDef", "OpContext", "OpAttrs", "Attr", "register", "get_op", "find_op",
           "all_ops", "op_names"]
