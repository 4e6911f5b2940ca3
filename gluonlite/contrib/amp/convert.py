"""AMP model conversion (``convert_symbol``, ``convert_model``, ``convert_hybrid_block``,
``convert_bucketing_module``): a float32 graph becomes a mixed precision one for
inference, with MXNet 1.9.1's rules, node names and ``__dtype__`` attributes.

The pass visits the graph inputs-first and copies every node; it tracks which copied
entries are known to be float32 and which the target type, and inserts casts:

* operators of the float32 list (and excluded nodes): inputs not known float32 get an
  ``amp_cast`` to float32, except variables (assumed float32);
* operators of the target list: dtype inference with the target type on input 0 says
  which inputs follow it; those not known in the target type get an ``amp_cast`` to
  it, except auxiliary states, inputs the operator wants in another type (BatchNorm's
  ``gamma``), and, with ``cast_optional_params``, parameters (stored in the target
  type instead);
* widest-type operators: when every input's type is known, casts to the widest one;
  otherwise one ``amp_multicast`` over all inputs;
* conditional float32 operators whose attribute has a listed value: like the float32
  list, auxiliary states excepted;
* every other operator is copied; its output types are inferred from input 0's, when
  known;
* outputs not known float32 get a cast to float32.

A cast of output ``i`` of node ``n`` is named ``n<suffix>_amp_cast_<dtype>`` (suffix
``_<output name>`` or ``_<i>``, see :mod:`gluonlite.ops.listed_outputs`; none for a
variable); one cast per entry and type is shared by all its readers.  Control-flow
subgraphs are left as they are, as in MXNet.  Afterwards the variables' types are
inferred with the data inputs as float32, and the parameters' ``__dtype__`` attributes
set from them (MXNet's type codes), so that ``convert_model`` and
``convert_hybrid_block`` store each parameter in its type.
"""
from __future__ import annotations

import numpy as np

from ...base import MXNetError
from ...context import Context, gpu
from ...ops import amp_lists_fp16 as lists
from ...ops.listed_outputs import output_suffix
from ...symbol.creation import DTYPE_CODES, DTYPE_NAMES
from ...symbol.graph import Node, op_node, topo_order
from ...symbol.infer import _initial_types
from ...symbol.inference import index_graph, infer_slots
from ...symbol.symbol import Symbol

__all__ = ["convert_symbol", "convert_model", "convert_hybrid_block",
           "convert_bucketing_module"]

_F32 = np.dtype(np.float32)


class AmpConversionError(MXNetError, AssertionError):
    """A bad argument to a conversion (MXNet checks them with ``assert``)."""


class _NotHybridizedError(MXNetError, RuntimeError):
    """``convert_hybrid_block`` on a block without a graph (MXNet: ``RuntimeError``)."""


def _check_target(target_dtype) -> np.dtype:
    if (isinstance(target_dtype, str) and target_dtype == "bfloat16") or (
            isinstance(target_dtype, np.dtype) and target_dtype.names == ("bfloat16",)):
        raise MXNetError("amp: target_dtype 'bfloat16' is not supported; gluonlite's AMP "
                         "converts to float16 (NumPy and CuPy have no bfloat16)")
    try:
        dtype = np.dtype(target_dtype)
    except TypeError:
        dtype = None
    if dtype != np.float16:
        raise AmpConversionError(f"amp: target_dtype must be 'float16', not {target_dtype!r}")
    return dtype


