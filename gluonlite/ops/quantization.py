"""What the graph rewrite of ``mx.contrib.quantization`` knows about each operator.

MXNet 1.9.1's INT8 operators live in modules by purpose, all loaded by the registry:
:mod:`.quantized_convert` (quantize, dequantize, requantize, calibration),
:mod:`.quantized_layers` (fully connected, convolution, pooling, flatten, activation,
batch norm, embedding), :mod:`.quantized_elemwise` (add, mul, concat) and
:mod:`.quantized_rnn` (the LSTM).  This module declares, per float operator, its quantized
form and the role it plays in the rewrite, so that no list of operator names lives
outside ``ops/``.
"""
from __future__ import annotations

from .registry import OpDef


class QuantizedForm:
    """How a float operator is replaced in a quantized graph.

    Attributes
    ----------
    quantized : str
        The quantized operator.
    role : str
        ``'layer'``: an int32 accumulator (weights and bias quantized offline, a
        ``requantize`` after it); ``'batch_norm'``: float parameters, an output calibrated
        on its own; ``'requantized'``: int32 result requantized (``elemwise_add``);
        ``'concat'``: a variable number of inputs; ``'plain'``: int8 in, int8 out;
        ``'asym'``: the data input (input 0) quantized asymmetrically to uint8
        (``quantize_asym``, its scale and shift appended as the last two inputs), the
        other inputs float, float32 outputs (``RNN``); ``'fused'``: one of MXNet's
        oneDNN nodes (``_sg_mkldnn_*``) quantized in place (``quantized=true``), each
        input as ``input_roles`` says, a ``requantize`` after it.
    node_attrs : dict or callable
        Attributes (MXNet's strings) the rewrite adds to the quantized node, or
        ``f(attrs, granularity) -> dict``.
    input_roles : callable, optional
        For ``'fused'``: ``f(input names, granularity) -> list`` of ``'quantize'`` (an
        int8/uint8 form, its ``min``/``max`` appended), ``'offline'`` (an int8
        ``<param>_quantize`` parameter with ``_min``/``_max``, appended likewise) or
        ``'float'`` per input.
    """

    __slots__ = ("quantized", "role", "_accepts", "node_attrs", "input_roles")

    def __init__(self, quantized: str, role: str, accepts=None, node_attrs=None,
                 input_roles=None):
        self.quantized = quantized
        self.role = role
        self._accepts = accepts
        self.node_attrs = node_attrs if callable(node_attrs) else dict(node_attrs or {})
        self.input_roles = input_roles

    @property
    def must(self) -> bool:
        """MXNet's ``FQuantizable`` ``kMust``: the layers and the LSTM (quantized in
        ``smart`` mode wherever they are); the others are ``kSupport``."""
        return self.role in ("layer", "fused", "asym")

    def attrs_for(self, attrs, granularity: str) -> dict:
        """The attributes the rewrite adds to the quantized node."""
        if callable(self.node_attrs):
            return self.node_attrs(attrs, granularity)
        return dict(self.node_attrs)

    def accepts(self, attrs) -> bool:
        """Whether the quantized operator supports these attributes."""
        return self._accepts is None or self._accepts(attrs)


_FORMS = {
    "Convolution": QuantizedForm(
        "_contrib_quantized_conv", "layer",
        lambda a: len(a.kernel) == 2 and a.num_group == 1 and a.layout in (None, "NCHW")),
    "FullyConnected": QuantizedForm("_contrib_quantized_fully_connected", "layer"),
    "Pooling": QuantizedForm(
        "_contrib_quantized_pooling", "plain",
        lambda a: a.pool_type in ("max", "avg") and a.layout in (None, "NCHW")),
    "Flatten": QuantizedForm("_contrib_quantized_flatten", "plain"),
    "Activation": QuantizedForm("_contrib_quantized_act", "plain",
                                lambda a: a.act_type == "relu"),
    "elemwise_add": QuantizedForm("_contrib_quantized_elemwise_add", "requantized"),
    "Concat": QuantizedForm("_contrib_quantized_concat", "concat"),
    "BatchNorm": QuantizedForm("_contrib_quantized_batch_norm", "batch_norm",
                               lambda a: not a.output_mean_var),
    # MXNet 1.9.1 quantizes only the plain LSTM (other modes fail there); they stay float
    "RNN": QuantizedForm(
        "_contrib_quantized_rnn", "asym",
        lambda a: a.mode == "lstm" and a.projection_size is None
        and not a.use_sequence_length,
        node_attrs={"quantized": "true"}),
}

def _conv_roles(names, granularity):
    """MXNet's ``SgMKLDNNAvoidConvQuantizeInput``: weights, bias and BatchNorm stay float
    (the node quantizes them when it runs); the data and the residual are quantized."""
    return ["quantize" if n in ("data", "sum") else "float" for n in names]


