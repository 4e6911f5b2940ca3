"""Random streams per device, seeded by ``mx.random.seed``.

NumPy contexts use ``numpy.random.Generator``; GPU contexts use CuPy's
``cupy.random.RandomState`` for that device.  Seeding replaces the stream, so a
run after the same seed draws the same numbers on the same device.
"""
from __future__ import annotations

import numpy as np

_generators: dict = {}
_base_seed: int | None = None


def generator(ctx):
    """The random stream of ``ctx``, created on first use."""
    key = (ctx.device_typeid == 2, ctx.device_id if ctx.device_typeid == 2 else 0)
    gen = _generators.get(key)
    if gen is None:
        gen = _make(key, None if _base_seed is None else _base_seed + key[1] * 7919 * key[0])
        _generators[key] = gen
    return gen


def _make(key, seed):
    if key[0]:
        from . import backend
        cp = backend.cupy_module()
        with cp.cuda.Device(key[1]):
            return cp.random.RandomState(seed)
    return np.random.Generator(np.random.PCG64(seed))


def seed(seed_state: int, ctx=None) -> None:
    """Reseed the stream of ``ctx``, or of every device when ``ctx`` is ``None``/``'all'``."""
    global _base_seed
    # MXNet passes the seed as a C int, so any int works and a negative seed is the
    # same as its 32-bit two's complement (NumPy and CuPy take non-negative seeds only)
    seed_state = int(seed_state) & 0xFFFFFFFF
    if ctx is None or ctx == "all":
        _base_seed = seed_state
        _generators.clear()
        return
    key = (ctx.device_typeid == 2, ctx.device_id if ctx.device_typeid == 2 else 0)
    _generators[key] = _make(key, seed_state)