class _Lists:
    """The operator lists of one conversion, checked as MXNet checks them."""

    def __init__(self, target_dtype_ops, fp32_ops, conditional_fp32_ops):
        for name, value in (("target_dtype_ops", target_dtype_ops), ("fp32_ops", fp32_ops),
                            ("conditional_fp32_ops", conditional_fp32_ops)):
            if value is not None and not isinstance(value, list):
                raise AmpConversionError(f"amp: {name} should be a list")
        self.target = set(lists.FP16_FUNCS if target_dtype_ops is None else target_dtype_ops)
        self.fp32 = set(lists.FP32_FUNCS if fp32_ops is None else fp32_ops)
        conditional = (lists.CONDITIONAL_FP32_FUNCS if conditional_fp32_ops is None
                       else conditional_fp32_ops)
        self.conditional: dict = {}
        for item in conditional:
            if not (len(item) == 3 and isinstance(item[0], str) and isinstance(item[1], str)
                    and isinstance(item[2], list)):
                raise AmpConversionError("amp: conditional_fp32_ops should be a list of "
                                         "(str, str, list of str)")
            self.conditional.setdefault(item[0], {}).setdefault(item[1], []).extend(item[2])
        self.widest = set(lists.WIDEST_TYPE_CASTS)
        for a, b, names in ((self.target, self.fp32, "target_dtype_ops and fp32_ops"),
                            (self.target, set(self.conditional),
                             "target_dtype_ops and conditional_fp32_ops"),
                            (set(self.conditional), self.fp32,
                             "fp32_ops and conditional_fp32_ops")):
            common = a & b
            if common:
                raise AmpConversionError(f"amp: ops cannot be in two or more lists; common "
                                         f"ops in {names}: {sorted(common)}")
        known = set(lists.FP16_FUNCS) | set(lists.FP32_FUNCS) | set(lists.FP16_FP32_FUNCS) | {
            name for name, _, _ in lists.CONDITIONAL_FP32_FUNCS}
        illegal = (self.target | self.fp32 | set(self.conditional)) - known
        if illegal:
            raise AmpConversionError(f"amp: ops {sorted(illegal)} are in none of "
                                     "amp.list_lp16_ops, amp.list_fp32_ops, "
                                     "amp.list_lp16_fp32_ops and amp.list_conditional_fp32_ops")

    def kind(self, node: Node, excluded: set) -> str:
        """``'fp32'``, ``'target'``, ``'widest'``, ``'conditional'`` or ``'other'``."""
        if node.name in excluded:
            return "fp32"
        if node.op is None:
            return "other"
        name = node.op.name
        if name in self.fp32:
            return "fp32"
        if name in self.target:
            return "target"
        if name in self.widest:
            return "widest"
        wanted = self.conditional.get(name)
        if wanted:
            given = node.attrs._given
            for attr, values in wanted.items():
                if attr in given and _attr_string(given[attr]) in values:
                    return "conditional"
        return "other"


def _attr_string(value) -> str:
    return value if isinstance(value, str) else str(value)


class _Pass:
    """One conversion: copies of the nodes, and the copied entries of known type."""

    def __init__(self, lists_: _Lists, target: np.dtype, excluded, data_names,
                 cast_optional_params: bool):
        self.lists = lists_
        self.target = target
        self.target_name = target.name
        self.excluded = set(excluded)
        self.data_names = set(data_names)
        self.cast_params = bool(cast_optional_params)
        self.copy: dict = {}    # id(old node) -> new node
        self.fp32: dict = {}    # (id(old node), i) -> new entry known float32
        self.low: dict = {}     # (id(old node), i) -> new entry known in the target type

    # -- entries -------------------------------------------------------------------------
    def mirror(self, entry):
        node, i = entry
        return (self.copy[id(node)], i)

    def cast(self, entry, dtype_name: str, known: dict):
        """The (shared) ``amp_cast`` of ``entry`` to ``dtype_name``, recorded in ``known``."""
        node, i = entry
        key = (id(node), i)
        if key not in known:
            suffix = "" if node.op is None else output_suffix(node.op, node.attrs, i)
            cast = op_node("amp_cast", f"{node.name}{suffix}_amp_cast_{dtype_name}",
                           [self.mirror(entry)], {"dtype": dtype_name})
            known[key] = (cast, 0)
        return known[key]

    def record_outputs(self, node: Node, new: Node, out_types) -> None:
        for i, t in enumerate(out_types):
            if t is None:
                continue
            if np.dtype(t) == self.target:
                self.low[(id(node), i)] = (new, i)
            elif np.dtype(t) == _F32:
                self.fp32[(id(node), i)] = (new, i)

    def infer_from_first(self, node: Node, first) -> tuple:
        """``(input types, output types)`` with input 0 of type ``first`` (others unknown)."""
        in_types = [None] * len(node.inputs)
        in_types[0] = first
        return node.op.infer_type(node.attrs, in_types)

    # -- nodes ---------------------------------------------------------------------------
    def visit(self, node: Node) -> None:
        new = Node(node.op, node.name, node.attrs, [], node.extra)
        kind = self.lists.kind(node, self.excluded)
        aux = set(node.op.aux_indices(node.attrs)) if node.op is not None else set()
        if kind in ("fp32", "conditional"):
            for i in range(node.num_outputs()):
                self.fp32[(id(node), i)] = (new, i)
            for i, entry in enumerate(node.inputs):
                key = (id(entry[0]), entry[1])
                if key in self.fp32:
                    new.inputs.append(self.fp32[key])
                elif (kind == "fp32" and entry[0].op is None) or \
                        (kind == "conditional" and i in aux):
                    new.inputs.append(self.mirror(entry))
                else:
                    new.inputs.append(self.cast(entry, "float32", self.fp32))
        elif kind == "target" and node.inputs:
            in_types, out_types = self.infer_from_first(node, self.target)
            self.record_outputs(node, new, out_types)
            for i, entry in enumerate(node.inputs):
                key = (id(entry[0]), entry[1])
                src = entry[0]
                follows = in_types[i] is None or np.dtype(in_types[i]) == self.target
                if key in self.low:
                    new.inputs.append(self.low[key])
                elif (self.cast_params and src.op is None and src.name not in self.data_names) \
                        or i in aux or not follows:
                    new.inputs.append(self.mirror(entry))
                    if self.cast_params and src.op is None:
                        self.low[key] = self.mirror(entry)
                else:
                    new.inputs.append(self.cast(entry, self.target_name, self.low))
        elif kind == "widest":
            self.visit_widest(node, new)
        else:
            if node.inputs and node.op is not None:
                first = node.inputs[0]
                key = (id(first[0]), first[1])
                known = self.target if key in self.low else _F32 if key in self.fp32 else None
                if known is not None:
                    try:
                        _, out_types = self.infer_from_first(node, known)
                    except MXNetError:
                        out_types = ()
                    self.record_outputs(node, new, out_types)
            new.inputs = [self.mirror(e) for e in node.inputs]
        self.copy[id(node)] = new

    def visit_widest(self, node: Node, new: Node) -> None:
        if not node.inputs:
            raise AmpConversionError(f"amp: node {node.name} ({node.op.name}) has no inputs; "
                                     "check how the symbol was built")
        keys = [(id(n), i) for n, i in node.inputs]
        if not all(k in self.low or k in self.fp32 for k in keys):
            first = node.inputs[0]
            suffix = "" if first[0].op is None else output_suffix(first[0].op, first[0].attrs,
                                                                  first[1])
            multi = op_node("amp_multicast", f"{first[0].name}{suffix}_amp_multicast",
                            [self.mirror(e) for e in node.inputs],
                            {"num_outputs": len(node.inputs)})
            new.inputs = [(multi, i) for i in range(len(node.inputs))]
            return
        wide = any(k in self.fp32 for k in keys)
        known, dtype_name = (self.fp32, "float32") if wide else (self.low, self.target_name)
        for i in range(node.num_outputs()):
            known[(id(node), i)] = (new, i)
        for entry, key in zip(node.inputs, keys):
            new.inputs.append(known[key] if key in known else
                              self.cast(entry, dtype_name, known))

    def heads(self, heads) -> list:
        out = []
        for entry in heads:
            key = (id(entry[0]), entry[1])
            out.append(self.fp32[key] if key in self.fp32 else
                       self.cast(entry, "float32", self.fp32))
        return out


