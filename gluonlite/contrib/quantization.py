"""``mx.contrib.quantization``: MXNet 1.9.1's post-training INT8 quantization on the CPU.

:func:`quantize_graph` rewrites a float32 ``Symbol``: every quantizable layer
(``Convolution``, ``FullyConnected``; in ``'full'`` mode, or after a quantized layer in
``'smart'`` mode, also ``Pooling``, ``Flatten``, ``Activation(relu)``, ``elemwise_add``,
``Concat``) becomes its ``_contrib_quantized_*`` operator named ``quantized_<name>``;
float inputs get a ``_contrib_quantize_v2`` (``<input>_quantize``), int32 accumulators a
``_contrib_requantize`` (``requantize_<name>``), and float consumers of quantized values
a ``_contrib_dequantize`` (``<name>_dequantize``).  A plain-LSTM ``RNN`` becomes
``_contrib_quantized_rnn`` (in both modes) reading uint8 data from a
``_contrib_quantize_asym`` node and giving float32 outputs; its parameters stay float32.
Quantize nodes are named after the float entry they quantize (``data_quantize``,
``act_output_quantize``, ``split_output1_quantize``).  Weights and biases become the
int8 parameters ``<param>_quantize`` with ``_min``/``_max``.  Calibration
(:func:`calib_graph`) runs the float32 graph on sample data, collects the inputs of
the ``quantize_v2`` nodes (min/max, or histograms for the KL-divergence ``entropy``
mode) and writes ``min_calib_range``/``max_calib_range`` into those nodes, as MXNet
1.9.1's non-fused flow (:func:`quantize_model`) does.

On the CPU, :func:`quantize_model_mkldnn` and :func:`quantize_net_v2` run MXNet's oneDNN
flow instead: the graph is first fused for oneDNN (``_sg_mkldnn_*`` nodes, quantized in
place and calibrated on the fused float graph) and fused again after calibration
(:mod:`gluonlite.contrib.quantization_onednn`), giving MXNet's INT8 graph and numbers.
The calibration collectors and thresholds are in
:mod:`gluonlite.contrib.quantization_calib`.
"""
from __future__ import annotations

import logging
from typing import Iterable

import numpy as np

from .. import ndarray
from ..base import MXNetError
from ..ndarray.handles import lend
from ..context import cpu
from ..symbol import symbol as _symmod
from ..symbol.entry_versions import carry_versions, copy_graph
from ..symbol.graph import Node, op_node, topo_order, variable_node
from ..symbol.symbol import Symbol
from ..ops.listed_outputs import output_suffix
from ..ops.registry import OpAttrs, get_op
from ..ops.quantization import (DEQUANTIZE, QUANTIZE, QUANTIZE_ASYM, REQUANTIZE,
                                calibration_keys, named_in, quantized_form)
from .quantization_calib import (CalibrationCollector, _get_optimal_threshold,  # noqa: F401
                                 _get_optimal_thresholds, _LayerHistogramCollector,
                                 _LayerOutputMinMaxCollector, _smooth_distribution,
                                 combine_histogram)
from .quantization_onednn import inner_names, rewrite_fused

__all__ = ["quantize_model", "quantize_model_mkldnn", "quantize_graph", "calib_graph",
           "quantize_net", "quantize_net_v2", "combine_histogram", "CalibrationCollector"]

def _entry_name(entry) -> str:
    node, i = entry
    return node.name if node.op is None else node.output_names()[i]


