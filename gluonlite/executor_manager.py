"""``mx.executor_manager``: MXNet 1.9's legacy data-parallel executor manager, the one
``mx.model.FeedForward`` used before the Module API.

A batch is split into one slice per device (:func:`_split_input_slice`, weighted by a
work-load list); a :class:`DataParallelExecutorGroup` binds one ``Executor`` per device
(``Symbol.bind`` over gluonlite's CachedOp), copies each slice of a batch into its
executor's data and label arrays, and runs forward/backward on all of them; a
:class:`DataParallelExecutorManager` holds one group, or one per bucket key when it has
a ``sym_gen``, the groups of all buckets sharing their parameters and gradients.
"""
from __future__ import annotations

import logging
from typing import Callable

import numpy as np

from . import ndarray as nd
from .base import mx_real_t
from .context import cpu
from .io import DataDesc

__all__ = ["DataParallelExecutorGroup", "DataParallelExecutorManager"]


def _split_input_slice(batch_size: int, work_load_list: list) -> list:
    """Split ``range(batch_size)`` into one slice per device, sized in proportion to
    ``work_load_list`` (rounded; the last slice takes what rounding left over).

    Parameters
    ----------
    batch_size : int
        The number of samples in a mini-batch.
    work_load_list : list of float or int
        The work load of each device, in the order of the devices.

    Returns
    -------
    list of slice

    Raises
    ------
    ValueError
        If a slice would be empty (more devices than the batch can feed), as MXNet.
    """
    total = sum(work_load_list)
    sizes = [round(load * batch_size / total) for load in work_load_list]
    if sum(sizes) < batch_size:
        sizes[-1] += batch_size - sum(sizes)
    slices, end = [], 0
    for size in sizes:
        begin = int(min(end, batch_size))
        end = int(min(begin + size, batch_size))
        if begin >= end:
            raise ValueError(f"Too many slices. Some splits are empty: batch size "
                             f"{batch_size} over {len(work_load_list)} devices with work "
                             f"loads {list(work_load_list)}")
        slices.append(slice(begin, end))
    return slices


def _first_duplicate(names: list):
    seen = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _check_arguments(symbol) -> None:
    """Refuse a symbol whose arguments or auxiliary states repeat a name.

    Raises
    ------
    ValueError
        Naming the duplicated name and the lists it was found in.
    """
    arg_names = symbol.list_arguments()
    dup = _first_duplicate(arg_names)
    if dup is not None:
        raise ValueError(f'Find duplicated argument name "{dup}", please make the weight name '
                         f"non-duplicated(using name arguments), arguments are {arg_names}")
    aux_names = symbol.list_auxiliary_states()
    dup = _first_duplicate(aux_names)
    if dup is not None:
        raise ValueError(f'Find duplicated auxiliary param name "{dup}", please make the weight '
                         f"name non-duplicated(using name arguments), arguments are "
                         f"{arg_names}, auxiliary params are {aux_names}")


def _load_general(data: list, targets: list) -> None:
    """Copy each array of ``data`` into its target: an ``NDArray`` (whole copy) or a
    list of ``(slice, NDArray)`` pairs (each slice of the batch into its array).

    Raises
    ------
    AssertionError
        If the last slice does not end at the batch size of the source.
    """
    for src, target in zip(data, targets):
        if isinstance(target, nd.NDArray):
            src.copyto(target)
            continue
        expected = target[-1][0].stop
        assert expected == src.shape[0], \
            f"Batch size miss match. Expected {expected}, got {src.shape[0]}"
        for part, dst in target:
            src[part].copyto(dst)


def _load_data(batch, targets: list) -> None:
    """Copy ``batch.data`` into ``targets`` (see :func:`_load_general`)."""
    _load_general(batch.data, targets)


def _load_label(batch, targets: list) -> None:
    """Copy ``batch.label`` into ``targets`` (see :func:`_load_general`)."""
    _load_general(batch.label, targets)


