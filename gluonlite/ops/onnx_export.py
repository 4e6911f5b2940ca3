"""How each operator is written as ONNX (opset 13) nodes, for ``mx.onnx.export_model``.

Operator knowledge, so it lives with the operators; the exporter
(:mod:`gluonlite.onnx`) walks a graph and calls :func:`converter` of each node's
operator with two objects of its own (this module never imports ``onnx``):

* a *builder* ``b``: ``b.node(op_type, inputs, outputs=None, n_out=1, **attrs) ->
  output names`` adds one ONNX node (fresh output names unless ``outputs`` are
  given); ``b.const(array, hint) -> name`` adds an initializer; ``b.ints(values,
  hint)`` an int64 1-D one; ``b.tensor_type(dtype)`` is ONNX's code of a dtype and
  ``b.tensor_value(array)`` a tensor for a node attribute;
* a *node view* ``n``: ``n.name``, ``n.attrs`` (parsed), ``n.inputs`` (tensor names),
  ``n.in_shapes``/``n.in_dtypes``, ``n.out_shapes``/``n.out_dtypes`` (from inference:
  exports are for static shapes), ``n.outputs`` (the names the node's outputs must
  take), ``n.unsupported(why)`` (an ``MXNetError`` naming the node) and
  ``n.static(what)``, which refuses a conversion that bakes in a shape when the export
  has dynamic input shapes.

A converter writes the node's visible outputs under ``n.outputs``.  Semantics are
MXNet's inference semantics (Dropout is the identity, BatchNorm uses the running
statistics).
"""
from __future__ import annotations

import numpy as np

__all__ = ["converter", "supported"]

OPSET = 13
INT_MAX = int(np.iinfo(np.int64).max)

CONVERTERS: dict = {}


def register(*names):
    """Decorator: the converter of the operators ``names`` (canonical names)."""
    def wrap(fn):
        for name in names:
            CONVERTERS[name] = fn
        return fn
    return wrap


def converter(op_name: str):
    """The converter of the operator named ``op_name`` (canonical name), or ``None``."""
    return CONVERTERS.get(op_name)


def supported() -> list:
    """Names of the operators :func:`converter` knows, sorted."""
    return sorted(CONVERTERS)


def scalar(b, value, dtype, hint: str = "scalar") -> str:
    """An initializer holding ``value`` as a 0-d array of ``dtype``."""
    return b.const(np.array(value, dtype=dtype), hint)


# the converters, by family (each registers itself here)
from . import (_onnx_contrib, _onnx_layers, _onnx_math, _onnx_rnn,  # noqa: E402,F401
               _onnx_tensor)
