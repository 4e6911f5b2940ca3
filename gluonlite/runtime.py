"""``mx.runtime``: which features this installation of gluonlite has.

MXNet reports the options its C++ library was compiled with; gluonlite reports
what is usable now: ``CUDA`` when CuPy sees a GPU, ``CUDNN`` when NVIDIA's cuDNN
frontend imports, ``OPENCV`` when Pillow (the image decoder gluonlite uses in its
place) imports, ``BLAS_*`` from NumPy's build.  Features gluonlite has no
counterpart of (TensorRT, MKLDNN, the distributed kvstore, ...) read as disabled.
"""
from __future__ import annotations

import collections
import importlib.util

from .backend import gpu_count

__all__ = ["Feature", "Features", "feature_list"]

# MXNet 1.9's feature names, in its order
_NAMES = ("CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
          "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE",
          "F16C", "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK",
          "MKLDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14",
          "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP")


class Feature:
    """One feature: ``name`` and whether it is ``enabled``."""

    def __init__(self, name: str, enabled: bool):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self) -> str:
        return ("\u2714 " if self.enabled else "\u2716 ") + self.name


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _blas_names() -> set:
    """BLAS families NumPy was built against (``openblas``, ``mkl``, ``accelerate``)."""
    import numpy as np
    try:
        config = np.show_config(mode="dicts")
        blas = str(config.get("Build Dependencies", {}).get("blas", {}).get("name", ""))
    except (TypeError, AttributeError):  # older NumPy without mode="dicts"
        blas = ""
    return {blas.lower()}


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _detect() -> dict:
    gpus = gpu_count() > 0
    flags = _cpu_flags()
    blas = " ".join(_blas_names())
    return {
        "CUDA": gpus, "CUDNN": gpus and _has_module("cudnn"), "CUDA_RTC": gpus,
        "CPU_SSE": "sse" in flags, "CPU_SSE2": "sse2" in flags, "CPU_SSE3": "pni" in flags,
        "CPU_SSE4_1": "sse4_1" in flags, "CPU_SSE4_2": "sse4_2" in flags,
        "CPU_SSE4A": "sse4a" in flags, "CPU_AVX": "avx" in flags, "CPU_AVX2": "avx2" in flags,
        "F16C": "f16c" in flags, "BLAS_OPEN": "openblas" in blas, "BLAS_MKL": "mkl" in blas,
        "BLAS_APPLE": "accelerate" in blas, "LAPACK": True,
        "OPENCV": _has_module("PIL"), "CXX14": True, "INT64_TENSOR_SIZE": True,
    }


class Features(collections.OrderedDict):
    """Every feature name mapped to its :class:`Feature` (a singleton, as in MXNet)."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            found = _detect()
            super(Features, cls.instance).__init__(
                (name, Feature(name, found.get(name, False))) for name in _NAMES)
        return cls.instance

    def __init__(self):  # filled once in __new__
        pass

    def __repr__(self) -> str:
        return str(list(self.values()))

    def is_enabled(self, feature_name: str) -> bool:
        """Whether ``feature_name`` is enabled; an unknown name raises ``RuntimeError``."""
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(f"Feature '{name}' is unknown, known features are: "
                               f"{list(self.keys())}")
        return self[name].enabled


def feature_list() -> list:
    """Every :class:`Feature`, in MXNet's order."""
    return list(Features().values())
