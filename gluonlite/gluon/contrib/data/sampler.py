"""``IntervalSampler``: every ``interval``-th index, then the next offsets."""
from __future__ import annotations

from ...data import sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(sampler.Sampler):
    """``0, k, 2k, ...``, then (with ``rollover``) ``1, 1 + k, ...`` and so on, for
    ``k = interval``.  As in MXNet, ``len`` is ``length`` even without rollover."""

    def __init__(self, length: int, interval: int, rollover: bool = True):
        if interval > length:
            raise AssertionError(f"Interval {interval} must be smaller than or equal to "
                                 f"length {length}")
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self) -> int:
        return self._length
