"""Gluon's ``HybridBlock`` (MXNet 1.9): a Block that runs imperatively or as one graph.

``hybrid_forward(F, x, *args, **params)`` is written once against ``F``:

- called with NDArrays and not hybridized, it runs with ``F = nd`` and ``params``
  holding each registered parameter's value (keyword = the attribute name the
  parameter was assigned to, e.g. ``weight``);
- called with Symbols, it runs with ``F = sym`` and parameter variables, and returns
  Symbols (this is how a hybridized parent traces its children);
- after ``hybridize()``, the first call traces it with ``F = sym`` on input variables
  ``data`` (or ``data0``, ``data1``, ... for several inputs) and compiles the graph
  into one :class:`~gluonlite.engine.CachedOp`; later calls only run the CachedOp.

Deferred initialization (parameters with unknown dimensions) completes at the first
forward: the graph is traced, shape inference fills the parameters' shapes, and
``Parameter._finish_deferred_init`` allocates them.
"""
from __future__ import annotations

import warnings

from ..base import MXNetError
from ..util import is_np_array
from .block import Block, _check_same_output_types
from .parameter import DeferredInitializationError, _AssertionError, _ValueError

__all__ = ["HybridBlock"]


def _nd_mod():
    from .. import ndarray
    return ndarray


def _sym_mod():
    from .. import symbol
    return symbol


