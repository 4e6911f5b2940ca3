"""``DataParallelExecutorGroup``: a Module's network on one or more devices.

The group holds the :class:`~gluonlite.gluon.SymbolBlock` made from the symbol (its
data, label and state names are inputs; every other argument and auxiliary state is
a Parameter, on every context), splits each batch over the contexts by
``workload``, runs forward (recorded for training) and backward per device, and
exposes MXNet's views of it: ``execs`` (per device ``arg_dict``, ``grad_dict``,
``aux_dict``, ``outputs``), ``param_arrays``, ``grad_arrays``, ``aux_arrays``,
``get_params`` / ``set_params``, and ``shared_data_arrays`` (see
:mod:`.executor_group_data`).
"""
from __future__ import annotations

import logging

import numpy as np

from .. import autograd
from .. import ndarray as nd
from .. import symbol as _sym
from ..base import MXNetError
from ..context import cpu
from ..executor_manager import _split_input_slice
from ..gluon import SymbolBlock
from ..io import DataDesc
from .executor_group_data import bind_shared_data

__all__ = ["DataParallelExecutorGroup"]


class _ModuleBlock(SymbolBlock):
    """The SymbolBlock a Module runs: it takes ``row_sparse`` parameters (MXNet's Module
    binds them on an Executor; a user's SymbolBlock refuses them)."""

    _row_sparse_params = True


class _PlacedGraph:
    """Device ``ctx``'s share of a model-parallel module: one CachedOp whose nodes run on
    their ``ctx_group``'s device (``group2ctx``), over the parameters' copies on ``ctx``;
    called like the SymbolBlock it stands for, with the data inputs."""

    def __init__(self, symbol, params, input_names, group2ctx, ctx):
        from ..engine.cached_op import CachedOp
        self._op = CachedOp(symbol, flags=[("group2ctx", group2ctx or {}),
                                           ("group_default_ctx", ctx)])
        self._order = self._op.list_inputs()
        self._params = params
        self._input_names = list(input_names)
        self._ctx = ctx

    def __call__(self, *arrays):
        given = dict(zip(self._input_names, arrays))
        args = [given[n] if n in given else self._params[n].data(self._ctx)
                for n in self._order]
        return self._op(*args)


def _prepare_group2ctxs(group2ctxs, n_devices: int) -> list:
    """One ``{group: Context}`` (or ``None``) per device, from MXNet's forms: ``None``, a
    list of dicts (one per device), or one dict whose values are a Context or a list of
    one Context per device (or of one Context for all)."""
    if group2ctxs is None:
        return [None] * n_devices
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != n_devices:
            raise MXNetError(f"Module: group2ctxs has {len(group2ctxs)} entries for "
                             f"{n_devices} contexts")
        return [dict(g) if g else None for g in group2ctxs]
    if not isinstance(group2ctxs, dict):
        raise MXNetError("Module: group2ctxs must be a dict or a list of dicts")
    out = []
    for k in range(n_devices):
        g2c = {}
        for group, ctx in group2ctxs.items():
            if isinstance(ctx, (list, tuple)):
                if len(ctx) == 1:
                    ctx = list(ctx) * n_devices  # one Context for every device
                if len(ctx) != n_devices:
                    raise MXNetError(f"Module: group2ctxs['{group}'] has {len(ctx)} "
                                     f"contexts for {n_devices} devices")
                ctx = ctx[k]
            g2c[group] = ctx
        out.append(g2c)
    return out


def _slice(arr, sl: slice, axis: int, ctx):
    """Part ``sl`` of ``arr`` along ``axis`` on ``ctx`` (``arr`` itself when whole)."""
    if sl.start == 0 and sl.stop == arr.shape[axis] and arr.context == ctx:
        return arr
    return nd.slice_axis(arr, axis=axis, begin=sl.start, end=sl.stop).as_in_context(ctx)


def _merge(arrays: list, axis: int):
    """One array from per-device parts (on the first part's device)."""
    if len(arrays) == 1 or arrays[0] is None:
        return arrays[0]
    ctx = arrays[0].context
    return nd.concat(*[a.as_in_context(ctx) for a in arrays], dim=axis)