def _grad_set(need_grad, arg_names: list, input_names) -> set:
    if need_grad is False:
        return set()
    if need_grad is True:
        return set(arg_names) - set(input_names)
    if isinstance(need_grad, set):
        return need_grad
    raise AssertionError("need_grad must be boolean or set.")


def _data_array(name: str, shape: tuple, dtype, ctx, shared: dict | None, logger):
    """The array of input ``name``: borrowed (reshaped) from ``shared`` when it is big
    enough, else new zeros, which then replace the shared one."""
    if shared is not None and name in shared:
        arr = shared[name]
        if np.prod(arr.shape) >= np.prod(shape):
            assert np.dtype(dtype) == np.dtype(arr.dtype)
            return arr.reshape(shape)
        logger.warning('bucketing: data "%s" has a shape %s, which is larger than already '
                       "allocated shape %s. Need to re-allocate. Consider putting "
                       "default_bucket_key to be the bucket taking the largest input for "
                       "better memory sharing.", name, shape, arr.shape)
    arr = nd.zeros(shape, ctx, dtype=dtype)
    if shared is not None:
        shared[name] = arr
    return arr


def _bind_exec(sym, ctx, input_shapes: dict, param_names, need_grad=False, base_exec=None,
               shared_data_arrays: dict | None = None, input_types: dict | None = None,
               logger=logging):
    """Bind ``sym`` on ``ctx`` for the given input shapes, for bucketing.

    Parameters
    ----------
    sym : Symbol
    ctx : Context
    input_shapes : dict of str to tuple
        Shapes of the data and label inputs.
    param_names : list of str
        The trainable parameters; every other argument is an input.
    need_grad : bool or set of str
        ``True``: gradients for every argument not in ``input_shapes``; a set: for
        those names; ``False``: none.
    base_exec : Executor, optional
        An executor whose parameter, gradient and auxiliary arrays are shared (shapes
        and dtypes must match).
    shared_data_arrays : dict, optional
        Input arrays by name, borrowed when big enough and updated with new ones.
    input_types : dict, optional
        Dtypes of the inputs (float32 by default).
    logger : logging.Logger or module

    Returns
    -------
    Executor
    """
    arg_shapes, _, aux_shapes = sym.infer_shape(**input_shapes)
    assert arg_shapes is not None
    if input_types is None:
        input_types = {name: mx_real_t for name in input_shapes}
    arg_types, _, aux_types = sym.infer_type(**input_types)
    assert arg_types is not None
    arg_names = sym.list_arguments()
    grads_wanted = need_grad is not False
    need = _grad_set(need_grad, arg_names, input_shapes)
    grad_req = {name: "write" if name in need else "null" for name in arg_names}

    arg_arrays, grad_arrays = [], {} if grads_wanted else None
    for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
        if name not in param_names:
            arg_arrays.append(_data_array(name, shape, dtype, ctx, shared_data_arrays, logger))
        elif base_exec is None:
            arg_arrays.append(nd.zeros(shape, ctx, dtype=dtype))
            if name in need:
                grad_arrays[name] = nd.zeros(shape, ctx, dtype=dtype)
        else:
            arr = base_exec.arg_dict[name]
            assert arr.shape == tuple(shape) and np.dtype(arr.dtype) == np.dtype(dtype)
            arg_arrays.append(arr)
            if name in need:
                grad_arrays[name] = base_exec.grad_dict[name]

    if base_exec is None:
        aux_arrays = [nd.zeros(s, ctx, dtype=t) for s, t in zip(aux_shapes, aux_types)]
    else:
        for shape, dtype, arr in zip(aux_shapes, aux_types, base_exec.aux_arrays):
            assert tuple(shape) == arr.shape and np.dtype(dtype) == np.dtype(arr.dtype)
        aux_arrays = list(base_exec.aux_arrays)
    return sym.bind(ctx=ctx, args=arg_arrays, args_grad=grad_arrays, aux_states=aux_arrays,
                    grad_req=grad_req, shared_exec=base_exec)


