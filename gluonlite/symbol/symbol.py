"""``Symbol``: a graph handle made of head entries, with MXNet 1.x's symbolic API.

A ``Symbol`` holds ``_heads``, a list of ``(Node, output_index)`` entries (see
:mod:`.graph`).  Everything else (arguments, outputs, internals) is derived by
walking from the heads.  Nodes are shared between symbols, as in MXNet: setting
an attribute on ``fc`` is seen by every symbol built on ``fc``.
"""
from __future__ import annotations

import numbers

from ..base import MXNetError, NotImplementedForSymbol
from .graph import Node, list_variables, topo_order

__all__ = ["Symbol", "Group", "load", "load_json", "HIDDEN_KEYS", "user_key"]

# attributes MXNet stores as ``__key__`` and lists under both spellings
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def user_key(key: str) -> str:
    """The stored spelling of a user attribute (``lr_mult`` -> ``__lr_mult__``)."""
    return f"__{key}__" if key in HIDDEN_KEYS else key


def _with_plain_keys(attrs: dict) -> dict:
    """``attrs`` plus ``lr_mult`` for every ``__lr_mult__`` (MXNet's listing of hidden keys)."""
    out = {}
    for k, v in attrs.items():
        out[k] = v
        if k.startswith("__") and k.endswith("__") and k[2:-2] in HIDDEN_KEYS:
            out[k[2:-2]] = v
    return out


def _node_attrs(node: Node) -> dict:
    """All string attributes of a node: operator parameters given, then user attributes."""
    out = {} if node.op is None else node.attrs.to_strings()
    out.update(node.extra)
    return out


# ``bind``/``simple_bind`` run the Executor, a front end above this layer: it lends them
# here when it loads (``gluonlite/executor.py`` calls use_executor)
_EXECUTOR: list = []


def use_executor(executor_cls, simple_bind) -> None:
    """Install what ``Symbol.bind`` (``executor_cls(symbol, ctx, args, args_grad,
    grad_req, aux_states, shared_exec)``) and ``Symbol.simple_bind`` (``simple_bind(symbol,
    ctx, grad_req, type_dict, shared_exec, shapes, stype_dict=None)``) run."""
    _EXECUTOR[:] = [executor_cls, simple_bind]


def _executor() -> list:
    if not _EXECUTOR:
        raise MXNetError("Symbol.bind needs the Executor (gluonlite.executor), which "
                         "loads with gluonlite; import gluonlite first")
    return _EXECUTOR


def copy_graph(heads: list) -> list:
    """Deep-copy the nodes reachable from ``heads``; return the new head entries."""
    from .entry_versions import carry_versions
    mapping: dict[int, Node] = {}
    for node in topo_order(heads):
        copy = Node(node.op, node.name, node.attrs,
                    [(mapping[id(n)], i) for n, i in node.inputs], node.extra)
        carry_versions(copy, node, by_position=True)  # MXNet's copies keep entry versions
        mapping[id(node)] = copy
    return [(mapping[id(n)], i) for n, i in heads]


