"""The forward plan of one CachedOp signature (input shapes, dtypes, device, mode).

Everything that can be decided once is decided here: shapes and dtypes of every
entry (one inference pass), which entries are pinned, buffer assignments, and
the step tuples the hot loop runs.  :meth:`ForwardPlan.run` is the hot path.

A step whose outputs are all planned gets its buffers as ``out``; a step with a
pinned output (a head, an entry backward reads, a monitored entry) or an output
of unknown shape gets ``out=None`` and the operator allocates fresh arrays, so
nothing a caller keeps is ever overwritten by a later call.

A step whose backward reads per-call state (``OpDef.saved_state``) runs its
forward with ``keep_state=True`` and stores the state as one more result, in a
state slot past the graph's entries (see :mod:`.backward_plan`); a run's slot
list is its own, so concurrent or re-entrant calls never mix their states.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..base import MXNetError
from . import cuda_graph
from .backward_plan import BackwardPlan
from .graph_info import OpUnit
from .memory import make_view, plan_memory
from .placement import move_to

__all__ = ["ForwardPlan", "PlanOptions"]


class PlanOptions:
    """Plan-wide switches: ``static_alloc``, ``debug`` (poison freed buffers), ``monitor``."""

    __slots__ = ("static_alloc", "debug", "monitor", "monitor_all", "fusion", "placement",
                 "cuda_graph")

    def __init__(self, static_alloc=False, debug=False, monitor=None, monitor_all=False,
                 fusion=True, placement=None, cuda_graph=False):
        self.static_alloc = static_alloc
        # replay inference calls as CUDA graphs (static_alloc + static_shape on a GPU)
        self.cuda_graph = cuda_graph
        self.debug = debug
        self.monitor = monitor
        self.monitor_all = monitor_all
        self.fusion = fusion
        # per graph unit, the OpContext of its device (model parallelism; see placement.py)
        self.placement = placement


def infer_entries(info, in_shapes, in_dtypes):
    """Shapes and dtypes of every slot (``None`` where inference cannot tell), from the
    graphs layer's one inference (a single forward sweep when everything is known)."""
    from ..symbol.inference import complete, infer_slots
    n_in = len(in_shapes)
    shapes: list = [None] * info.n_slots
    dtypes: list = [None] * info.n_slots
    shapes[:n_in] = [tuple(s) for s in in_shapes]
    dtypes[:n_in] = [np.dtype(d) for d in in_dtypes]
    if not infer_slots(info, shapes, dtypes, label="CachedOp"):
        # plans want complete shapes (of Python ints: the label sees to it) or None,
        # where the operator then allocates; the inputs are what the arrays are
        shapes[:n_in] = [tuple(s) for s in in_shapes]
        dtypes[:n_in] = [np.dtype(d) for d in in_dtypes]
        for s in range(n_in, info.n_slots):
            if not complete(shapes[s]):
                shapes[s] = None
    return shapes, dtypes


def _with_inferred_shape(unit, shapes):
    """``unit`` with its ``shape`` attribute completed from inference when it is an
    input-less operator (``_zeros``, random samplers) given a partial shape."""
    spec = getattr(unit.op, "attrs", {}).get("shape")
    if unit.ins or spec is None or spec.kind != "shape" or not unit.outs:
        return unit  # (``_npi_gamma``'s ``shape`` is a distribution parameter)
    inferred = shapes[unit.outs[0]]
    if inferred is None or tuple(unit.attrs.shape) == inferred:
        return unit
    given = dict(unit.attrs._given)
    given["shape"] = inferred
    return OpUnit(unit.op, unit.op.parse_attrs(given), unit.name, unit.ins, unit.outs,
                  unit.node, unit.out_names, unit.in_names, unit.aux_pos)


def _as_array(r, xp):
    if type(r) is not xp.ndarray:
        r = xp.asarray(r)
    if r.ndim == 0:  # MXNet has no 0-d arrays
        r = r.reshape(1)
    return r


# Set by ``mx.profiler`` while it runs: plans then take the step-by-step path and record
# every operator (``profiler.operator(name, start_ns)``)
profiler = None


