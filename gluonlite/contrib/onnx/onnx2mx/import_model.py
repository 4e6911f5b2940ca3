"""``import_model`` and ``get_model_metadata`` (``mxnet.contrib.onnx.onnx2mx.import_model``)."""
from __future__ import annotations

from ....base import MXNetError
from . import _translation_utils as tu
from .import_onnx import GraphProto

__all__ = ["import_model", "get_model_metadata", "load_onnx_model"]


def load_onnx_model(model_file: str):
    """The ``ModelProto`` in ``model_file`` and its (highest) opset.

    Raises
    ------
    ImportError
        Without the ``onnx`` package.
    MXNetError
        When the file cannot be read or parsed as an ONNX model.
    """
    onnx = tu.require_onnx()
    try:
        model = onnx.load_model(model_file)
    except FileNotFoundError:
        raise
    except Exception as err:  # noqa: BLE001 - protobuf raises several kinds
        raise MXNetError(f"ONNX import: cannot read '{model_file}' as an ONNX model: "
                         f"{err}") from err
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    versions = versions or [o.version for o in model.opset_import]
    return model, max(versions) if versions else 0


def import_model(model_file: str):
    """Import an ONNX model file as a symbol and its parameters.

    Parameters
    ----------
    model_file : str
        The ONNX model file.

    Returns
    -------
    sym : Symbol
        The graph.
    arg_params : dict of str to NDArray
        The initializers the graph takes as arguments, by their ONNX names.
    aux_params : dict of str to NDArray
        Those it takes as auxiliary states (BatchNorm's running statistics).

    Notes
    -----
    Available after ``import mxnet.contrib.onnx``.  Needs the ``onnx`` package.
    """
    model, opset = load_onnx_model(model_file)
    return GraphProto().from_onnx(model.graph, opset_version=opset)


def get_model_metadata(model_file: str) -> dict:
    """Names and shapes of an ONNX model's inputs and outputs.

    Parameters
    ----------
    model_file : str
        The ONNX model file.

    Returns
    -------
    dict
        ``'input_tensor_data'``: ``[(name, shape, onnx_elem_type), ...]`` for the data
        inputs (not the initializers); ``'output_tensor_data'``: ``[(name, shape),
        ...]``.  Symbolic dimensions are 0.
    """
    model, _ = load_onnx_model(model_file)
    return GraphProto().get_graph_metadata(model.graph)