class _Rewriter:
    """One pass over a float32 graph building its quantized counterpart."""

    def __init__(self, excluded_names, excluded_ops, quantized_dtype, quantize_mode,
                 granularity: str = "tensor-wise"):
        self.granularity = granularity
        self.excluded_names = set(excluded_names or ())
        self.excluded_ops = set(excluded_ops or ())
        self.dtype = quantized_dtype
        self.mode = quantize_mode
        self.new = {}        # id(old node) -> new node (float graph copy)
        self.qmap = {}       # (id(old node), i) -> (q entry, min entry, max entry)
        self.qcache = {}     # quantize_v2 nodes per float entry
        self.dqcache = {}    # dequantize nodes per quantized entry
        self.calib_layers = []
        self.param_vars = {}  # name -> variable node of the quantized parameters

    def param_var(self, name: str) -> Node:
        """The one variable of an offline-quantized parameter (a weight shared by the
        time steps of an unrolled cell is one argument)."""
        if name not in self.param_vars:
            self.param_vars[name] = variable_node(name)
        return self.param_vars[name]

    def float_entry(self, entry):
        node, i = entry
        key = (id(node), i)
        if key in self.qmap:
            if key not in self.dqcache:
                q, lo, hi = self.qmap[key]
                name = node.name if node.op is None else node.name
                self.dqcache[key] = (op_node(DEQUANTIZE, f"{name}_dequantize",
                                             [q, lo, hi]), 0)
            return self.dqcache[key]
        return (self.new[id(node)], i)

    def quantized_entry(self, entry):
        """``(data, min, max)`` of an int8/uint8 form of ``entry`` (a ``quantize_v2`` node
        for a float entry)."""
        node, i = entry
        key = (id(node), i)
        if key in self.qmap:
            return self.qmap[key]
        if key not in self.qcache:
            self.qcache[key] = self._quantize_node(entry, QUANTIZE, {"out_type": self.dtype})
        return self.qcache[key]

    def asym_entry(self, entry):
        """``(uint8 data, scale, shift)`` of ``entry`` through a ``quantize_asym`` node."""
        node, i = entry
        key = (id(node), i, "asym")
        if key not in self.qcache:
            self.qcache[key] = self._quantize_node(entry, QUANTIZE_ASYM, {})
        return self.qcache[key]

    def _quantize_node(self, entry, op_name: str, attrs: dict):
        # calibrated by the recorded range of the float entry (``data``, ``act_output``)
        name = _entry_name(entry)
        node, i = entry
        # MXNet's node name: ``<node>_<output name>`` for operators that list their
        # outputs, ``<node>_<index>`` otherwise; the statistics keep the output's name
        base = node.name if node.op is None else \
            node.name + output_suffix(node.op, node.attrs, i)
        qn = op_node(op_name, f"{base}_quantize", [self.float_entry(entry)], attrs)
        self.calib_layers.append(name)
        return (qn, 0), (qn, 1), (qn, 2)

    def _form(self, node: Node):
        """The node's quantized form unless it stays float (excluded, or no form)."""
        if node.op is None or node.name in self.excluded_names \
                or named_in(node.op, self.excluded_ops):
            return None
        form = quantized_form(node.op, node.attrs)
        if form is not None and form.role == "fused" and inner_names(node) & self.excluded_names:
            return None  # a layer inside the fused node is excluded
        return form

    def mark_smart(self, order: list) -> None:
        """MXNet's ``smart`` mode: layers (``Convolution``, ``FullyConnected``, the LSTM,
        the fused oneDNN nodes) are always quantized; any other quantizable node only when it
        lies between two of them through quantizable nodes, i.e. a layer is reached both
        by following its inputs and by following its outputs."""
        self.smart = set()
        if self.mode != "smart":
            return
        forms = {id(n): self._form(n) for n in order}
        must = [n for n in order if forms[id(n)] is not None and forms[id(n)].must]
        support = {id(n) for n in order if forms[id(n)] is not None and not forms[id(n)].must}
        users: dict = {}
        for n in order:
            for src, _ in n.inputs:
                users.setdefault(id(src), []).append(n)

        def reach(step) -> set:
            seen, queue = set(), list(must)
            while queue:
                for nxt in step(queue.pop()):
                    if id(nxt) in support and id(nxt) not in seen:
                        seen.add(id(nxt))
                        queue.append(nxt)
            return seen
        self.smart = reach(lambda n: [s for s, _ in n.inputs]) & \
            reach(lambda n: users.get(id(n), []))

    def wants(self, node: Node):
        """The node's quantized form when this pass quantizes it, else None."""
        form = self._form(node)
        if form is None:
            return None
        if self.mode == "full" or form.must or id(node) in self.smart:
            return form
        return None

    def rewrite(self, node: Node) -> None:
        if node.op is None:
            self.new[id(node)] = node
            return
        form = self.wants(node)
        if form is None:
            self.new[id(node)] = Node(node.op, node.name, node.attrs,
                                      [self.float_entry(e) for e in node.inputs], node.extra)
            carry_versions(self.new[id(node)], node)
            return
        if form.role == "fused":
            rewrite_fused(self, node, form, self.granularity)
            return
        given = dict(node.attrs._given)
        extra = form.attrs_for(node.attrs, self.granularity)
        if extra:
            parsed = get_op(form.quantized).parse_attrs(dict(given, **extra))
            given = OpAttrs(parsed.as_dict(), dict(parsed._given, **extra))
        if form.role == "asym":  # float outputs: consumers read the new node directly
            data = self.asym_entry(node.inputs[0])
            rest = [self.float_entry(e) for e in node.inputs[1:]]
            self.new[id(node)] = op_node(form.quantized, f"quantized_{node.name}",
                                         [data[0]] + rest + [data[1], data[2]], given)
            carry_versions(self.new[id(node)], node)
            return
        if form.role == "layer":
            n_params = 1 if node.attrs.no_bias else 2
            data = self.quantized_entry(node.inputs[0])
            params = []
            for src, _ in node.inputs[1:1 + n_params]:
                base = f"{src.name}_quantize"
                params.append(tuple((self.param_var(base + s), 0) for s in ("", "_min", "_max")))
            inputs = [data[0]] + [p[0] for p in params] + [data[1], data[2]]
            for p in params:
                inputs += [p[1], p[2]]
            qn = op_node(form.quantized, f"quantized_{node.name}", inputs, given)
            carry_versions(qn, node)
            rq = op_node(REQUANTIZE, f"requantize_{node.name}",
                         [(qn, 0), (qn, 1), (qn, 2)], {"out_type": self.dtype})
            self.calib_layers.append(_entry_name((node, 0)))  # the requantize's range
            self.qmap[(id(node), 0)] = ((rq, 0), (rq, 1), (rq, 2))
            return
        if form.role == "batch_norm":  # int8 out over its own calibrated range: no requantize
            data = self.quantized_entry(node.inputs[0])
            params = [self.float_entry(e) for e in node.inputs[1:5]]
            qn = op_node(form.quantized, f"quantized_{node.name}",
                         [data[0]] + params + [data[1], data[2]], given)
            carry_versions(qn, node)
            self.calib_layers.append(_entry_name((node, 0)))
            self.qmap[(id(node), 0)] = ((qn, 0), (qn, 1), (qn, 2))
            return
        datas = [self.quantized_entry(e) for e in node.inputs]
        # the data inputs, then (min, max) of each
        inputs = [d[0] for d in datas] + [x for d in datas for x in d[1:]]
        qn = op_node(form.quantized, f"quantized_{node.name}", inputs, given)
        if form.role == "requantized":  # calibrated by the float node's output range
            rq = op_node(REQUANTIZE, f"requantize_{node.name}",
                         [(qn, 0), (qn, 1), (qn, 2)], {"out_type": self.dtype})
            self.calib_layers.append(_entry_name((node, 0)))
            qn = rq
        self.qmap[(id(node), 0)] = ((qn, 0), (qn, 1), (qn, 2))