class _DeviceView:
    """What an MXNet executor showed of one device: ``arg_dict``, ``grad_dict``,
    ``aux_dict``, ``outputs`` and ``output_dict`` (live arrays)."""

    def __init__(self, group, k: int):
        self._group = group
        self._k = k

    @property
    def arg_dict(self) -> dict:
        g, ctx = self._group, self._group.contexts[self._k]
        args = {n: g._params[n].data(ctx) for n in g.param_names}
        args.update(g._current_inputs(self._k))
        return args

    @property
    def grad_dict(self) -> dict:
        g, ctx = self._group, self._group.contexts[self._k]
        grads = {n: g._params[n].grad(ctx) for n in g.param_names
                 if g._params[n].grad_req != "null"}
        if g.inputs_need_grad and g._inputs is not None:
            grads.update({n: a.grad for n, a in zip(g.data_names, g._inputs[self._k])
                          if g.grad_req.get(n) != "null"})
        return grads

    @property
    def aux_dict(self) -> dict:
        g, ctx = self._group, self._group.contexts[self._k]
        return {n: g._params[n].data(ctx) for n in g.aux_names}

    @property
    def outputs(self) -> list:
        return list(self._group._outputs[self._k]) if self._group._outputs else []

    @property
    def output_dict(self) -> dict:
        return dict(zip(self._group.output_names, self.outputs))

    @property
    def arg_arrays(self) -> list:
        args = self.arg_dict
        return [args[n] for n in self._group.arg_names if n in args]

    @property
    def grad_arrays(self) -> list:
        grads = self.grad_dict
        return [grads.get(n) for n in self._group.arg_names]

    @property
    def aux_arrays(self) -> list:
        return list(self.aux_dict.values())

    @property
    def _symbol(self):
        return self._group.symbol

    def set_monitor_callback(self, callback, monitor_all: bool = False) -> None:
        """Report every node output of this device's runs to ``callback(name, array)``."""
        self._group._block.register_op_hook(
            lambda name, op_name, arr: callback(name, arr), monitor_all)


