"""The ``Optimizer`` base class and the optimizer registry (MXNet 1.9's ``mx.optimizer``).

An optimizer keeps what is shared by all weights (learning rate and schedule, weight
decay, gradient rescaling and clipping, per-parameter multipliers, update counts);
``create_state`` makes the per-weight state, ``update`` applies one step.  The
concrete optimizers call the registry's update operators (``nd.sgd_mom_update``,
...), so one implementation serves ``Trainer``, ``Module`` and user code.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..base import MXNetError
from .. import ndarray as nd

__all__ = ["Optimizer", "register", "create"]


class Optimizer:
    """Base class of all optimizers; users subclass it and call :func:`register`.

    Parameters
    ----------
    rescale_grad : float
        Gradients are multiplied by this before anything else (``Trainer`` sets
        ``1 / batch_size``).
    param_idx2name : dict of int to str, optional
        Parameter names by index: names not ending in ``_weight``/``_gamma`` get no
        weight decay, and ``lr_mult``/``wd_mult`` may be given by name.
    wd : float
        Weight decay (L2 penalty) added to the gradient as ``wd * weight``.
    clip_gradient : float, optional
        Clip the rescaled gradient to ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional
        Learning rate (default 0.01 when there is no ``lr_scheduler``).
    lr_scheduler : LRScheduler, optional
        Learning rate as a function of the number of updates.
    sym : Symbol, optional
        A symbol whose variables' ``__lr_mult__``/``__wd_mult__`` attributes are read.
    begin_num_update : int
        Number of updates already done (resumed training).
    multi_precision : bool
        Keep a float32 master copy of float16 weights and update that.
    param_dict : dict of int to Parameter, optional
        Parameters by index, whose ``lr_mult``/``wd_mult`` are used (set by ``Trainer``).
    """

    opt_registry: dict = {}

    def __init__(self, rescale_grad: float = 1.0, param_idx2name: dict | None = None,
                 wd: float = 0.0, clip_gradient: float | None = None,
                 learning_rate: float | None = None, lr_scheduler=None, sym=None,
                 begin_num_update: int = 0, multi_precision: bool = False,
                 param_dict: dict | None = None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None \
                and lr_scheduler.base_lr != learning_rate:
            print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                              "``learning_rate`` in optimizer."))
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult: dict = {}
        self.wd_mult: dict = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        # update counts per device, so several copies of a weight count once per step
        self._all_index_update_counts: dict = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise TypeError("param_idx2name should be a dict of param indexes to names.")
        self.idx2name = dict(param_idx2name)
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- registry ---------------------------------------------------------------------
    @staticmethod
    def register(klass: type) -> type:
        """Register ``klass`` under its lower-cased name (a decorator)."""
        if not isinstance(klass, type):
            raise TypeError("register expects an Optimizer class")
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            old = Optimizer.opt_registry[name]
            warnings.warn(f"WARNING: New optimizer {klass.__module__}.{klass.__name__} is "
                          f"overriding existing optimizer {old.__module__}.{old.__name__}")
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name: str, **kwargs) -> "Optimizer":
        """An instance of the optimizer registered as ``name`` (case-insensitive)."""
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is None:
            raise ValueError(f"Cannot find optimizer {name}")
        return klass(**kwargs)

    # -- learning rate ------------------------------------------------------------------
    @property
    def learning_rate(self) -> float:
        """The current learning rate (from the scheduler when there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr: float) -> None:
        """Set the learning rate; refused when a scheduler owns it."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note "
                              "that set_learning_rate can mutate the value of the learning "
                              "rate of the optimizer only when the LRScheduler of the "
                              "optimizer is undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale) -> None:
        """Deprecated in MXNet: use :meth:`set_lr_mult`."""
        raise DeprecationWarning("set_lr_scale is deprecated; use set_lr_mult instead")

    def set_lr_mult(self, args_lr_mult: dict) -> None:
        """Per-parameter learning-rate multipliers by name or index; symbol attributes
        ``__lr_mult__`` are read first."""
        self.lr_mult = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and "__lr_mult__" in attr[name]:
                    self.lr_mult[name] = float(attr[name]["__lr_mult__"])
        self.lr_mult.update(args_lr_mult)

    def _no_decay(self, name: str) -> bool:
        return not (name.endswith("_weight") or name.endswith("_gamma"))

    def set_wd_mult(self, args_wd_mult: dict) -> None:
        """Per-parameter weight-decay multipliers by name or index.  Parameters whose
        name ends neither in ``_weight`` nor ``_gamma`` get 0; symbol attributes
        ``__wd_mult__`` come next, then ``args_wd_mult``."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if self._no_decay(n)}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and "__wd_mult__" in attr[name]:
                    self.wd_mult[name] = float(attr[name]["__wd_mult__"])
        self.wd_mult.update(args_wd_mult)

    # -- bookkeeping ------------------------------------------------------------------
    def _set_current_context(self, device_id: int) -> None:
        """Count updates of the device ``device_id`` separately."""
        counts = self._all_index_update_counts.setdefault(device_id, {})
        self._index_update_count = counts

    def _update_count(self, index) -> None:
        """Count one update of ``index`` (or of each index of a list)."""
        for idx in (index if isinstance(index, (list, tuple)) else (index,)):
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            if count > self.num_update:
                self.num_update = count

    def _scheduled_lr(self) -> float:
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def _get_lrs(self, indices) -> list:
        """Learning rates of ``indices``: the current rate times each multiplier."""
        lr = self._scheduled_lr()
        return [lr * self._multiplier(i, self.lr_mult, "lr_mult") for i in indices]

    def _get_lr(self, index) -> float:
        return self._get_lrs([index])[0]

    def _get_wds(self, indices) -> list:
        """Weight decays of ``indices``: ``wd`` times each multiplier."""
        return [self.wd * self._multiplier(i, self.wd_mult, "wd_mult") for i in indices]

    def _get_wd(self, index) -> float:
        return self._get_wds([index])[0]

    def _multiplier(self, index, table: dict, attr: str) -> float:
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    # -- states and updates -------------------------------------------------------------
    def create_state(self, index, weight):
        """The state of one weight (``None`` for stateless optimizers)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """Like :meth:`create_state`; with ``multi_precision`` and a float16 weight,
        ``(float32 master copy, state of the master copy)``."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master,) + (self.create_state(index, master),)
        if weight.dtype == np.float16:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy "
                          "or slow convergence. Consider using multi_precision=True option "
                          "of the optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state) -> None:
        """Apply one update to ``weight`` (in place)."""
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def _uses_master_copy(self, index, weight) -> bool:
        """Whether an update of ``weight`` (or of the first of a list) goes through a
        float32 master copy."""
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        return self.multi_precision and first.dtype == np.float16

    def update_multi_precision(self, index, weight, grad, state) -> None:
        """:meth:`update`, through the float32 master copy for float16 weights when
        ``multi_precision`` is on."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            nd.cast(master, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    # -- pickling -----------------------------------------------------------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)  # Parameters are re-attached by the Trainer
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


register = Optimizer.register
create = Optimizer.create_optimizer


def zeros_like_weight(weight, dtype=None, stype: str | None = None):
    """A zero state array of ``weight``'s shape and context (``dtype`` defaults to the
    weight's; ``stype`` to dense: ``'row_sparse'`` states start with no stored rows)."""
    return nd.zeros(weight.shape, weight.context, dtype=dtype or weight.dtype, stype=stype)


def is_dense(*arrays) -> bool:
    """Whether every array has dense (``'default'``) storage."""
    return all(getattr(a, "stype", "default") == "default" for a in arrays)


def update_kwargs(opt: Optimizer, **extra) -> dict:
    """The keyword arguments MXNet's optimizers pass to every update operator:
    ``rescale_grad``, and ``clip_gradient`` only when it is set (and non-zero)."""
    kwargs = {"rescale_grad": opt.rescale_grad}
    if opt.clip_gradient:
        kwargs["clip_gradient"] = opt.clip_gradient
    kwargs.update(extra)
    return kwargs


def check_dense(weight, grad, name: str) -> None:
    """Refuse a weight or gradient that is not an NDArray (dense or sparse)."""
    from ..ndarray import NDArray
    if not isinstance(weight, NDArray) or not isinstance(grad, NDArray):
        raise MXNetError(f"{name}.update: weight and grad must be NDArrays, got "
                         f"{type(weight).__name__} and {type(grad).__name__}")
