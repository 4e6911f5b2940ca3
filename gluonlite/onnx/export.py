"""``mx.onnx.export_model``: a symbol and its parameters written as an ONNX model.

The graph is walked in topological order; each operator node becomes ONNX nodes
through its converter (:mod:`gluonlite.ops.onnx_export`), which sees the node's
inferred shapes and dtypes: exports are for the input shapes given (``dynamic=True``
marks the chosen input dimensions symbolic; converters that bake in a shape then
refuse).  Parameters become initializers, the data inputs (the graph's inputs that are
not parameters, in ``list_inputs`` order) graph inputs, the heads graph outputs.
Tensors are named as MXNet's exporter names them: a variable by its name, a node's
output by the node's name (``<name><i>`` for a node with several outputs).

Writes opset 13, as MXNet 1.9.1's exporter does with ONNX 1.8+; needs the ``onnx``
package (``pip install onnx``).
"""
from __future__ import annotations

import logging

import numpy as np

from ..base import MXNetError, write_atomically
from ..ops import onnx_export
from ..symbol.graph import topo_order
from ..symbol.inference import index_graph, infer_slots

__all__ = ["export_model", "get_operator_support"]

_log = logging.getLogger("gluonlite.onnx")


def _onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError as err:
        raise ImportError("Onnx and protobuf need to be installed. Instructions to install - "
                          "https://github.com/onnx/onnx (pip install onnx)") from err
    return onnx, helper, numpy_helper


def get_operator_support(opset_version: int | None = None) -> list:
    """Names of the operators the exporter converts (for opset 13; ``opset_version``
    below 13 gives none, as MXNet's translations start at 12 and gluonlite writes 13)."""
    if opset_version is not None and opset_version < onnx_export.OPSET:
        return []
    return onnx_export.supported()


class _Builder:
    """The builder the converters call (see :mod:`gluonlite.ops.onnx_export`)."""

    def __init__(self, helper, numpy_helper, onnx):
        self.helper, self.numpy_helper, self.onnx = helper, numpy_helper, onnx
        self.nodes: list = []
        self.initializers: list = []
        self.taken: set = set()
        self.prefix = ""

    def unique(self, hint: str) -> str:
        base = f"{self.prefix}_{hint}" if self.prefix else hint
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name

    def tensor_type(self, dtype) -> int:
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def node(self, op_type: str, inputs, outputs=None, n_out: int = 1, **attrs) -> list:
        if outputs is None:
            outputs = [self.unique(op_type.lower()) for _ in range(n_out)]
        else:
            outputs = list(outputs)
            self.taken.update(outputs)
        self.nodes.append(self.helper.make_node(op_type, list(inputs), outputs,
                                                name=self.unique(f"{op_type}_node"), **attrs))
        return outputs

    def const(self, value, hint: str = "const") -> str:
        name = self.unique(hint)
        self.initializers.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def ints(self, values, hint: str = "ints") -> str:
        return self.const(np.asarray(list(values), dtype=np.int64), hint)

    def tensor_value(self, value):
        """``value`` as an ONNX tensor for a node attribute (``ConstantOfShape``)."""
        return self.numpy_helper.from_array(np.asarray(value), "value")


class _NodeView:
    """What a converter sees of one node (see :mod:`gluonlite.ops.onnx_export`)."""

    def __init__(self, node, inputs, outputs, in_shapes, in_dtypes, out_shapes, out_dtypes,
                 dynamic):
        self.node = node
        self.name = node.name
        self.op_name = node.op.name
        self.attrs = node.attrs
        self.inputs = inputs
        self.outputs = outputs
        self.in_shapes, self.in_dtypes = in_shapes, in_dtypes
        self.out_shapes, self.out_dtypes = out_shapes, out_dtypes
        self.dynamic = dynamic

    def static(self, what: str) -> None:
        """Refuse a conversion that bakes in ``what`` (a shape) when inputs are dynamic."""
        if self.dynamic:
            raise self.unsupported(f"{what} is fixed at export, which dynamic=True forbids")

    def unsupported(self, why: str) -> MXNetError:
        return MXNetError(f"mx.onnx.export_model: operator {self.op_name} (node {self.name}) "
                          f"cannot be exported: {why}")


def _load(sym, params):
    """``(Symbol, {name: numpy array})`` from objects or file paths."""
    from .. import ndarray as nd
    from .. import symbol as _sym
    if isinstance(sym, str):
        sym = _sym.load(sym)
    if not isinstance(sym, _sym.Symbol):
        raise ValueError("Input sym and params should either be files or objects")
    if isinstance(params, str):
        params = nd.load(params)
        if isinstance(params, list) and not params:  # a net without parameters
            params = {}
    if isinstance(params, (list, tuple)) and len(params) == 2:
        merged = {}
        merged.update(params[0])
        merged.update(params[1])
        params = merged
    if not isinstance(params, dict):
        raise ValueError("Input sym and params should either be files or objects")
    out = {}
    for key, value in params.items():
        name = key.split(":", 1)[1] if key.startswith(("arg:", "aux:")) else key
        out[name] = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    return sym, out


def _tensor_names(order):
    names = {}
    for node in order:
        if node.op is None:
            names[(id(node), 0)] = node.name
            continue
        n_out = node.num_outputs()
        for k in range(n_out):
            names[(id(node), k)] = node.name if n_out == 1 or \
                node.num_visible_outputs() == 1 and k == 0 else f"{node.name}{k}"
    return names


