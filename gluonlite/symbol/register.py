"""Generate ``sym.<Name>`` for every registry operator, and the one function that
creates an operator node (:func:`create`), shared with arithmetic, random and
creation helpers.

Calling convention (MXNet's): Symbol arguments, positional or by input name, are
inputs; other positional arguments fill attributes in declaration order; ``name=``
names the node (else the ``NameManager`` does, from the lowercased function name)
and ``attr=`` adds user attributes.  Inputs not given become new variables named
``<node name>_<input name>`` carrying the node's attributes.
"""
from __future__ import annotations

import numpy as np

from ..attribute import AttrScope
from ..base import MXNetError
from ..name import NameManager
from ..ops.attrs import format_attr
from ..ops.registry import OpAttrs, OpDef
from .graph import Node, variable_node
from .symbol import HIDDEN_KEYS, Symbol, user_key

__all__ = ["create", "make_function", "parse_op_attrs", "attr_string"]

def attr_string(spec, value) -> str:
    """A Python attribute value as the string MXNet's front end writes into the graph."""
    if spec is not None and spec.kind == "dtype" and value is not None \
            and not isinstance(value, str):
        # format_attr names MXNet's bfloat16 record dtype 'bfloat16' (as MXNet writes it)
        return format_attr(np.dtype(value))
    return format_attr(value)


def parse_op_attrs(op: OpDef, strings: dict) -> OpAttrs:
    """Parsed attributes that remember the exact strings given (for JSON and ``list_attr``)."""
    return op.parse_attrs(dict(strings)).with_given(strings)


def _user_attrs(attr: dict | None) -> dict:
    """``attr=`` and the AttrScope's attributes, as strings: MXNet's operator front end
    converts other values with ``str()`` (GluonCV's SSD passes ``{'__init__': Xavier()}``),
    while ``sym.var`` refuses them."""
    out = {}
    for key, value in AttrScope.current.get(attr).items():
        out[user_key(key)] = value if isinstance(value, str) else str(value)
    return out


def _entry(op: OpDef, name: str, input_name: str, value) -> tuple:
    if not isinstance(value, Symbol):
        raise TypeError(f"Operator {op.name} ({name}): input '{input_name}' must be a "
                        f"Symbol, got {type(value).__name__}")
    if len(value._heads) != 1:
        raise MXNetError(f"Operator {op.name} ({name}): input '{input_name}' is a group of "
                         f"{len(value._heads)} outputs; a single output is required")
    return value._heads[0]


def create(op: OpDef, hint: str, inputs: list, kw_inputs: dict, attrs: dict,
           name: str | None = None, attr: dict | None = None) -> Symbol:
    """Create one operator node and return the symbol of its visible outputs.

    Parameters
    ----------
    op : OpDef
        The operator.
    hint : str
        Naming hint for the ``NameManager`` (``fullyconnected``).
    inputs : list of Symbol or None
        Inputs given positionally, in input order (``None``: not given).
    kw_inputs : dict of str to Symbol
        Inputs given by name.
    attrs : dict
        Operator attributes (Python values or MXNet strings).
    name : str, optional
        The node name.
    attr : dict of str to str, optional
        User attributes (merged over the current ``AttrScope``).
    """
    user = _user_attrs(attr)
    subgraphs = None
    if op.num_subgraphs == 1 and "subgraph" not in op.attrs and "subgraph" in attrs:
        # MXNet's ``_CachedOp(*inputs, subgraph=<graph JSON>)``: the node runs that graph
        attrs = dict(attrs)
        subgraphs = _json_subgraph(op, attrs.pop("subgraph"))
        n_given = sum(s is not None for s in inputs) + len(kw_inputs)
        attrs.setdefault("num_args", n_given + 1)  # inputs and the subgraph, as MXNet counts
        if "num_outputs" in op.attrs:
            attrs.setdefault("num_outputs", len(subgraphs[0].heads))
    strings = {}
    for key, value in attrs.items():
        spec = op.attrs.get(key)
        if spec is None and (op.open_attrs or not op.attrs):
            # Custom's keywords; or kept unread on an operator without parameters, as
            # MXNet keeps them (zeros_like(x, dtype=...) in client code)
            strings[key] = value if isinstance(value, str) else str(value)
            continue
        if spec is None:
            raise MXNetError(f"Operator {op.name}: unknown attribute '{key}'; expected one "
                             f"of {sorted(op.attrs)}")
        if value is None and not spec.optional:
            continue  # None means "not given" for a non-optional attribute
        strings[key] = attr_string(spec, value)
    for key in list(user):
        if key in op.attrs:
            strings[key] = user.pop(key)  # AttrScope/attr= may set operator parameters
        elif op.attrs and not (key.startswith("__") and key.endswith("__")):
            raise MXNetError(f"Operator {op.name}: cannot find argument '{key}' (from attr= "
                             f"or AttrScope); arguments are {list(op.attrs)}")
    if op.key_var_num_args and op.key_var_num_args in op.attrs and \
            op.key_var_num_args not in strings:
        n_given = sum(s is not None for s in inputs) + len(kw_inputs)
        strings[op.key_var_num_args] = str(n_given)
    name = NameManager.current.get(name, hint)
    parsed = parse_op_attrs(op, strings)
    if subgraphs is not None:
        parsed = parsed.with_values(subgraphs=subgraphs)
    names = op.input_names(parsed)
    if any(s is not None for s in inputs[len(names):]):
        raise MXNetError(f"Operator {op.name} ({name}): {len(inputs)} inputs given, it takes "
                         f"{len(names)} {list(names)}")
    inputs = list(inputs[:len(names)]) + [None] * (len(names) - len(inputs))
    unknown = [k for k in kw_inputs if k not in names or inputs[names.index(k)] is not None]
    if unknown:
        raise MXNetError(f"Operator {op.name} ({name}): unknown or repeated inputs "
                         f"{sorted(unknown)}; inputs are {list(names)}")
    entries = []
    var_attrs = None
    for input_name, given in zip(names, inputs):
        if given is None:
            given = kw_inputs.get(input_name)
        if given is not None:
            entries.append(_entry(op, name, input_name, given))
            continue
        if var_attrs is None:  # auto-created variables copy the node's attributes
            var_attrs = dict(strings)
            var_attrs.update(user)
        entries.append((variable_node(f"{name}_{input_name}", var_attrs), 0))
    inits = op.input_init  # what MXNet attaches to variables without ``__init__``
    if inits:
        for i, input_name in enumerate(names):
            node = entries[i][0]
            if input_name in inits and node.op is None and "__init__" not in node.extra:
                node.extra["__init__"] = inits[input_name]
    node = Node(op, name, parsed, entries, user)
    return Symbol([(node, i) for i in range(op.num_visible_outputs(parsed))])