def _set_param_dtypes(sym: Symbol, data_names, model_params) -> None:
    """Write ``__dtype__`` (MXNet's type codes) on the converted graph's parameters:
    their types inferred from the data inputs as float32 alone (the old ``__dtype__``
    hints ignored, as MXNet's pass does), float32 where unknown."""
    order = topo_order(sym._heads)
    index = index_graph(order)
    data = set(data_names)
    known = {id(n): (_F32 if n.name in data else None) for n in order if n.op is None}
    types = _initial_types(index, known)
    infer_slots(index, None, types)
    for node in order:
        if node.op is not None:
            continue
        t = types[index.slot_of[(id(node), 0)]]
        code = str(DTYPE_CODES.get(np.dtype(t).name, 0) if t is not None else 0)
        if model_params:
            if node.name in model_params:
                node.extra["__dtype__"] = code
        elif "__dtype__" in node.extra:
            node.extra["__dtype__"] = code


def convert_symbol(sym: Symbol, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                   conditional_fp32_ops=None, excluded_sym_names=None, data_names=None,
                   cast_optional_params: bool = False) -> Symbol:
    """A mixed precision copy of a float32 ``Symbol``: ``amp_cast``/``amp_multicast``
    nodes inserted by the operator lists (MXNet's by default).

    Parameters
    ----------
    sym : Symbol
        The float32 network.
    target_dtype : {'float16'}
        The low precision type.
    target_dtype_ops, fp32_ops : list of str, optional
        Replace the lists of operators run in float16 / kept in float32.
    conditional_fp32_ops : list of (str, str, list of str), optional
        ``(operator, attribute, values)``: kept in float32 for those attribute values.
    excluded_sym_names : list of str, optional
        Names of nodes to keep in float32.
    data_names : list of str, optional
        The data inputs (default: the inputs without a ``__dtype__`` attribute).
    cast_optional_params : bool
        Store parameters that feed float16 operators in float16 instead of casting them
        at every call.

    Returns
    -------
    Symbol
    """
    if not isinstance(sym, Symbol):
        raise AmpConversionError("amp.convert_symbol: the first argument should be a Symbol")
    target = _check_target(target_dtype)
    op_lists = _Lists(target_dtype_ops, fp32_ops, conditional_fp32_ops)
    if excluded_sym_names is not None and not isinstance(excluded_sym_names, list):
        raise AmpConversionError("amp: excluded_sym_names should be a list of strs")
    inputs = sym.list_inputs()
    if data_names is None:
        attrs = sym.attr_dict()
        data_names = [n for n in inputs if "__dtype__" not in attrs.get(n, {})]
    model_params = set(inputs) - set(data_names)
    conv = _Pass(op_lists, target, excluded_sym_names or [], data_names, cast_optional_params)
    for node in topo_order(sym._heads):
        conv.visit(node)
    out = Symbol(conv.heads(sym._heads))
    _set_param_dtypes(out, data_names, model_params)
    return out


