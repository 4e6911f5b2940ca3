"""``CachedOp``: a graph compiled per input signature and run as one operation.

A call looks up the plan of its signature (input shapes, dtypes, device,
training mode and, while autograd records, which inputs want gradients),
building it on first use, then runs the plan's prepared steps.  While
recording, the whole call becomes one tape entry whose backward runs the
plan's backward steps.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from .. import autograd as _ag
from ..autograd import _state
from ..base import MXNetError
from ..context import current_context
from ..ndarray.invoke import _op_context, invoke
from .graph_info import GraphInfo
from .placement import move_to, unit_contexts
from .plan import ForwardPlan, PlanOptions

__all__ = ["CachedOp", "CachedOpCall"]

_NDArray = None


def _nd_class():
    global _NDArray
    from ..ndarray.ndarray import NDArray
    _NDArray = NDArray
    return NDArray

_BOOL_FLAGS = ("static_alloc", "static_shape", "debug", "monitor_all")


def _versions(plan: ForwardPlan, inputs: Sequence) -> dict:
    """Per versioned input slot of ``plan``: its storage record and write version (the
    record is created here, so that every later in-place write of the array bumps it)."""
    out = {}
    for s in plan.versioned_slots:
        chunk = inputs[s]._get_chunk()
        out[s] = (chunk, chunk.version)
    return out


def _parse_flags(flags) -> dict:
    if flags is None:
        return {}
    items = flags.items() if isinstance(flags, dict) else list(flags)
    out = {}
    for key, value in items:
        if key in _BOOL_FLAGS and isinstance(value, str):
            value = value.strip().lower() in ("true", "1")
        out[key] = value
    return out


def _debug_env() -> bool:
    return os.environ.get("GLUONLITE_ENGINE_DEBUG", "") not in ("", "0")


class CachedOpCall:
    """The tape entry of one recorded CachedOp call (autograd's ``function`` role)."""

    __slots__ = ("plan", "saved", "input_ctxs", "graph")

    def __init__(self, plan: ForwardPlan, saved: list, input_ctxs=None, graph=None):
        self.plan = plan
        self.saved = saved
        self.input_ctxs = input_ctxs  # a placed plan's gradients go back to these devices
        self.graph = graph  # the CachedOp's Symbol (``autograd.get_symbol`` shows it)

    def _run_backward(self, out_grads: list) -> list:
        plan = self.plan
        ctx = plan.oc.ctx
        if ctx.device_typeid == 2:
            with ctx.device():
                grads = plan.backward(self.saved, out_grads)
        else:
            grads = plan.backward(self.saved, out_grads)
        if self.input_ctxs is not None:
            grads = [g if g is None else move_to(g, c) for g, c in zip(grads, self.input_ctxs)]
        return grads

    def heads_read(self) -> tuple:
        """Per head of the graph, whether the backward of this call reads its gradient
        (all ``False`` when the call kept no backward)."""
        bplan = self.plan.backward_plan
        return bplan.heads_read if bplan is not None else \
            (False,) * len(self.plan.info.heads)

    def backward(self, *out_grads):
        raise MXNetError("CachedOp does not support higher-order gradients "
                         "(autograd.grad with create_graph=True)")


class CachedOp:
    """A symbol compiled for fast repeated calls (MXNet's ``mx.nd.CachedOp``).

    Parameters
    ----------
    sym : Symbol
        The graph (only its ``_heads`` entries are used).
    flags : sequence of (str, value) pairs or dict
        ``static_alloc`` (planned buffers persist across calls), ``static_shape``,
        ``data_indices``/``param_indices`` (kept for Gluon), ``debug`` (poison freed
        buffers; also the environment variable ``GLUONLITE_ENGINE_DEBUG=1``),
        ``inline_limit`` (default 2: a recorded call of a graph of at most that many
        operators, without ``static_alloc``, is put on the tape operator by operator,
        as MXNet inlines it; a larger graph is one tape entry).
    """

    def __init__(self, sym, flags=()):
        self.flags = _parse_flags(flags)
        self._sym = sym
        self._info = GraphInfo(sym._heads)
        self._plans: dict = {}
        self._last: ForwardPlan | None = None
        self._monitor: Callable | None = None
        self._monitor_all = False
        self.static_alloc = bool(self.flags.get("static_alloc", False))
        self.static_shape = bool(self.flags.get("static_shape", False))
        self.data_indices = self.flags.get("data_indices")
        self.param_indices = self.flags.get("param_indices")
        self._debug = bool(self.flags.get("debug", False)) or _debug_env()
        # model parallelism: ctx_group name -> Context (MXNet's group2ctx), and the device
        # of nodes without a mapped group (default: the first input's)
        self._group2ctx = dict(self.flags.get("group2ctx") or {})
        self._group_default_ctx = self.flags.get("group_default_ctx")
        self._n_heads = len(self._info.heads)
        self._n_in = self._info.n_inputs
        limit = self.flags.get("inline_limit", 2)
        self._inline_limit = int(limit) if limit is not None else 2
        self._inline = self._can_inline()

    # -- introspection ------------------------------------------------------------------
    def list_inputs(self) -> list:
        """Input names in call order (arguments and auxiliary states as the graph meets them)."""
        return list(self._info.input_names)

    @property
    def num_inputs(self) -> int:
        return self._info.n_inputs

    @property
    def plans(self) -> dict:
        """The plans built so far, by signature."""
        return self._plans

    def set_monitor_callback(self, callback: Callable | None, monitor_all: bool = False) -> None:
        """Report every node's outputs (and with ``monitor_all`` its inputs) to
        ``callback(name, NDArray)``; disables buffer reuse.  ``None`` turns it off."""
        self._monitor = callback
        self._monitor_all = bool(monitor_all)
        self._plans.clear()
        self._last = None
        self._inline = self._can_inline()

    def _can_inline(self) -> bool:
        """Whether a recorded call puts the graph's operators on the tape one by one
        (MXNet's ``inline_limit``: a graph of at most that many operators, without
        ``static_alloc``) instead of one entry for the whole call.

        Graphs that read a hidden operator output, return an input as a head, place
        operators on several devices or report to a monitor stay one entry.
        """
        info = self._info
        if (self.static_alloc or self._group2ctx or self._monitor is not None
                or len(info.units) > self._inline_limit):
            return False
        hidden = set()
        for u in info.units:
            n_vis = u.op.num_visible_outputs(u.attrs)
            hidden.update(u.outs[n_vis:])
        for u in info.units:
            if hidden.intersection(u.ins):
                return False
        for h in info.heads:
            if h < info.n_inputs or h in hidden:
                return False
        return True

    # -- plans --------------------------------------------------------------------------
    def _plan(self, datas, ctx, is_train: bool, mask):
        key = (tuple([d.shape for d in datas]), tuple([d.dtype for d in datas]),
               ctx.device_typeid, ctx.device_id, is_train, mask)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._build(key, ctx, is_train, mask)
        if self._last is not plan:
            self._switch(plan)
        return plan

    def _switch(self, plan) -> None:
        last = self._last
        if last is not None and not self.static_alloc:
            last.release()  # without static_alloc only the current plan keeps buffers
        self._last = plan

    def _build(self, key, ctx, is_train, mask) -> ForwardPlan:
        shapes, dtypes = key[0], key[1]
        if self._last is not None and not self.static_alloc:
            self._last.release()
            self._last = None
        oc = _op_context(ctx, is_train)
        monitor = None
        if self._monitor is not None:
            cb = self._monitor
            from ..ndarray.ndarray import NDArray

            def monitor(name, data, _cb=cb, _ctx=ctx):
                _cb(name, NDArray(data, _ctx))
        placement = None
        if self._group2ctx:
            default = self._group_default_ctx or ctx
            ctxs = unit_contexts(self._info.units, self._group2ctx, default)
            if ctxs is not None:
                placement = tuple(_op_context(c, is_train) for c in ctxs)
        options = PlanOptions(static_alloc=self.static_alloc, debug=self._debug,
                              monitor=monitor, monitor_all=self._monitor_all,
                              placement=placement,
                              cuda_graph=(self.static_alloc and self.static_shape
                                          and ctx.device_typeid == 2))
        rewrite = _fusion_pass() if ctx.device_typeid == 2 else _cpu_pass()
        if ctx.device_typeid == 2:
            with ctx.device():
                plan = ForwardPlan(self._info, shapes, dtypes, oc, mask, options, rewrite)
        else:
            plan = ForwardPlan(self._info, shapes, dtypes, oc, mask, options, rewrite)
        self._plans[key] = plan
        return plan

    def _check_inputs(self, inputs):
        """The inputs' device; raises ``MXNetError`` on a wrong count or mixed devices."""
        n = self._info.n_inputs
        if len(inputs) != n:
            raise MXNetError(f"CachedOp: expected {n} inputs {self._info.input_names}, "
                             f"got {len(inputs)}")
        if not n:
            return current_context()
        ctx = inputs[0]._ctx
        if self._group2ctx:
            return ctx  # placed across devices: each step moves what it reads
        for x in inputs:
            if x._ctx is not ctx and x._ctx != ctx:
                raise MXNetError(f"CachedOp: inputs live on different devices ({ctx} and "
                                 f"{x._ctx}); copy them to one with as_in_context")
        return ctx

    # -- calls --------------------------------------------------------------------------
    def __call__(self, *inputs, out=None, default_ctx=None):
        """Run the graph on NDArray inputs (in :meth:`list_inputs` order).

        ``default_ctx`` is the device of a graph without inputs (default: the current
        context).  Returns the head outputs: one NDArray, or a list when there are several.
        """
        if len(inputs) != self._n_in:
            self._check_inputs(inputs)
        if inputs:
            ctx = inputs[0]._ctx
            datas = []
            for x in inputs:
                # equal Contexts are often distinct objects (every loaded parameter has
                # its own): compare before the full check, which only reports the error
                if x._ctx is not ctx and x._ctx != ctx:
                    self._check_inputs(inputs)
                datas.append(x._data)
        else:
            ctx = default_ctx if default_ctx is not None else current_context()
            datas = []
        parents = mask = None
        if _state.recording:
            parents, mask = self._grad_parents(inputs)
        plan = self._plan(datas, ctx, _state.training, mask)
        if mask is not None and self._inline and not plan.scalar_heads:
            return self._call_inline(inputs, out)
        versions = _versions(plan, inputs) if plan.versioned_slots else None
        if ctx.device_typeid == 2:
            with ctx.device():
                heads, saved = plan.run(datas, mask is not None, versions)
        else:
            heads, saved = plan.run(datas, mask is not None, versions)
        for i in plan.written_aux:
            inputs[i]._bump()
        nd = _NDArray or _nd_class()
        if plan.head_ctxs is not None:
            outputs = [nd(h, c or ctx) for h, c in zip(heads, plan.head_ctxs)]
        elif self._n_heads == 1:
            outputs = [nd(heads[0], ctx)]
        else:
            outputs = [nd(h, ctx) for h in heads]
        if mask is not None:
            self._record(plan, saved, inputs, parents, outputs)
        if out is not None:
            return self._deliver(outputs, out, nd)
        return outputs[0] if self._n_heads == 1 else outputs

    def _deliver(self, outputs: list, out, nd):
        """The call's result: ``outputs`` (copied into ``out`` when given), one array
        for a one-head graph."""
        if out is not None:
            outs = [out] if isinstance(out, nd) else list(out)
            for o, y in zip(outs, outputs):
                y.copyto(o)
            outputs = outs
        return outputs[0] if self._n_heads == 1 else outputs

    def _call_inline(self, inputs, out):
        """A recorded call run operator by operator, each one its own tape entry (so
        ``autograd.get_symbol`` shows the operators, as MXNet does for inlined graphs)."""
        info = self._info
        nd = _NDArray or _nd_class()
        values = list(inputs) + [None] * (info.n_slots - info.n_inputs)
        for u in info.units:
            res = invoke(u.op, [values[s] for s in u.ins], u.attrs)
            if isinstance(res, nd):
                values[u.outs[0]] = res
            else:
                for s, r in zip(u.outs, res):
                    values[s] = r
        return self._deliver([values[h] for h in info.heads], out, nd)

    def _grad_parents(self, inputs):
        """Tape parents of the inputs and the mask of inputs that want gradients."""
        parents = [_ag.live_entry(x) if x._entry is not None
                   else (x if x._grad_req is not None and x._grad_req != "null" else None)
                   for x in inputs]
        for i in self._info.aux_inputs:
            parents[i] = None
        mask = tuple([p is not None for p in parents])
        if not any(mask):
            return None, None
        return parents, mask

    def _record(self, plan, saved, inputs, parents, outputs) -> None:
        """Put one tape entry for this call: its backward runs the plan's backward."""
        chunks = []
        n_in = plan.n_inputs
        aux = self._info.aux_inputs
        for s in plan.saved_slots:
            if s < n_in and s not in aux:
                chunks.append(inputs[s]._get_chunk())
        heads = plan.heads
        for k, y in enumerate(outputs):
            if heads[k] in plan.saved_slots:
                chunks.append(y._get_chunk())
        input_ctxs = [x._ctx for x in inputs] if plan.head_ctxs is not None else None
        node = _ag.Node(None, None, parents, None, None, chunks, plan.oc.is_train,
                        plan.oc.ctx, [y.shape for y in outputs], [y._data.dtype for y in outputs],
                        function=CachedOpCall(plan, saved, input_ctxs, self._sym))
        node.null_leaves = _ag.null_leaves(inputs)
        for k, y in enumerate(outputs):
            y._entry = (node, k)

    # -- lower-level API (Executor, Module) ------------------------------------------------
    def forward(self, inputs: Sequence, is_train: bool = False,
                need_grad: bool | Sequence[bool] = False):
        """Run forward without touching the autograd tape.

        Parameters
        ----------
        inputs : list of NDArray
            In :meth:`list_inputs` order.
        is_train : bool
        need_grad : bool or sequence of bool
            Inputs whose gradients a later :meth:`backward` computes (``True``: every
            input that is not an auxiliary state).

        Returns
        -------
        (list of NDArray, state)
            All head outputs and the state :meth:`backward` needs (``None`` without grads).
        """
        NDArray = _NDArray or _nd_class()
        ctx = self._check_inputs(inputs)
        mask = self._grad_mask(need_grad)
        datas = [x._data for x in inputs]
        plan = self._plan(datas, ctx, bool(is_train), mask)
        versions = _versions(plan, inputs) if plan.versioned_slots else None
        if ctx.device_typeid == 2:
            with ctx.device():
                heads, saved = plan.run(datas, mask is not None, versions)
        else:
            heads, saved = plan.run(datas, mask is not None, versions)
        for i in plan.written_aux:
            inputs[i]._bump()
        input_ctxs = [x._ctx for x in inputs] if plan.head_ctxs is not None else None
        state = None if mask is None else CachedOpCall(plan, saved, input_ctxs)
        head_ctxs = plan.head_ctxs or [ctx] * len(heads)
        return [NDArray(h, c or ctx) for h, c in zip(heads, head_ctxs)], state

    def plan_for(self, inputs: Sequence, is_train: bool = False,
                 need_grad: bool | Sequence[bool] = False) -> ForwardPlan:
        """The plan a :meth:`forward` with these arguments runs (built if needed, not run)."""
        ctx = self._check_inputs(inputs)
        datas = [x._data for x in inputs]
        plan = self._plan(datas, ctx, bool(is_train), self._grad_mask(need_grad))
        return plan

    def _grad_mask(self, need_grad):
        n = self._info.n_inputs
        if need_grad is True:
            mask = tuple(i not in self._info.aux_inputs for i in range(n))
        elif not need_grad:
            mask = None
        else:
            mask = tuple(bool(m) and i not in self._info.aux_inputs
                         for i, m in enumerate(need_grad))
        return mask if mask is not None and any(mask) else None

    def backward(self, state: CachedOpCall, out_grads: Sequence) -> list:
        """Input gradients (raw arrays, ``None`` where not wanted) of a :meth:`forward` run.

        ``out_grads`` has one NDArray, raw array or ``None`` per head.
        """
        if state is None:
            raise MXNetError("CachedOp.backward: the forward run kept no gradient state; "
                             "run forward with is_train=True and need_grad")
        grads = [getattr(g, "_data", g) for g in out_grads]
        return state._run_backward(grads)


def _cpu_pass():
    """The CPU (NumPy) rewrite: folded inference BatchNorm, ReLU in place
    (:mod:`gluonlite.engine.cpu_rewrite`; same contract as :func:`_fusion_pass`)."""
    from .cpu_rewrite import rewrite
    return rewrite


def _fusion_pass():
    """The GPU fusion rewrite, if the fusion module provides one.

    Contract: ``gluonlite.engine.fusion.rewrite(units, pinned, shapes, dtypes, oc, grad)``
    returns a list of :class:`~gluonlite.engine.graph_info.OpUnit` in which groups of
    units may be replaced by one unit whose ``op`` has an OpDef's ``forward``,
    ``backward``, ``backward_uses``, ``differentiable``, ``random`` and ``name``
    (see :class:`~gluonlite.engine.plan.ForwardPlan`).
    """
    try:
        from . import fusion
    except ImportError:
        return None
    return getattr(fusion, "rewrite", None)
