"""``mxnet.onnx.mx2onnx._export_model``: the entry points of the ONNX exporter
(``export_model``, ``get_operator_support``), which live in :mod:`gluonlite.onnx.export`.

gluonlite's exporter writes opset 13 (what MXNet 1.9.1 writes with ONNX 1.8 and
later); ``get_operator_support(opset_version)`` lists the operators it converts, none
for an opset below 13.
"""
from ..export import export_model, get_operator_support  # noqa: F401
from ._export_helper import load_module  # noqa: F401

__all__ = ["export_model", "get_operator_support"]
