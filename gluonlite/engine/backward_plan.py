"""The backward plan of a CachedOp signature.

Only operator steps that lie on a path from an input that wants a gradient to a
head are kept, and only the entries their ``backward`` reads (per
``op.backward_uses``) are saved by the forward run.  Steps run in reverse
order; gradients of entries read by several steps are summed.

A kept step whose operator declares ``saved_state`` also gets a state slot,
numbered past the graph's entries: the forward plan runs that step with
``keep_state=True`` and stores the state there, among the saved entries of the
call, and this plan hands it to the step's ``backward`` as ``state``.  State thus
lives exactly as long as the call's saved entries (the tape entry, or the
Executor's forward state).
"""
from __future__ import annotations

import functools

from typing import Sequence

from ..base import MXNetError
from .grad_check import check_fgradient
from .placement import move_to

__all__ = ["BackwardPlan"]

# Set by ``mx.profiler`` while it runs: each backward step is recorded as
# ``_backward_<op>`` (``profiler.operator(name, start_ns)``)
profiler = None


class BackwardPlan:
    """Reverse-mode steps for one forward plan and one set of inputs that need gradients.

    Parameters
    ----------
    info : GraphInfo
    units : list of OpUnit
        The forward steps (possibly fused groups).
    shapes, dtypes : list
        Per slot (``None`` where unknown).
    grad_mask : sequence of bool
        Per graph input: whether its gradient is wanted.

    Attributes
    ----------
    saved_slots : list of int
        Slots the forward run must keep (in this order) for :meth:`run`.
    state_slots : dict of int to int
        For each forward step (position in ``units``) whose per-call state backward
        reads, the slot its forward stores the state in (``>= info.n_slots``).
    """

    def __init__(self, info, units, shapes, dtypes, grad_mask: Sequence[bool]):
        # MXNet builds the gradient graph of a recorded CachedOp call (and of a bound
        # executor) over every node the heads reach: one without FGradient raises
        check_fgradient(info)
        n_in = info.n_inputs
        reach = [False] * info.n_slots
        for i in range(n_in):
            reach[i] = bool(grad_mask[i])
        on_path = []
        for k, u in enumerate(units):
            # a zero-gradient operator (stop_gradient) passes nothing back: pruned
            if u.op.differentiable and not getattr(u.op, "zero_gradient", False) \
                    and any(reach[s] for s in u.ins):
                for s in u.outs:
                    reach[s] = True
                on_path.append((k, u))
        # keep the steps whose outputs flow into a head
        useful = set(info.heads)
        kept = []
        for k, u in reversed(on_path):
            if any(s in useful for s in u.outs):
                kept.append((k, u))
                useful.update(s for s in u.ins if reach[s])
        saved: dict[int, int] = {}

        def pos(s):
            if s not in saved:
                saved[s] = len(saved)
            return saved[s]

        steps = []
        monitor_names, monitor_zeros, step_units, op_names = [], [], [], []
        state_slots: dict[int, int] = {}
        for k, u in kept:  # already reversed
            uses = u.op.backward_uses
            in_pos = tuple(pos(s) for s in u.ins) if "inputs" in uses else None
            out_pos = tuple(pos(s) for s in u.outs) if "outputs" in uses else None
            zero_specs = []
            for s in u.outs:
                if shapes[s] is None or dtypes[s] is None:
                    zero_specs.append((None, pos(s)))  # shape known only at run time
                else:
                    zero_specs.append((tuple(shapes[s]), dtypes[s]))
            targets = tuple((j, s) for j, s in enumerate(u.ins)
                            if reach[s] and s in useful and j not in u.aux_pos)
            bwd = u.op.backward
            if getattr(u.op, "backward_mask", False):
                # tell the op which input gradients are wanted (see OpDef.backward_mask)
                wanted = {j for j, _ in targets}
                bwd = functools.partial(bwd, need=tuple(j in wanted for j in range(len(u.ins))))
            state_pos = None
            if getattr(u.op, "saved_state", False):
                state_slots[k] = info.n_slots + len(state_slots)
                state_pos = pos(state_slots[k])
            steps.append((bwd, u.attrs, in_pos, out_pos, u.outs, tuple(zero_specs),
                          targets, state_pos, u.name))
            monitor_names.append(_backward_output_names(u.name, len(u.ins)))
            step_units.append(k)
            op_names.append("_backward_" + getattr(u.op, "name", type(u.op).__name__))
            monitor_zeros.append(tuple((shapes[s], dtypes[s]) for s in u.ins))
        self.steps = steps
        # what a monitor is shown per step: MXNet's backward node outputs, one gradient
        # per input of the forward node (zeros where none is computed)
        self._monitor_names = monitor_names
        self._monitor_zeros = monitor_zeros
        self._step_units = step_units  # the forward unit of each step (placement)
        self._op_names = op_names      # what the profiler calls each step
        self.state_slots = state_slots
        self.saved_slots = list(saved)
        self.n_slots = info.n_slots
        self.n_inputs = n_in
        self.heads = list(info.heads)
        self.grad_inputs = tuple(i for i in range(n_in) if grad_mask[i])
        # per head, whether a run reads its gradient: it is an output of a step on the
        # gradient path or a wanted input itself (a loss layer's output, shape_array's,
        # argsort's indices are not, and MXNet neither needs nor checks theirs)
        # (of a step's outputs, those whose gradient its operator's backward reads)
        read = set()
        for k, u in kept:
            mask = u.op.reads_out_grads(u.attrs) if hasattr(u.op, "reads_out_grads") \
                else None
            read.update(u.outs if mask is None else
                        (s for s, r in zip(u.outs, mask) if r))
        read.update(self.grad_inputs)
        self.heads_read = tuple(s in read for s in self.heads)
        # wanted gradients no step produces (the input feeds only a stop_gradient, or
        # nothing): zeros, which MXNet writes for them
        self._zero_inputs = tuple((i, tuple(shapes[i]), dtypes[i]) for i in self.grad_inputs
                                  if i not in useful and shapes[i] is not None
                                  and dtypes[i] is not None)
        self.n_steps = len(steps)

    def run(self, oc, saved: list, head_grads: Sequence, monitor=None,
            placement=None) -> list:
        """Input gradients (raw arrays or ``None``) from the saved entries and head gradients.

        ``head_grads`` holds one raw array (or ``None``: no gradient) per head.
        ``monitor(name, array)``, when given, sees each step's input gradients under
        MXNet's backward node output names (``fc_backward_output0``, ...).
        ``placement`` (per forward unit, an OpContext) runs each step on its unit's device,
        moving what it reads there; gradients summed across devices meet on the device of
        the first one.
        """
        if placement is not None:
            return self._run_placed(saved, head_grads, monitor, placement)
        prof = profiler
        xp = oc.xp
        g = [None] * self.n_slots
        for s, hg in zip(self.heads, head_grads):
            if hg is not None:
                prev = g[s]
                g[s] = hg if prev is None else prev + hg
        for k, (bwd, attrs, in_pos, out_pos, outs, zero_specs, targets, st, name) in \
                enumerate(self.steps):
            ograds = []
            for s, (shape, dt) in zip(outs, zero_specs):
                v = g[s]
                if v is None:
                    if shape is None:  # unknown at plan time: the saved output tells
                        ref = saved[dt]
                        v = xp.zeros(ref.shape, ref.dtype)
                    else:
                        v = xp.zeros(shape, dt)
                else:
                    g[s] = None
                ograds.append(v)
            ins = None if in_pos is None else [saved[p] for p in in_pos]
            outs_v = None if out_pos is None else [saved[p] for p in out_pos]
            if prof is not None:
                t0 = prof.clock()
            try:
                if st is None:
                    res = bwd(oc, attrs, ins, outs_v, ograds)
                else:
                    res = bwd(oc, attrs, ins, outs_v, ograds, state=saved[st])
            except MXNetError:
                raise
            except Exception as err:
                raise MXNetError(f"CachedOp backward of node {name}: {type(err).__name__}: "
                                 f"{err}") from err
            if prof is not None:
                prof.operator(self._op_names[k], t0)
            if monitor is not None:
                self._report(monitor, xp, k, res)
            for j, s in targets:
                r = res[j]
                if r is None:
                    continue
                prev = g[s]
                g[s] = r if prev is None else prev + r
        for i, shape, dt in self._zero_inputs:
            g[i] = xp.zeros(shape, dt)
        return g[:self.n_inputs]

    def _run_placed(self, saved, head_grads, monitor, placement) -> list:
        """:meth:`run` of a placed plan: the same steps, each on its own device.  Kept
        apart from :meth:`run`'s loop: folding the moves into it cost that hot loop ~15%
        per node (``bench_cachedop.py``, record + backward)."""
        g = [None] * self.n_slots
        for s, hg in zip(self.heads, head_grads):
            if hg is not None:
                g[s] = hg if g[s] is None else g[s] + move_to(hg, _ctx_of(g[s]))
        for k, (bwd, attrs, in_pos, out_pos, outs, zero_specs, targets, st, name) in \
                enumerate(self.steps):
            oc = placement[self._step_units[k]]
            ctx, xp = oc.ctx, oc.xp
            with (ctx.device() if ctx.device_typeid == 2 else _no_scope()):
                ograds = []
                for s, (shape, dt) in zip(outs, zero_specs):
                    v = g[s]
                    if v is None:
                        ref = saved[dt] if shape is None else None
                        v = xp.zeros(ref.shape if ref is not None else shape,
                                     ref.dtype if ref is not None else dt)
                    else:
                        g[s] = None
                    ograds.append(move_to(v, ctx))
                ins = None if in_pos is None else [move_to(saved[p], ctx) for p in in_pos]
                outs_v = None if out_pos is None else [move_to(saved[p], ctx) for p in out_pos]
                try:
                    if st is None:
                        res = bwd(oc, attrs, ins, outs_v, ograds)
                    else:
                        res = bwd(oc, attrs, ins, outs_v, ograds, state=saved[st])
                except MXNetError:
                    raise
                except Exception as err:
                    raise MXNetError(f"CachedOp backward of node {name}: "
                                     f"{type(err).__name__}: {err}") from err
            if monitor is not None:
                self._report(monitor, xp, k, res)
            for j, s in targets:
                r = res[j]
                if r is None:
                    continue
                prev = g[s]
                g[s] = r if prev is None else prev + move_to(r, _ctx_of(prev))
        if self._zero_inputs:
            xp = placement[self._step_units[0]].xp if self._step_units else \
                placement[0].xp
            for i, shape, dt in self._zero_inputs:
                g[i] = xp.zeros(shape, dt)
        return g[:self.n_inputs]

    def _report(self, monitor, xp, k: int, res) -> None:
        for name, r, (shape, dt) in zip(self._monitor_names[k], res, self._monitor_zeros[k]):
            if r is None:
                if shape is None or dt is None:
                    continue
                r = xp.zeros(shape, dt)
            monitor(name, r)


class _no_scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _ctx_of(target):
    """The Context a raw array lives on (to move a gradient next to ``target``)."""
    from ..context import Context, cpu
    if type(target).__module__.startswith("cupy"):
        return Context("gpu", target.device.id)
    return cpu()


def _backward_output_names(node: str, n_inputs: int) -> list:
    """MXNet's names of a backward node's outputs: ``<node>_backward_output`` for one
    input, ``<node>_backward_output<i>`` for several."""
    if n_inputs == 1:
        return [f"{node}_backward_output"]
    return [f"{node}_backward_output{i}" for i in range(n_inputs)]
