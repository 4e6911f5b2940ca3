"""Which operators MXNet 1.9.1's oneDNN subgraph backend fuses, and how it names the result.

The graph pass itself (growing subgraphs from seeds, cutting inputs, reconnecting
outputs: MXNet's ``BuildSubgraph``) lives in :mod:`gluonlite.symbol.onednn_fusion`; this
module holds its operator knowledge, as MXNet's ``SubgraphProperty`` classes do
(``src/operator/subgraph/mkldnn/mkldnn_*_property.h``):

* a *selector* per property, a small state machine asked ``select`` (is this node a
  seed?), ``select_input`` / ``select_output`` (grow the subgraph over this edge?),
  ``filter`` (which of the grown nodes to keep) and ``reset`` (start again after a
  cycle was found);
* ``describe`` (the fused node's operator, name and attribute strings from the
  subgraph's operators in depth-first order) and how the fused node is wired
  (``output_index``, ``swaps_sum_operands``).

Nodes are seen through ``node.op`` (an :class:`~.registry.OpDef`, ``None`` for a
variable), ``node.attrs`` and ``node.inputs`` (``(node, index)`` entries).  The
``MXNET_DISABLE_MKLDNN_*`` environment variables are read when a property is made
(MXNet reads them once, when the library loads).
"""
from __future__ import annotations

import os

__all__ = ["Property", "backend_properties"]

_CONV_ACTS = ("relu", "sigmoid", "softrelu", "tanh")  # MXNet's SupportMKLDNNAct
_FC_ELTWISE = ("Activation", "square", "sqrt", "exp", "abs", "clip", "LeakyReLU")
_SELFATT = {"_contrib_interleaved_matmul_selfatt_qk": ("_sg_mkldnn_selfatt_qk",
                                                       "sg_mkldnn_selfatt_qk"),
            "_contrib_interleaved_matmul_selfatt_valatt": ("_sg_mkldnn_selfatt_valatt",
                                                           "sg_mkldnn_selfatt_valatt")}


def _env(name: str) -> bool:
    try:
        return int(os.environ.get(name, "0") or 0) != 0
    except ValueError:
        return False


def _name(node) -> str | None:
    return None if node.op is None else node.op.name


def _act_ok(attrs, quantize: bool) -> bool:
    """MXNet's ``SupportMKLDNNAct`` (float) / ``SupportQuantizedMKLDNNAct`` (relu only)."""
    return attrs.act_type == "relu" if quantize else attrs.act_type in _CONV_ACTS


def supported_input(node_attr) -> bool:
    """MXNet's ``SupportMKLDNNAttr``: without shape information every node qualifies;
    with it, the first input must be float32 or bfloat16 with 1 to 5 dimensions."""
    if node_attr is None:
        return True
    shape, dtype = node_attr
    if shape is None or dtype is None:
        return False
    return str(dtype) in ("float32", "bfloat16") and 1 <= len(shape) <= 5


# -- selectors ---------------------------------------------------------------------------
class _Identity:
    """``SgMKLDNNIdentitySelector``: a ``_copy`` or a training-mode ``Dropout`` and the
    operator that feeds it."""

    def __init__(self):
        self.matched, self.found = [], False

    def select(self, node, node_attr=None) -> bool:
        name = _name(node)
        ok = name == "_copy" or (name == "Dropout" and node.attrs.mode == "training")
        if ok:
            self.matched, self.found = [node], False
        return ok

    def select_input(self, node, new) -> bool:
        if self.found or new.op is None:
            return False
        self.matched.append(new)
        self.found = True
        return True

    def select_output(self, node, new) -> bool:
        return False

    def filter(self, candidates: list) -> list:
        if self.found and len(candidates) == len(self.matched):
            return list(candidates)
        return []

    def reset(self) -> None:
        seed = self.matched[0]
        self.__init__()
        self.select(seed)


