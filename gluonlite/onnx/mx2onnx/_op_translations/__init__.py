"""``mxnet.onnx.mx2onnx._op_translations``: the operator conversions, by opset.

gluonlite defines each conversion once, with its operator
(:mod:`gluonlite.ops.onnx_export`), and writes opset 13: :mod:`._op_translations_opset13`
lists them; :mod:`._op_translations_opset12` has none (MXNet's opset-12 table has no
counterpart here).  Both hold MXNet's attribute-string helpers."""
from . import _op_translations_opset12, _op_translations_opset13  # noqa: F401
