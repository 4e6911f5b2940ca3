"""``import_to_gluon`` (``mxnet.contrib.onnx.onnx2mx.import_to_gluon``)."""
from __future__ import annotations

from .import_model import load_onnx_model
from .import_onnx import GraphProto

__all__ = ["import_to_gluon"]


def import_to_gluon(model_file: str, ctx):
    """Import an ONNX model file as a Gluon ``SymbolBlock`` with its parameters set.

    Parameters
    ----------
    model_file : str
        The ONNX model file.
    ctx : Context or list of Context
        Where the parameters live.

    Returns
    -------
    gluon.SymbolBlock
        Its inputs are the model's data inputs, in the model's order.

    Notes
    -----
    Available after ``import mxnet.contrib.onnx``.  Needs the ``onnx`` package.
    """
    model, opset = load_onnx_model(model_file)
    return GraphProto().graph_to_gluon(model.graph, ctx, opset)
