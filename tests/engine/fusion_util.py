"""Helpers for the fusion tests: tiny graphs, shape/dtype inference, and compiling the
generated kernels without a GPU (``nvcc --ptx`` for CUDA, ``g++`` + ctypes on the host)."""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

from gluonlite.engine.cuda_expr import CTYPES
from gluonlite.ops.registry import OpContext
from gluonlite.symbol.graph import op_node, topo_order, variable_node

CPU_OC = None


def cpu_oc():
    global CPU_OC
    if CPU_OC is None:
        import gluonlite as mx
        CPU_OC = OpContext(np, False, mx.cpu())
    return CPU_OC


# -- graphs ------------------------------------------------------------------------------
def var(name):
    return (variable_node(name), 0)


def op(name, *inputs, **attrs):
    return (op_node(name, name, list(inputs), attrs), 0)


def infer(heads, var_shapes: dict, var_dtypes: dict):
    """Topological order, shapes and dtypes of every entry (``var_*`` keyed by name)."""
    nodes = topo_order(heads)
    shapes, dtypes = {}, {}
    for n in nodes:
        if n.op is None:
            shapes[(n, 0)] = tuple(var_shapes[n.name])
            dtypes[(n, 0)] = np.dtype(var_dtypes.get(n.name, np.float32))
            continue
        _, outs = n.op.infer_shape(n.attrs, [shapes[e] for e in n.inputs])
        _, touts = n.op.infer_type(n.attrs, [dtypes[e] for e in n.inputs])
        for k, (s, d) in enumerate(zip(outs, touts)):
            shapes[(n, k)] = tuple(s)
            dtypes[(n, k)] = np.dtype(d)
    return nodes, shapes, dtypes


# -- kernel sources ------------------------------------------------------------------------
_HOST_PRELUDE = r"""
#include <cmath>
using namespace std;
template <class T> static inline T rsqrt(T x) { return T(1) / sqrt(x); }
template <class T> static inline T rcbrt(T x) { return T(1) / cbrt(x); }
template <class T> static inline T normcdf(T x) { return T(0.5) * erfc(-x / sqrt(T(2))); }
static inline double erfinv_d(double x) {
  if (!(x > -1 && x < 1)) return x == 1 ? INFINITY : (x == -1 ? -INFINITY : NAN);
  double ln = log((1 - x) * (1 + x)), a = 0.147, t = 2 / (M_PI * a) + ln / 2;
  double r = sqrt(sqrt(t * t - ln / a) - t);
  if (x < 0) r = -r;
  for (int k = 0; k < 6; ++k) r -= (erf(r) - x) / (2 / sqrt(M_PI) * exp(-r * r));
  return r;
}
static inline double erfinv(double x) { return erfinv_d(x); }
static inline float erfinv(float x) { return (float)erfinv_d(x); }
"""


def _sig(spec, pointer_in: str):
    parts = ["long long n"]
    for name, dt in spec.in_params:
        parts.append(f"const {CTYPES[np.dtype(dt)]}* {pointer_in}{name}")
    for name, dt in spec.out_params:
        parts.append(f"{CTYPES[np.dtype(dt)]}* {pointer_in}{name}")
    return ", ".join(parts)


def _bind(spec, idx: str):
    lines = []
    for name, dt in spec.in_params:
        c = CTYPES[np.dtype(dt)]
        lines.append(f"typedef {c} {name}_type; const {c} {name} = _p_{name}[{idx}];")
    for name, dt in spec.out_params:
        c = CTYPES[np.dtype(dt)]
        lines.append(f"typedef {c} {name}_type; {c} &{name} = _p_{name}[{idx}];")
    return "\n    ".join(lines)


def host_function(spec, name: str) -> str:
    return (f'extern "C" void {name}({_sig(spec, "_p_")}) {{\n'
            f"  for (long long i = 0; i < n; ++i) {{\n    {_bind(spec, 'i')}\n"
            f"    {spec.operation}\n  }}\n}}\n")


