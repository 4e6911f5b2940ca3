"""MXNet 1.9.1's CPU INT8 flow with oneDNN fusion (what ``quantize_model_mkldnn`` and,
on the CPU, ``quantize_net``/``quantize_net_v2`` do):

1. fuse the float graph for oneDNN (``get_backend_symbol('MKLDNN_QUANTIZE')``: each
   Convolution with its BatchNorm, activation and residual sum, each FullyConnected
   with its activation, each self-attention product, become ``_sg_mkldnn_*`` nodes);
2. quantize it (:func:`rewrite_fused` turns each fused node into its quantized form,
   ``quantized_<name>``, its data inputs through ``quantize_v2``, a ``requantize`` after
   it; plain layers as :mod:`gluonlite.contrib.quantization` does);
3. calibrate the ``quantize_v2``/``requantize`` nodes on the fused float graph's values;
4. fuse again (``post_quantize_onednn``): calibrated ``requantize`` (and ``dequantize``)
   nodes fold into the node before them, and the ranges feeding a quantized concat are
   aligned.

The result is MXNet's graph, node for node, and gives MXNet's numbers.
"""
from __future__ import annotations

from ..ops.quantization import REQUANTIZE
from ..ops.registry import OpAttrs, get_op
from ..symbol.entry_versions import carry_versions
from ..symbol.graph import Node, op_node, topo_order

__all__ = ["rewrite_fused", "inner_names"]


def inner_names(node: Node) -> set:
    """Names of the operator nodes inside a fused node's subgraph (excluding one of them
    from quantization excludes the fused node, as in MXNet)."""
    names = set()
    for sub in getattr(node.attrs, "subgraphs", ()) or ():
        heads = getattr(sub, "heads", None)
        if heads is not None:
            names.update(n.name for n in topo_order(heads) if n.op is not None)
    return names


def _quantized_attrs(node: Node, form, granularity: str) -> OpAttrs:
    """The fused node's attributes with the quantized form's additions; its subgraph is
    kept (a runtime object, not a string)."""
    given = dict(node.attrs._given, **form.attrs_for(node.attrs, granularity))
    given.pop("subgraphs", None)
    # the graph keeps MXNet's strings ("true", "True"), the operator reads their values
    return get_op(form.quantized).parse_attrs(given).with_given(given).with_values(
        subgraphs=node.attrs.subgraphs)


def rewrite_fused(rw, node: Node, form, granularity: str) -> None:
    """Quantize one fused oneDNN node for the rewriter ``rw``
    (:class:`gluonlite.contrib.quantization._Rewriter`): the inputs ``form.input_roles``
    names ``'quantize'`` come through ``quantize_v2`` (or the quantized producer), the
    ``'offline'`` ones become int8 ``<param>_quantize`` parameters, the others stay float;
    then the ``min``/``max`` of each quantized input in input order, and a ``requantize``
    named ``requantize_<name>`` after the node."""
    names = node.op.input_names(node.attrs)
    roles = form.input_roles(names, granularity)
    inputs, ranges = [], []
    for entry, role in zip(node.inputs, roles):
        if role == "quantize":
            q, lo, hi = rw.quantized_entry(entry)
            inputs.append(q)
            ranges += [lo, hi]
        elif role == "offline":
            base = f"{entry[0].name}_quantize"
            inputs.append((rw.param_var(base), 0))
            ranges += [(rw.param_var(base + "_min"), 0), (rw.param_var(base + "_max"), 0)]
        else:
            inputs.append(rw.float_entry(entry))
    attrs = _quantized_attrs(node, form, granularity)
    qn = op_node(form.quantized, f"quantized_{node.name}", inputs + ranges, attrs)
    carry_versions(qn, node)
    rq = op_node(REQUANTIZE, f"requantize_{node.name}", [(qn, 0), (qn, 1), (qn, 2)],
                 {"out_type": rw.dtype})
    rw.qmap[(id(node), 0)] = ((rq, 0), (rq, 1), (rq, 2))
    rw.calib_layers.append(f"{node.name}_output")  # the requantize's range