class DataParallelExecutorGroup:
    """A symbol bound on ``contexts``, each taking its ``workload`` share of a batch.

    Parameters
    ----------
    symbol : Symbol
    contexts : list of Context
    workload : list of float
    data_shapes, label_shapes : list of DataDesc or (name, shape)
    param_names : list of str
        The arguments that are parameters (all others are inputs).
    for_training, inputs_need_grad : bool
    shared_group : DataParallelExecutorGroup, optional
        Share its parameters (same arrays and gradients).
    logger : logging.Logger
    fixed_param_names : list of str, optional
        Parameters without gradients.
    grad_req : str, list or dict
    state_names : list of str, optional
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training: bool, inputs_need_grad: bool, shared_group=None,
                 logger=logging, fixed_param_names=None, grad_req="write", state_names=None,
                 group2ctxs=None):
        self.symbol = symbol
        self.contexts = list(contexts)
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(self.contexts))
        self._input_groups = {n: a.get("__ctx_group__", a.get("ctx_group"))
                              for n, a in symbol.attr_dict().items()}
        self.workload = list(workload)
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.output_names = symbol.list_outputs()
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.grad_req = self._grad_reqs(grad_req, data_shapes)
        self.output_layouts = [DataDesc.get_batch_axis(symbol[name].attr("__layout__"))
                               for name in self.output_names]
        self._outputs = None
        self._inputs = None
        self._is_train = False
        self._input_grad_bufs: dict = {}  # (device, data input) -> buffer for grad_req 'add'
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req, data_shapes) -> dict:
        data_names = {d.name if isinstance(d, DataDesc) else d[0] for d in data_shapes}
        reqs = {}
        for i, name in enumerate(self.arg_names):
            if name in self.param_names:
                if not self.for_training or name in self.fixed_param_names:
                    reqs[name] = "null"
                elif isinstance(grad_req, dict):
                    reqs[name] = grad_req.get(name, "write")
                elif isinstance(grad_req, (list, tuple)):
                    reqs[name] = grad_req[i]
                else:
                    reqs[name] = grad_req
            elif not (self.inputs_need_grad and self.for_training) \
                    or name not in data_names:
                reqs[name] = "null"  # labels and states never get gradients
            elif isinstance(grad_req, dict):
                reqs[name] = grad_req.get(name, "write")
            elif isinstance(grad_req, (list, tuple)):
                reqs[name] = grad_req[i]
            else:
                reqs[name] = grad_req  # MXNet: the data follow the one grad_req too
        return reqs

    # -- binding ------------------------------------------------------------------------------
    def bind_exec(self, data_shapes, label_shapes, shared_group=None,
                  reshape: bool = False) -> None:
        """Build the block for these shapes (``reshape``: keep it, new shapes only)."""
        self._set_shapes(data_shapes, label_shapes)
        if reshape:
            self.shared_data_arrays = bind_shared_data(self, self)
            return
        shared = shared_group._block.collect_params() if shared_group is not None else None
        dtypes = {d.name: d.dtype for d in self.data_shapes + (self.label_shapes or [])}
        inputs = self.data_names + self._label_inputs + self.state_names
        self._block = _ModuleBlock(self.symbol,
                                  [_sym.var(n, dtype=dtypes.get(n, np.float32)) for n in inputs],
                                  params=shared)
        self._params = self._block.collect_params()
        self._declare_params()
        # per device, the block it runs: with model parallelism (group2ctxs) each device
        # gets its own graph placement over the same parameters
        self._blocks = [self._block] * len(self.contexts)
        if any(self.group2ctxs):
            self._blocks = [self._placed_block(inputs, dtypes, k)
                            for k in range(len(self.contexts))]
        self.execs = [_DeviceView(self, k) for k in range(len(self.contexts))]
        self._states = {n: [nd.zeros(self._device_shape(self._input_shapes[n], k,
                                                        self._state_axis(n)), ctx=c)
                            for k, c in enumerate(self.contexts)] for n in self.state_names}
        self.shared_data_arrays = bind_shared_data(self, shared_group)

    def _placed_block(self, inputs, dtypes, k: int):
        """The graph of device ``k`` with its nodes placed by group (see ``_PlacedGraph``)."""
        return _PlacedGraph(self.symbol, self._params, inputs, self.group2ctxs[k],
                            self.contexts[k])

    def _input_ctx(self, name: str, k: int):
        """Where device ``k`` keeps input ``name``: its group's device, else the device's."""
        g2c = self.group2ctxs[k]
        group = self._input_groups.get(name)
        return g2c.get(group, self.contexts[k]) if g2c and group else self.contexts[k]

    def _set_shapes(self, data_shapes, label_shapes) -> None:
        self.data_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in data_shapes]
        self.label_shapes = None if label_shapes is None else \
            [d if isinstance(d, DataDesc) else DataDesc(*d) for d in label_shapes]
        self.data_names = [d.name for d in self.data_shapes]
        self.label_names = [d.name for d in self.label_shapes or []]
        self.data_layouts = [DataDesc.get_batch_axis(d.layout) for d in self.data_shapes]
        self.label_layouts = [DataDesc.get_batch_axis(d.layout)
                              for d in self.label_shapes or []]
        self.batch_size = self.data_shapes[0].shape[self.data_layouts[0]]
        self.slices = _split_input_slice(self.batch_size, self.workload)
        # inputs besides data and states: the labels (zeros when a batch has none)
        self._label_inputs = [n for n in self.arg_names if n not in self.param_names
                              and n not in self.data_names and n not in self.state_names]
        known = {d.name: tuple(d.shape) for d in self.data_shapes + (self.label_shapes or [])}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**known)
        if arg_shapes is None:
            raise MXNetError(f"Module: cannot infer the shapes of all arguments from "
                             f"{known}")
        self._arg_shapes = dict(zip(self.arg_names, arg_shapes))
        self._aux_shapes = dict(zip(self.aux_names, aux_shapes))
        self._input_shapes = {n: self._arg_shapes[n] for n in self.state_names}

    def _declare_params(self) -> None:
        known = {d.name: d.dtype for d in self.data_shapes + (self.label_shapes or [])}
        arg_types, _, aux_types = self.symbol.infer_type(**known)
        arg_types = dict(zip(self.arg_names, arg_types or [None] * len(self.arg_names)))
        aux_types = dict(zip(self.aux_names, aux_types or [None] * len(self.aux_names)))
        for name in self.param_names:
            param = self._params[name]
            param.shape = self._arg_shapes[name]
            param.dtype = arg_types[name] or np.float32
            param.grad_req = self.grad_req[name]
        for name in self.aux_names:
            self._params[name].shape = self._aux_shapes[name]
            self._params[name].dtype = aux_types[name] or np.float32
        # as MXNet's bind, every parameter has its arrays on every device from now on
        # (zeros until init_params/set_params copy values in): ``execs[k].arg_dict``
        for name in self.param_names + self.aux_names:
            param = self._params[name]
            if param._data is None and not param._deferred_init:
                param._load_init(nd.zeros(param.shape, dtype=param.dtype), self.contexts)

    def _state_axis(self, name: str) -> int:
        return 0

    def _device_shape(self, shape, k: int, axis: int = 0) -> tuple:
        sl = self.slices[k]
        return tuple(shape[:axis]) + (sl.stop - sl.start,) + tuple(shape[axis + 1:])

    def reshape(self, data_shapes, label_shapes) -> None:
        """New batch shapes; the engine re-plans on the next run."""
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    # -- parameters -----------------------------------------------------------------------------
    def set_params(self, arg_params: dict, aux_params: dict, allow_extra: bool = False) -> None:
        """Copy values onto every device."""
        for table in (arg_params, aux_params):
            for name, value in table.items():
                if name in self._params and (name in self.param_names
                                             or name in self.aux_names):
                    self._params[name]._load_init(value, self.contexts)
                elif not allow_extra and name not in self.arg_names:
                    raise ValueError(f"Find name \"{name}\" that is not in the arguments")

    def get_params(self, arg_params: dict, aux_params: dict) -> None:
        """Fill ``arg_params``/``aux_params`` with the values averaged over the devices."""
        for names, table in ((self.param_names, arg_params), (self.aux_names, aux_params)):
            for name in names:
                datas = self._params[name].list_data()
                total = datas[0].copyto(cpu())
                for d in datas[1:]:
                    total += d.copyto(cpu())
                value = total / len(datas) if len(datas) > 1 else total
                if name in table:
                    table[name][:] = value.astype(table[name].dtype)
                else:
                    table[name] = value

    @property
    def param_arrays(self) -> list:
        """Per parameter, its array on each device."""
        return [self._params[n].list_data() for n in self.param_names]

    @property
    def grad_arrays(self) -> list:
        """Per parameter with a gradient, the gradient on each device."""
        return [self._params[n].list_grad() for n in self.param_names
                if self._params[n].grad_req != "null"]

    @property
    def aux_arrays(self) -> list:
        """Per auxiliary state, its array on each device."""
        return [self._params[n].list_data() for n in self.aux_names]

    def _input_grad_buffer(self, k: int, i: int, like):
        """Device ``k``'s persistent gradient of data input ``i`` (``grad_req='add'``)."""
        bufs = self._input_grad_bufs
        buf = bufs.get((k, i))
        if buf is None or buf.shape != like.shape or buf.context != like.context:
            buf = bufs[(k, i)] = nd.zeros(like.shape, ctx=like.context, dtype=like.dtype)
        return buf

    @property
    def input_grad_arrays(self) -> list:
        if not self.inputs_need_grad or self._inputs is None:
            return []
        # a data input bound with grad_req 'null' has no gradient array (None), as in MXNet
        return [[None if self.grad_req.get(name) == "null" else inputs[i].grad
                 for inputs in self._inputs] for i, name in enumerate(self.data_names)]

    # -- running ---------------------------------------------------------------------------------
    def _current_inputs(self, k: int) -> dict:
        if self._inputs is None:
            return {}
        names = self.data_names + self._label_inputs + self.state_names
        return dict(zip(names, self._inputs[k]))

    def _device_inputs(self, data_batch) -> list:
        data = list(data_batch.data)
        labels = list(getattr(data_batch, "label", None) or [])
        per_device = []
        for k, sl in enumerate(self.slices):
            arrays = [_slice(d, sl, axis, self._input_ctx(name, k))
                      for d, axis, name in zip(data, self.data_layouts, self.data_names)]
            for name in self._label_inputs:
                ctx = self._input_ctx(name, k)
                if labels and name in self.label_names:
                    i = self.label_names.index(name)
                    axis = self.label_layouts[i] if self.label_layouts else 0
                    arrays.append(_slice(labels[i], sl, axis, ctx))
                else:  # no label given (prediction): zeros of the inferred shape
                    arrays.append(nd.zeros(self._device_shape(self._arg_shapes[name], k),
                                           ctx=ctx))
            arrays += [self._states[n][k] for n in self.state_names]
            per_device.append(arrays)
        return per_device

    def forward(self, data_batch, is_train: bool | None = None) -> None:
        """Run every device's share of ``data_batch``."""
        if is_train is None:
            is_train = self.for_training
        self._inputs = self._device_inputs(data_batch)
        outputs = []
        for k, (block, arrays) in enumerate(zip(self._blocks, self._inputs)):
            if self.inputs_need_grad and is_train:
                # own copies: attach_grad on the caller's array (another module's output)
                # would cut it from the graph that produced it
                for i, name in enumerate(self.data_names):
                    req = self.grad_req.get(name, "write")
                    if req == "null":
                        continue
                    arrays[i] = arrays[i].copy()
                    if req == "add":  # accumulates over backward calls, as MXNet's
                        autograd.mark_variables([arrays[i]],
                                                [self._input_grad_buffer(k, i, arrays[i])],
                                                "add")
                    else:
                        arrays[i].attach_grad()
            if is_train and self.for_training:
                with autograd.record(train_mode=True):
                    out = block(*arrays)
            elif is_train:
                with autograd.train_mode():
                    out = block(*arrays)
            else:
                with autograd.predict_mode():
                    out = block(*arrays)
            outputs.append(list(out) if isinstance(out, (list, tuple)) else [out])
        self._outputs = outputs
        self._is_train = is_train

    def backward(self, out_grads=None) -> None:
        """Gradients of the last training forward on every device."""
        if not self.for_training:
            raise MXNetError("Module.backward: the module was bound with for_training=False")
        if self._outputs is None or not self._is_train:
            raise MXNetError("Module.backward: call forward(is_train=True) first")
        if all(self.grad_req.get(n) == "null" for n in self.data_names) \
                and all(self._params[n].grad_req == "null" for n in self.param_names):
            return  # nothing to differentiate (a network without trainable parameters)
        grads = None
        if out_grads is not None:
            grads = out_grads if isinstance(out_grads, (list, tuple)) else [out_grads]
        for k, (outs, ctx) in enumerate(zip(self._outputs, self.contexts)):
            heads = None
            if grads is not None:
                heads = [_slice(g, self.slices[k], axis, ctx)
                         for g, axis in zip(grads, self.output_layouts)]
            autograd.backward(outs, head_grads=heads)

    def get_outputs(self, merge_multi_context: bool = True, begin: int = 0,
                    end: int | None = None) -> list:
        """Outputs ``begin:end``: merged over devices, or per output a list per device."""
        per_output = [list(outs) for outs in zip(*self._outputs)][begin:end]
        if not merge_multi_context:
            return per_output
        axes = self.output_layouts[begin:end]
        return [_merge(outs, axis) for outs, axis in zip(per_output, axes)]

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        per_input = self.input_grad_arrays
        if not merge_multi_context:
            return per_input
        return [_merge(g, axis) for g, axis in zip(per_input, self.data_layouts)]

    def get_states(self, merge_multi_context: bool = True) -> list:
        per_state = [self._states[n] for n in self.state_names]
        if not merge_multi_context:
            return per_state
        return [_merge(s, 0) for s in per_state]

    def set_states(self, states=None, value=None) -> None:
        if (states is None) == (value is None):
            raise ValueError("Module.set_states: give exactly one of states and value")
        for i, name in enumerate(self.state_names):
            for k, arr in enumerate(self._states[name]):
                if value is not None:
                    arr[:] = value
                else:
                    src = states[i][k] if isinstance(states[i], (list, tuple)) else states[i]
                    arr[:] = src.as_in_context(arr.context)

    def install_monitor(self, mon) -> None:
        """Install ``mx.mon.Monitor`` ``mon`` on every device."""
        for view in self.execs:
            mon.install(view)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """``eval_metric.update_dict`` per device with its labels and outputs."""
        for k, outs in enumerate(self._outputs):
            if pre_sliced:
                device_labels = labels[k]
            else:
                axes = self.label_layouts or [0] * len(labels)
                device_labels = [_slice(l, self.slices[k], axis, l.context)
                                 for l, axis in zip(labels, axes)]
            eval_metric.update_dict(dict(zip(self.label_names, device_labels)),
                                    dict(zip(self.output_names, outs)))