def export_model(sym, params, in_shapes=None, in_types=np.float32,
                 onnx_file_path: str = "model.onnx", verbose: bool = False,
                 dynamic: bool = False, dynamic_input_shapes=None,
                 run_shape_inference: bool = False, input_type=None, input_shape=None) -> str:
    """Export a symbol and its parameters to an ONNX file (MXNet 1.9's ``mx.onnx``).

    Parameters
    ----------
    sym : str or Symbol
        The graph, or the path of its ``-symbol.json``.
    params : str, dict or list of two dicts
        The path of a ``.params`` file, a dict of parameters (``arg:``/``aux:`` keys
        allowed), or ``[arg_params, aux_params]``.
    in_shapes : list of tuple
        The shape of each data input (the graph's inputs that are not parameters, in
        ``list_inputs`` order).
    in_types : dtype or list of dtype
        Their dtypes.
    onnx_file_path : str
        Where to write the model (through a temporary file and a rename).
    verbose : bool
        Log the converted nodes.
    dynamic : bool
        Make input dimensions symbolic: those ``None`` in ``dynamic_input_shapes``, or
        all when it is not given.
    dynamic_input_shapes : list of tuple, optional
    run_shape_inference : bool
        Run ONNX's shape inference on the model before writing it (kept as it is when
        that fails, as in MXNet).
    input_type, input_shape :
        The older names of ``in_types`` and ``in_shapes``.

    Returns
    -------
    str
        ``onnx_file_path``.
    """
    onnx, helper, numpy_helper = _onnx()
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    if in_shapes is None:
        raise ValueError("in_shapes must be given: the shape of each data input")
    sym, values = _load(sym, params)
    if not isinstance(in_types, (list, tuple)):
        in_types = [in_types] * len(in_shapes)
    if len(in_types) != len(in_shapes):
        raise ValueError("The lengths of in_types and in_shapes must equal")
    order = topo_order(sym._heads)
    graph = index_graph(order)
    data_slots = [i for i, v in enumerate(graph.variables) if v.name not in values]
    if len(in_shapes) > len(data_slots):
        raise MXNetError(f"mx.onnx.export_model: {len(in_shapes)} input shapes for the "
                         f"data inputs {[graph.variables[i].name for i in data_slots]}")
    shapes: list = [None] * graph.n_slots
    dtypes: list = [None] * graph.n_slots
    for i, v in enumerate(graph.variables):
        if v.name in values:
            shapes[i] = tuple(values[v.name].shape)
            dtypes[i] = values[v.name].dtype
    given = data_slots[:len(in_shapes)]
    for slot, shape, dtype in zip(given, in_shapes, in_types):
        shapes[slot] = tuple(int(d) for d in shape)
        dtypes[slot] = np.dtype(dtype)
    infer_slots(graph, shapes, dtypes)

    b = _Builder(helper, numpy_helper, onnx)
    names = _tensor_names(order)
    b.taken.update(names.values())
    param_names = {v.name for v in graph.variables if v.name in values}
    for unit in graph.units:
        node = unit.node
        convert = onnx_export.converter(node.op.name)
        if convert is None:
            raise MXNetError(f"mx.onnx.export_model: no conversion for operator "
                             f"{node.op.name} (node {node.name}); supported: "
                             f"{', '.join(onnx_export.supported())}")
        n_vis = node.num_visible_outputs()
        view = _NodeView(node, [names[(id(s), k)] for s, k in node.inputs],
                         [names[(id(node), k)] for k in range(n_vis)],
                         [shapes[s] for s in unit.ins], [dtypes[s] for s in unit.ins],
                         [shapes[s] for s in unit.outs], [dtypes[s] for s in unit.outs],
                         dynamic)
        for what, known in (("shape", view.in_shapes), ("dtype", view.in_dtypes)):
            if any(k is None for k in known):
                raise MXNetError(f"mx.onnx.export_model: the input {what}s of node "
                                 f"{node.name} ({node.op.name}) are unknown; give in_shapes "
                                 "for every data input")
        b.prefix = node.name
        convert(b, view)
        if verbose:
            _log.info("Converted %s (%s)", node.name, node.op.name)
    b.prefix = ""

    used = {name for n in b.nodes for name in n.input}
    inputs = []
    for k, slot in enumerate(data_slots):
        name = graph.variables[slot].name
        if name not in used and slot not in given:
            continue  # a label of a training output layer, no shape given: left out
        if slot not in given:
            raise MXNetError(f"mx.onnx.export_model: no shape given for the data input "
                             f"'{name}'")
        shape = list(shapes[slot])
        if dynamic:
            wanted = dynamic_input_shapes[k] if dynamic_input_shapes is not None else \
                [None] * len(shape)
            shape = [d if d is not None else f"{name}_dim{j}" for j, d in enumerate(wanted)]
        inputs.append(helper.make_tensor_value_info(name, b.tensor_type(dtypes[slot]), shape))
    for name in sorted(param_names & used):
        b.initializers.append(numpy_helper.from_array(values[name], name))
    outputs = []
    for node, k in sym._heads:
        slot = graph.slot_of[(id(node), k)]
        shape = None if dynamic else list(shapes[slot])
        outputs.append(helper.make_tensor_value_info(names[(id(node), k)],
                                                     b.tensor_type(dtypes[slot]), shape))
    onnx_graph = helper.make_graph(b.nodes, "mxnet_converted_model", inputs, outputs,
                                   initializer=b.initializers)
    model = helper.make_model(onnx_graph, producer_name="gluonlite",
                              opset_imports=[helper.make_opsetid("", onnx_export.OPSET)])
    if run_shape_inference:
        try:
            model = onnx.shape_inference.infer_shapes(model)
        except Exception:  # noqa: BLE001 - as MXNet: keep the model as it is
            _log.info("Shape inference failed, original export is kept.")
    write_atomically(onnx_file_path, model.SerializeToString())
    return onnx_file_path