def _input_shapes_types(train_data, part: slice) -> tuple:
    """Shapes (batch axis resized to the slice) and dtypes of the data and labels."""
    shapes, types = {}, {}
    for desc in list(train_data.provide_data) + list(train_data.provide_label):
        name = desc[0]
        shapes[name] = tuple([part.stop - part.start] + list(desc[1][1:]))
        types[name] = desc.dtype if isinstance(desc, DataDesc) else mx_real_t
    return shapes, types


class DataParallelExecutorGroup:
    """One executor per device, each fed one slice of every batch.

    Parameters
    ----------
    sym : Symbol
        The network.
    arg_names : list of str
        ``sym.list_arguments()``.
    param_names : list of str
        The trainable parameters.
    ctx : list of Context
        One device per executor.
    slices : list of slice
        The part of a batch each device takes (:func:`_split_input_slice`).
    train_data : DataIter or DataBatch
        Anything with ``provide_data`` and ``provide_label``.
    shared_group : DataParallelExecutorGroup, optional
        A group whose parameters, gradients and input memory this one shares.
    """

    def __init__(self, sym, arg_names: list, param_names: list, ctx: list, slices: list,
                 train_data, shared_group: "DataParallelExecutorGroup | None" = None):
        _check_arguments(sym)
        self.shared_data_arrays = ([{} for _ in ctx] if shared_group is None
                                   else shared_group.shared_data_arrays)
        self.data_names = [desc[0] for desc in train_data.provide_data]
        self.label_names = [desc[0] for desc in train_data.provide_label]
        self.aux_names = sym.list_auxiliary_states()
        self.param_idx = [i for i, name in enumerate(arg_names) if name in param_names]
        self.param_names = [arg_names[i] for i in self.param_idx]

        self.train_execs = []
        for i, device in enumerate(ctx):
            shapes, types = _input_shapes_types(train_data, slices[i])
            shared_exec = None if shared_group is None else shared_group.train_execs[i]
            self.train_execs.append(_bind_exec(
                sym, device, shapes, self.param_names, need_grad=True, base_exec=shared_exec,
                shared_data_arrays=self.shared_data_arrays[i], input_types=types))

        def per_exec(name):
            return [(slices[i], e.arg_dict[name]) for i, e in enumerate(self.train_execs)]

        self.data_arrays = [per_exec(name) for name in self.data_names]
        self.label_arrays = [per_exec(name) for name in self.label_names]
        self.param_arrays = [[e.arg_arrays[i] for e in self.train_execs] for i in self.param_idx]
        self.grad_arrays = [[e.grad_arrays[i] for e in self.train_execs] for i in self.param_idx]
        self.aux_arrays = [[e.aux_arrays[i] for e in self.train_execs]
                           for i in range(len(self.aux_names))]
        self.slices = slices

    def load_data_batch(self, data_batch) -> None:
        """Copy the slices of ``data_batch``'s data and labels into the executors."""
        _load_data(data_batch, self.data_arrays)
        _load_label(data_batch, self.label_arrays)

    def forward(self, is_train: bool = False) -> None:
        """Run forward on every executor."""
        for texec in self.train_execs:
            texec.forward(is_train=is_train)

    def backward(self) -> None:
        """Run backward on every executor."""
        for texec in self.train_execs:
            texec.backward()

    def update_metric(self, metric, labels: list, pre_sliced: bool = False) -> None:
        """Update ``metric`` with each executor's outputs against its part of ``labels``
        (``labels[i]`` for executor ``i`` when ``pre_sliced``)."""
        for i, (texec, part) in enumerate(zip(self.train_execs, self.slices)):
            labels_slice = labels[i] if pre_sliced else [label[part] for label in labels]
            metric.update(labels_slice, texec.outputs)


