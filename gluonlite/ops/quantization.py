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
        other inputs float, float32 outputs (``RNN``).
    node_attrs : dict
        Attributes (MXNet's strings) the rewrite adds to the quantized node.
    """

    __slots__ = ("quantized", "role", "_accepts", "node_attrs")

    def __init__(self, quantized: str, role: str, accepts=None, node_attrs=None):
        self.quantized = quantized
        self.role = role
        self._accepts = accepts
        self.node_attrs = dict(node_attrs or {})

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
