"""``GraphProto``: an ONNX graph translated into a gluonlite symbol and its parameters
(``mxnet.contrib.onnx.onnx2mx.import_onnx``).

Tensors keep their ONNX names: an initializer becomes a variable of its name (its
value goes to ``arg_params``, or to ``aux_params`` when the operator takes it as an
auxiliary state, as BatchNorm's running mean and variance), a node becomes an operator
named after the ONNX node (operators that take several gluonlite operators get
automatic names), as in MXNet 1.9.1's importer.  Inputs that opset 10+ passes as
tensors (Reshape's shape, Slice's bounds, Clip's limits, ...) are read from
initializers and ``Constant`` nodes; shape arithmetic on constants (the ``Shape`` ->
``Gather`` -> ``Concat`` chains of traced models) is folded (:mod:`._fold`) when the
model's input shapes fix it.
"""
from __future__ import annotations

import numpy as np

from .... import ndarray as nd
from .... import symbol
from ....base import MXNetError
from . import _fold
from . import _translation_utils as tu
from ._import_helper import _convert_map as convert_map

__all__ = ["GraphProto"]


class GraphProto:  # pylint: disable=too-few-public-methods
    """Translate an ONNX ``GraphProto`` (``onnx.onnx_pb``) into a symbol and parameters.

    Attributes
    ----------
    arg_dict, aux_dict : dict of str to NDArray
        The parameters, filled by :meth:`from_onnx`.
    model_metadata : dict
        What :meth:`get_graph_metadata` returns for the graph being translated.
    opset_version : int
        The model's (highest) opset, which some translations depend on.
    """

    def __init__(self):
        self._nodes: dict = {}
        self._params: dict = {}
        self._consts: dict = {}
        self._folded: set = set()
        self._node = None
        self._num_input = 0
        self._num_param = 0
        self.aux_dict: dict = {}
        self.arg_dict: dict = {}
        self.model_metadata: dict = {}
        self.opset_version = 0

    # -- one operator ----------------------------------------------------------------
    def _convert_operator(self, node_name, op_name: str, attrs: dict, inputs: list):
        """The symbol (or, for a constant, the NumPy value) of one ONNX node.

        A translation (see ``_import_helper._convert_map``) returns ``(op, attrs,
        inputs)``: ``op`` is either the name of a ``mx.sym`` operator, applied here to
        ``inputs`` and ``attrs`` under the node's name, or a finished symbol.
        """
        if op_name not in convert_map:
            raise tu.UnsupportedOnnxError(
                f"ONNX import: operator {op_name} (node {node_name}) is not supported; "
                f"supported operators: {', '.join(sorted(convert_map))}")
        op, new_attrs, new_inputs = convert_map[op_name](attrs, inputs, self)
        if not isinstance(op, str):
            return op
        make = getattr(symbol, op, None)
        if make is None:
            raise MXNetError(f"ONNX import: operator {op_name} maps to mx.sym.{op}, which "
                             "does not exist")
        if not isinstance(new_inputs, (list, tuple)):
            new_inputs = [new_inputs]
        new_inputs = list(new_inputs)
        while new_inputs and new_inputs[-1] is None:
            new_inputs.pop()
        kwargs = dict(new_attrs)
        if node_name is not None:
            kwargs["name"] = node_name
        return make(*new_inputs, **kwargs)

    # -- the graph -------------------------------------------------------------------
    def _add_constant(self, name: str, value: np.ndarray, folded: bool) -> None:
        """Make ``value`` the tensor ``name``: a variable with a parameter value."""
        value = np.asarray(value)
        self._consts[name] = value
        self._params[name] = self._as_param(value)
        self._nodes[name] = symbol.Variable(name=name, shape=self._params[name].shape)
        if folded:
            self._folded.add(name)

    @staticmethod
    def _as_param(value: np.ndarray):
        # as MXNet: scalars become one-element vectors, values NDArray's default dtype
        value = np.asarray(value)
        return nd.array(value.reshape(1) if value.ndim == 0 else value)

    def from_onnx(self, graph, opset_version: int):
        """Translate ``graph``.

        Parameters
        ----------
        graph : onnx.GraphProto
            The loaded graph.
        opset_version : int
            The model's opset.

        Returns
        -------
        sym : Symbol
            The outputs (grouped when there are several).
        arg_params, aux_params : dict of str to NDArray
            The initializers the symbol uses, by its argument and auxiliary names.
        """
        self.opset_version = int(opset_version)
        self.model_metadata = self.get_graph_metadata(graph)
        for tensor in graph.initializer:
            if not tensor.name.strip():
                raise MXNetError("ONNX import: an initializer has no name (tensor names "
                                 "are required)")
            self._params[tensor.name] = self._parse_array(tensor)
            self._consts[tensor.name] = self._to_numpy(tensor)
        for graph_input in graph.input:
            if graph_input.name in self._params:
                self._nodes[graph_input.name] = symbol.Variable(
                    name=graph_input.name, shape=self._params[graph_input.name].shape)
                self._num_param += 1
            else:
                self._nodes[graph_input.name] = symbol.Variable(name=graph_input.name)
                self._num_input += 1
        for name, value in self._params.items():
            if name not in self._nodes:  # IR 4+: initializers need not be inputs
                self._nodes[name] = symbol.Variable(name=name, shape=value.shape)
                self._num_param += 1

        for node in graph.node:
            self._translate_node(node)

        missing = [o.name for o in graph.output if o.name not in self._nodes]
        if missing:
            raise MXNetError(f"ONNX import: graph outputs {missing} are produced by no node")
        outs = [self._nodes[o.name] for o in graph.output]
        out = symbol.Group(outs) if len(outs) > 1 else outs[0]
        for name in out.list_arguments():
            if name in self._params:
                self.arg_dict[name] = self._params[name]
        for name in out.list_auxiliary_states():
            if name in self._params:
                self.aux_dict[name] = self._params[name]
        return out, self.arg_dict, self.aux_dict

    def _translate_node(self, node) -> None:
        node_name = node.name.strip() or None
        inputs = []
        for name in node.input:
            if not name:
                inputs.append(None)  # an omitted optional input
            elif name in self._nodes:
                inputs.append(self._nodes[name])
            else:
                raise MXNetError(f"ONNX import: input '{name}' of node {node_name} "
                                 f"({node.op_type}) is produced by no earlier node")
        attrs = self._parse_attr(node.attribute)
        given = [name for name in node.input if name]
        if given and all(n in self._consts for n in given) and \
                any(n in self._folded for n in given):
            values = _fold.fold(node.op_type, attrs,
                                [self._consts[n] if n else None for n in node.input])
            if values is not None:
                for name, value in zip(node.output, values):
                    self._add_constant(name, value, folded=True)
                return
        self._node = node  # for translations that need the node's output count
        result = self._convert_operator(node_name, node.op_type, attrs, inputs)
        if isinstance(result, np.ndarray):  # a constant (Constant, Shape, ...)
            self._add_constant(node.output[0], result, folded=True)
            return
        n_out = len(result.list_outputs())
        for k, name in enumerate(node.output[:n_out]):
            if name:
                self._nodes[name] = result if n_out == 1 else result[k]

    # -- shapes ----------------------------------------------------------------------
    def _infer_shape(self, sym):
        """The shape of ``sym``'s first output from the model's input shapes, or
        ``None`` where they do not fix it."""
        args = set(sym.list_arguments())
        known = {name: shape for name, shape, _ in self.model_metadata.get(
            "input_tensor_data", []) if name in args and shape and all(d > 0 for d in shape)}
        try:
            _, out_shapes, _ = sym.infer_shape_partial(**known)
        except Exception:  # noqa: BLE001 - unknown is an answer here
            return None
        shape = tuple(out_shapes[0]) if out_shapes else ()
        if not shape or any(d <= 0 for d in shape):
            if sym.name in self._consts:
                return tuple(self._params[sym.name].shape)
            return None
        return shape

    def get_graph_metadata(self, graph) -> dict:
        """Names and shapes of the graph's data inputs and outputs.

        Returns
        -------
        dict
            ``{'input_tensor_data': [(name, shape, onnx_elem_type), ...],
            'output_tensor_data': [(name, shape), ...]}``; symbolic dimensions are 0.
        """
        params = {t.name for t in graph.initializer}
        input_data = []
        for graph_input in graph.input:
            if graph_input.name in params:
                continue
            tensor_type = graph_input.type.tensor_type
            shape = tuple(d.dim_value for d in tensor_type.shape.dim)
            input_data.append((graph_input.name, shape, tensor_type.elem_type))
        output_data = [(o.name, tuple(d.dim_value for d in o.type.tensor_type.shape.dim))
                       for o in graph.output]
        return {"input_tensor_data": input_data, "output_tensor_data": output_data}

    def graph_to_gluon(self, graph, ctx, opset_version: int):
        """Translate ``graph`` into a ``gluon.SymbolBlock`` with its parameters loaded.

        Parameters
        ----------
        graph : onnx.GraphProto
        ctx : Context or list of Context
            Where the parameters live.
        opset_version : int

        Returns
        -------
        gluon.SymbolBlock
        """
        sym, arg_params, aux_params = self.from_onnx(graph, opset_version)
        data = self.get_graph_metadata(graph)["input_tensor_data"]
        from ....gluon import SymbolBlock
        inputs = [symbol.var(name, dtype=tu.onnx_dtype(elem) if elem else None)
                  for name, _, elem in data]
        net = SymbolBlock(outputs=sym, inputs=inputs)
        net_params = net.collect_params()
        for params in (arg_params, aux_params):
            for name, value in params.items():
                if name in net_params:
                    net_params[name]._load_init(value, ctx=ctx)
        return net

    # -- protobuf pieces ---------------------------------------------------------------
    @staticmethod
    def _to_numpy(tensor_proto) -> np.ndarray:
        tu.require_onnx()
        from onnx.numpy_helper import to_array
        return np.asarray(to_array(tensor_proto)).reshape(tuple(tensor_proto.dims))

    def _parse_array(self, tensor_proto):
        """An initializer (``TensorProto``) as an NDArray (float32, scalars as ``(1,)``,
        as MXNet parses them)."""
        return self._as_param(self._to_numpy(tensor_proto))

    def _parse_attr(self, attr_proto) -> dict:
        """A node's ``AttributeProto`` list as a dict: numbers, strings (decoded), tuples
        for lists, ``TensorProto`` for tensors."""
        onnx = tu.require_onnx()
        attrs = {}
        for attr in attr_proto:
            if attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                raise tu.UnsupportedOnnxError(
                    f"ONNX import: attribute '{attr.name}' holds a subgraph, which the "
                    "importer does not support")
            value = onnx.helper.get_attribute_value(attr)
            if isinstance(value, bytes):
                value = value.decode("utf-8")
            elif isinstance(value, list):
                value = tuple(v.decode("utf-8") if isinstance(v, bytes) else v
                              for v in value)
            attrs[attr.name] = value
        return attrs
