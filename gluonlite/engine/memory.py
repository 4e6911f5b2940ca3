"""Memory planning for the CachedOp: liveness-based buffer assignment.

The planner walks the forward steps in order.  Every output entry that is not
*pinned* (needed after the call by the caller, by backward or by a monitor) and
whose shape and dtype are known gets a flat byte buffer.  A buffer is returned
to the free pool after the last step that reads its entry, and handed to a later
output that fits (best fit by size; the largest free buffer grows when nothing
fits, which is free since nothing is allocated until the plan is complete).

Outputs are never given a buffer freed by the same step: an operator does not
write an output over one of its own inputs (no in-place), so reuse happens
across steps only.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["MemoryPlan", "plan_memory", "make_view"]


class MemoryPlan:
    """Result of :func:`plan_memory`.

    Attributes
    ----------
    sizes : list of int
        Byte size of every buffer.
    slot_buffer : dict of int to int
        Buffer id of each planned entry slot.
    release_after : list of list of int
        Buffer ids that become free after each step (for debug poisoning).
    """

    __slots__ = ("sizes", "slot_buffer", "release_after")

    def __init__(self, sizes, slot_buffer, release_after):
        self.sizes = sizes
        self.slot_buffer = slot_buffer
        self.release_after = release_after

    @property
    def total_bytes(self) -> int:
        """Bytes held by all planned buffers together (the planned peak)."""
        return int(sum(self.sizes))


def _nbytes(shape, dtype) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def plan_memory(step_ins: Sequence[Sequence[int]], step_outs: Sequence[Sequence[int]],
                planned: Sequence[bool], shapes: Sequence, dtypes: Sequence,
                reuse: bool = True) -> MemoryPlan:
    """Assign buffers to the planned outputs of a sequence of steps.

    Parameters
    ----------
    step_ins, step_outs : sequences of slot-id sequences
        Entry slots each step reads and writes.
    planned : sequence of bool
        Per step: whether its outputs get planned buffers (all of them or none).
    shapes, dtypes : sequences indexed by slot
    reuse : bool
        False gives every planned output its own buffer.
    """
    remaining: dict[int, int] = {}
    for k, ins in enumerate(step_ins):
        for s in ins:
            remaining[s] = remaining.get(s, 0) + 1
    sizes: list[int] = []
    free: list[int] = []  # buffer ids
    slot_buffer: dict[int, int] = {}
    release_after: list[list[int]] = []
    for k, (ins, outs) in enumerate(zip(step_ins, step_outs)):
        released: list[int] = []
        if planned[k]:
            for s in outs:
                need = _nbytes(shapes[s], dtypes[s])
                slot_buffer[s] = _take(free, sizes, need) if reuse else _new(sizes, need)
        if reuse:
            # outputs nobody reads are free right after this step
            for s in outs:
                if s in slot_buffer and remaining.get(s, 0) == 0:
                    released.append(slot_buffer[s])
            for s in ins:
                left = remaining[s] - 1
                remaining[s] = left
                if left == 0 and s in slot_buffer:
                    released.append(slot_buffer[s])
            for b in released:
                free.append(b)
        release_after.append(released)
    return MemoryPlan(sizes, slot_buffer, release_after)


def _new(sizes: list, need: int) -> int:
    sizes.append(max(need, 1))
    return len(sizes) - 1


def _take(free: list, sizes: list, need: int) -> int:
    """Best-fit buffer from the free pool (growing the largest one if none fits)."""
    if not free:
        return _new(sizes, need)
    fitting = [b for b in free if sizes[b] >= need]
    if fitting:
        b = min(fitting, key=lambda i: sizes[i])
    else:
        b = max(free, key=lambda i: sizes[i])
        sizes[b] = need
    free.remove(b)
    return b


def make_view(xp, flat, shape, dtype):
    """A ``shape``/``dtype`` array over the start of the flat byte buffer ``flat``."""
    dt = np.dtype(dtype)
    n = _nbytes(shape, dt)
    return flat[:n].view(dt).reshape(shape)