def _cast_params(sym: Symbol, params: dict) -> dict:
    """``params`` with each array in its variable's ``__dtype__`` type."""
    attrs = sym.attr_dict()
    out = dict(params)
    for name, value in params.items():
        code = attrs.get(name, {}).get("__dtype__")
        if code is not None and code != "-1":
            dtype = np.dtype(DTYPE_NAMES[int(code)])
            if np.dtype(value.dtype) != dtype:
                out[name] = value.astype(dtype)
    return out


def convert_model(sym: Symbol, arg_params: dict, aux_params: dict, target_dtype="float16",
                  target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                  excluded_sym_names=None, cast_optional_params: bool = False) -> tuple:
    """:func:`convert_symbol` for a model, its parameters cast to the types the converted
    graph gives them; returns ``(sym, arg_params, aux_params)``."""
    if not isinstance(sym, Symbol):
        raise AmpConversionError("amp.convert_model: the first argument should be a Symbol")
    if not isinstance(arg_params, dict) or not isinstance(aux_params, dict):
        raise AmpConversionError("amp.convert_model: arg_params and aux_params should be "
                                 "dicts of name to NDArray")
    params = set(arg_params) | set(aux_params)
    data_names = [n for n in sym.list_inputs() if n not in params]
    out = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, data_names, cast_optional_params)
    return out, _cast_params(out, arg_params), _cast_params(out, aux_params)


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None,
                         ctx: Context = gpu(0), cast_optional_params: bool = False):
    """A ``SymbolBlock`` running a hybridized block's graph in mixed precision.

    The block must have been hybridized and called once.  Its parameters are copied
    (cast to the converted graph's types) onto ``ctx``.
    """
    from ...gluon import HybridBlock, SymbolBlock
    if not isinstance(block, HybridBlock):
        raise AmpConversionError("amp.convert_hybrid_block: block input should be a HybridBlock")
    if not block._cached_graph:
        raise _NotHybridizedError("amp.convert_hybrid_block: first call block.hybridize() "
                                  "and run a forward pass with the block")
    inputs, sym = block._cached_graph
    out = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, [x.name for x in inputs], cast_optional_params)
    arg_names = set(out.list_arguments())
    aux_names = set(out.list_auxiliary_states())
    arrays = {}
    for name, param in block.collect_params().items():
        if name not in arg_names and name not in aux_names:
            continue
        arrays[("arg:" if name in arg_names else "aux:") + name] = param._reduce()
    attrs = out.attr_dict()
    for key, value in list(arrays.items()):
        code = attrs.get(key[4:], {}).get("__dtype__")
        if code is not None and code != "-1":
            arrays[key] = value.astype(DTYPE_NAMES[int(code)])
    ret = SymbolBlock(out, inputs)
    for name, param in ret.collect_params().items():
        for prefix in ("arg:", "aux:"):
            value = arrays.get(prefix + name)
            if value is not None and np.dtype(param.dtype) != np.dtype(value.dtype):
                param.cast(value.dtype)
    ret.collect_params().load_dict(arrays, ctx=ctx)
    return ret


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None,
                             fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                             cast_optional_params: bool = False):
    """A ``BucketingModule`` whose buckets' symbols are converted (:func:`convert_model`),
    with the current module's parameters."""
    from ...module import BucketingModule
    if not isinstance(bucketing_mod, BucketingModule):
        raise AmpConversionError("amp.convert_bucketing_module: module should be a "
                                 "BucketingModule")
    if not bucketing_mod._buckets:
        raise AmpConversionError("amp.convert_bucketing_module: the BucketingModule has no "
                                 "buckets")
    if not bucketing_mod.params_initialized:
        raise AmpConversionError("amp.convert_bucketing_module: the module's parameters "
                                 "should be initialized")
    current = bucketing_mod._curr_module
    arg_params, aux_params = current._arg_params, current._aux_params
    symbols = {}
    for key, mod in bucketing_mod._buckets.items():
        symbols[key], args, auxs = convert_model(
            mod._symbol, arg_params, aux_params, target_dtype, target_dtype_ops, fp32_ops,
            conditional_fp32_ops, excluded_sym_names, cast_optional_params)
    return BucketingModule.load_dict(
        symbols, sym_gen=bucketing_mod._sym_gen,
        default_bucket_key=bucketing_mod._default_bucket_key, arg_params=args, aux_params=auxs,
        **bucketing_mod._module_kwargs)