class _Conv:
    """``SgMKLDNNConvSelector``: Convolution -> BatchNorm -> elemwise_add -> activation,
    each step optional, stopping at the first branch."""

    def __init__(self, flags: dict, quantize: bool):
        self.flags, self.quantize = flags, quantize
        self.status, self.matched = "fail", []

    def select(self, node, node_attr=None) -> bool:
        if _name(node) == "Convolution" and len(node.attrs.kernel) in (2, 3) \
                and supported_input(node_attr):
            self.status = "success" if self.flags["all"] else "start"
            self.matched = [node]
            return True
        return False

    def select_input(self, node, new) -> bool:
        return False

    def _take(self, new, status: str) -> bool:
        self.matched.append(new)
        self.status = status
        return True

    def select_output(self, node, new) -> bool:
        if self.matched[-1] is not node:  # a branch inside the pattern: cut it there
            if any(m is node for m in self.matched):
                while self.matched[-1] is not node:
                    self.matched.pop()
            self.status = "success"
            return False
        if self.status in ("fail", "success") or new.op is None:
            return False
        name, f = _name(new), self.flags
        if self.status == "start" and not f["bn"] and name == "BatchNorm":
            return self._take(new, "bn")
        if self.status in ("start", "bn") and not f["sum"] and name == "elemwise_add":
            return self._take(new, "sum")
        if not f["act"]:
            if name == "Activation":
                if _act_ok(new.attrs, self.quantize):
                    return self._take(new, "success")
            elif name == "LeakyReLU":
                if new.attrs.act_type in ("leaky", "gelu"):
                    return self._take(new, "success")
            elif name == "clip":
                # no int8 conv+sum+relu6 (MXNet's TODO)
                if not (self.quantize and self.status == "sum") and new.attrs.a_min == 0:
                    return self._take(new, "success")
        self.status = "success"
        return False

    def filter(self, candidates: list) -> list:
        if self.status == "fail":
            return []
        ids = {id(c) for c in candidates}
        return [m for m in self.matched if id(m) in ids]

    def reset(self) -> None:
        seed = self.matched[0]
        self.__init__(self.flags, self.quantize)
        self.select(seed)


class _FC:
    """``SgMKLDNNFCSelector``: FullyConnected and one elementwise operator after it."""

    def __init__(self, disable_eltwise: bool, quantize: bool):
        self.disable, self.quantize = disable_eltwise, quantize
        self.status, self.matched = "fail", []

    def select(self, node, node_attr=None) -> bool:
        if _name(node) == "FullyConnected" and supported_input(node_attr):
            self.status = "success" if self.disable else "start"
            self.matched = [node]
            return True
        return False

    def select_input(self, node, new) -> bool:
        return False

    def select_output(self, node, new) -> bool:
        if self.status in ("fail", "success") or new.op is None:
            return False
        if self.matched[-1] is not node:
            if any(m is node for m in self.matched):
                while self.matched[-1] is not node:
                    self.matched.pop()
            self.status = "success"
            return False
        name, a = _name(new), new.attrs
        ok = ((name == "Activation" and _act_ok(a, self.quantize))
              or (name == "LeakyReLU" and a.act_type in ("leaky", "elu", "gelu"))
              or (not self.quantize and name in ("square", "sqrt", "exp"))
              or name == "abs" or (name == "clip" and a.a_min == 0))
        self.status = "success"
        if ok:
            self.matched.append(new)
        return ok

    def filter(self, candidates: list) -> list:
        return [] if self.status == "fail" else list(candidates)  # MXNet keeps them all

    def reset(self) -> None:
        seed = self.matched[0]
        self.__init__(self.disable, self.quantize)
        self.select(seed)


class _Transformer:
    """``SgMKLDNNTransformerSelector``: one interleaved self-attention matmul alone."""

    def select(self, node, node_attr=None) -> bool:
        return _name(node) in _SELFATT

    def select_input(self, node, new) -> bool:
        return False

    def select_output(self, node, new) -> bool:
        return False

    def filter(self, candidates: list) -> list:
        return list(candidates)

    def reset(self) -> None:
        pass


