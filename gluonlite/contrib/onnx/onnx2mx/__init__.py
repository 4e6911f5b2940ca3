"""``mxnet.contrib.onnx.onnx2mx``: ONNX models imported as symbols or Gluon blocks."""
from . import import_model  # noqa: F401
from . import import_onnx  # noqa: F401
from . import import_to_gluon  # noqa: F401