def _quantize_symbol(sym: Symbol, ctx=None, excluded_symbols=None, excluded_operators=None,
                     offline_params=None, quantized_dtype: str = "int8",
                     quantize_mode: str = "smart",
                     quantize_granularity: str = "tensor-wise") -> tuple:
    """The quantized graph of ``sym`` and the names of the float entries to calibrate."""
    if quantized_dtype not in ("int8", "uint8", "auto"):
        raise ValueError(f"unknown quantized_dtype {quantized_dtype!r}, expected "
                         "'int8', 'uint8' or 'auto'")
    if quantize_granularity not in ("tensor-wise", "channel-wise"):
        raise ValueError(f"unknown quantize_granularity {quantize_granularity!r}")
    rw = _Rewriter(excluded_symbols, excluded_operators, quantized_dtype, quantize_mode,
                   quantize_granularity)
    order = topo_order(sym._heads)
    rw.mark_smart(order)
    for node in order:
        rw.rewrite(node)
    heads = [rw.float_entry(h) for h in sym._heads]
    return Symbol(heads), rw.calib_layers


def _calibrate_quantized_sym(qsym: Symbol, th_dict: dict) -> Symbol:
    """Write ``min/max_calib_range`` into each ``quantize_v2`` node whose input's name is a
    key of ``th_dict`` and each ``requantize_<layer>`` node whose float layer's output
    (``<layer>_output``) is one (MXNet prints the values with six decimals)."""
    if not th_dict:
        return qsym
    heads = copy_graph(qsym._heads)
    for node in topo_order(heads):
        if node.op is None:
            continue
        keys = calibration_keys(node.op, node.name,
                                _entry_name(node.inputs[0]) if node.inputs else "")
        key = next((k for k in keys if k in th_dict), None)
        if key is None:
            continue
        lo, hi = th_dict[key]
        text = {"min_calib_range": "%f" % float(np.asarray(lo).reshape(-1)[0]),
                "max_calib_range": "%f" % float(np.asarray(hi).reshape(-1)[0])}
        for attr, value in text.items():  # MXNet's parameter parser rejects them
            if not np.isfinite(float(value)):
                raise MXNetError(f"Invalid Parameter format for {attr} expect float or None "
                                 f"but value='{value}', in operator {node.op.name}"
                                 f"(name=\"{node.name}\")")
        parsed = node.op.parse_attrs(dict(node.attrs._given, **text))
        # the graph keeps MXNet's printed strings (JSON shows "0.400000"), the operator
        # reads the floats they parse to
        node.attrs = OpAttrs(parsed.as_dict(), dict(parsed._given, **text))
    return Symbol(heads)


