"""``mx.executor``: the ``Executor`` behind ``Symbol.bind``/``simple_bind``, a thin
adapter over a :class:`~gluonlite.engine.CachedOp`.

The executor owns its argument, gradient and auxiliary-state arrays (or shares the
ones it was given) and persistent output arrays.  ``forward`` runs the CachedOp's
lower-level ``forward`` on those arrays and copies the heads into ``outputs``;
``backward`` runs the kept backward state and writes or adds the gradients into
``grad_arrays`` per ``grad_req``.

It is a front end (beside ``SymbolBlock``), above the graphs layer: when it loads it
lends ``Symbol`` its ``bind``/``simple_bind`` (:func:`gluonlite.symbol.symbol.use_executor`)
and is also importable as ``mx.symbol.executor``, where MXNet code may look for it.
"""
from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from . import symbol as _symbol_package
from .symbol import cse as _cse
from .symbol.creation import declared_stype
from .backend import array_module
from .base import MXNetError
from .engine.cached_op import CachedOp
from .engine.grad_check import check_fgradient
from .engine.graph_info import GraphInfo
from .engine.plan import infer_entries
from .ndarray.ndarray import NDArray
from .ndarray.sparse_creation import zeros as sparse_zeros
from .executor_sparse import sparse_outputs, wants_sparse_outputs
from .symbol.symbol import use_executor

__all__ = ["Executor", "simple_bind"]

_REQS = ("write", "add", "null")


def _as_list(name: str, values, names: list, allow_none: bool = False) -> list:
    """Arrays given as a list (``names`` order) or a dict, as a list in ``names`` order."""
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        out = []
        for n in names:
            if n not in values:
                if allow_none:
                    out.append(None)
                    continue
                raise ValueError(f"key `{n}` is missing in `{name}`")
            out.append(values[n])
        return out
    values = list(values)
    if len(values) != len(names):
        raise ValueError(f"Length of {name} does not match the number of arguments")
    return values


def _grad_reqs(grad_req, arg_names: list) -> list:
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(arg_names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(n, "null") for n in arg_names]
    else:
        reqs = list(grad_req)
        if len(reqs) != len(arg_names):
            raise ValueError("Length of grad_req does not match the number of arguments")
    for r in reqs:
        if r not in _REQS:
            raise MXNetError(f"bind: invalid grad_req '{r}'; expected one of {list(_REQS)}")
    return reqs


def _check_contexts(ctx, names, args, grads) -> None:
    """As MXNet: arguments and gradient arrays must live on the bind context."""
    for what, arrays in (("Input", args), ("Gradient", grads)):
        for n, a in zip(names, arrays):
            if a is not None and getattr(a, "_ctx", ctx) != ctx:
                raise MXNetError(f"bind: {what} array '{n}' is in {a._ctx} while binding "
                                 f"with ctx={ctx}. All arrays must be in the bind context")


def _shared_output(new, old):
    """``new`` (a fresh output array), or a view of the same shape over the start of
    ``old``'s memory when it fits there (dense arrays of one dtype)."""
    if new is None or old is None or new.stype != "default" or old.stype != "default" \
            or new._data.dtype != old._data.dtype or new.size > old.size:
        return new
    return old._view(old._data.reshape(-1)[:new.size].reshape(new.shape))