def _json_subgraph(op: OpDef, text) -> tuple:
    """``(Subgraph,)`` of a graph given as MXNet JSON (its inputs in ``list_inputs``
    order are the node's)."""
    from .subgraph import Subgraph
    from .symbol import load_json
    if not isinstance(text, str):
        raise MXNetError(f"Operator {op.name}: 'subgraph' must be a graph's JSON string "
                         f"(Symbol.tojson()), got {type(text).__name__}")
    return (Subgraph(list(load_json(text)._heads)),)


def make_function(op: OpDef, func_name: str):
    """Build the symbolic function for ``op`` under ``func_name``."""
    attr_order = list(op.attrs)
    var_key = op.key_var_num_args
    hint = func_name.lower()

    def fn(*args, name=None, attr=None, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if type(a).__name__ == "NDArray":
                raise TypeError(f"sym.{func_name}: got an NDArray; symbolic operators take "
                                f"Symbols (use mx.nd.{func_name} for arrays)")
        # leading Symbols (or None: input not given) fill the input slots in order, as in
        # MXNet's generated signatures ``f(data=None, weight=None, bias=None, <attrs>)``;
        # later positional values fill attributes in declaration order
        inputs = []
        rest = []
        for a in args:
            if (isinstance(a, Symbol) or a is None) and not rest:
                inputs.append(a)
            elif var_key and isinstance(a, (list, tuple)) and a and not rest and \
                    all(isinstance(x, Symbol) for x in a):
                inputs.extend(a)
            else:
                rest.append(a)
        kw_inputs = {}
        attrs = {}
        for k, v in kwargs.items():
            if k == "out":
                continue  # nd-only keyword; MXNet's symbol functions ignore it, a Symbol too
            if isinstance(v, Symbol):
                kw_inputs[k] = v
            elif k in op.attrs or (k == "subgraph" and op.num_subgraphs == 1):
                attrs[k] = v
            elif op.open_attrs and k != "out":
                attrs[k] = v  # Custom: undeclared keywords go to the user's operator
            elif k.startswith("__") and k.endswith("__"):
                attr = {**(attr or {}), k: str(v)}  # __layout__=... is a node attribute
            elif k in HIDDEN_KEYS:
                # sym.FullyConnected(..., lr_mult=0): a node attribute __lr_mult__ that
                # the weight and bias variables made for the node inherit, as in MXNet
                attr = {**(attr or {}), f"__{k}__": str(v)}
            elif v is None or k == "out":
                continue  # an input left out (bias=None) or nd-only keyword
            elif not op.attrs:
                attrs[k] = v  # ignored by an operator without parameters, as in MXNet
            else:
                raise MXNetError(f"Operator {op.name}: unknown argument '{k}'; attributes "
                                 f"are {attr_order}")
        if rest:
            free = [a for a in attr_order if a not in attrs and a != var_key]
            if len(rest) > len(free):
                raise MXNetError(f"Operator {op.name}: too many positional arguments")
            attrs.update(zip(free, rest))
        return create(op, hint, inputs, kw_inputs, attrs, name, attr)

    fn.__name__ = func_name
    fn.__qualname__ = func_name
    fn.__doc__ = op.doc or f"The ``{op.name}`` operator on symbols (MXNet semantics)."
    return fn