def _quantize_params(qsym: Symbol, params: dict, th_dict: dict) -> dict:
    """Int8 ``<param>_quantize`` arrays (with ``_min``/``_max``) for the weights and biases
    the quantized graph reads; other arguments are passed through."""
    out = {}
    for name in qsym.list_arguments():
        if name.endswith(("weight_quantize", "bias_quantize")):
            param = params[name[:-len("_quantize")]]
            val, vmin, vmax = ndarray.contrib.quantize(
                param, ndarray.min(param).reshape((1,)), ndarray.max(param).reshape((1,)),
                out_type="int8")
            out[name], out[name + "_min"], out[name + "_max"] = val, vmin, vmax
        elif name in params:
            out[name] = params[name]
        elif name.endswith("_min") and name[:-4] in th_dict:
            out[name] = ndarray.array([th_dict[name[:-4]][0]])
        elif name.endswith("_max") and name[:-4] in th_dict:
            out[name] = ndarray.array([th_dict[name[:-4]][1]])
    return out


# -- running the float graph on calibration data -------------------------------------------------
def _batches(calib_data, data_names) -> Iterable:
    """``(dict of input arrays, batch size)`` per batch of a DataIter, a DataLoader or a
    list of arrays."""
    if hasattr(calib_data, "reset"):
        calib_data.reset()
    for batch in calib_data:
        if hasattr(batch, "data"):
            arrays = list(batch.data)
        elif isinstance(batch, (list, tuple)):
            arrays = list(batch)
        else:
            arrays = [batch]
        arrays = [a if hasattr(a, "asnumpy") else ndarray.array(a) for a in arrays]
        yield dict(zip(data_names, arrays)), arrays[0].shape[0]


