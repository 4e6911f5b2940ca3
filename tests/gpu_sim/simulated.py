"""Run gluonlite on a simulated GPU: ``gpu(0)`` served by the fake CuPy (test hook).

``backend`` decides which module serves a GPU context; :func:`simulated_gpu` patches
its cached answers (CuPy module, GPU count) so that ``mx.gpu(0).xp`` is
:mod:`tests.gpu_sim.fake_cupy` and ``mx.num_gpus()`` is 1, and installs fake
``cupyx`` modules.  Everything is restored on exit.
"""
from __future__ import annotations

import contextlib
import sys

from gluonlite import _rng, backend

from . import fake_cupy


@contextlib.contextmanager
def simulated_gpu(strict: bool = True):
    """Within the block, ``gpu(0)`` runs on the fake CuPy (``strict``: see
    :func:`fake_cupy.set_strict`)."""
    saved = (backend._cupy, backend._cupy_checked, backend._gpu_count, fake_cupy.is_strict())
    saved_mods = {k: sys.modules.get(k) for k in fake_cupy.cupyx_modules()}
    backend._cupy, backend._cupy_checked, backend._gpu_count = fake_cupy, True, 1
    fake_cupy.set_strict(strict)
    sys.modules.update(fake_cupy.cupyx_modules())
    try:
        yield fake_cupy
    finally:
        backend._cupy, backend._cupy_checked, backend._gpu_count = saved[:3]
        fake_cupy.set_strict(saved[3])
        for k, v in saved_mods.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        for key in [k for k in _rng._generators if k[0]]:  # drop fake GPU streams
            del _rng._generators[key]