class DataParallelExecutorManager:
    """Runs a network data-parallel over several devices.

    Parameters
    ----------
    symbol : Symbol
        The network.
    ctx : list of Context
        The devices.
    train_data : DataIter
        The training data (``batch_size``, ``provide_data``, ``provide_label``; and
        ``default_bucket_key`` with ``sym_gen``).
    arg_names, param_names, aux_names : list of str
        All arguments, the trainable parameters, the auxiliary states.
    work_load_list : list of float or int, optional
        Relative work load of each device (equal by default).
    logger : logging.Logger, optional
    sym_gen : callable, optional
        Bucketing: ``sym_gen(bucket_key)`` gives the network of a bucket.
    """

    def __init__(self, symbol, ctx: list, train_data, arg_names: list, param_names: list,
                 aux_names: list, work_load_list: list | None = None, logger=None,
                 sym_gen: Callable | None = None):
        logger = logging if logger is None else logger
        logger.info("Start training with %s", str(ctx))
        if work_load_list is None:
            work_load_list = [1] * len(ctx)
        assert isinstance(work_load_list, list) and len(work_load_list) == len(ctx), \
            "Invalid settings for work load. "
        self.slices = _split_input_slice(train_data.batch_size, work_load_list)
        self.arg_names = arg_names
        self.param_names = param_names
        self.aux_names = aux_names
        self.ctx = ctx
        self.execgrp = DataParallelExecutorGroup(symbol, arg_names, param_names, ctx,
                                                 self.slices, train_data)
        self.symbol = symbol
        self.sym_gen = sym_gen
        self.curr_execgrp = None  # set by load_data_batch
        if sym_gen is not None:
            self.execgrp_bucket = {train_data.default_bucket_key: self.execgrp}

    def install_monitor(self, monitor) -> None:
        """Install ``monitor`` (``mx.mon.Monitor``) on every executor.

        Raises
        ------
        NotImplementedError
            With bucketing, as MXNet.
        """
        if self.sym_gen is not None:
            raise NotImplementedError("Monitoring is not implemented for bucketing")
        for texec in self.execgrp.train_execs:
            monitor.install(texec)

    def set_params(self, arg_params: dict, aux_params: dict) -> None:
        """Copy ``arg_params``/``aux_params`` (name to NDArray) into every executor."""
        for texec in self.execgrp.train_execs:
            texec.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params: dict, aux_params: dict) -> None:
        """Write the devices' mean of each parameter and auxiliary state into
        ``arg_params``/``aux_params`` (in place, in their dtypes)."""
        for names, blocks, dest in ((self.param_names, self.param_arrays, arg_params),
                                    (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                mean = sum(w.copyto(cpu()) for w in block) / len(block)
                mean.astype(dest[name].dtype).copyto(dest[name])

    @property
    def param_arrays(self) -> list:
        """Parameter arrays, one list (over devices) per parameter; shared by buckets."""
        return self.execgrp.param_arrays

    @property
    def grad_arrays(self) -> list:
        """Gradient arrays, one list (over devices) per parameter; shared by buckets."""
        return self.execgrp.grad_arrays

    @property
    def aux_arrays(self) -> list:
        """Auxiliary-state arrays, one list (over devices) per state."""
        return self.execgrp.aux_arrays

    def load_data_batch(self, data_batch) -> None:
        """Pick the group of ``data_batch.bucket_key`` (binding it on first sight) when
        bucketing, and load the batch into it."""
        if self.sym_gen is None:
            self.curr_execgrp = self.execgrp
        else:
            key = data_batch.bucket_key
            if key not in self.execgrp_bucket:
                self.execgrp_bucket[key] = DataParallelExecutorGroup(
                    self.sym_gen(key), self.arg_names, self.param_names, self.ctx,
                    self.slices, data_batch, shared_group=self.execgrp)
            self.curr_execgrp = self.execgrp_bucket[key]
        self.curr_execgrp.load_data_batch(data_batch)

    def forward(self, is_train: bool = False) -> None:
        """Forward on the current group."""
        self.curr_execgrp.forward(is_train=is_train)

    def backward(self) -> None:
        """Backward on the current group."""
        self.curr_execgrp.backward()

    def update_metric(self, metric, labels: list, pre_sliced: bool = False) -> None:
        """Update ``metric`` with the current group's outputs."""
        self.curr_execgrp.update_metric(metric, labels, pre_sliced)