def _collect_layer_statistics(sym: Symbol, arg_params: dict, aux_params: dict, calib_data,
                              collector, include_layer, data_names=("data",), ctx=None,
                              max_num_examples: int | None = None, logger=None) -> int:
    """Run the float graph on ``calib_data`` and hand each entry named in
    ``include_layer`` (every entry when None: a ``customize`` collector filters them
    itself, as in MXNet) to the collector (see :func:`_feed`); returns the
    number of examples seen."""
    if calib_data is None:
        raise ValueError("calib_data must be given for calibration")
    internals = sym.get_internals()
    names = internals.list_outputs()
    ops = {name: (node.op.name if node.op is not None else None)
           for name, (node, _) in zip(names, internals._heads)}
    seen = _observable(sym, ctx)
    wanted = [n for n in (names if include_layer is None else include_layer)
              if n in ops and (seen is None or n in seen)]
    if not wanted:
        return 0
    group = _symmod.Group([internals[names.index(n)] for n in wanted])
    ctx = ctx or cpu()
    count = 0
    for feed, size in _batches(calib_data, data_names):
        args = {k: v for k, v in arg_params.items() if k in group.list_arguments()}
        args.update({k: v for k, v in feed.items() if k in group.list_arguments()})
        aux = {k: v for k, v in aux_params.items() if k in group.list_auxiliary_states()}
        outs = group.bind(ctx, args, aux_states=aux, grad_req="null").forward(is_train=False)
        for name, value in zip(wanted, outs):
            _feed(collector, name, ops[name], value)
        count += size
        if max_num_examples is not None and count >= max_num_examples:
            break
    if logger is not None:
        logger.info("Collected statistics from %d examples", count)
    return count


def _observable(sym: Symbol, ctx) -> set | None:
    """The entries MXNet's executor monitor reports when it runs ``sym`` on ``ctx``
    (None: all of them).  On the CPU, MXNet 1.9.1's executor partitions the graph with
    its default ``MKLDNN`` subgraph backend first, so the outputs of the operators a fused
    node absorbs are never seen (their ``requantize`` stays uncalibrated: e.g. a plain
    ``quantize_model`` of ``FullyConnected -> relu``); only the outputs of the
    partitioned graph's nodes are."""
    if getattr(ctx or cpu(), "device_type", "cpu") != "cpu":
        return None
    return set(sym.get_backend_symbol("MKLDNN").get_internals().list_outputs())


def _feed(collector, name: str, op_name: str, value) -> None:
    """One entry to a collector: the built-in ones take the NDArray; a
    :class:`CalibrationCollector` subclass gets ``collect(name, op_name, arr)`` (MXNet
    2's form); any other object MXNet 1.9's ``collect(name, handle)``, with a handle
    that ``NDArray(ctypes.cast(handle, NDArrayHandle))`` turns back into the array
    (GluonNLP's ``BertLayerCollector`` does so)."""
    if isinstance(collector, (_LayerOutputMinMaxCollector, _LayerHistogramCollector)):
        collector.collect(name, value)
    elif isinstance(collector, CalibrationCollector):
        collector.collect(name, op_name, value)
    else:
        with lend([value]) as (handle,):
            collector.collect(name, handle)


def _calib_layers(collector):
    """The entries to calibrate: the layers a built-in collector was made for; every
    operator output for a user's (``customize``) collector, which filters by itself."""
    if isinstance(collector, (_LayerOutputMinMaxCollector, _LayerHistogramCollector)):
        return collector.include_layer
    return None


def quantize_graph(sym: Symbol, arg_params: dict, aux_params: dict, ctx=cpu(),
                   excluded_sym_names=None, excluded_op_names=None,
                   calib_mode: str = "entropy", quantized_dtype: str = "int8",
                   quantize_mode: str = "full", quantize_granularity: str = "tensor-wise",
                   LayerOutputCollector=None, logger=None) -> tuple:
    """Quantize the graph without calibrating it.

    Returns
    -------
    (qsym, qarg_params, aux_params, collector)
        ``collector`` is ``None`` for ``calib_mode='none'``, else a collector (min/max
        for ``naive``, histograms for ``entropy``, ``LayerOutputCollector`` for
        ``customize``); fill it with the float graph's values and pass it to
        :func:`calib_graph`.
    """
    if calib_mode not in ("none", "naive", "entropy", "customize"):
        raise ValueError(f"unknown calibration mode {calib_mode!r}")
    qsym, calib_layer = _quantize_symbol(
        sym, ctx, excluded_symbols=excluded_sym_names, excluded_operators=excluded_op_names,
        quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
        quantize_granularity=quantize_granularity)
    collector = None
    if calib_mode == "naive":
        collector = _LayerOutputMinMaxCollector(quantized_dtype, set(calib_layer), logger)
    elif calib_mode == "entropy":
        collector = _LayerHistogramCollector(include_layer=set(calib_layer), logger=logger)
    elif calib_mode == "customize":
        if LayerOutputCollector is None:
            raise ValueError("calib_mode='customize' needs a LayerOutputCollector")
        collector = LayerOutputCollector  # MXNet leaves its include_layer alone
    qarg_params = _quantize_params(qsym, arg_params, {})
    return qsym, qarg_params, aux_params, collector


