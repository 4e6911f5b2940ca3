"""Upgrades MXNet applies when it loads graph JSON written by older versions.

Learned by feeding MXNet 1.9.1 hand-made old-format files and reading back what
``tojson()`` gives:

* per node, the attribute dictionary is the *last* of the ``attrs``/``attr`` keys
  (in file order; an earlier one is dropped), and the pre-NNVM ``param`` dictionary
  fills in the keys it does not already have;
* files older than 1.9.1 (``mxnet_version`` below 10901, or none: v0.8.0) have the
  attributes ``ctx_group``, ``lr_mult``, ``wd_mult``, ``force_mirroring`` and
  ``mirror_stage`` renamed to ``__ctx_group__`` etc.; the renamed value wins over
  one already stored under the new name;
* files older than 0.9.0 get the inputs an operator node lacks (BatchNorm's
  ``moving_mean``/``moving_var`` in particular) as new variables named
  ``<node>_<input>``, carrying a copy of the node's attributes;
* files older than 0.9.4 get on the variables feeding BatchNorm's moving statistics
  and PReLU's ``gamma`` the ``__init__`` attribute MXNet sets on them when composing
  (unless the variable already has one);
* entry versions (the third number of an input) are kept as read: a file without
  them reads as version 0 everywhere.
"""
from __future__ import annotations

from ..base import MXNetError
from ..ops.registry import find_op

__all__ = ["CURRENT_VERSION", "RENAMED_KEYS", "node_attr_strings", "rename_legacy_keys",
           "upgrades_missing_inputs", "upgrades_input_init", "input_init", "graph_version"]

CURRENT_VERSION = 10901          # the version this library writes (MXNet 1.9.1)
_AUX_UPGRADE_BEFORE = 900        # v0.9.0: auxiliary states became graph inputs
_INIT_UPGRADE_BEFORE = 904       # v0.9.4: composition started to set ``__init__``
LEGACY_VERSION = 800             # a file without ``mxnet_version`` is v0.8.0

RENAMED_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")

def graph_version(graph: dict) -> int:
    """The ``mxnet_version`` of a parsed graph dictionary (800 when absent)."""
    attrs = graph.get("attrs")
    if attrs is None:
        return LEGACY_VERSION
    if not isinstance(attrs, dict):
        raise MXNetError("Invalid MXNet symbol JSON: graph 'attrs' must be an object")
    entry = attrs.get("mxnet_version")
    if entry is None:
        return LEGACY_VERSION
    if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[1], int)
            or isinstance(entry[1], bool)):
        raise MXNetError(f"Invalid MXNet symbol JSON: mxnet_version must be "
                         f"[\"int\", <version>], got {entry!r}")
    return entry[1]


def node_attr_strings(node: dict, where: str) -> dict:
    """A node's attribute strings merged the way MXNet reads them (see module doc)."""
    out: dict = {}
    for key, value in node.items():
        if key in ("attrs", "attr"):
            out = dict(_string_map(value, f"{where} '{key}'"))
    param = node.get("param")
    if param is not None:
        for key, value in _string_map(param, f"{where} 'param'").items():
            out.setdefault(key, value)
    return out


def _string_map(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise MXNetError(f"Invalid MXNet symbol JSON: {where} must be an object of strings, "
                         f"got {type(value).__name__}")
    for key, item in value.items():
        if not isinstance(item, str):
            raise MXNetError(f"Invalid MXNet symbol JSON: {where} value of '{key}' must be a "
                             f"string, got {type(item).__name__} {item!r}")
    return value


def rename_legacy_keys(attrs: dict, version: int) -> dict:
    """Move ``lr_mult`` and the other user keys to ``__lr_mult__`` for old files."""
    if version >= CURRENT_VERSION or not any(k in attrs for k in RENAMED_KEYS):
        return attrs
    out = {}
    for key, value in attrs.items():
        if key in RENAMED_KEYS:
            continue
        out[key] = value
    for key in RENAMED_KEYS:
        if key in attrs:
            out[f"__{key}__"] = attrs[key]
    return out


def upgrades_missing_inputs(version: int) -> bool:
    """Whether missing operator inputs become new variables (files before v0.9.0)."""
    return version < _AUX_UPGRADE_BEFORE


def upgrades_input_init(version: int) -> bool:
    """Whether variable inputs get composition's ``__init__`` (files before v0.9.4)."""
    return version < _INIT_UPGRADE_BEFORE


def input_init(op_name: str, input_name: str) -> str | None:
    """The ``__init__`` MXNet sets on a variable bound to this operator input, if any."""
    op = find_op(op_name)  # its declared input_init, which composition uses too
    return None if op is None else op.input_init.get(input_name)