def _run_placed(fwd: Callable, oc, attrs, inputs) -> list:
    """One step of a placed plan on its device ``oc.ctx``, its inputs moved there."""
    ctx = oc.ctx
    if ctx.device_typeid == 2:
        with ctx.device():
            return fwd(oc, attrs, [move_to(x, ctx) for x in inputs], None)
    return fwd(oc, attrs, [move_to(x, ctx) for x in inputs], None)


def _keeping_state(forward: Callable, norm: bool) -> Callable:
    """The step function of a ``saved_state`` operator whose backward is planned: its
    results with the per-call state appended (stored in the step's state slot)."""
    def step(oc, attrs, ins, out):
        res, state = forward(oc, attrs, ins, out, keep_state=True)
        if norm:
            res = [_as_array(r, oc.xp) for r in res]
        else:
            res = list(res)
        res.append(state)
        return res
    return step


def _preparing(forward: Callable, prepare: Callable, slots: tuple, plan: "ForwardPlan",
               memo: list) -> Callable:
    """The step function of an operator with ``prepare`` whose prepared inputs are the
    plan's own inputs (``slots``): the prepared object is kept while those inputs are
    the same arrays at the same write versions (:meth:`ForwardPlan.run`'s ``versions``);
    without versions every call prepares afresh (inside ``forward``).  ``memo``,
    ``[key, prepared]``, is the node's, shared by the graph's plans (the key holds the
    storage records)."""

    def step(oc, attrs, ins, out):
        versions = plan.versions
        if versions is None:
            return forward(oc, attrs, ins, out)
        key = tuple([versions[s] for s in slots])
        if memo[0] != key:
            memo[1] = None   # drop the old object before building the new one
            memo[1] = prepare(oc, attrs, ins)
            memo[0] = key
        return forward(oc, attrs, ins, out, prepared=memo[1])
    return step


