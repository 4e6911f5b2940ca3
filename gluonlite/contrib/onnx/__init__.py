"""``mx.contrib.onnx``: import ONNX models (MXNet 1.9's ``mxnet.contrib.onnx``).

``import_model`` gives a symbol with ``arg_params``/``aux_params``,
``get_model_metadata`` the input and output names and shapes, ``import_to_gluon`` a
``gluon.SymbolBlock``; ``export_model`` is ``mx.onnx.export_model`` under its old path.
As in MXNet 1.9.1, each prints a deprecation notice.  Needs the ``onnx`` package when
called.
"""
from __future__ import annotations

from .onnx2mx.import_model import get_model_metadata as _get_model_metadata
from .onnx2mx.import_model import import_model as _import_model
from .onnx2mx.import_to_gluon import import_to_gluon as _import_to_gluon

__all__ = ["import_model", "get_model_metadata", "import_to_gluon", "export_model"]

_IMPORT_NOTICE = ("Please be advised that importing ONNX models into MXNet is going to be "
                  "deprecated in the upcoming MXNet v1.10 release. The following apis will "
                  "be deleted: mxnet.contrib.onnx.import_model/get_model_metadata/"
                  "import_to_gluon.")


def import_model(*args, **kwargs):
    """``(sym, arg_params, aux_params)`` of an ONNX file (see
    :func:`.onnx2mx.import_model.import_model`)."""
    print("Calling mxnet.contrib.onnx.import_model...")
    print(_IMPORT_NOTICE)
    return _import_model(*args, **kwargs)


def get_model_metadata(*args, **kwargs) -> dict:
    """Input and output names and shapes of an ONNX file (see
    :func:`.onnx2mx.import_model.get_model_metadata`)."""
    print("Calling mxnet.contrib.onnx.get_model_metadata...")
    print(_IMPORT_NOTICE)
    return _get_model_metadata(*args, **kwargs)


def import_to_gluon(*args, **kwargs):
    """A ``gluon.SymbolBlock`` of an ONNX file (see
    :func:`.onnx2mx.import_to_gluon.import_to_gluon`)."""
    print("Calling mxnet.contrib.onnx.import_to_gluon...")
    print(_IMPORT_NOTICE)
    return _import_to_gluon(*args, **kwargs)


def export_model(*args, **kwargs) -> str:
    """``mx.onnx.export_model`` under the path MXNet 1.9 still keeps for it."""
    print("Calling mxnet.contrib.onnx.export_model...")
    print("Please be advised that the ONNX module has been moved to mxnet.onnx and "
          "mxnet.onnx.export_model is the preferred path. The current path will be "
          "deprecated in the upcoming MXNet v1.10 release.")
    from ...onnx import export_model as _export_model
    return _export_model(*args, **kwargs)
