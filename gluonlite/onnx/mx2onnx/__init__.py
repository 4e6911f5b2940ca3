"""``mxnet.onnx.mx2onnx``: the exporter under the path MXNet 1.9 gives it."""
from ..export import export_model, get_operator_support

__all__ = ["export_model", "get_operator_support"]