def cuda_function(spec, name: str) -> str:
    """The operation in a grid-stride loop, the way ElementwiseKernel runs it."""
    return (f'extern "C" __global__ void {name}({_sig(spec, "_p_")}) {{\n'
            "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
            " i += (long long)blockDim.x * gridDim.x) {\n"
            f"    {_bind(spec, 'i')}\n    {spec.operation}\n  }}\n}}\n")


_CACHE_DIR = os.path.join(tempfile.gettempdir(), "gluonlite_fusion_test_cache")


def _cached_build(source: str, suffix: str, build) -> str:
    os.makedirs(_CACHE_DIR, exist_ok=True)
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    target = os.path.join(_CACHE_DIR, f"k_{digest}{suffix}")
    if not os.path.exists(target):
        src = target + (".cu" if suffix == ".ptx" else ".cpp")
        with open(src, "w") as f:
            f.write(source)
        tmp = target + f".tmp{os.getpid()}"
        res = build(src, tmp)
        if res.returncode != 0:
            raise RuntimeError(f"compilation failed:\n{res.stderr[-6000:]}")
        os.replace(tmp, target)
    return target


def compile_host(functions: list[str]):
    """Compile host functions into a shared library (cached by source) and load it."""
    source = _HOST_PRELUDE + "\n".join(functions)
    gxx = shutil.which("g++")

    def build(src, out):
        return subprocess.run([gxx, "-O1", "-shared", "-fPIC", "-o", out, src],
                              capture_output=True, text=True)
    return ctypes.CDLL(_cached_build(source, ".so", build))


def nvcc_path():
    return shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)


def compile_ptx(functions: list[str]) -> str:
    """``nvcc --ptx -arch=sm_90`` on the functions; returns the PTX text."""
    source = "\n".join(functions)
    nvcc = nvcc_path()

    def build(src, out):
        return subprocess.run([nvcc, "--ptx", "-arch=sm_90", "-o", out, src],
                              capture_output=True, text=True)
    with open(_cached_build(source, ".ptx", build)) as f:
        return f.read()


def run_host(lib, name: str, spec, inputs: list):
    """Call a compiled host kernel on same-shape NumPy arrays; returns the outputs."""
    arrays = [np.ascontiguousarray(x, dtype=np.dtype(dt)) for x, (_, dt) in
              zip(inputs, spec.in_params)]
    n = arrays[0].size
    outs = [np.zeros(arrays[0].shape, dtype=np.dtype(dt)) for _, dt in spec.out_params]
    fn = getattr(lib, name)
    fn.restype = None
    fn(ctypes.c_longlong(n), *[a.ctypes.data_as(ctypes.c_void_p) for a in arrays + outs])
    return outs


# -- a stand-in for cupy: ElementwiseKernel compiled for the host ----------------------------
class _HostElementwiseKernel:
    """``cupy.ElementwiseKernel`` look-alike: broadcasts like CuPy, runs the operation
    compiled by g++ (so FusedGroup's CuPy branch can be tested without a GPU)."""

    calls = 0

    def __init__(self, in_params: str, out_params: str, operation: str, name: str):
        from gluonlite.engine.fused_kernel import KernelSpec

        def parse(text):
            return tuple((p.split()[1], np.dtype(p.split()[0])) for p in text.split(","))
        self.spec = KernelSpec(name, parse(in_params), parse(out_params), operation)
        self.lib = compile_host([host_function(self.spec, name)])

    def __call__(self, *args):
        n_in = len(self.spec.in_params)
        ins, outs = args[:n_in], args[n_in:]
        shape = np.broadcast_shapes(*[np.shape(a) for a in args])
        wide = [np.broadcast_to(a, shape) for a in ins]
        _HostElementwiseKernel.calls += 1
        res = run_host(self.lib, self.spec.name, self.spec, wide)
        if outs:
            for o, r in zip(outs, res):
                o[...] = r
            res = list(outs)
        return res[0] if len(res) == 1 else tuple(res)


def fake_cupy():
    """A module named ``cupy`` with a host ``ElementwiseKernel`` and NumPy for the rest."""
    import types
    mod = types.ModuleType("cupy")
    mod.ElementwiseKernel = _HostElementwiseKernel
    mod.zeros = np.zeros
    return mod