class ForwardPlan:
    """Compiled forward (and, when gradients are wanted, backward) of one signature.

    Parameters
    ----------
    info : GraphInfo
    in_shapes, in_dtypes : sequences
        One per graph input.
    oc : OpContext
        Array module, train/predict and device for every step.
    grad_mask : sequence of bool, optional
        Inputs whose gradients a later :meth:`backward` computes; ``None`` for inference.
    options : PlanOptions
    rewrite : callable, optional
        ``rewrite(units, pinned, shapes, dtypes, oc, grad) -> units`` (the GPU fusion
        hook): replaces groups of :class:`~.graph_info.OpUnit` by units whose ``op`` is
        any object with an OpDef's ``forward``, ``backward``, ``backward_uses``,
        ``differentiable``, ``random`` and ``name``; ``ins``/``outs`` are slot numbers
        (``info.entries[slot]`` is the graph entry).  Slots in ``pinned`` (heads,
        monitored entries) must stay outputs of some unit; with ``grad`` so must every
        slot that a unit left unfused reads in backward (per its ``backward_uses``).
        The backward plan is built over the rewritten units.
    """

    def __init__(self, info, in_shapes, in_dtypes, oc, grad_mask=None,
                 options: PlanOptions | None = None, rewrite: Callable | None = None):
        options = options or PlanOptions()
        self.info = info
        self.oc = oc
        self.options = options
        self.shapes, self.dtypes = infer_entries(info, in_shapes, in_dtypes)
        units = [_with_inferred_shape(u, self.shapes) for u in info.units]
        n_in = info.n_inputs
        pinned = set(info.heads)
        if options.monitor is not None:
            pinned.update(range(info.n_slots))
        self.backward_plan = None
        wants_grad = grad_mask is not None and any(grad_mask)
        placed = options.placement is not None
        if rewrite is not None and options.monitor is None and not placed:
            units = list(rewrite(units, frozenset(pinned), self.shapes, self.dtypes, oc,
                                 wants_grad))
        if wants_grad:
            # the backward plan decides which entries the forward run must keep
            self.backward_plan = BackwardPlan(info, units, self.shapes, self.dtypes, grad_mask)
            saved = self.backward_plan.saved_slots
            if rewrite is not None:
                made = set(range(n_in))
                for u in units:
                    made.update(u.outs)
                lost = [info.slot_names[s] for s in saved if s not in made and s < info.n_slots]
                if lost:
                    raise MXNetError(f"CachedOp: the graph rewrite dropped entries that "
                                     f"backward reads: {lost}")
            pinned.update(saved)
        self.units = units
        planned = []
        for u in units:
            # a placed plan's steps allocate on their own devices: no shared buffers
            planned.append(not placed and all(s not in pinned and self.shapes[s] is not None
                                              and self.dtypes[s] is not None for s in u.outs))
        self.memory = plan_memory([u.ins for u in units], [u.outs for u in units], planned,
                                  self.shapes, self.dtypes, reuse=options.monitor is None)
        self.planned = planned
        # hot-loop steps: (forward, attrs, input slots, output slots, normalize results)
        state_slots = self.backward_plan.state_slots if self.backward_plan is not None else {}
        # inputs whose write versions the caller passes to run (prepared steps read them)
        self.versioned_slots: set | tuple = set()
        self.versions = None
        steps = []
        for k, u in enumerate(units):
            norm = not planned[k] or bool(getattr(u.op, "random", False))
            slots = () if k in state_slots else self._prepared_slots(u, n_in)
            if k in state_slots:
                steps.append((_keeping_state(u.op.forward, norm), u.attrs, u.ins,
                              u.outs + (state_slots[k],), False))
            elif slots:
                memo = info.prepared.setdefault(u.outs[0], [None, None])
                steps.append((_preparing(u.op.forward, u.op.prepare, slots, self, memo),
                              u.attrs, u.ins, u.outs, norm))
                self.versioned_slots.update(slots)
            else:
                steps.append((u.op.forward, u.attrs, u.ins, u.outs, norm))
        self.steps = tuple(steps)
        self.versioned_slots = tuple(sorted(self.versioned_slots))
        self.written_aux = self._written_aux(units, info, oc.is_train)
        self.n_inputs = n_in
        self.heads = tuple(info.heads)
        # heads inferred 0-d (mx.np reductions): the steps hold them as (1,), as MXNet's
        # legacy arrays; they leave the plan 0-d
        self.scalar_heads = tuple(i for i, h in enumerate(self.heads)
                                  if self.shapes[h] is not None and tuple(self.shapes[h]) == ())
        self.head_is_input = any(h < n_in for h in self.heads)
        self._blank = [None] * (info.n_slots + len(state_slots))
        self._view_specs = [tuple((self.memory.slot_buffer[s], self.shapes[s], self.dtypes[s])
                                  for s in u.outs) if planned[k] else None
                            for k, u in enumerate(units)]
        self._static = None
        self._busy = False
        self._slow = bool(options.debug or options.monitor is not None or placed)
        # the device of each head (the call's device unless the plan is placed)
        self.head_ctxs = None
        if placed:
            made = {s: options.placement[k].ctx for k, u in enumerate(units) for s in u.outs}
            self.head_ctxs = tuple(made.get(h) for h in info.heads)
        self.n_allocations = 0  # planned-buffer allocations so far (tests static_alloc)
        # CUDA-graph replay (cuda_graph.py): built on the second inference call
        self.graph = None
        self._graph_ok = bool(options.cuda_graph) and not self._slow and \
            cuda_graph.usable(oc.xp)
        self._graph_prev = None
        self._graph_drops = 0
        if self.backward_plan is not None:
            self.saved_slots = tuple(self.backward_plan.saved_slots)

    @staticmethod
    def _written_aux(units, info, is_train: bool) -> tuple:
        """The graph's auxiliary inputs that some step may write in this plan's mode (the
        caller bumps their versions after a run): those read by a unit whose operator
        does not declare, through ``mutates_aux``, that it leaves them alone."""
        aux = set(info.aux_inputs)
        if not aux:
            return ()
        written = set()
        for u in units:
            mutates = getattr(u.op, "mutates_aux", None)
            if mutates is not None and not mutates(u.attrs, is_train):
                continue
            written.update(s for s in u.ins if s in aux)
        return tuple(sorted(written))

    @staticmethod
    def _prepared_slots(unit, n_in: int) -> tuple:
        """The plan-input slots feeding ``unit``'s prepared inputs, or ``()`` where the
        unit prepares nothing or a prepared input is computed inside the graph."""
        positions = getattr(unit.op, "prepared_inputs", None)
        if positions is None or getattr(unit.op, "prepare", None) is None:
            return ()
        slots = tuple(unit.ins[p] for p in positions(unit.attrs))
        return slots if slots and all(s < n_in for s in slots) else ()

    # -- buffers --------------------------------------------------------------------
    def _allocate(self):
        """Fresh planned buffers: (flat buffers, per-step ``out`` lists)."""
        xp = self.oc.xp
        flats = []
        for b, n in enumerate(self.memory.sizes):
            try:
                flats.append(xp.empty(n, dtype=np.uint8))
            except MemoryError as err:  # CuPy's OutOfMemoryError is one too
                raise self._allocation_error(b, n, err) from None
        self.n_allocations += len(flats)
        step_outs = []
        for spec in self._view_specs:
            if spec is None:
                step_outs.append(None)
            else:
                step_outs.append([make_view(xp, flats[b], sh, dt) for b, sh, dt in spec])
        return flats, step_outs

    def _buffers(self):
        # planned buffers never escape a call, so a finished call's set serves the next
        # one; a re-entrant (or concurrent) call gets its own set
        if self._busy:
            return self._allocate()
        if self._static is None:
            self._static = self._allocate()
        return self._static

    def release(self) -> None:
        """Drop the planned buffers (the CachedOp does this without ``static_alloc``
        when another signature runs)."""
        if not self._busy:
            self._static = None

    @property
    def planned_bytes(self) -> int:
        """Bytes of all planned (reused) buffers of this plan."""
        return self.memory.total_bytes

    @property
    def saved_bytes(self) -> int:
        """Bytes of the entries a call keeps for backward (beyond the inputs)."""
        if self.backward_plan is None:
            return 0
        total = 0
        for s in self.saved_slots:
            shape, dtype = self.shapes[s], self.dtypes[s]
            if s >= self.n_inputs and shape is not None and dtype is not None:
                total += int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        return total

    # -- running --------------------------------------------------------------------
    def run(self, datas: Sequence, keep: bool = False, versions: dict | None = None):
        """Run forward on raw input arrays.

        ``versions`` maps each slot of :attr:`versioned_slots` to a token that changes
        whenever that input's values may have (its storage record and write version):
        prepared steps keep their work while the tokens stay; ``None`` prepares afresh.

        Returns
        -------
        (list, list or None)
            The head arrays, and with ``keep`` the saved entries backward needs.
        """
        self.versions = versions
        if self._graph_ok and not keep and not self._busy and profiler is None:
            heads = self._run_graph(datas)
            if heads is not None:
                return heads, None
        slots = self._blank[:]
        slots[:self.n_inputs] = datas
        busy = self._busy
        static = self._static
        flats, step_outs = static if (static is not None and not busy) else self._buffers()
        self._busy = True
        try:
            if self._slow or profiler is not None:
                self._run_slow(slots, flats, step_outs)
            else:
                oc = self.oc
                xp = oc.xp
                step = None
                try:
                    for step, ob in zip(self.steps, step_outs):
                        fwd, attrs, ins, outs, norm = step
                        if len(ins) == 1:
                            res = fwd(oc, attrs, [slots[ins[0]]], ob)
                        else:
                            res = fwd(oc, attrs, [slots[i] for i in ins], ob)
                        if len(outs) == 1:
                            r = res[0]
                            slots[outs[0]] = _as_array(r, xp) if norm else r
                        elif norm:
                            for s, r in zip(outs, res):
                                slots[s] = _as_array(r, xp)
                        else:
                            for s, r in zip(outs, res):
                                slots[s] = r
                except MXNetError:
                    raise
                except Exception as err:
                    raise self._explain(step, slots, err) from err
        finally:
            self._busy = busy
        if self.head_is_input:
            heads = [slots[h].copy() if h < self.n_inputs else slots[h] for h in self.heads]
        else:
            heads = [slots[h] for h in self.heads]
        if self.scalar_heads:
            for i in self.scalar_heads:
                heads[i] = heads[i].reshape(())
        if keep and self.backward_plan is not None:
            return heads, [slots[s] for s in self.saved_slots]
        return heads, None

    def _run_graph(self, datas):
        """Heads from the CUDA-graph replay, or ``None`` to run step by step (the
        first call, a failed capture, a rebound parameter)."""
        replay = self.graph
        if replay is not None:
            heads = replay.run(datas)
            if heads is None:               # a parameter was rebound: capture again later
                self.graph = None
                self._graph_drops += 1
                self._graph_ok = self._graph_drops < cuda_graph.MAX_REBUILDS
            return heads
        previous, self._graph_prev = self._graph_prev, list(datas)
        if previous is None or self._static is None:
            return None
        self._graph_prev = None
        try:
            self.graph = cuda_graph.GraphReplay.build(self, list(datas), previous)
        except Exception:   # noqa: BLE001 - capture is an optimisation: run normally
            self.graph = None
        if self.graph is None:
            self._graph_ok = False
            return None
        return self.graph.run(datas)

    def _run_slow(self, slots, flats, step_outs):
        """Debug (poison freed buffers) and monitor run."""
        oc = self.oc
        opts = self.options
        mon = opts.monitor
        release = self.memory.release_after
        n_entries = self.info.n_slots
        if opts.debug:
            for f in flats:  # nothing may rely on what a buffer held before
                f.fill(255)
        n_in = self.n_inputs
        slot_names = self.info.slot_names
        placement = opts.placement
        for k, (u, step, ob) in enumerate(zip(self.units, self.steps, step_outs)):
            fwd, attrs, ins, outs, _ = step
            if mon is not None and opts.monitor_all:
                # as MXNet: a graph input's value right before each operator input
                # that reads it, then that operator input
                for name, s in zip(u.in_names, ins):
                    if s < n_in:
                        mon(slot_names[s], slots[s])
                    mon(f"{u.name}_{name}", slots[s])
            step_oc = oc if placement is None else placement[k]
            prof = profiler
            if prof is not None:
                t0 = prof.clock()
            try:
                if placement is None:
                    res = fwd(oc, attrs, [slots[i] for i in ins], ob)
                else:
                    res = _run_placed(fwd, step_oc, attrs, [slots[i] for i in ins])
            except MXNetError:
                raise
            except Exception as err:
                raise self._explain(step, slots, err) from err
            if prof is not None:
                prof.operator(u.op.name, t0)
            for s, r in zip(outs, res):
                # past the entries: a state slot
                slots[s] = _as_array(r, step_oc.xp) if s < n_entries else r
            if mon is not None:
                for name, s in zip(u.out_names, outs):
                    mon(name, slots[s])
            if opts.debug:
                for b in release[k]:
                    flats[b].fill(255)  # NaN for floats, -1 for integers

    def _allocation_error(self, buffer: int, nbytes: int, err) -> MXNetError:
        """The error for a planned buffer that cannot be allocated, naming the first
        operator whose output it holds."""
        for u, spec in zip(self.units, self._view_specs):
            for b, shape, dtype in spec or ():
                if b == buffer:
                    return MXNetError(
                        f"CachedOp: cannot allocate {nbytes} bytes for the output of "
                        f"operator {u.op.name} (node {u.name}), shape {tuple(shape)} "
                        f"{np.dtype(dtype).name}: {err}")
        return MXNetError(f"CachedOp: cannot allocate a planned buffer of {nbytes} bytes: "
                          f"{err}")

    def _explain(self, step, slots, err) -> MXNetError:
        if step is None:
            return MXNetError(f"CachedOp: {type(err).__name__}: {err}")
        k = self.steps.index(step)
        u = self.units[k]
        shapes = ", ".join(str(tuple(getattr(slots[s], "shape", ()))) for s in u.ins)
        return MXNetError(f"CachedOp: operator {u.op.name} (node {u.name}) failed: "
                          f"{type(err).__name__}: {err} (input shapes: {shapes})")

    def backward(self, saved: list, head_grads: Sequence, oc=None) -> list:
        """Input gradients from the entries saved by :meth:`run` and the head gradients."""
        if self.backward_plan is None:
            return [None] * self.n_inputs
        return self.backward_plan.run(oc or self.oc, saved, head_grads,
                                      monitor=self.options.monitor,
                                      placement=self.options.placement)