class Symbol:
    """A symbolic graph: one or more outputs of operator or variable nodes.

    Parameters
    ----------
    heads : list of (Node, int)
        The output entries.
    """

    __hash__ = None  # MXNet symbols are unhashable (``==`` builds a graph)
    # NumPy scalars and arrays on the left leave the operator to the Symbol (MXNet's
    # value): ``np.float64(2) - sym`` is ``_rminus_scalar``, not an array of Symbols
    __array_priority__ = 1000.0

    def __init__(self, heads: list):
        self._heads = list(heads)

    # -- identity and printing -------------------------------------------------------
    def _single_node(self) -> Node | None:
        """The node behind every head, or ``None`` when heads come from several nodes."""
        if not self._heads:
            return None
        node = self._heads[0][0]
        return node if all(h[0] is node for h in self._heads) else None

    @property
    def name(self) -> str | None:
        """The node name; ``None`` for a group of outputs of different nodes."""
        node = self._single_node()
        return None if node is None else node.name

    def __repr__(self) -> str:
        name = self.name
        if name is None:
            name = "group [" + ", ".join(h[0].name for h in self._heads) + "]"
        return f"<Symbol {name}>"

    __str__ = __repr__

    def debug_str(self) -> str:
        """A text dump of the graph in MXNet's ``debug_str`` layout."""
        lines = ["Symbol Outputs:"]
        for i, (node, idx) in enumerate(self._heads):
            lines.append(f"\toutput[{i}]={node.name}({idx})")
        for node in topo_order(self._heads):
            if node.op is None:
                lines.append(f"Variable:{node.name}")
                continue
            lines += ["-" * 20, f"Op:{node.op.name}, Name={node.name}", "Inputs:"]
            for i, (src, idx) in enumerate(node.inputs):
                tail = " version=0" if src.op is None else ""
                lines.append(f"\targ[{i}]={src.name}({idx}){tail}")
            attrs = _node_attrs(node)
            if attrs:
                lines.append("Attrs:")
                lines += [f"\t{k}={v}" for k, v in attrs.items()]
        return "\n".join(lines) + "\n"

    # -- outputs ---------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._heads)

    def __iter__(self):
        return (Symbol([h]) for h in self._heads)

    def __getitem__(self, index) -> "Symbol":
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if not matches:
                raise ValueError(f'Cannot find output that matches name "{index}"')
            if len(matches) > 1:
                raise ValueError(f'There are multiple outputs with name "{index}"')
            index = matches[0]
        if isinstance(index, slice):
            return Group([Symbol([h]) for h in self._heads[index]])
        if not isinstance(index, numbers.Integral):
            raise TypeError("Symbol only support integer index to fetch i-th output")
        index = int(index)
        if index >= len(self._heads) or index < -len(self._heads):
            raise IndexError(f"output index {index} out of range for {len(self._heads)} "
                             "output(s)")
        return Symbol([self._heads[index]])

    def list_outputs(self) -> list[str]:
        """Output names: ``<node>_<output>`` for operators, the name for variables."""
        out = []
        for node, idx in self._heads:
            out.append(node.name if node.op is None else node.output_names()[idx])
        return out

    def list_arguments(self) -> list[str]:
        """Argument (non-auxiliary variable) names in topological order."""
        return [n.name for n in list_variables(self._heads)[0]]

    def list_auxiliary_states(self) -> list[str]:
        """Auxiliary-state names (BatchNorm's moving statistics) in topological order."""
        return [n.name for n in list_variables(self._heads)[1]]

    def list_inputs(self) -> list[str]:
        """Every variable name (arguments and auxiliary states) in topological order."""
        return [n.name for n in topo_order(self._heads) if n.op is None]

    def _gen_atomic_symbol(self) -> "Symbol":
        """The operator of this symbol's (first) head alone: same operator and
        attributes, no inputs and no name, every output a head (as MXNet's
        ``MXGenAtomicSymbolFromSymbol`` gives it)."""
        node = self._heads[0][0]
        if node.op is None:
            raise MXNetError("_gen_atomic_symbol: the symbol is a variable, not an operator")
        atom = Node(node.op, "", node.attrs)
        return Symbol([(atom, k) for k in range(len(atom.output_names()))])

    def get_internals(self) -> "Symbol":
        """A group of every visible output of every node, in topological order."""
        heads = []
        for node in topo_order(self._heads):
            heads += [(node, i) for i in range(node.num_visible_outputs())]
        return Symbol(heads)

    def get_children(self) -> "Symbol | None":
        """A group of the inputs of the head nodes, or ``None`` for variables."""
        heads, seen = [], set()
        for node, _ in self._heads:
            if id(node) not in seen:  # a node behind several heads counts once
                seen.add(id(node))
                heads += node.inputs
        return Symbol(heads) if heads else None

    # -- attributes ------------------------------------------------------------------
    def attr(self, key: str) -> str | None:
        """The string attribute ``key`` of this (single-node) symbol, or ``None``."""
        node = self._single_node()
        if node is None:
            return None
        return _node_attrs(node).get(user_key(key))

    def list_attr(self, recursive: bool = False) -> dict:
        """The attributes of the first head node (hidden keys listed under both names)."""
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been "
                                     "deprecated. Please use attr_dict instead.")
        if not self._heads:
            return {}
        return _with_plain_keys(_node_attrs(self._heads[0][0]))

    def attr_dict(self) -> dict:
        """``{node name: attributes}`` for every node with attributes."""
        out = {}
        for node in topo_order(self._heads):
            attrs = _node_attrs(node)
            if attrs:
                out[node.name] = _with_plain_keys(attrs)
        return out

    def _set_attr(self, **kwargs: str) -> None:
        """Set string attributes on this symbol's node (operator parameters included)."""
        node = self._single_node()
        if node is None:
            raise MXNetError("Symbol._set_attr only works for non-grouped symbols")
        op_params = {}
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError("Set Attr only accepts string values")
            if node.op is not None and key in node.op.attrs:
                op_params[key] = value
            elif node.op is not None and node.op.attrs and not key.startswith("__") \
                    and key not in HIDDEN_KEYS:
                raise MXNetError(f"Cannot find argument '{key}' of operator "
                                 f"{node.op.name} ({node.name}); possible arguments: "
                                 f"{list(node.op.attrs)}")
            else:
                node.extra[user_key(key)] = value
        if op_params:
            from .register import parse_op_attrs
            given = node.attrs.to_strings()
            given.update(op_params)
            node.attrs = parse_op_attrs(node.op, given)

    # -- composition -----------------------------------------------------------------
    def __call__(self, *args, **kwargs) -> "Symbol":
        """A copy of this graph with variables replaced (by name, or positionally in
        ``list_arguments`` order); ``name=`` renames the head node."""
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, **kwargs) -> None:
        name = kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or "
                            "keyword arguments, not both")
        for value in list(args) + list(kwargs.values()):
            if not isinstance(value, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments")
        variables = [n for n in topo_order(self._heads) if n.op is None]
        if args:
            arg_nodes = list_variables(self._heads)[0]
            if len(args) > len(arg_nodes):
                raise MXNetError(f"compose: {len(args)} positional symbols given but the "
                                 f"graph has {len(arg_nodes)} arguments")
            pairs = list(zip(arg_nodes, args))
        else:
            by_name = {n.name: n for n in variables}
            pairs = []
            for key, value in kwargs.items():
                if key not in by_name:
                    cands = "\n".join(f"\t[{i}]{n.name}" for i, n in enumerate(variables))
                    raise MXNetError(f"Symbol.Compose: keyword argument name {key} not "
                                     f"found.\nCandidate arguments:\n{cands}")
                pairs.append((by_name[key], value))
        replace: dict[int, tuple] = {}
        for node, value in pairs:
            if len(value._heads) != 1:
                raise MXNetError(f"Compose: argument {node.name} is a group of "
                                 f"{len(value._heads)} outputs, a single output is required")
            replace[id(node)] = value._heads[0]
        if replace:
            from .entry_versions import set_inputs
            for node in topo_order(self._heads):
                # the entries kept keep their versions (MXNet's compose), new ones are 0
                set_inputs(node, [replace.get(id(n), (n, i)) if n.op is None else (n, i)
                                  for n, i in node.inputs])
            self._heads = [replace.get(id(n), (n, i)) if n.op is None else (n, i)
                           for n, i in self._heads]
        if name:
            node = self._single_node()
            if node is not None:
                node.name = name

    def __copy__(self) -> "Symbol":
        return Symbol(copy_graph(self._heads))

    def __deepcopy__(self, memo) -> "Symbol":
        return Symbol(copy_graph(self._heads))

    def __getstate__(self) -> dict:
        return {"handle": self.tojson()}

    def __setstate__(self, state: dict) -> None:
        self._heads = load_json(state["handle"])._heads

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    __nonzero__ = __bool__

    # -- inference -------------------------------------------------------------------
    def infer_shape(self, *args, **kwargs):
        """``(arg_shapes, out_shapes, aux_shapes)`` from argument shapes given positionally
        (``list_arguments`` order) or by name; ``(None, None, None)`` when incomplete."""
        from .infer import infer_shape
        return infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        """Like :meth:`infer_shape`, with ``()`` for unknown shapes and 0 for unknown dims
        (``None`` and -1 under NumPy shape semantics, ``mx.np_shape()``)."""
        from .infer import infer_shape
        return infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        """``(arg_types, out_types, aux_types)`` as numpy types; ``(None, None, None)``
        when incomplete."""
        from .infer import infer_type
        return infer_type(self, args, kwargs, partial=False)

    def infer_type_partial(self, *args, **kwargs):
        """Like :meth:`infer_type`, with ``None`` where unknown."""
        from .infer import infer_type
        return infer_type(self, args, kwargs, partial=True)

    # -- serialization and execution (other modules) ---------------------------------
    def tojson(self, remove_amp_cast: bool = True) -> str:
        """The graph in MXNet's JSON format (without the AMP casts that nodes read, when
        ``remove_amp_cast``, as MXNet writes it)."""
        from .json_io import to_json
        return to_json(self, remove_amp_cast)

    def save(self, fname: str, remove_amp_cast: bool = True) -> None:
        """Write :meth:`tojson` to ``fname`` (atomically: a temporary file, renamed)."""
        from .json_io import save
        save(self, fname, remove_amp_cast)

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """An ``Executor`` running this graph with the given arrays (with ``group2ctx``,
        nodes of each ``ctx_group`` run on its device)."""
        extra = {"group2ctx": group2ctx} if group2ctx else {}
        return _executor()[0](self, ctx, args, args_grad, grad_req, aux_states, shared_exec,
                              **extra)

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """An ``Executor`` with arrays allocated from the shapes given in ``kwargs``
        (as in MXNet, only tuple values are shapes: other keywords are ignored)."""
        shapes = {k: v for k, v in kwargs.items() if isinstance(v, tuple)}
        extra = {"group2ctx": group2ctx} if group2ctx else {}
        return _executor()[1](self, ctx, grad_req, type_dict, shared_exec, shapes,
                              stype_dict=stype_dict, **extra)

    def eval(self, ctx=None, **kwargs):
        """Run the graph once on the arrays in ``kwargs``; a list of output NDArrays."""
        if ctx is None:
            from ..context import current_context
            ctx = current_context()
        return self.bind(ctx, kwargs).forward()

    def get_backend_symbol(self, backend: str) -> "Symbol":
        """This graph partitioned for a subgraph ``backend`` (``'MKLDNN'``: MXNet's fused
        oneDNN nodes; ``'MKLDNN_QUANTIZE'``); ``MXNetError`` for other backends."""
        from .onednn_backend import get_backend_symbol
        return get_backend_symbol(self, backend)

    def optimize_for(self, backend: str, args=None, aux=None, ctx=None, shape_dict=None,
                     type_dict=None, stype_dict=None, skip_infer: bool = False,
                     **kwargs) -> "Symbol":
        """A new symbol partitioned for ``backend`` (MXNet 1.9); with ``args``/``aux``
        (dicts of NDArrays, or ``shape_dict``/``type_dict`` for missing arguments) shapes
        and dtypes are inferred first and the backend fuses only what it supports.
        Arguments the partition removes are popped from ``args``/``aux``."""
        from .onednn_backend import optimize_for
        return optimize_for(self, backend, args, aux, ctx, shape_dict, type_dict,
                            stype_dict, skip_infer, **kwargs)

    def gradient(self, wrt):
        """Not supported (as in MXNet 1.x)."""
        raise NotImplementedForSymbol(self.gradient, None)

    def as_nd_ndarray(self) -> "Symbol":
        """This symbol (legacy symbols are already ``nd``-style)."""
        return self

    def as_np_ndarray(self):
        """The same graph as an ``mx.np`` symbol (NumPy operators and methods)."""
        from .numpy._symbol import _Symbol
        return _Symbol(self._heads)


def _ndarray_only(name: str):
    def method(self, *args, **kwargs):
        raise NotImplementedForSymbol(getattr(self, name), None)
    method.__name__ = name
    method.__doc__ = "Only available on NDArray."
    return method


for _m in ("asnumpy", "asscalar", "copy", "as_in_context", "detach", "backward",
           "wait_to_read"):
    setattr(Symbol, _m, _ndarray_only(_m))


def Group(symbols: list) -> Symbol:
    """One symbol whose outputs are all outputs of ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([h for s in symbols for h in s._heads])


def load_json(json_str: str) -> Symbol:
    """A symbol from MXNet JSON text."""
    from .json_io import from_json
    return from_json(json_str)


def load(fname: str) -> Symbol:
    """A symbol from an MXNet ``-symbol.json`` file (``MXNetError`` for a file that
    cannot be read, is not UTF-8 or is not a symbol)."""
    from .json_io import load as _load
    return _load(fname)
