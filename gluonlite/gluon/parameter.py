"""Gluon's ``Parameter`` and ``Constant`` (MXNet 1.9 ``mx.gluon.Parameter``).

A parameter holds one copy of its value per context (``_data``, a list ordered as
``_ctx_list``) and, unless ``grad_req='null'``, one gradient buffer per copy
(``_grad``), attached with :func:`gluonlite.autograd.mark_variables` so that
``autograd.backward`` writes into it.

Initialization may be *deferred*: a parameter whose shape still has unknown (0)
dimensions records ``(init, ctx_list, default_init, data)`` in ``_deferred_init``
when ``initialize`` is called; the Block that owns it sets ``shape`` once the input
shape is known and calls ``_finish_deferred_init()``.

Errors are :class:`~gluonlite.base.MXNetError` and, where MXNet raises a built-in
exception (``AssertionError``, ``ValueError``, ``KeyError``), also that type, so code
written against MXNet that catches them keeps working.  Messages are MXNet's.
"""
from __future__ import annotations

import warnings
import weakref
from typing import List, Optional, Sequence

import numpy as np

from ..base import MXNetError, mx_real_t
from ..context import Context, cpu, current_context
from ..util import is_np_array

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict",
           "tensor_types"]

_GRAD_REQS = ("write", "add", "null")
_STYPES = ("default", "row_sparse", "csr")

from ._param_common import (_DEFERRED, _NOT_INIT, DeferredInitializationError,  # noqa: F401
                            _AssertionError, _KeyError, _TypeError, _ValueError, _as_shape,
                            shape_is_known)


def _ctx_list(ctx) -> List[Context]:
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


def _ctx_key(ctx: Context):
    # MXNet maps cpu, cpu_pinned and cpu_shared to one slot per device id (typeid & 1)
    return (ctx.device_typeid & 1, ctx.device_id)


def _np_if_on(arrays: list) -> list:
    """Dense ``arrays`` as ``mx.np`` arrays when ``npx.set_np()`` is on (MXNet creates a
    parameter's arrays with ``mx.np`` then); others unchanged."""
    if not is_np_array():
        return arrays
    return [a.as_np_ndarray() if a.stype == "default" else a for a in arrays]


def _nd():
    from .. import ndarray
    return ndarray


def _autograd():
    from .. import autograd
    return autograd