def calib_graph(qsym: Symbol, arg_params: dict, aux_params: dict, collector,
                calib_mode: str = "entropy", quantized_dtype: str = "int8",
                logger=logging) -> tuple:
    """Write the thresholds of a filled collector into ``qsym``; returns
    ``(qsym, qarg_params, aux_params)``."""
    if calib_mode == "entropy":
        th_dict = _get_optimal_thresholds(collector.hist_dict, quantized_dtype, logger=logger)
    elif calib_mode == "naive":
        th_dict = collector.min_max_dict
    elif calib_mode == "customize":  # MXNet 1.9 reads min_max_dict; MXNet 2 post_collect()
        th_dict = collector.min_max_dict if hasattr(collector, "min_max_dict") \
            else collector.post_collect()
    else:
        raise ValueError(f"calib_graph needs calib_mode 'naive', 'entropy' or 'customize', not "
                         f"{calib_mode!r}")
    qsym = _calibrate_quantized_sym(qsym, th_dict)
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params


def quantize_model(sym: Symbol, arg_params: dict, aux_params: dict,
                   data_names=("data",), label_names=("softmax_label",), ctx=cpu(),
                   excluded_sym_names=None, excluded_op_names=None,
                   calib_mode: str = "entropy", calib_data=None,
                   num_calib_examples: int | None = None, quantized_dtype: str = "int8",
                   quantize_mode: str = "smart", quantize_granularity: str = "tensor-wise",
                   logger=None) -> tuple:
    """Quantize a float32 model, calibrating with ``calib_data`` for ``calib_mode``
    ``'naive'`` (min/max) or ``'entropy'`` (KL divergence); ``'none'`` leaves the ranges
    to be computed at run time.

    Returns
    -------
    (qsym, qarg_params, aux_params)
    """
    if excluded_sym_names is not None and not isinstance(excluded_sym_names, list):
        raise ValueError("excluded_sym_names must be a list of strings")
    qsym, qarg, aux, collector = quantize_graph(
        sym, arg_params, aux_params, ctx, excluded_sym_names, excluded_op_names, calib_mode,
        quantized_dtype, quantize_mode, quantize_granularity, logger=logger)
    if calib_mode == "none":
        return qsym, qarg, aux
    _collect_layer_statistics(sym, arg_params, aux_params, calib_data, collector,
                              _calib_layers(collector), tuple(data_names), ctx,
                              num_calib_examples, logger)
    return calib_graph(qsym, arg_params, aux_params, collector, calib_mode, quantized_dtype,
                       logger)


def quantize_model_mkldnn(sym: Symbol, arg_params: dict, aux_params: dict,
                          data_names=("data",), label_names=("softmax_label",), ctx=cpu(),
                          excluded_sym_names=None, excluded_op_names=None,
                          calib_mode: str = "entropy", calib_data=None,
                          num_calib_examples: int | None = None,
                          quantized_dtype: str = "int8", quantize_mode: str = "smart",
                          quantize_granularity: str = "tensor-wise", logger=None) -> tuple:
    """MXNet's CPU INT8 flow (:mod:`gluonlite.contrib.quantization_onednn`): the graph
    fused for oneDNN, quantized and calibrated on the fused float graph, then fused
    again; MXNet's graph and numbers.  CPU contexts only, as in MXNet."""
    if getattr(ctx, "device_type", None) != "cpu":
        raise ValueError("quantize_model_mkldnn only support Intel cpu platform with "
                         "MKL-DNN Backend")
    sym = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qarg, aux = quantize_model(sym, arg_params, aux_params, data_names, label_names,
                                     ctx, excluded_sym_names, excluded_op_names, calib_mode,
                                     calib_data, num_calib_examples, quantized_dtype,
                                     quantize_mode, quantize_granularity, logger)
    return qsym.get_backend_symbol("MKLDNN_QUANTIZE"), qarg, aux


