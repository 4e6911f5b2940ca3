"""pytest plugin: the whole session runs with ``gpu(0)`` on the fake CuPy.

Run the GPU-marked tests of the suite on the simulated GPU with::

    python3 -m pytest -p tests.gpu_sim.plugin -m gpu tests

``GLUONLITE_SIM_DEFAULT_GPU=1`` also makes ``gpu(0)`` the default context of the
main thread, so that tests written for the CPU run their arrays on the simulated
GPU (an audit mode: tests that check contexts or dtypes of host results fail there
by design).  ``GLUONLITE_SIM_STRICT=0`` makes NumPy functions on device arrays dispatch as
CuPy does instead of raising (see ``fake_cupy.set_strict``).  Tests that need
real CUDA (generated ``ElementwiseKernel``s, DLPack) fail by design here; ``import
cupy`` in a test gives the stand-in.
"""
import os
import sys

from . import fake_cupy
from .simulated import simulated_gpu

_state = {}


def pytest_configure(config):
    strict = os.environ.get("GLUONLITE_SIM_STRICT", "1") != "0"
    cm = simulated_gpu(strict=strict)
    cm.__enter__()
    _state["cm"] = cm
    # GPU tests that ``import cupy`` themselves get the stand-in too
    _state["cupy"] = sys.modules.get("cupy")
    sys.modules["cupy"] = fake_cupy
    if os.environ.get("GLUONLITE_SIM_DEFAULT_GPU") == "1":
        import gluonlite as mx  # noqa: PLC0415
        mx.Context._default.value = mx.gpu(0)


def pytest_unconfigure(config):
    if os.environ.get("GLUONLITE_SIM_DEFAULT_GPU") == "1":
        import gluonlite as mx  # noqa: PLC0415
        mx.Context._default.value = None
    if "cupy" in _state:
        old = _state.pop("cupy")
        if old is None:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = old
    cm = _state.pop("cm", None)
    if cm is not None:
        cm.__exit__(None, None, None)
