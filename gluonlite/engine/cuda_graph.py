"""CUDA-graph replay of static GPU inference plans.

``hybridize(static_alloc=True, static_shape=True)`` promises that a plan's
shapes and buffers stay put, which is what a CUDA graph needs: its kernels are
recorded once with their pointers and replayed with one launch, instead of one
launch (~10-40 us of host time with CuPy) per step.  A :class:`GraphReplay` is
built on the second call of such a plan (the first compiles kernels and picks
cuDNN algorithms) when the call neither records gradients nor monitors, and
then serves every call:

* steps run in segments: consecutive capturable steps form one captured graph;
  a step that cannot be captured runs eagerly between two graphs each call
  (random operators, ``Custom``, and whatever fails under capture: cuBLAS, which
  CuPy refuses while capturing, or a host synchronisation);
* everything allocated while capturing comes from a memory pool private to the
  replay, so memory a graph writes at replay is never handed to anything else;
* inputs that were the same array in the two calls before capture (parameters)
  are read where they are; the others (data) are copied into buffers the graph
  reads, at each call.  A parameter replaced by another array ends the replay
  (the plan runs normally and may capture again later);
* the heads are copied out of the graph's memory, so results a caller keeps are
  never overwritten by the next call.

Set ``GLUONLITE_CUDA_GRAPHS=0`` to run such plans step by step.
"""
from __future__ import annotations

import os

_DEVICE_TO_DEVICE = 3   # cudaMemcpyDeviceToDevice
# a plan whose replay was dropped this many times (parameters rebound) stops capturing
MAX_REBUILDS = 3


def enabled() -> bool:
    return os.environ.get("GLUONLITE_CUDA_GRAPHS", "1") not in ("0", "false", "False", "off")


def usable(xp) -> bool:
    """Real CuPy (not the test-only stand-in) with graph capture."""
    return (getattr(xp, "__name__", "") == "cupy" and enabled()
            and hasattr(getattr(xp.cuda, "Stream", None), "begin_capture"))


def _copy(xp, dst, src, stream) -> None:
    """``dst[...] = src`` with one asynchronous copy where both are contiguous."""
    if src.flags.c_contiguous and dst.flags.c_contiguous and src.dtype == dst.dtype:
        xp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes,
                                    _DEVICE_TO_DEVICE, stream.ptr)
    else:
        dst[...] = src


class _Failed(Exception):
    """A step could not be captured: ``index`` is its position in the plan."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


class GraphReplay:
    """The captured segments of one plan and the arrays they read and write."""

    def __init__(self, plan, xp, inputs, by_ref, segments, slots, eager_outs, owners=()):
        self.plan = plan
        self.xp = xp
        self.inputs = inputs          # the arrays the graphs read, per plan input
        self.by_ref = by_ref          # True: a parameter read in place
        self.segments = segments      # ("graph", Graph) or ("eager", step index)
        self.slots = slots            # every entry's array at capture time
        self.eager_outs = eager_outs  # step index -> output arrays the graphs read
        self.n_graphs = sum(1 for kind, _ in segments if kind == "graph")
        self._owners = owners         # the private pool owning the graphs' memory, the stream

    @classmethod
    def build(cls, plan, datas, previous):
        """Capture ``plan`` for inputs like ``datas``; ``None`` where nothing captures."""
        xp = plan.oc.xp
        by_ref = [a is b for a, b in zip(datas, previous)]
        inputs = [d if ref else xp.empty(d.shape, d.dtype) for d, ref in zip(datas, by_ref)]
        eager = {k for k, u in enumerate(plan.units)
                 if getattr(u.op, "random", False) or not getattr(u.op, "capturable", True)}
        pool = xp.cuda.MemoryPool()
        stream = xp.cuda.Stream(non_blocking=True)
        while True:
            try:
                segments, slots, eager_outs = _capture(plan, xp, inputs, eager, pool, stream)
                break
            except _Failed as failure:
                eager.add(failure.index)
        if not any(kind == "graph" for kind, _ in segments):
            return None
        stream.synchronize()
        return cls(plan, xp, inputs, by_ref, segments, slots, eager_outs, (pool, stream))

    def run(self, datas):
        """Heads of one call (fresh arrays), or ``None`` when a parameter was rebound."""
        xp = self.xp
        stream = xp.cuda.get_current_stream()
        for d, cap, ref in zip(datas, self.inputs, self.by_ref):
            if ref:
                if d is not cap:
                    return None
            else:
                _copy(xp, cap, d, stream)
        plan = self.plan
        oc = plan.oc
        slots = self.slots
        for kind, item in self.segments:
            if kind == "graph":
                item.launch(stream)
                continue
            fwd, attrs, ins, outs, _ = plan.steps[item]
            res = fwd(oc, attrs, [slots[i] for i in ins], plan._static[1][item])
            for cap, r in zip(self.eager_outs[item], res):
                if r is not cap:
                    _copy(xp, cap, xp.asarray(r).reshape(cap.shape), stream)
        heads = []
        for h in plan.heads:
            src = slots[h]
            dst = xp.empty(src.shape, src.dtype)
            _copy(xp, dst, src, stream)
            heads.append(dst)
        return heads


def _capture(plan, xp, inputs, eager, pool, stream):
    """One capture pass: segments of consecutive captured steps, eager steps between.

    Raises :class:`_Failed` for the first step that fails under capture.
    """
    from .plan import _as_array
    slots = plan._blank[:]
    slots[:plan.n_inputs] = inputs
    step_outs = plan._static[1]
    oc = plan.oc
    segments, eager_outs = [], {}
    capturing = False
    with xp.cuda.using_allocator(pool.malloc), stream:
        try:
            for k, (fwd, attrs, ins, outs, norm) in enumerate(plan.steps):
                if k in eager:
                    if capturing:
                        segments.append(("graph", stream.end_capture()))
                        capturing = False
                    res = fwd(oc, attrs, [slots[i] for i in ins], step_outs[k])
                    res = [_as_array(r, xp) for r in res]
                    eager_outs[k] = res
                    segments.append(("eager", k))
                else:
                    if not capturing:
                        stream.begin_capture()
                        capturing = True
                    try:
                        res = fwd(oc, attrs, [slots[i] for i in ins], step_outs[k])
                        res = [_as_array(r, xp) if norm else r for r in res]
                    except Exception:
                        raise _Failed(k) from None
                for s, r in zip(outs, res):
                    slots[s] = r
            if capturing:
                segments.append(("graph", stream.end_capture()))
                capturing = False
        finally:
            if capturing:
                try:
                    stream.end_capture()
                except Exception:  # an invalidated capture reports it here: discarded
                    pass
    return segments, slots, eager_outs