def _fc_roles(names, granularity):
    """Weights and bias int8 offline, or float for channel-wise quantization."""
    param = "float" if granularity == "channel-wise" else "offline"
    return ["quantize" if n == "data" else param for n in names]


def _all_quantized(names, granularity):
    return ["quantize"] * len(names)


def _fc_attrs(attrs, granularity):
    extra = {"quantized": "True"}
    if granularity == "channel-wise":
        extra["channel_wise_quantize"] = "True"
    return extra


def _att_attrs(attrs, granularity):
    return {"quantized": "True", "heads": str(attrs.heads)}


def _not_quantized(attrs) -> bool:
    return not attrs.quantized


_FORMS.update({
    "_sg_mkldnn_conv": QuantizedForm("_sg_mkldnn_conv", "fused", _not_quantized,
                                     {"quantized": "true"}, _conv_roles),
    "_sg_mkldnn_fully_connected": QuantizedForm("_sg_mkldnn_fully_connected", "fused",
                                                _not_quantized, _fc_attrs, _fc_roles),
    "_sg_mkldnn_selfatt_qk": QuantizedForm("_sg_mkldnn_selfatt_qk", "fused", _not_quantized,
                                           _att_attrs, _all_quantized),
    "_sg_mkldnn_selfatt_valatt": QuantizedForm("_sg_mkldnn_selfatt_valatt", "fused",
                                               _not_quantized, _att_attrs, _all_quantized),
})

# MXNet's post-quantization passes (``MKLDNN_QUANTIZE``): which quantized nodes take in
# the calibrated ``requantize`` after them ("calib"), and which also a ``dequantize``
# after that, becoming float32 outputs ("calib_or_float")
_ABSORBS_REQUANTIZE = {
    "_sg_mkldnn_conv": "calib", "_contrib_quantized_elemwise_add": "calib",
    "_sg_mkldnn_fully_connected": "calib_or_float", "_sg_mkldnn_selfatt_qk": "calib_or_float",
    "_sg_mkldnn_selfatt_valatt": "calib_or_float",
    "_contrib_quantized_elemwise_mul": "calib_or_float",
}


def absorbs_requantize(op: OpDef, attrs) -> str | None:
    """``'calib'``, ``'calib_or_float'`` or None (see ``_ABSORBS_REQUANTIZE``); fused
    oneDNN nodes only when quantized."""
    kind = _ABSORBS_REQUANTIZE.get(op.name)
    if kind is None or (op.name.startswith("_sg_") and not attrs.quantized):
        return None
    return kind


def is_requantize(op: OpDef) -> bool:
    return op.name == REQUANTIZE


def is_dequantize(op: OpDef) -> bool:
    return op.name == DEQUANTIZE


def scale_alignment(op: OpDef) -> str | None:
    """MXNet's scale alignment around quantized concats: ``'head'`` for the concat it
    starts from, ``'through'`` for the nodes it looks through (concat, pooling)."""
    if op.name == "_contrib_quantized_concat":
        return "head"
    if op.name == "_contrib_quantized_pooling":
        return "through"
    return None


# the operators the rewrite inserts
QUANTIZE = "_contrib_quantize_v2"
QUANTIZE_ASYM = "_contrib_quantize_asym"
DEQUANTIZE = "_contrib_dequantize"
REQUANTIZE = "_contrib_requantize"


def quantized_form(op: OpDef, attrs) -> QuantizedForm | None:
    """The quantized form of a node of ``op`` with ``attrs``, or None when it stays float."""
    form = _FORMS.get(op.name)
    return form if form is not None and form.accepts(attrs) else None


def named_in(op: OpDef, names) -> bool:
    """Whether ``op`` is one of ``names`` (MXNet's canonical names or aliases), as users
    list operators to exclude from quantization."""
    names = set(names or ())
    return op.name in names or any(a in names for a in op.aliases)


def calibration_keys(op: OpDef, node_name: str, input_name: str) -> tuple:
    """The entries whose recorded range may calibrate a node of a quantized graph, most
    specific first: a ``quantize_v2`` or ``quantize_asym`` node its input, and the float
    entry its name ``<entry>_quantize`` comes from (its input may be a quantized node's
    output, e.g. ``quantized_rnn_output`` for ``rnn_output_quantize``); a
    ``requantize_<layer>`` / ``quantized_<bn>`` node the float layer's output
    (``<layer>_output``); none for other nodes."""
    if op.name in (QUANTIZE, QUANTIZE_ASYM):
        keys = (input_name,)
        if node_name.endswith("_quantize"):
            keys += (node_name[:-len("_quantize")],)
        return keys
    if op.name == REQUANTIZE and node_name.startswith("requantize_"):
        return (node_name[len("requantize_"):] + "_output",)
    if op.name == "_contrib_quantized_batch_norm" and node_name.startswith("quantized_"):
        return (node_name[len("quantized_"):] + "_output",)
    return ()
