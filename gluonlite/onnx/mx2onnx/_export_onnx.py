"""``mxnet.onnx.mx2onnx._export_onnx``: ``MXNetGraph``, MXNet's symbol-to-ONNX graph
converter, over gluonlite's exporter (:mod:`gluonlite.onnx.export`).

What maps: the conversion table (``registry_``: opset 13, gluonlite's conversions),
``split_params``, ``convert_weights_to_numpy``, ``get_outputs`` and
``create_onnx_graph_proto`` (the graph gluonlite's ``export_model`` writes).  What does
not: MXNet's per-node conversion protocol (``convert_xxx(json_node, **kwargs)``),
so :meth:`MXNetGraph.register` and :meth:`MXNetGraph.convert_layer` raise
``MXNetError``; gluonlite's conversions are defined with the operators
(:mod:`gluonlite.ops.onnx_export`).
"""
from __future__ import annotations

import os
import re
import tempfile

import numpy as np

from ...base import MXNetError
from ...ops import onnx_export
from ..export import _onnx, export_model

__all__ = ["MXNetGraph"]

_NO_NODE_PROTOCOL = ("gluonlite's ONNX exporter has no per-node conversion protocol of "
                     "MXNet's kind (convert_xxx(node, **kwargs) over JSON nodes); its "
                     "conversions are defined with the operators in "
                     "gluonlite.ops.onnx_export (convert(builder, node_view))")


def _graph_output_name(name: str) -> str:
    """The ONNX name of a symbol output, as MXNet's exporter names it."""
    for suffix, index in (("_state_output", "1"), ("_statecell_output", "2")):
        if name.endswith(suffix):
            return name[:-len(suffix)] + index
    if name.endswith("_output"):
        return name[:-len("_output")]
    if re.search(r".*_output[0-9]$", name):
        return name[:-len("_output0")] + name[-1]
    return name


