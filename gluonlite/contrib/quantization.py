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
1.9.1's non-fused CPU flow does.
"""
from __future__ import annotations

import logging
from typing import Iterable

import numpy as np

from .. import ndarray
from ..context import cpu
from ..symbol import symbol as _symmod
from ..symbol.graph import Node, op_node, topo_order, variable_node
from ..symbol.symbol import Symbol
from ..ops.listed_outputs import output_suffix
from ..ops.registry import OpAttrs, get_op
from ..ops.quantization import (DEQUANTIZE, QUANTIZE, QUANTIZE_ASYM, REQUANTIZE,
                                calibration_keys, named_in, quantized_form)

__all__ = ["quantize_model", "quantize_model_mkldnn", "quantize_graph", "calib_graph",
           "quantize_net", "quantize_net_v2", "combine_histogram", "CalibrationCollector"]

def _entry_name(entry) -> str:
    node, i = entry
    return node.name if node.op is None else node.output_names()[i]


class _Rewriter:
    """One pass over a float32 graph building its quantized counterpart."""

    def __init__(self, excluded_names, excluded_ops, quantized_dtype, quantize_mode):
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

    def wants(self, node: Node):
        """The node's quantized form when this pass quantizes it, else None."""
        if node.op is None or node.name in self.excluded_names \
                or named_in(node.op, self.excluded_ops):
            return None
        form = quantized_form(node.op, node.attrs)
        if form is None:
            return None
        if self.mode == "full" or form.role in ("layer", "asym") or \
                any((id(n), i) in self.qmap for n, i in node.inputs):
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
            return
        given = dict(node.attrs._given)
        if form.node_attrs:
            parsed = get_op(form.quantized).parse_attrs(dict(given, **form.node_attrs))
            given = OpAttrs(parsed.as_dict(), dict(parsed._given, **form.node_attrs))
        if form.role == "asym":  # float outputs: consumers read the new node directly
            data = self.asym_entry(node.inputs[0])
            rest = [self.float_entry(e) for e in node.inputs[1:]]
            self.new[id(node)] = op_node(form.quantized, f"quantized_{node.name}",
                                         [data[0]] + rest + [data[1], data[2]], given)
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
            rq = op_node(REQUANTIZE, f"requantize_{node.name}",
                         [(qn, 0), (qn, 1), (qn, 2)], {"out_type": self.dtype})
            self.qmap[(id(node), 0)] = ((rq, 0), (rq, 1), (rq, 2))
            return
        if form.role == "batch_norm":  # int8 out over its own calibrated range: no requantize
            data = self.quantized_entry(node.inputs[0])
            params = [self.float_entry(e) for e in node.inputs[1:5]]
            qn = op_node(form.quantized, f"quantized_{node.name}",
                         [data[0]] + params + [data[1], data[2]], given)
            self.calib_layers.append(_entry_name((node, 0)))
            self.qmap[(id(node), 0)] = ((qn, 0), (qn, 1), (qn, 2))
            return
        datas = [self.quantized_entry(e) for e in node.inputs]
        # the data inputs, then (min, max) of each
        inputs = [d[0] for d in datas] + [x for d in datas for x in d[1:]]
        qn = op_node(form.quantized, f"quantized_{node.name}", inputs, given)
        if form.role == "requantized":
            rq = op_node(REQUANTIZE, f"requantize_{node.name}",
                         [(qn, 0), (qn, 1), (qn, 2)], {"out_type": self.dtype})
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
    rw = _Rewriter(excluded_symbols, excluded_operators, quantized_dtype, quantize_mode)
    for node in topo_order(sym._heads):
        rw.rewrite(node)
    heads = [rw.float_entry(h) for h in sym._heads]
    return Symbol(heads), rw.calib_layers


def _calibrate_quantized_sym(qsym: Symbol, th_dict: dict) -> Symbol:
    """Write ``min/max_calib_range`` into each ``quantize_v2`` node whose input's name is a
    key of ``th_dict`` and each ``requantize_<layer>`` node whose float layer's output
    (``<layer>_output``) is one (MXNet prints the values with six decimals)."""
    if not th_dict:
        return qsym
    heads = _symmod.copy_graph(qsym._heads)
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


