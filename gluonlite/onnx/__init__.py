"""``mx.onnx``: export a symbol and its parameters to ONNX (MXNet 1.9's ``mxnet.onnx``;
``import gluonlite.onnx`` or, under the alias, ``import mxnet.onnx``).  Needs the
``onnx`` package."""
from .export import export_model, get_operator_support

__all__ = ["export_model", "get_operator_support"]