def quantize_net_v2(network, quantized_dtype: str = "auto", quantize_mode: str = "full",
                    quantize_granularity: str = "tensor-wise", exclude_layers=None,
                    exclude_layers_match=None, exclude_operators=None, calib_data=None,
                    data_shapes=None, calib_mode: str = "none",
                    num_calib_examples: int | None = None, ctx=cpu(),
                    LayerOutputCollector=None, logger=None):
    """Quantize a Gluon ``HybridBlock`` into a ``SymbolBlock`` running the INT8 graph.

    ``data_shapes`` (a list of shapes or of ``DataDesc``) names the inputs (``data`` or
    ``data0, data1, ...``); without it, the first batch of ``calib_data`` gives them.
    """
    from ..gluon import SymbolBlock
    from .. import symbol as sym_api
    if data_shapes is None:
        if calib_data is None:
            raise ValueError("quantize_net_v2 needs data_shapes or calib_data")
        first = next(iter(_batches(calib_data, ["data"])))[0]["data"]
        data_shapes = [first.shape]
    names = [getattr(d, "name", None) for d in data_shapes]
    if any(n is None for n in names):
        names = ["data"] if len(data_shapes) == 1 else [f"data{i}" for i in
                                                         range(len(data_shapes))]
    inputs = [sym_api.var(n) for n in names]
    out = network(*inputs)
    sym = out if isinstance(out, Symbol) else sym_api.Group(list(out))
    params = {p.name: p.data(ctx) for p in network.collect_params().values()}
    arg_names, aux_names = set(sym.list_arguments()), set(sym.list_auxiliary_states())
    arg_params = {k: v for k, v in params.items() if k in arg_names}
    aux_params = {k: v for k, v in params.items() if k in aux_names}
    excluded = list(exclude_layers or [])
    for node in topo_order(sym._heads):
        if node.op is not None and any(m in node.name for m in (exclude_layers_match or ())):
            excluded.append(node.name)
    onednn = getattr(ctx, "device_type", None) == "cpu"
    if onednn:  # MXNet's CPU flow: fuse for oneDNN first (and again after calibration)
        sym = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qarg, aux, collector = quantize_graph(
        sym, arg_params, aux_params, ctx, excluded, exclude_operators, calib_mode,
        quantized_dtype, quantize_mode, quantize_granularity, LayerOutputCollector, logger)
    if calib_mode != "none":
        _collect_layer_statistics(sym, arg_params, aux_params, calib_data, collector,
                                  _calib_layers(collector), tuple(names), ctx,
                                  num_calib_examples, logger)
        qsym, qarg, aux = calib_graph(qsym, arg_params, aux_params, collector, calib_mode,
                                      quantized_dtype, logger)
    if onednn:
        qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    net = SymbolBlock(qsym, [sym_api.var(n) for n in names])
    values = dict(qarg, **aux)
    for name, param in net.collect_params().items():
        key = name if name in values else getattr(param, "name", name)
        if key in values:  # the saved dtype wins (int8 weights), as MXNet loads them
            param._load_init(values[key], ctx, cast_dtype=True, dtype_source="saved")
    return net


def quantize_net(network, quantized_dtype: str = "auto", quantize_mode: str = "full",
                 exclude_layers=None, exclude_layers_match=None, exclude_operators=None,
                 calib_data=None, data_shapes=None, calib_mode: str = "none",
                 num_calib_examples: int | None = None, ctx=cpu(), logger=None):
    """:func:`quantize_net_v2` with tensor-wise granularity (MXNet's older entry point)."""
    return quantize_net_v2(network, quantized_dtype, quantize_mode, "tensor-wise",
                           exclude_layers, exclude_layers_match, exclude_operators,
                           calib_data, data_shapes, calib_mode, num_calib_examples, ctx,
                           None, logger)