# -- statistics ----------------------------------------------------------------------------------
class CalibrationCollector:
    """Base of the calibration collectors: ``collect(name, arr)`` is called with the
    float32 value of each entry to calibrate; ``post_collect()`` returns the
    ``{name: (min, max)}`` thresholds."""

    def __init__(self):
        self.include_layers = None

    def collect(self, name: str, op_name: str | None, arr) -> None:
        raise NotImplementedError

    def post_collect(self) -> dict:
        raise NotImplementedError


def combine_histogram(old_hist: tuple, arr: np.ndarray, new_min: float, new_max: float,
                      new_th: float) -> tuple:
    """Add ``arr`` to a ``(hist, edges, min, max, th)`` histogram, widening it by whole
    bins on both sides when ``new_th`` exceeds its threshold."""
    hist, edges, old_min, old_max, old_th = old_hist
    if new_th <= old_th:
        more, _ = np.histogram(arr, bins=len(hist), range=(-old_th, old_th))
        return hist + more, edges, min(old_min, new_min), max(old_max, new_max), old_th
    step = 2 * old_th / len(hist)
    grow = int((new_th - old_th) // step + 1)
    bins = len(hist) + 2 * grow
    th = grow * step + old_th
    new_hist, new_edges = np.histogram(arr, bins=bins, range=(-th, th))
    new_hist[grow:bins - grow] += hist
    return new_hist, new_edges, min(old_min, new_min), max(old_max, new_max), th


def _as_numpy(arr) -> np.ndarray:
    return arr.asnumpy() if hasattr(arr, "asnumpy") else np.asarray(arr)


def _included_range(include_layer, name: str, arr):
    """``(host array, min, max)`` of an entry a collector includes, else None."""
    if include_layer is not None and name not in include_layer:
        return None
    arr = _as_numpy(arr)
    return arr, float(arr.min()), float(arr.max())


class _LayerHistogramCollector(CalibrationCollector):
    """Histograms (``num_bins`` symmetric bins) of each included entry, for ``entropy``."""

    def __init__(self, num_bins: int = 8001, include_layer=None, logger=None):
        super().__init__()
        self.hist_dict = {}
        self.num_bins = num_bins
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name, arr, *_):
        seen = _included_range(self.include_layer, name, arr)
        if seen is None:
            return
        arr, lo, hi = seen
        th = max(abs(lo), abs(hi))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], arr, lo, hi, th)
        else:
            hist, edges = np.histogram(arr, bins=self.num_bins, range=(-th, th))
            self.hist_dict[name] = (hist, edges, lo, hi, th)

    def post_collect(self) -> dict:
        return _get_optimal_thresholds(self.hist_dict, "int8", logger=self.logger)


class _LayerOutputMinMaxCollector(CalibrationCollector):
    """Running min and max of each included entry, for ``naive`` calibration."""

    def __init__(self, quantized_dtype: str = "int8", include_layer=None, logger=None):
        super().__init__()
        self.min_max_dict = {}
        self.quantized_dtype = quantized_dtype
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name, arr, *_):
        seen = _included_range(self.include_layer, name, arr)
        if seen is None:
            return
        _, lo, hi = seen
        if name in self.min_max_dict:
            old = self.min_max_dict[name]
            lo, hi = min(old[0], lo), max(old[1], hi)
        self.min_max_dict[name] = (lo, hi)
        if self.logger:
            self.logger.debug("Collecting layer %s min_range=%f, max_range=%f", name, lo, hi)

    def post_collect(self) -> dict:
        return self.min_max_dict


_LayerOutputCollector = _LayerOutputMinMaxCollector  # MXNet 2.0's name


def _smooth_distribution(p: np.ndarray, eps: float = 0.0001) -> np.ndarray:
    """Replace zeros of a histogram by ``eps``, taking the mass off the non-zero bins."""
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        raise ValueError("The discrete probability distribution is malformed. All entries "
                         "are 0.")
    eps1 = eps * n_zeros / n_nonzeros
    hist = p.astype(np.float32)
    hist += np.where(zeros, np.float32(eps), np.float32(-eps1)).astype(np.float32)
    return hist