class Parameter:
    """A weight of a Block: its value on each context, its gradients and its metadata.

    Parameters
    ----------
    name : str
        Name (``dense0_weight``).
    grad_req : {'write', 'add', 'null'}
        How gradients are stored: overwritten, accumulated, or not computed.
    shape : int or tuple of int, optional
        Shape; 0 marks a dimension to be inferred (deferred initialization).
    dtype : numpy dtype or str
        Element type (``float32``).
    lr_mult, wd_mult : float
        Multipliers of the learning rate and of the weight decay.
    init : Initializer or str, optional
        Initializer of this parameter; see :meth:`initialize` for the precedence.
    allow_deferred_init : bool
        Allow ``initialize`` with unknown dimensions (the Block completes it).
    differentiable : bool
        ``False`` forces ``grad_req='null'``.
    stype : {'default', 'row_sparse', 'csr'}
        Storage type of the value.  A ``'row_sparse'`` parameter is read with
        :meth:`row_sparse_data` (rows pulled through its Trainer's kvstore), not
        :meth:`data`.
    grad_stype : {'default', 'row_sparse', 'csr'}
        Storage type of the gradient buffers (``'row_sparse'`` for an Embedding with
        ``sparse_grad=True``).
    """

    def __init__(self, name: str, grad_req: str = "write", shape=None, dtype=mx_real_t,
                 lr_mult: float = 1.0, wd_mult: float = 1.0, init=None,
                 allow_deferred_init: bool = False, differentiable: bool = True,
                 stype: str = "default", grad_stype: str = "default"):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer_ref = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        self._shape = _as_shape(shape)
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for what, value in (("stype", stype), ("grad_stype", grad_stype)):
            if value not in _STYPES:
                raise _AssertionError(f"{what} for Parameter '{name}' must be one of "
                                      f"'default', 'row_sparse', or 'csr', but got '{value}'")
        self._stype = stype
        self._grad_stype = grad_stype

    def __repr__(self) -> str:
        return f"Parameter {self.name} (shape={self.shape}, dtype={self.dtype})"

    # -- attributes ------------------------------------------------------------------
    @property
    def grad_req(self) -> str:
        """``'write'``, ``'add'`` or ``'null'``; setting ``'null'`` drops the gradients."""
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req not in _GRAD_REQS:
            raise _AssertionError(f"grad_req must be one of 'write', 'add', or 'null', but "
                                  f"got '{req}'")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [d.detach() for d in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """Element type; setting it casts data and gradients (same as :meth:`cast`)."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype) -> None:
        self.cast(dtype)

    @property
    def shape(self):
        """Shape (tuple; 0 marks an unknown dimension, ``None`` an unknown rank).

        Setting it may fill unknown dimensions; known dimensions must keep their size.
        """
        return self._shape

    @shape.setter
    def shape(self, new_shape) -> None:
        new_shape = _as_shape(new_shape)
        old = self._shape
        if old is None:
            self._shape = new_shape
            return
        if new_shape is None or len(old) != len(new_shape) or any(
                o not in (0, -1, n) for o, n in zip(old, new_shape)):
            raise _AssertionError(f"Expected shape {new_shape} is incompatible with given "
                                  f"shape {old} for Parameter '{self.name}'.")
        self._shape = new_shape

    @property
    def stype(self) -> str:
        """Storage type of the data (``'default'``, ``'row_sparse'`` or ``'csr'``)."""
        return self._stype

    @property
    def _trainer(self):
        """The Trainer updating this parameter (held weakly), or ``None``."""
        return self._trainer_ref() if self._trainer_ref is not None else None

    @_trainer.setter
    def _trainer(self, trainer) -> None:
        # MXNet's ``_trainer`` is a plain attribute that subclasses assign (GluonNLP's
        # WeightDropParameter copies it from the Parameter it wraps)
        self._trainer_ref = weakref.ref(trainer) if trainer is not None else None

    # -- initialization ----------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=None,
                   force_reinit: bool = False) -> None:
        """Allocate and initialize the data (and gradients) on each context.

        Parameters
        ----------
        init : Initializer or str, optional
            Initializer for this call; it takes precedence over ``self.init``.
        ctx : Context or list of Context, optional
            Contexts to hold a copy on (default: the current context).
        default_init : Initializer or str, optional
            Used when neither ``init`` nor ``self.init`` is given (default ``Uniform()``).
        force_reinit : bool
            Re-initialize an initialized parameter (otherwise a warning and nothing).

        Notes
        -----
        With unknown dimensions and ``allow_deferred_init=True`` the call is recorded and
        completed by :meth:`_finish_deferred_init` once the shape is known.
        """
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. Set "
                          f"force_reinit=True to re-initialize.", stacklevel=2)
            return
        self._data = self._grad = None
        ctx = _ctx_list(ctx)
        if default_init is None:
            from .. import initializer
            default_init = initializer.Uniform()
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self._shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise _ValueError(f"Cannot initialize Parameter '{self.name}' because it has "
                              f"invalid shape: {self._shape}.")
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self) -> None:
        """Run a recorded (deferred) initialization; the shape must now be known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self._shape):
            raise _AssertionError(f"Cannot initialize Parameter '{self.name}' because it has "
                                  f"invalid shape: {self._shape}. Please specify in_units, "
                                  f"in_channels, etc for `Block`s.")
        nd = _nd()
        with _autograd().pause():
            if data is None:
                from .. import initializer
                # filled on the CPU then copied: the values do not depend on the contexts
                data = nd.zeros(self._shape, ctx=cpu(), dtype=self._dtype)
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {"__init__": init}), data)
                data = self._as_stype(data, initialized=True)
            else:
                if not isinstance(data, nd.NDArray) or \
                        np.dtype(data.dtype) != np.dtype(self._dtype):
                    data = nd.array(data, ctx=cpu(), dtype=self._dtype)
                data = self._as_stype(data)
            self._init_impl(data, ctx)

    def _as_stype(self, data, initialized: bool = False):
        """``data`` in this parameter's storage type.

        A freshly initialized ``row_sparse`` value stores every row, as MXNet's
        initializers fill all rows of a row_sparse array; other conversions keep the
        nonzero rows (``tostype``)."""
        if data.stype == self._stype:
            return data
        if initialized and self._stype == "row_sparse" and data.stype == "default":
            nd = _nd()
            rows = np.arange(data.shape[0], dtype=np.int64)
            return nd.sparse.row_sparse_array((data.asnumpy(), rows), shape=data.shape,
                                              ctx=data.context, dtype=data.dtype)
        return data.tostype(self._stype)

    def _init_impl(self, data, ctx_list: Sequence[Context]) -> None:
        """Copy ``data`` onto every context and allocate the gradients."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = {_ctx_key(c): i for i, c in enumerate(self._ctx_list)}
        with _autograd().pause():
            self._data = _np_if_on([data.copyto(c) for c in self._ctx_list])
        self._init_grad()

    def _init_grad(self) -> None:
        """Fresh zero gradients, attached to the data for autograd."""
        if self._grad_req == "null":
            self._grad = None
            return
        nd = _nd()
        self._grad = [nd.zeros(d.shape, ctx=d.context, dtype=d.dtype, stype=self._grad_stype)
                      for d in self._data]
        if any(type(d) is not type(g) for d, g in zip(self._data, self._grad)):
            self._grad = _np_if_on(self._grad)  # mx.np data: mx.np gradients
        _autograd().mark_variables(self._data, self._grad, self._grad_req)

    def _load_init(self, data, ctx, cast_dtype: bool = False,
                   dtype_source: str = "current") -> None:
        """Set the value from loaded ``data`` (initializing the parameter if needed)."""
        if cast_dtype and dtype_source not in ("current", "saved"):
            raise _AssertionError(f"dtype_source must be 'current' or 'saved', but got "
                                  f"'{dtype_source}'")
        saved = tuple(data.shape)
        if self._shape and (len(self._shape) != len(saved) or any(
                s not in (0, -1, d) for s, d in zip(self._shape, saved))):
            raise _AssertionError(f"Failed loading Parameter '{self.name}' from saved "
                                  f"params: shape incompatible expected {self._shape} vs "
                                  f"saved {saved}")
        self._shape = saved
        if self._dtype is not None and np.dtype(self._dtype) != np.dtype(data.dtype):
            if not cast_dtype:
                raise _AssertionError(
                    f"Failed loading Parameter '{self.name}' from saved params: dtype "
                    f"incompatible expected {self._dtype} vs saved {data.dtype}. Set "
                    f"cast_dtype=True to cast the dtype of saved params.")
            if dtype_source == "current":
                data = data.astype(self._dtype, copy=False)
            else:
                self.dtype = data.dtype
        if getattr(data, "stype", "default") != self._stype:
            if not isinstance(data, _nd().NDArray):
                data = _nd().array(data, ctx=cpu(), dtype=data.dtype)
            data = data.tostype(self._stype)
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                self._check_load_ctx(ctx, self._deferred_init[1])
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            self._check_load_ctx(ctx, self._ctx_list)
            self.set_data(data)
        self._deferred_init = ()

    def _check_load_ctx(self, ctx, current) -> None:
        if ctx is not None and set(ctx) != set(current):
            raise _AssertionError(f"Failed to load Parameter '{self.name}' on {list(ctx)} "
                                  f"because it was previous initialized on {list(current)}.")

    # -- access ------------------------------------------------------------------------
    def _check_and_get(self, arr_list, ctx):
        """The array of ``arr_list`` on ``ctx`` (``list``: all of them), with MXNet's
        errors for missing contexts and uninitialized parameters."""
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            idx = self._ctx_map.get(_ctx_key(ctx))
            if idx is not None:
                return arr_list[idx]
            raise MXNetError(f"Parameter '{self.name}' was not initialized on context "
                             f"{ctx}. It was only initialized on {self._ctx_list}.")
        if self._deferred_init:
            raise DeferredInitializationError(_DEFERRED.format(self.name))
        raise MXNetError(_NOT_INIT.format(self.name))

    def data(self, ctx: Optional[Context] = None):
        """The value on ``ctx`` (default: the only context, or the current one).

        Raises for a sparse parameter, whose rows are read with :meth:`row_sparse_data`.
        """
        if self._stype != "default":
            raise MXNetError(f"Cannot return a copy of Parameter '{self.name}' on ctx {ctx} "
                             f"via data() because its storage type is {self._stype}. "
                             f"Please use row_sparse_data() instead.")
        arrs = self._data
        if ctx is None and arrs is not None and len(arrs) == 1:
            return arrs[0]
        return self._check_and_get(arrs, ctx)

    def list_data(self) -> list:
        """The values on all contexts, in the order of :meth:`list_ctx` (dense parameters
        only; see :meth:`list_row_sparse_data`)."""
        if self._stype != "default":
            raise MXNetError(f"Cannot return copies of Parameter '{self.name}' on all "
                             f"contexts via list_data() because its storage type is "
                             f"{self._stype}. Please use row_sparse_data() instead.")
        return self._check_and_get(self._data, list)

    def grad(self, ctx: Optional[Context] = None):
        """The gradient buffer on ``ctx``."""
        if self._data is not None and self._grad is None:
            raise MXNetError(f"Cannot get gradient array for Parameter '{self.name}' because "
                             f"grad_req='null'")
        return self._check_and_get(self._grad, ctx)

    def list_grad(self) -> list:
        """The gradient buffers on all contexts."""
        if self._data is not None and self._grad is None:
            raise MXNetError(f"Cannot get gradient array for Parameter '{self.name}' because "
                             f"grad_req='null'")
        return self._check_and_get(self._grad, list)

    def list_ctx(self) -> List[Context]:
        """The contexts holding a copy (the pending ones during deferred init)."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise MXNetError(f"Parameter '{self.name}' has not been initialized")
        return self._ctx_list

    def row_sparse_data(self, row_id):
        """The rows ``row_id`` of a ``row_sparse`` parameter, on ``row_id``'s context.

        Parameters
        ----------
        row_id : NDArray
            Row indices (any order, repeats allowed).

        Returns
        -------
        RowSparseNDArray
            This parameter's array on that context, holding the requested rows (pulled
            from the Trainer's kvstore); other rows read as zero.
        """
        if self._stype != "row_sparse":
            raise MXNetError(f"Cannot return a copy of Parameter {self.name} via "
                             f"row_sparse_data() because its storage type is {self._stype}. "
                             f"Please use data() instead.")
        ctx = row_id.context if hasattr(row_id, "context") else None
        return self._get_row_sparse(self._data, ctx, row_id)

    def list_row_sparse_data(self, row_id) -> list:
        """The rows ``row_id`` of a ``row_sparse`` parameter on every context.

        Parameters
        ----------
        row_id : NDArray
            Row indices (any order, repeats allowed).

        Returns
        -------
        list of RowSparseNDArray
            One array per context (order of :meth:`list_ctx`).
        """
        if self._stype != "row_sparse":
            raise MXNetError(f"Cannot return copies of Parameter '{self.name}' on all "
                             f"contexts via list_row_sparse_data() because its storage type "
                             f"is {self._stype}. Please use data() instead.")
        return self._get_row_sparse(self._data, list, row_id)

    def _get_row_sparse(self, arr_list, ctx, row_id):
        """Pull the rows ``row_id`` into the array(s) of ``ctx`` through the Trainer."""
        nd = _nd()
        if not isinstance(row_id, nd.NDArray):
            raise _TypeError(f"row_id must have NDArray type, but {type(row_id)} is given")
        trainer = self._trainer
        if trainer is None:
            raise MXNetError(f"Cannot get row_sparse data for Parameter '{self.name}' when "
                             f"no Trainer is created with it.")
        results = self._check_and_get(arr_list, ctx)
        trainer._row_sparse_pull(self, results, row_id)
        return results

    # -- modification ------------------------------------------------------------------
    def set_data(self, data) -> None:
        """Set the value on every context; before a deferred initialization finishes,
        keep ``data`` to initialize with."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise _AssertionError(f"Parameter '{self.name}' has not been initialized")
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if trainer is not None and getattr(trainer, "_kv_initialized", False) and \
                getattr(trainer, "_update_on_kvstore", False):
            # the kvstore keeps its own copy of the weights: make it re-read them
            if self not in getattr(trainer, "_params_to_init", ()):
                trainer._reset_kvstore()
        for arr in self._data:
            arr[:] = data

    def zero_grad(self) -> None:
        """Set the gradient buffers to 0 (in place)."""
        if self._grad is None:
            return
        nd = _nd()
        for g in self._grad:
            if g.stype != "default":  # MXNet's zeros_like: nothing stored
                g._assign_raw(nd.sparse.zeros(g.stype, g.shape, ctx=g.context,
                                              dtype=g.dtype).handle)
            else:
                g._data.fill(0)
                g._bump()

    def reset_ctx(self, ctx) -> None:
        """Move the parameter to other contexts (the value is their average)."""
        ctx = _ctx_list(ctx)
        if self._data:
            data = self._reduce()
            self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise _ValueError(f"Cannot reset context for Parameter '{self.name}' because it "
                              f"has not been initialized.")

    def _reduce(self):
        """The value on the CPU: the copy of a single context or the mean over several;
        for a ``row_sparse`` parameter, all rows as its Trainer's kvstore holds them."""
        arrs = self._check_and_get(self._data, list)
        host = cpu()
        if self._stype == "row_sparse":
            trainer = self._trainer
            if trainer is None:
                raise MXNetError(f"Cannot reduce row_sparse Parameter '{self.name}' (for "
                                 f"saving or reset_ctx) when no Trainer is created with it: "
                                 f"its value lives in the Trainer's kvstore.")
            nd = _nd()
            all_rows = nd.arange(0, self._shape[0], dtype="int64", ctx=host)
            data = nd.zeros(self._shape, stype="row_sparse", ctx=host, dtype=self._dtype)
            trainer._row_sparse_pull(self, data, all_rows, full_idx=True)
            return data
        with _autograd().pause():
            if len(arrs) == 1:
                return arrs[0].copyto(host)
            total = arrs[0].copyto(host)
            for a in arrs[1:]:
                total += a.copyto(host)
            return total / len(arrs)

    def cast(self, dtype) -> None:
        """Cast data and gradients to ``dtype`` (gradients stay attached)."""
        self._dtype = dtype
        if self._data is None:
            return
        with _autograd().pause():
            self._data = [d.astype(dtype) for d in self._data]
            if self._grad is None:
                return
            self._grad = [g.astype(dtype) for g in self._grad]
            _autograd().mark_variables(self._data, self._grad, self._grad_req)

    def _set_trainer(self, trainer) -> None:
        """Remember (weakly) the Trainer updating this parameter (``None`` forgets); a
        sparse parameter cannot be given to a second Trainer."""
        current = self._trainer
        if self._stype != "default" and current is not None and trainer is not None \
                and current is not trainer:
            raise MXNetError(f"Failed to set the trainer for Parameter '{self.name}' because "
                             f"it was already set. More than one trainers for a "
                             f"{self._stype} Parameter is not supported.")
        self._trainer_ref = weakref.ref(trainer) if trainer is not None else None

    def var(self):
        """A symbol variable for this parameter (created once, then cached)."""
        if self._var is None:
            from .. import symbol
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                                   init=self.init, stype=self._stype)
        return self._var


def _tensor_types():
    from ..ndarray import NDArray
    from ..symbol import Symbol
    return (Symbol, NDArray)


def __getattr__(name: str):
    # ``tensor_types`` (MXNet's ``(Symbol, NDArray)``) without importing symbol eagerly
    if name == "tensor_types":
        return _tensor_types()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .constant import Constant  # noqa: E402  (needs Parameter)
from .parameter_dict import ParameterDict  # noqa: E402  (needs Parameter, Constant)