# -- properties --------------------------------------------------------------------------
class Property:
    """One of MXNet's oneDNN subgraph properties.

    Attributes
    ----------
    kind : str
        ``'identity'`` (the fused node is a copy of the operator before the identity),
        ``'conv'``, ``'fc'`` or ``'transformer'``.
    disabled : bool
        Whether ``MXNET_DISABLE_MKLDNN_<kind>_OPT`` turns the property off (MXNet honours
        it in ``get_backend_symbol`` only).
    """

    def __init__(self, kind: str, quantize: bool = False):
        self.kind, self.quantize = kind, quantize
        if kind == "conv":
            bn, act, sm = (_env("MXNET_DISABLE_MKLDNN_FUSE_CONV_BN"),
                           _env("MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU"),
                           _env("MXNET_DISABLE_MKLDNN_FUSE_CONV_SUM"))
            self._flags = {"bn": bn, "act": act, "sum": sm, "all": bn and act and sm}
        self._fc_eltwise_off = _env("MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE")
        env = {"conv": "MXNET_DISABLE_MKLDNN_CONV_OPT", "fc": "MXNET_DISABLE_MKLDNN_FC_OPT",
               "transformer": "MXNET_DISABLE_MKLDNN_TRANSFORMER_OPT"}.get(kind)
        self.disabled = env is not None and _env(env)

    def selector(self):
        """A fresh selector (one per seed, as MXNet creates them)."""
        if self.kind == "identity":
            return _Identity()
        if self.kind == "conv":
            return _Conv(self._flags, self.quantize)
        if self.kind == "fc":
            return _FC(self._fc_eltwise_off, self.quantize)
        return _Transformer()

    @staticmethod
    def is_identity(node) -> bool:
        """``_copy`` or ``Dropout`` (MXNet's ``IsIdentityNode``)."""
        return _name(node) in ("_copy", "Dropout")

    def describe(self, nodes: list, subgraph_id: int) -> tuple:
        """``(operator, node name, attribute strings)`` of the fused node whose subgraph
        has the operator nodes ``nodes`` (depth-first order), as MXNet's
        ``CreateSubgraphNode`` writes them."""
        parts, attrs = ["sg_mkldnn"], {}
        if self.kind == "conv":
            with_sum = False
            for n in nodes:
                name = _name(n)
                if name == "Convolution":
                    parts.append("conv")
                elif name == "BatchNorm":
                    parts.append("bn")
                    attrs["with_bn"] = "true"
                elif name == "elemwise_add":
                    parts.append("add")
                    attrs["with_sum"] = "true"
                    with_sum = True
                elif name in ("Activation", "LeakyReLU", "clip"):
                    parts.append("act")
                    attrs["with_postsum_act" if with_sum else "with_act"] = "true"
            op = "_sg_mkldnn_conv"
        elif self.kind == "fc":
            for n in nodes:
                name = _name(n)
                if name == "FullyConnected":
                    parts.append("fully_connected")
                elif name in _FC_ELTWISE:
                    parts.append("eltwise")
                    attrs["with_eltwise"] = "True"
            op = "_sg_mkldnn_fully_connected"
        else:
            matmul = [n for n in nodes if _name(n) in _SELFATT][-1]
            op, base = _SELFATT[_name(matmul)]
            parts = [base]
            attrs = {"heads": str(matmul.attrs.heads), "quantized": "False",
                     "enable_float_output": "False"}
        return op, "_".join(parts + [str(subgraph_id)]), attrs

    def output_index(self, index: int) -> int:
        """The fused node's output an outside reader of subgraph output ``index`` reads
        (a fused convolution has one output)."""
        return 0 if self.kind == "conv" else index

    def swaps_sum_operands(self, node, inside: set) -> bool:
        """Whether ``node`` is a fused ``elemwise_add`` whose right operand comes from the
        subgraph (``inside``: ids of its operator nodes): MXNet then swaps the operands so
        that the extra summand is the fused node's last input."""
        return self.kind == "conv" and _name(node) == "elemwise_add" \
            and id(node.inputs[1][0]) in inside


def backend_properties(quantize: bool) -> list:
    """The properties of MXNet's ``MKLDNN`` backend (``quantize=False``) or the fusion
    half of ``MKLDNN_QUANTIZE``, in MXNet's order."""
    if not quantize:
        return [Property("identity"), Property("conv"), Property("fc"),
                Property("transformer")]
    return [Property("identity"), Property("conv", True), Property("fc", True),
            Property("identity"), Property("transformer")]