def _get_optimal_threshold(hist_data: tuple, quantized_dtype: str,
                           num_quantized_bins: int = 255) -> tuple:
    """The KL-divergence threshold of one histogram ``(hist, edges, min, max, th)``.

    Returns ``(min_val, max_val, threshold, divergence)`` (the last two as ``(1,)``
    float32 arrays, as MXNet returns them); non-negative data quantized to uint8 or
    ``auto`` uses ``2 * num_quantized_bins + 1`` bins.
    """
    hist, edges, min_val, max_val, _ = hist_data
    if len(hist) % 2 != 1:
        raise ValueError("the histogram needs an odd number of bins")
    if min_val >= 0 and quantized_dtype in ("auto", "uint8"):
        num_quantized_bins = num_quantized_bins * 2 + 1
    th, div = ndarray.contrib.calibrate_entropy(
        ndarray.array(np.asarray(hist, dtype=np.float32)),
        ndarray.array(np.asarray(edges, dtype=np.float32)),
        num_quantized_bins=num_quantized_bins)
    return min_val, max_val, th.asnumpy(), div.asnumpy()


def _get_optimal_thresholds(hist_dict: dict, quantized_dtype: str,
                            num_quantized_bins: int = 255, logger=None) -> dict:
    """``{name: (min, max)}`` from the histograms of ``hist_dict`` (emptied on the way)."""
    th_dict = {}
    for name in list(hist_dict):
        min_val, max_val, th, div = _get_optimal_threshold(hist_dict.pop(name),
                                                           quantized_dtype, num_quantized_bins)
        th = float(th.reshape(-1)[0])
        th_dict[name] = (0, th) if min_val >= 0 and quantized_dtype in ("auto", "uint8") \
            else (-th, th)
        if logger:
            logger.debug("layer=%s, min_val=%f, max_val=%f, th=%f, divergence=%f",
                         name, min_val, max_val, th, float(div.reshape(-1)[0]))
    return th_dict


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
    ``include_layer`` to ``collector.collect``; returns the number of examples seen."""
    if calib_data is None:
        raise ValueError("calib_data must be given for calibration")
    internals = sym.get_internals()
    names = internals.list_outputs()
    wanted = [n for n in include_layer if n in names]
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
            collector.collect(name, value)
        count += size
        if max_num_examples is not None and count >= max_num_examples:
            break
    if logger is not None:
        logger.info("Collected statistics from %d examples", count)
    return count


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
        ``custom``) whose ``include_layer`` names the entries to calibrate; fill it with
        the float graph's values and pass it to :func:`calib_graph`.
    """
    if calib_mode not in ("none", "naive", "entropy", "custom"):
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
    elif calib_mode == "custom":
        if LayerOutputCollector is None:
            raise ValueError("calib_mode='custom' needs a LayerOutputCollector")
        collector = LayerOutputCollector
        collector.include_layer = set(calib_layer)
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
    elif calib_mode == "custom":
        th_dict = collector.post_collect()
    else:
        raise ValueError(f"calib_graph needs calib_mode 'naive', 'entropy' or 'custom', not "
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
                              collector.include_layer, tuple(data_names), ctx,
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
    """MXNet's oneDNN entry point; here the same graph rewrite as :func:`quantize_model`
    (no fused oneDNN subgraphs)."""
    return quantize_model(sym, arg_params, aux_params, data_names, label_names, ctx,
                          excluded_sym_names, excluded_op_names, calib_mode, calib_data,
                          num_calib_examples, quantized_dtype, quantize_mode,
                          quantize_granularity, logger)


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
    qsym, qarg, aux, collector = quantize_graph(
        sym, arg_params, aux_params, ctx, excluded, exclude_operators, calib_mode,
        quantized_dtype, quantize_mode, quantize_granularity, LayerOutputCollector, logger)
    if calib_mode != "none":
        _collect_layer_statistics(sym, arg_params, aux_params, calib_data, collector,
                                  collector.include_layer, tuple(names), ctx,
                                  num_calib_examples, logger)
        qsym, qarg, aux = calib_graph(qsym, arg_params, aux_params, collector, calib_mode,
                                      quantized_dtype, logger)
    net = SymbolBlock(qsym, [sym_api.var(n) for n in names])
    values = dict(qarg, **aux)
    for name, param in net.collect_params().items():
        key = name if name in values else getattr(param, "name", name)
        if key in values:
            param._load_init(values[key], ctx) if hasattr(param, "_load_init") else \
                param.set_data(values[key])
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