def _flatten(args, inout_str: str):
    """Flatten nested lists of NDArray/Symbol/None into a list and a format that
    :func:`_regroup` inverts (0: one array, n>1: a Symbol with n outputs, -1: None)."""
    nd, sym = _nd_mod(), _sym_mod()
    if isinstance(args, nd.NDArray):
        return [args], 0
    if isinstance(args, sym.Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise _ValueError(f"When hybridized, the input of HybridBlock {inout_str} must be "
                          f"(nested) list of Symbol or NDArray, but got {args} of type "
                          f"{type(args)}")
    flat, fmts = [], []
    for item in args:
        arg, fmt = _flatten(item, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    """Inverse of :func:`_flatten`: ``(nested structure, remaining args)``."""
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        if fmt == -1:
            if args[0] is not None:
                raise _ValueError(
                    f"We do not support passing types that are not None when the initial "
                    f"HybridBlock has received NoneType and has been hybridized. Received "
                    f"arg = {args[0]}, fmt = {fmt}")
            return None, args[1:]
        return args[:fmt], args[fmt:]
    if not isinstance(args, (list, tuple)):
        raise _AssertionError(f"HybridBlock output must be (nested) list of Symbol or "
                              f"NDArray, but got {args} of type {type(args)}")
    ret = []
    for item in fmt:
        res, args = _regroup(args, item)
        ret.append(res)
    return ret, args


def _format_matches(fmt, stored) -> bool:
    """Whether a call's input format fits the cached one (trailing ``None`` defaults
    may be left out on either side)."""
    if fmt == stored:
        return True
    if not isinstance(fmt, list) or not isinstance(stored, list):
        return False
    if len(stored) > len(fmt):
        return all(s == -1 for s in stored[len(fmt):]) and fmt == stored[:len(fmt)]
    if len(stored) < len(fmt):
        return all(f == -1 for f in fmt[len(stored):]) and fmt[:len(stored)] == stored
    return False


class HybridBlock(Block):
    """A Block whose computation ``hybrid_forward(F, x, ...)`` can run as a graph.

    Parameters
    ----------
    prefix, params
        As for :class:`~gluonlite.gluon.Block`.
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts = {}
        self._fast_n = 0
        self._fast_single = False

    def __setattr__(self, name: str, value) -> None:
        """Registering a HybridBlock child invalidates the cached graph."""
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block: Block, name: str | None = None) -> None:
        """Register a child; only HybridBlocks may be children of a HybridBlock."""
        if not isinstance(block, HybridBlock):
            raise _ValueError(
                f"Children of HybridBlock must also be HybridBlock, but {block} has type "
                f"{type(block)}. If you are using Sequential, please try HybridSequential "
                f"instead.")
        super().register_child(block, name)
        self._clear_cached_op()

    def _clear_cached_op(self) -> None:
        self._cached_graph = ()
        self._cached_op = None
        self._fast_n = 0

    # -- tracing --------------------------------------------------------------------------
    def _get_graph(self, *args):
        """``(input variables, output symbol)``: ``hybrid_forward`` traced with
        ``F = sym`` (once; cleared by :meth:`hybridize`)."""
        if not self._cached_graph:
            sym = _sym_mod()
            np_mode = is_np_array()
            flat_args, self._in_format = _flatten(args, "input")
            real = sum(a is not None for a in flat_args)
            if real == 0:
                raise _ValueError(f"All args are None and we do not support such a case. "
                                  f"Received args={args}")
            flat_inputs, data_vars = [], []
            for arg in flat_args:
                if arg is None:
                    flat_inputs.append(None)
                    continue
                var = sym.var(f"data{len(data_vars)}" if real > 1 else "data")
                flat_inputs.append(var.as_np_ndarray() if np_mode else var)
                data_vars.append(var)
            grouped = _regroup(flat_inputs, self._in_format)[0]
            params = {k: p.var() for k, p in self._reg_params.items()}
            if np_mode:  # npx.set_np(): hybrid_forward sees mx.np symbols
                params = {k: v.as_np_ndarray() for k, v in params.items()}
            with self.name_scope():
                out = self.hybrid_forward(sym, *grouped, **params)
            _check_same_output_types(out)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = data_vars, sym.Group([o.as_nd_ndarray() for o in out])
        return self._cached_graph

    def _build_cache(self, *args) -> None:
        """Compile the traced graph into a CachedOp and map its inputs."""
        from ..engine import CachedOp
        data_vars, out = self._get_graph(*args)
        data_names = {v.name: i for i, v in enumerate(data_vars)}
        params = self.collect_params()
        if self._backend:
            out = self._partition(data_vars, out, params, args)
        op = CachedOp(out, self._flags)
        input_names = op.list_inputs()
        expected = set(input_names)
        for name in expected:
            if name not in params._params and name not in data_names:
                raise _AssertionError(f"Unknown input to HybridBlock: {name}")
        unused = [f"{i}-th" for name, i in data_names.items() if name not in expected]
        if unused:
            warnings.warn(f"The {', '.join(unused)} input to HybridBlock is not used by any "
                          f"computation. Is this intended?", stacklevel=4)
        unused_params = [n for n in params.keys() if n not in expected]
        if unused_params:
            warnings.warn(f"Parameter {', '.join(unused_params)} is not used by any "
                          f"computation. Is this intended?", stacklevel=4)
        data_indices, param_indices, cargs = [], [], []
        for i, name in enumerate(input_names):
            if name in data_names:
                data_indices.append(i)
                cargs.append((True, data_names[name]))
            else:
                param_indices.append(i)
                cargs.append((False, params[name]))
        op.data_indices, op.param_indices = data_indices, param_indices
        self._cached_op_args = cargs
        # the fast path serves calls whose inputs are exactly the flat list of arrays
        fmt = self._in_format
        plain = isinstance(fmt, list) and all(f == 0 for f in fmt)
        self._fast_n = len(fmt) if plain else 0
        self._fast_single = plain and self._out_format == 0
        if self._callback is not None:
            op.set_monitor_callback(_op_hook(self._callback, out), self._monitor_all)
        self._cached_op = op

    def _partition(self, data_vars, out, params, args):
        """The traced graph partitioned for ``self._backend`` (MXNet 1.9's ``_build_cache``:
        parameters initialized first, shapes and dtypes from the arrays); it becomes the
        cached graph, which ``export`` writes."""
        flat = [a for a in _flatten(args, "input")[0] if a is not None]
        names = set(out.list_inputs())
        try:
            for name in names:
                if name in params._params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            for name in names:
                if name in params._params:
                    params[name]._finish_deferred_init()
        nd, data = _nd_mod(), {v.name: i for i, v in enumerate(data_vars)}
        ctxs = {a.context for a in flat if isinstance(a, nd.NDArray)}
        ctx = ctxs.pop() if ctxs else None
        shapes, dicts = {}, ({}, {})
        for kind, listed in enumerate((out.list_arguments(), out.list_auxiliary_states())):
            for name in listed:
                if name in data and data[name] < len(flat):
                    value = flat[data[name]]
                    if isinstance(value, nd.NDArray):
                        dicts[kind][name] = value
                    elif "__shape__" in value.list_attr():
                        shape = value.list_attr()["__shape__"]
                        shapes[name] = tuple(int(d) for d in shape.strip("()").split(",")
                                             if d.strip())
                elif name in params._params:
                    dicts[kind][name] = params[name].data()
        out = out.optimize_for(self._backend, dicts[0], dicts[1], ctx, shapes,
                               **self._backend_opts)
        self._cached_graph = data_vars, out
        return out

    def _deferred_infer_shape(self, *args) -> None:
        try:
            self.infer_shape(*args)
        except Exception as e:  # MXNet reports every failure this way
            raise _ValueError(f"Deferred initialization failed because shape cannot be "
                              f"inferred. {e}") from e

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format and not _format_matches(fmt, self._in_format):
            # MXNet prints the two formats under each other's label; kept for fidelity
            raise _ValueError(f"The argument structure of HybridBlock does not match the "
                              f"cached version. Stored format = {fmt}, input format = "
                              f"{self._in_format}")
        datas = [a for a in flat if a is not None]
        try:
            cargs = [datas[i] if is_arg else i.data() for is_arg, i in self._cached_op_args]
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            cargs = []
            for is_arg, i in self._cached_op_args:
                if is_arg:
                    cargs.append(datas[i])
                else:
                    i._finish_deferred_init()
                    cargs.append(i.data())
        out = self._cached_op(*cargs)
        if isinstance(out, _nd_mod().NDArray):
            out = [out]
        return _regroup(out, self._out_format)[0]

    # -- public API -----------------------------------------------------------------------
    def hybridize(self, active: bool = True, backend=None, clear: bool = True,
                  static_alloc: bool = False, static_shape: bool = False,
                  inline_limit: int = 2, forward_bulk_size=None, backward_bulk_size=None,
                  **kwargs) -> None:
        """Run this Block (and its children) as one compiled graph from the next call.

        Parameters
        ----------
        active : bool
            Hybridize (``True``) or go back to imperative execution.
        static_alloc, static_shape : bool
            CachedOp flags: keep planned buffers across calls / assume fixed shapes.
        clear : bool
            Drop the traced graph so the next call traces again (default).
        backend : str, optional
            Subgraph backend (``'MKLDNN'``: MXNet's fused oneDNN nodes; see
            :meth:`optimize_for`); the graph is partitioned when it is compiled (first call).
            Children are hybridized without it, as in MXNet.
        inline_limit : int
            While autograd records, a graph of at most this many operators (without
            ``static_alloc``) is recorded operator by operator (``autograd.get_symbol``
            shows them) rather than as one ``_CachedOp`` call.
        """
        if backend is not None:
            _check_backend(backend, "hybridize")
        if kwargs and backend is not None:  # MXNet 1.9: the backend's options
            self._backend_opts = kwargs
            kwargs = {}
        self._backend = backend
        self._active = active
        flags = [("static_alloc", static_alloc), ("static_shape", static_shape),
                 ("inline_limit", inline_limit)]
        if forward_bulk_size is not None:
            flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            flags.append(("backward_bulk_size", backward_bulk_size))
        self._flags = flags + list(kwargs.items())
        if clear:
            self._clear_cached_op()
        # (MXNet's condition: pre-hooks warn even with active=False)
        if (active and self._forward_hooks) or self._forward_pre_hooks:
            warnings.warn(f'"{self}" is being hybridized while still having forward '
                          f'hook/pre-hook. If "{self}" is a child of HybridBlock, the hooks '
                          f'will not take effect.')
        for child in self._children.values():
            child.hybridize(active, clear=clear, static_alloc=static_alloc,
                            static_shape=static_shape, inline_limit=inline_limit,
                            forward_bulk_size=forward_bulk_size,
                            backward_bulk_size=backward_bulk_size, **kwargs)

    def optimize_for(self, x, *args, backend=None, clear: bool = False,
                     static_alloc: bool = False, static_shape: bool = False,
                     inline_limit: int = 2, forward_bulk_size=None, backward_bulk_size=None,
                     **kwargs) -> None:
        """Partition this block's graph for a subgraph ``backend`` now, without running it
        (MXNet 1.9): afterwards the block runs and ``export`` writes the partitioned graph.

        Parameters
        ----------
        x, *args : NDArray
            Inputs, which give the shapes and dtypes (parameters are initialized).
        backend : str
            ``'MKLDNN'`` (MXNet's fused oneDNN nodes: ``_sg_mkldnn_conv``, ...) or
            ``'MKLDNN_QUANTIZE'``; other backends raise ``MXNetError``.
        clear, static_alloc, static_shape, inline_limit, forward_bulk_size, backward_bulk_size
            As for :meth:`hybridize`.
        **kwargs
            Backend options.
        """
        if kwargs:
            self._backend_opts = kwargs
        if not backend:
            raise _ValueError('Must specify "backend" to optimize_for')
        self.hybridize(True, backend, clear, static_alloc, static_shape, inline_limit,
                       forward_bulk_size, backward_bulk_size)
        nd, sym = _nd_mod(), _sym_mod()
        items = list(_flat_any([x, *args]))
        if not any(isinstance(a, (nd.NDArray, sym.Symbol)) for a in items):
            raise _ValueError("In HybridBlock, there must be one NDArray or one Symbol in the "
                              "input. Please check the type of the args.\n")
        ctxs = {a.context for a in items if isinstance(a, nd.NDArray)}
        if len(ctxs) > 1:
            raise _ValueError(f"Found multiple contexts in the input, After hybridized, the "
                              f"HybridBlock only supports one input context. You can print "
                              f"the ele.ctx in the input arguments to inspect their contexts. "
                              f"Find all contexts = {ctxs}")
        self._build_cache(x, *args)

    def cast(self, dtype) -> None:
        """Cast parameters to ``dtype`` (the cached graph is rebuilt)."""
        self._clear_cached_op()
        super().cast(dtype)

    def _infer_attrs(self, infer_fn: str, attr: str, *args) -> None:
        """Infer ``attr`` ('shape'/'dtype') of every parameter from the inputs."""
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, "input")
        datas = [a for a in flat if a is not None]
        known = {v.name: getattr(a, attr) for v, a in zip(inputs, datas)}
        arg_attrs, _, aux_attrs = getattr(out, infer_fn)(**known)
        if arg_attrs is None:
            partial = getattr(out, infer_fn + "_partial")(**known)
            names = out.list_arguments() + out.list_auxiliary_states()
            values = list(partial[0] or []) + list(partial[2] or [])
            missing = [f"{n}: {v}" for n, v in zip(names, values)
                       if v is None or (attr == "shape" and (not v or 0 in v))]
            raise _ValueError(f"{infer_fn} for {self.name} is incomplete: could not "
                              f"infer {', '.join(missing)} from inputs {known}")
        found = dict(zip(out.list_arguments(), arg_attrs))
        found.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            if param.name not in found:
                raise _KeyErrorMsg(param.name)
            setattr(param, attr, found[param.name])

    def infer_shape(self, *args) -> None:
        """Set the shapes of all parameters from input arrays."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args) -> None:
        """Set the dtypes of all parameters from input arrays."""
        self._infer_attrs("infer_type", "dtype", *args)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True) -> None:
        """Write ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` keys),
        loadable by ``SymbolBlock.imports`` and MXNet's Module; see :mod:`.block_io`."""
        from .block_io import export
        export(self, path, epoch, remove_amp_cast)

    def register_op_hook(self, callback, monitor_all: bool = False) -> None:
        """Call ``callback(name, op_name, array)`` for every operator output of the
        compiled graph (``name`` is ``<node>_<output>``, e.g. ``dense0_fwd_output``);
        with ``monitor_all`` also for operator inputs (``<node>_<input>``).  Runs the
        graph without buffer reuse or fusion.  MXNet 1.9 passes raw handles here; this
        passes ``str``, ``str`` and an NDArray."""
        self._callback = callback
        self._monitor_all = monitor_all
        self._cached_op = None
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def _fast_call(self, inputs):
        """The hot path of a hybridized call with plain NDArray inputs on one device and
        the cached input format; ``None`` when the general path must decide."""
        nd = _nd_mod().NDArray
        if len(inputs) != self._fast_n:
            return None
        ctx = None
        for a in inputs:
            if not isinstance(a, nd):
                return None
            if ctx is None:
                ctx = a._ctx
            elif a._ctx is not ctx and a._ctx != ctx:
                return None
        try:
            cargs = [inputs[i] if is_arg else (i._data[0] if len(i._data) == 1
                                                else i.data(ctx))
                     for is_arg, i in self._cached_op_args]
        except TypeError:  # a parameter without data (deferred or not initialized)
            return None
        out = self._cached_op(*cargs)
        if self._fast_single:
            return out
        if isinstance(out, nd):
            out = [out]
        return _regroup(out, self._out_format)[0]

    def forward(self, x, *args):
        """Run on NDArrays (imperatively or through the CachedOp) or trace on Symbols."""
        if self._active and self._cached_op is not None and self._fast_n:
            out = self._fast_call((x,) + args)
            if out is not None:
                return out
        nd, sym = _nd_mod(), _sym_mod()
        has_symbol = has_ndarray = False
        ctx_set, first_ctx = set(), None
        for item in _flat_any([x, *args]):
            if isinstance(item, sym.Symbol):
                has_symbol = True
            elif isinstance(item, nd.NDArray):
                has_ndarray = True
                ctx_set.add(item.context)
                if first_ctx is None:
                    first_ctx = item.context
        if has_symbol and has_ndarray:
            raise _ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols "
                              "types for the input. Please check the type of the args.\n")
        if not has_symbol and not has_ndarray:
            raise _ValueError("In HybridBlock, there must be one NDArray or one Symbol in the "
                              "input. Please check the type of the args.\n")
        if has_ndarray:
            ctx = first_ctx
            if self._active:
                if len(ctx_set) > 1:
                    raise _ValueError(
                        f"Find multiple contexts in the input, After hybridized, the "
                        f"HybridBlock only supports one input context. You can print the "
                        f"ele.ctx in the input arguments to inspect their contexts. Find all "
                        f"contexts = {ctx_set}")
                with ctx:
                    return self._call_cached_op(x, *args)
            with ctx:
                try:
                    params = {k: v.data(ctx) for k, v in self._reg_params.items()}
                except DeferredInitializationError:
                    self._deferred_infer_shape(x, *args)
                    for v in self.params.values():
                        v._finish_deferred_init()
                    params = {k: v.data(ctx) for k, v in self._reg_params.items()}
                return self.hybrid_forward(nd, x, *args, **params)
        params = {k: p.var() for k, p in self._reg_params.items()}
        if is_np_array():
            params = {k: v.as_np_ndarray() for k, v in params.items()}
        with self.name_scope():
            return self.hybrid_forward(sym, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, written against ``F`` (``nd`` or ``sym``); override it."""
        raise NotImplementedError


def _op_hook(callback, graph):
    """Adapt ``callback(name, op_name, arr)`` to the CachedOp monitor ``(name, arr)``:
    the op is found from the node name, the part of ``name`` before an ``_<suffix>``."""
    from ..symbol.graph import topo_order
    nodes = [n for n in topo_order(graph._heads) if n.op is not None]
    ops = {node.name: node.op.name for node in nodes}
    # outputs MXNet does not show (BatchNorm's saved mean/var) are not reported
    hidden = {name for node in nodes
              for name in node.output_names()[node.num_visible_outputs():]}

    def monitor(name, arr):
        if name in hidden:
            return
        node = name
        while node and node not in ops:
            node = node.rpartition("_")[0]
        if node:  # graph inputs (monitor_all) are not operator inputs: MXNet skips them
            callback(name, ops[node], arr)
    return monitor


def _check_backend(backend, where: str) -> None:
    """``MXNetError`` for a subgraph backend gluonlite does not have."""
    from ..symbol.onednn_backend import BACKENDS
    if backend not in BACKENDS:
        raise MXNetError(f"{where}: subgraph backend '{backend}' is not available in "
                         f"gluonlite (it has {', '.join(BACKENDS)})")


def _flat_any(value):
    """Leaves of nested lists/tuples (anything else is a leaf)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat_any(v)
    else:
        yield value


class _KeyErrorMsg(MXNetError, KeyError):
    """A parameter missing from the inferred graph (MXNet raises ``KeyError(name)``)."""

    def __init__(self, name: str):
        super().__init__(f"'{name}'")
        self.param_name = name

    def __str__(self) -> str:
        return f"'{self.param_name}'"