class Executor:
    """A bound graph (MXNet's ``mx.executor.Executor``).

    Parameters
    ----------
    symbol : Symbol
    ctx : Context
    args : list or dict of NDArray
        Argument arrays (``list_arguments`` order when a list).
    args_grad : list or dict of NDArray, optional
        Gradient arrays; ``None`` means no gradients.
    grad_req : str, list or dict
        ``'write'``, ``'add'`` or ``'null'`` (per argument when a list or dict).
    aux_states : list or dict of NDArray, optional
    shared_exec : Executor, optional
        Accepted for MXNet compatibility (memory is not pooled across executors).
    group2ctx : dict of str to Context, optional
        Model parallelism: nodes made under ``AttrScope(ctx_group=g)`` run on
        ``group2ctx[g]`` (the others on ``ctx``); the arrays may then live on any device
        (MXNet checks the bind context only without ``group2ctx``).
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None,
                 shared_exec=None, group2ctx=None):
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = dict(group2ctx) if group2ctx else None
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self._out_names = symbol.list_outputs()
        self.arg_arrays = _as_list("args", args, self._arg_names)
        for n, a in zip(self._arg_names, self.arg_arrays):
            if not isinstance(a, NDArray):
                raise MXNetError(f"bind: argument '{n}' must be an NDArray, got "
                                 f"{type(a).__name__}")
        self._grads_given = args_grad is not None
        self._grads = _as_list("args_grad", args_grad, self._arg_names, allow_none=True)
        if not self._group2ctx:
            _check_contexts(ctx, self._arg_names, self.arg_arrays, self._grads)
        reqs = _grad_reqs(grad_req, self._arg_names)
        self._grad_req = [r if g is not None else "null" for r, g in zip(reqs, self._grads)]
        if self._aux_names and aux_states is None:
            raise MXNetError(f"bind: aux_states must be given for {self._aux_names}")
        self.aux_arrays = _as_list("aux_states", aux_states, self._aux_names)
        # the graph run: common subexpressions eliminated, as MXNet's executor does
        # (MXNET_ELIMINATE_COMMON_EXPR=0 keeps the symbol as given)
        self._run_symbol = symbol
        if _cse.enabled():
            self._run_symbol = _symbol_package.Symbol(_cse.eliminate_common_expr(symbol._heads))
        flags = () if not self._group2ctx else [("group2ctx", self._group2ctx),
                                                ("group_default_ctx", ctx)]
        self._cached_op = CachedOp(self._run_symbol, flags)
        # the numbered graph (the one the CachedOp builds from the same heads): input
        # order and auxiliary inputs, output inference, debug_str
        self._graph = GraphInfo(self._run_symbol._heads)
        # where each CachedOp input comes from
        arg_pos = {n: i for i, n in enumerate(self._arg_names)}
        aux_pos = {n: i for i, n in enumerate(self._aux_names)}
        self._sources = []
        aux_inputs = self._graph.aux_inputs
        for i, name in enumerate(self._cached_op.list_inputs()):
            if i in aux_inputs:
                self._sources.append(("aux", aux_pos[name]))
            else:
                self._sources.append(("arg", arg_pos[name]))
        self._need_grad = tuple(kind == "arg" and self._grad_req[j] != "null"
                                for kind, j in self._sources)
        if any(self._need_grad):
            check_fgradient(self._graph)  # as MXNet, when it builds the gradient graph
        self._state = None
        self._monitor: Callable | None = None
        self.outputs = self._alloc_outputs()
        # sparse arguments: outputs get the storage types MXNet infers (executor_sparse)
        self._sparse_outputs = wants_sparse_outputs(self._graph, self._inputs())

    # -- arrays -----------------------------------------------------------------------
    def _inputs(self) -> list:
        return [self.arg_arrays[j] if kind == "arg" else self.aux_arrays[j]
                for kind, j in self._sources]

    def _alloc_outputs(self) -> list:
        inputs = self._inputs()
        info = self._graph
        shapes, dtypes = infer_entries(info, [x.shape for x in inputs],
                                       [x._data.dtype for x in inputs])
        xp = self._ctx.xp
        outs = []
        for h in info.heads:
            shape, dt = shapes[h], dtypes[h]
            outs.append(None if shape is None else
                        NDArray(xp.zeros(shape, dtype=dt or np.float32), self._ctx))
        return outs

    @property
    def arg_dict(self) -> dict:
        """Argument arrays by name."""
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_arrays(self) -> list | None:
        """Gradient arrays in ``list_arguments`` order (``None`` entries where
        ``grad_req`` is ``'null'``); ``None`` when bound without ``args_grad``, as in MXNet."""
        return self._grads if self._grads_given else None

    @property
    def grad_dict(self) -> dict:
        """Gradient arrays by argument name (``None`` where ``grad_req`` is ``'null'``)."""
        return dict(zip(self._arg_names, self._grads))

    @property
    def aux_dict(self) -> dict:
        """Auxiliary-state arrays by name."""
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self) -> dict:
        """Output arrays by ``list_outputs`` name."""
        return dict(zip(self._out_names, self.outputs))

    # -- running --------------------------------------------------------------------------
    def forward(self, is_train: bool = False, **kwargs) -> list:
        """Run the graph; ``kwargs`` are copied into the argument arrays first.

        Returns ``outputs``.
        """
        arg_dict = None
        for name, value in kwargs.items():
            if arg_dict is None:
                arg_dict = self.arg_dict
            if name not in arg_dict:
                raise TypeError(f"Unknown argument {name}")
            dst = arg_dict[name]
            src = getattr(value, "_data", value)
            shape = tuple(np.shape(src))
            if shape != dst.shape:
                raise ValueError(f"Shape not match! Argument {name}, need: {dst.shape}, "
                                 f"received: {shape}")
            dst[:] = value
        # as in MXNet, an executor bound with gradients can run backward after any
        # forward (a predict-mode forward gives predict-mode gradients)
        heads, state = self._cached_op.forward(self._inputs(), bool(is_train), self._need_grad)
        self._state = state
        if self._sparse_outputs:
            heads = sparse_outputs(self._graph, self._inputs(), bool(is_train)) or heads
        for k, h in enumerate(heads):
            out = self.outputs[k]
            if out is None or out.shape != h.shape or out._data.dtype != h._data.dtype \
                    or out.stype != h.stype:
                self.outputs[k] = h
            else:
                out._data[...] = h._data
                out._bump()
        return self.outputs

    def backward(self, out_grads=None, is_train: bool = True) -> None:
        """Write (or add) the gradients of the last forward into ``grad_arrays``.

        ``out_grads`` gives one head gradient per output (ones where omitted; loss
        layers such as ``SoftmaxOutput`` ignore it).
        """
        if not any(self._need_grad):
            return
        if self._state is None:
            # MXNet runs backward on whatever its forward buffers hold; every array a
            # backward reads comes from the bound arguments, so a training forward of
            # them (outputs left as they are) gives the same gradients
            _, self._state = self._cached_op.forward(self._inputs(), True, self._need_grad)
        if out_grads is None:
            out_grads = [None] * len(self.outputs)
        elif isinstance(out_grads, NDArray) or not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        used = self._state.heads_read()
        heads = []
        for k, out in enumerate(self.outputs):
            g = out_grads[k] if k < len(out_grads) else None
            if not used[k]:
                # as MXNet, a head gradient nothing reads (the output of a loss layer,
                # of shape_array, of argsort's indices) is neither needed nor checked
                heads.append(None)
            elif g is None:
                heads.append(self._ctx.xp.ones(out.shape, dtype=out._data.dtype))
            else:
                if isinstance(g, NDArray) and g._ctx != self._ctx:
                    g = g.as_in_context(self._ctx)  # MXNet copies head gradients over
                g = getattr(g, "_data", g)
                if tuple(g.shape) != out.shape:
                    raise MXNetError(f"Executor.backward: head gradient {k} has shape "
                                     f"{tuple(g.shape)}, output has shape {out.shape}")
                if g.dtype != out._data.dtype:
                    # MXNet copies the head gradient into an array of the output's
                    # dtype (float to int truncates)
                    g = g.astype(out._data.dtype)
                heads.append(g)
        grads = self._cached_op.backward(self._state, heads)
        for i, (kind, j) in enumerate(self._sources):
            if kind != "arg":
                continue
            req = self._grad_req[j]
            if req == "null":
                continue
            target = self._grads[j]
            g = grads[i]
            if target.stype != "default":
                # a sparse gradient buffer: cast into its storage (its ``_data`` is a view)
                if g is None:
                    if req != "add":
                        target._assign_raw(array_module(target._data).zeros(
                            target.shape, target._data.dtype))
                else:
                    target._assign_raw(g, add=req == "add")
            elif req == "add":
                if g is not None:
                    target._data += g
            elif g is None:
                target._data[...] = 0
            else:
                target._data[...] = g
            target._bump()

    def set_monitor_callback(self, callback: Callable, monitor_all: bool = False) -> None:
        """Call ``callback(name, NDArray)`` for every node output (``<node>_output``) on each
        forward; with ``monitor_all`` also for every node input."""
        self._monitor = callback
        self._cached_op.set_monitor_callback(callback, monitor_all)

    # -- reshaping and parameters ---------------------------------------------------------
    def reshape(self, partial_shaping: bool = False, allow_up_sizing: bool = False,
                **kwargs) -> "Executor":
        """A new executor for new input shapes, sharing the arrays whose shape is unchanged.

        A changed array that was not named in ``kwargs`` needs ``partial_shaping``; an
        array that grows needs ``allow_up_sizing``.
        """
        kwargs = {k: v for k, v in kwargs.items() if isinstance(v, tuple)}  # as MXNet
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError(f"Executor.reshape: cannot infer all shapes from {kwargs}")
        new_args = [self._resized(n, a, s, kwargs, partial_shaping, allow_up_sizing)
                    for n, a, s in zip(self._arg_names, self.arg_arrays, arg_shapes)]
        new_grads = [None if g is None else
                     self._resized(n, g, s, kwargs, True, allow_up_sizing)
                     for n, g, s in zip(self._arg_names, self._grads, arg_shapes)]
        new_aux = [self._resized(n, a, s, kwargs, partial_shaping, allow_up_sizing)
                   for n, a, s in zip(self._aux_names, self.aux_arrays, aux_shapes)]
        exe = Executor(self._symbol, self._ctx, new_args,
                       new_grads if self._grads_given else None, self._grad_req, new_aux,
                       group2ctx=self._group2ctx)
        # outputs that fit share the old outputs' memory, as MXNet's do
        exe.outputs = [_shared_output(new, old) for new, old in zip(exe.outputs, self.outputs)]
        if self._monitor is not None:
            exe.set_monitor_callback(self._monitor)
        return exe

    def _resized(self, name, arr, shape, kwargs, partial_shaping, allow_up_sizing):
        shape = tuple(shape)
        if arr.shape == shape:
            return arr
        if name not in kwargs and not partial_shaping:
            raise MXNetError(f"Executor.reshape: shape of unspecified array '{name}' changed "
                             f"from {arr.shape} to {shape}; set partial_shaping=True if "
                             "this is intended")
        size = int(np.prod(shape))
        if size > arr.size:
            if not allow_up_sizing:
                raise MXNetError(f"Executor.reshape: new shape {shape} of '{name}' is larger "
                                 f"than the original {arr.shape}; set allow_up_sizing=True "
                                 "to allocate new arrays")
            return NDArray(self._ctx.xp.zeros(shape, dtype=arr._data.dtype), self._ctx)
        # smaller: a view over the start of the old array's memory, as MXNet does
        return arr._view(arr._data.reshape(-1)[:size].reshape(shape))

    def copy_params_from(self, arg_params: dict, aux_params: dict | None = None,
                         allow_extra_params: bool = False) -> None:
        """Copy parameter values into the argument and auxiliary arrays (cast to their dtype)."""
        for names, arrays, params, what in (
                (self._arg_names, self.arg_arrays, arg_params, "arguments"),
                (self._aux_names, self.aux_arrays, aux_params or {}, "auxiliary states")):
            index = {n: i for i, n in enumerate(names)}
            for name, value in params.items():
                if name not in index:
                    if allow_extra_params:
                        continue
                    raise ValueError(f'Find name "{name}" that is not in the {what}')
                dst = arrays[index[name]]
                src = getattr(value, "_data", value)
                if tuple(src.shape) != dst.shape:
                    raise MXNetError(f"copy_params_from: '{name}' has shape "
                                     f"{tuple(src.shape)}, expected {dst.shape}")
                dst[:] = value
        return None

    def get_optimized_symbol(self):
        """The symbol this executor runs (common subexpressions eliminated)."""
        return self._run_symbol

    def debug_str(self) -> str:
        """A text description of the graph and its memory plan."""
        info = self._graph
        lines = ["Symbol Outputs:"]
        for k, h in enumerate(info.heads):
            lines.append(f"\toutput[{k}]={info.slot_names[h]}")
        slot_owner = {}
        for i, name in enumerate(info.input_names):
            slot_owner[i] = f"{name}(0)"
        for u in info.units:
            for k, s in enumerate(u.outs):
                slot_owner[s] = f"{u.name}({k})"
        shown = set()
        for u in info.units:
            for s in u.ins:
                if s < info.n_inputs and s not in shown:
                    shown.add(s)
                    lines.append(f"Variable:{info.input_names[s]}")
            lines.append("--------------------")
            lines.append(f"Op:{u.op.name}, Name={u.name}")
            lines.append("Inputs:")
            for k, s in enumerate(u.ins):
                lines.append(f"\targ[{k}]={slot_owner[s]}")
            given = u.attrs.to_strings() if u.attrs is not None else {}
            if given:
                lines.append("Attrs:")
                for key, value in given.items():
                    lines.append(f"\t{key}={value}")
        # the memory of a training call as bound: planned buffers plus what is kept for
        # backward (MXNet reports its executor's whole allocation)
        plan = self._cached_op.plan_for(self._inputs(), True, self._need_grad)
        # whole megabytes, as MXNet prints them
        mb = (plan.planned_bytes + plan.saved_bytes) >> 20
        lines.append(f"Total {mb} MB allocated")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<Executor {self._out_names} @{self._ctx}>"


def _storage_types(symbol, arg_names, stype_dict) -> tuple:
    """Storage types of the arguments (declared by ``Variable(stype=...)`` or
    ``stype_dict``) and of their gradients (MXNet's backward inference through the
    operators' ``grad_stypes``: row_sparse where every consumer says so)."""
    attrs = symbol.attr_dict()
    stypes = {n: declared_stype(attrs.get(n, {})) for n in arg_names}
    stypes.update(stype_dict or {})
    info = GraphInfo(symbol._heads)
    names, n_in = info.input_names, info.n_inputs
    votes: dict = {}
    for u in info.units:
        rule = getattr(u.op, "grad_stypes", None)
        in_stypes = [stypes.get(names[s], "default") if s < n_in else "default"
                     for s in u.ins]
        decided = rule(u.attrs, in_stypes) if rule is not None else None
        for k, s in enumerate(u.ins):
            if s < n_in:
                votes.setdefault(names[s], set()).add(decided[k] if decided else "default")
    grads = {n: v.pop() if len(v) == 1 else "default" for n, v in votes.items()}
    return stypes, grads


def simple_bind(symbol, ctx, grad_req="write", type_dict=None, shared_exec=None,
                shapes: dict | None = None, stype_dict: dict | None = None,
                group2ctx: dict | None = None) -> Executor:
    """Infer every shape and dtype from ``shapes``/``type_dict`` and bind zero arrays.

    With ``group2ctx``, an argument or auxiliary state made under
    ``AttrScope(ctx_group=g)`` is allocated on ``group2ctx[g]`` (as MXNet does).

    Arguments get their declared storage types, gradients the ones the operators
    infer (``Embedding(sparse_grad=True)``: row_sparse).  With ``shared_exec``, arrays
    of arguments not named in ``shapes`` (parameters) and auxiliary states are shared
    when name, shape and dtype match.
    """
    shapes = dict(shapes or {})
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if arg_shapes is None:
        raise MXNetError(f"simple_bind: cannot infer the shapes of all arguments from "
                         f"{shapes}")
    arg_names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    # MXNet: without ``type_dict`` every argument that declares no ``__dtype__`` starts
    # as float32 (a declared ``Variable(dtype=...)`` keeps its type); with ``type_dict``
    # only its entries are given; then the types are inferred
    if type_dict is None:
        attrs = symbol.attr_dict()
        types = {name: np.float32 for name in arg_names
                 if "__dtype__" not in attrs.get(name, {})}
    else:
        types = dict(type_dict)
    arg_types, _, aux_types = symbol.infer_type_partial(**types)
    arg_types = [t or np.float32 for t in (arg_types or [None] * len(arg_names))]
    aux_types = [t or np.float32 for t in (aux_types or [None] * len(aux_names))]
    reqs = _grad_reqs(grad_req, arg_names)
    xp = ctx.xp
    shared_args = shared_exec.arg_dict if shared_exec is not None else {}
    shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
    shared_aux = shared_exec.aux_dict if shared_exec is not None else {}

    arg_stypes, grad_stypes = _storage_types(symbol, arg_names, stype_dict)
    groups = symbol.attr_dict() if group2ctx else {}

    def device(name):
        return group2ctx.get(groups.get(name, {}).get("__ctx_group__"), ctx) if groups \
            else ctx

    def make(name, shape, dt, shared=None, stype="default"):
        dt = np.dtype(dt or np.float32)
        where = device(name)
        if shared is not None and shared.shape == tuple(shape) and shared._data.dtype == dt \
                and shared.stype == stype and shared._ctx == where:
            return shared
        if stype != "default":
            return sparse_zeros(stype, tuple(shape), ctx=where, dtype=dt)
        return NDArray((xp if where == ctx else where.xp).zeros(tuple(shape), dtype=dt),
                       where)

    args, grads = [], []
    for name, shape, dt, req in zip(arg_names, arg_shapes, arg_types, reqs):
        share = name not in shapes
        args.append(make(name, shape, dt, shared_args.get(name) if share else None,
                         arg_stypes.get(name, "default")))
        grads.append(None if req == "null" else
                     make(name, shape, dt, shared_grads.get(name) if share else None,
                          grad_stypes.get(name, "default")))
    aux = [make(name, shape, dt, shared_aux.get(name))
           for name, shape, dt in zip(aux_names, aux_shapes, aux_types)]
    return Executor(symbol, ctx, args, grads, reqs, aux, shared_exec, group2ctx=group2ctx)


# Symbol.bind/simple_bind run this front end; the graphs layer does not import it
use_executor(Executor, simple_bind)
# ``mx.symbol.executor`` (``import mxnet.symbol.executor``) names this module
sys.modules.setdefault(_symbol_package.__name__ + ".executor", sys.modules[__name__])
_symbol_package.executor = sys.modules[__name__]