class MXNetGraph:
    """Converts a symbol and its parameters into an ONNX graph."""

    # opset -> {operator name: conversion}; gluonlite writes opset 13 only
    registry_: dict = {onnx_export.OPSET: onnx_export.CONVERTERS}
    input_output_maps_: dict = {}

    def __init__(self):
        self.nodes: list = []
        self.input_tensors: list = []
        self.output_tensors: list = []

    @staticmethod
    def register(op_name: str, opset_version: int = 12):
        """MXNet: a decorator adding a conversion in MXNet's node protocol.

        Raises
        ------
        MXNetError
            Always (see the module docstring).
        """
        raise MXNetError(f"MXNetGraph.register({op_name!r}): {_NO_NODE_PROTOCOL}")

    @staticmethod
    def convert_layer(node, **kwargs):
        """MXNet: convert one JSON node with its registered conversion.

        Raises
        ------
        MXNetError
            Always (see the module docstring).
        """
        raise MXNetError(f"MXNetGraph.convert_layer: {_NO_NODE_PROTOCOL}")

    @staticmethod
    def split_params(sym, params: dict) -> tuple:
        """``(arg_params, aux_params)``: the entries of ``params`` that are arguments,
        and those that are auxiliary states, of ``sym`` (as NDArrays)."""
        from ... import ndarray as nd
        arg_params = {n: nd.array(params[n]) for n in sym.list_arguments() if n in params}
        aux_params = {n: nd.array(params[n]) for n in sym.list_auxiliary_states()
                      if n in params}
        return arg_params, aux_params

    @staticmethod
    def convert_weights_to_numpy(weights_dict: dict) -> dict:
        """``weights_dict`` with ``arg:``/``aux:`` removed from keys and values as
        NumPy arrays."""
        return {k.replace("arg:", "").replace("aux:", ""): v.asnumpy()
                for k, v in weights_dict.items()}

    @staticmethod
    def get_outputs(sym, params: dict, in_shapes: list, output_label: str, in_types: list,
                    dynamic: bool = False, dynamic_input_shapes=None) -> tuple:
        """The input shapes the graph declares and its outputs' names, shapes and
        types.

        Parameters
        ----------
        sym : Symbol
        params : dict of str to NDArray
        in_shapes : list of tuple
            Shapes of the data inputs (the inputs not in ``params``, but
            ``output_label``, in ``list_inputs`` order).
        output_label : str
            A training label input to leave out.
        in_types : list of int
            ONNX tensor types of the data inputs.
        dynamic : bool
            Make dimensions symbolic (``None``).
        dynamic_input_shapes : list of tuple, optional
            The dynamic input shapes (all ``None`` when not given).

        Returns
        -------
        tuple
            ``(in_shapes, {output name: {"shape": tuple, "dtype": ONNX type}})``.
        """
        _, helper, _ = _onnx()
        names = [n for n in sym.list_inputs() if n not in params and n != output_label]
        shapes = {n: tuple(s) for n, s in zip(names, in_shapes)}
        shapes.update({n: tuple(v.shape) for n, v in params.items() if n in sym.list_inputs()})
        _, out_shapes, _ = sym.infer_shape(**shapes)
        if dynamic:
            out_shapes = [tuple(None for _ in s) for s in out_shapes]
            if dynamic_input_shapes is None:
                in_shapes = [tuple(None for _ in s) for s in in_shapes]
            else:
                assert len(in_shapes) == len(dynamic_input_shapes), \
                    "The length of dynamic_input_shapes must equal to the length of in_shapes."
                for shape, dyn in zip(in_shapes, dynamic_input_shapes):
                    assert len(shape) == len(dyn), \
                        "The dimensionality of each shape must match."
                in_shapes = dynamic_input_shapes
        else:
            assert dynamic_input_shapes is None, \
                "dynamic_input_shapes is specified. Please set dynamic_input_shapes=True " \
                "to enable dynamic input shapes"
        types = {n: helper.tensor_dtype_to_np_dtype(t) for n, t in zip(names, in_types)}
        types.update({n: v.dtype for n, v in params.items() if n in sym.list_inputs()})
        _, out_types, _ = sym.infer_type(**types)
        out_types = [helper.np_dtype_to_tensor_dtype(np.dtype(t)) for t in out_types]
        out_names = [_graph_output_name(n) for n in sym.list_outputs()]
        return in_shapes, {n: {"shape": s, "dtype": d}
                           for n, s, d in zip(out_names, out_shapes, out_types)}

    def create_onnx_graph_proto(self, sym, params: dict, in_shapes: list, in_types: list,
                                verbose: bool = False, opset_version: int | None = None,
                                dynamic: bool = True, dynamic_input_shapes=None):
        """The ONNX ``GraphProto`` of ``sym`` with ``params`` (what
        ``mx.onnx.export_model`` writes).

        Parameters
        ----------
        sym : Symbol
        params : dict of str to NDArray
        in_shapes : list of tuple
            Shapes of the data inputs.
        in_types : list of int
            Their ONNX tensor types.
        verbose : bool
        opset_version : int, optional
            13 or later (gluonlite writes opset 13).
        dynamic : bool
        dynamic_input_shapes : list of tuple, optional

        Raises
        ------
        MXNetError
            For an ``opset_version`` below 13.
        """
        onnx, helper, _ = _onnx()
        if opset_version is not None and opset_version < onnx_export.OPSET:
            raise MXNetError(f"create_onnx_graph_proto: gluonlite writes ONNX opset "
                             f"{onnx_export.OPSET}, not {opset_version}")
        dtypes = [helper.tensor_dtype_to_np_dtype(t) for t in in_types]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.onnx")
            export_model(sym, params, in_shapes, dtypes, path, verbose=verbose,
                         dynamic=dynamic, dynamic_input_shapes=dynamic_input_shapes)
            model = onnx.load(path)
        return model.graph
