"""Running an elementwise update rule block by block on the CPU.

An optimizer rule is a dozen NumPy operations over the weight, its gradient and its
states; on whole arrays each one streams the arrays through memory again (ResNet-18's
11.7 M parameters are 47 MB per array).  Cut into blocks of ``_BLOCK`` elements, the
same operations run on slices that mostly stay in the cache, and the blocks are shared between two threads
(NumPy releases the GIL in its loops).  Rules keep their state updates in place: a
rule on slices mutates the slices of the states.  Measured on the 62 arrays of
ResNet-18 (2 shared cores, noisy): SGD with momentum 25-28 -> 16-21 ms, Adam 43-51 ->
30-33 ms (PyTorch's foreach step: 13 and 17-22 ms).

On CuPy the common rules (SGD, SGD with momentum, Adam) are one fused kernel each
(``_gpu_update``); other rules, non-contiguous arrays or small arrays run the rule on
the whole arrays.
"""
from __future__ import annotations

import numpy as np

from . import _gpu_update
from ._cpu_pool import THREADS, executor

# elements per block (1 MB of float32 per array): smaller blocks fit the cache
# better but pay NumPy's per-call overhead and the GIL more often; on 2 cores
# 2**14 was 2x slower than 2**18, 2**20 and above slower again
_BLOCK = 1 << 18
_PARALLEL_MIN = 1 << 17   # below this many elements one thread is faster


def _blockable(xp, arrays) -> bool:
    if xp is not np:
        return False
    size = arrays[0].size
    return size > _BLOCK and all(a.size == size and a.flags.c_contiguous for a in arrays)


def run_rule(xp, rule, attrs, inputs, out):
    """``rule(xp, attrs, weight, grad, *states)`` over ``inputs``, the result written
    into ``out`` (an array like the weight, which may be the weight itself) or, when
    ``out`` is None, returned as a new array."""
    if xp is not np:
        fused = _gpu_update.fused_rule(xp, rule, inputs)
        if fused is not None and (out is None or out.shape == inputs[0].shape):
            return fused(xp, attrs, inputs, out)   # one launch (``_gpu_update``)
    if out is None:
        out = np.empty(inputs[0].shape, inputs[0].dtype) if xp is np else None
    if out is None or not _blockable(xp, list(inputs) + [out]):
        result = rule(xp, attrs, *inputs)
        if out is None:
            return result.astype(inputs[0].dtype, copy=False)
        out[...] = result
        return out
    flats = [a.reshape(-1) for a in inputs]
    target = out.reshape(-1)
    size = target.size

    def run(start: int, stop: int) -> None:
        for lo in range(start, stop, _BLOCK):
            hi = min(lo + _BLOCK, stop)
            target[lo:hi] = rule(np, attrs, *[f[lo:hi] for f in flats])

    if THREADS > 1 and size >= _PARALLEL_MIN:
        half = (size // 2 // _BLOCK) * _BLOCK
        second = executor().submit(run, half, size)
        run(0, half)
        second.result()
    else:
        run(0, size)
    return out
