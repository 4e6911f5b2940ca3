"""One-launch CuPy kernels for ``Pooling`` (forward and backward).

The NumPy path of ``pooling.py`` runs one whole-batch array operation per kernel
offset; on the GPU that is ``prod(kernel)`` launches of ~10 us host time each.
Here the forward is one generated ``cupy.ElementwiseKernel`` with one thread per
output element looping over its window, and the backward another one with one
thread per input element looping over the outputs whose windows contain it (the
gather form: no atomics, deterministic).  They reproduce the NumPy path's MXNet
conventions exactly, as its ``_PoolPlan`` describes the geometry:

* windows start at ``q * stride - lo`` of the unpadded input; positions outside
  it are padding (max pooling reads the dtype's lowest value there, the others
  0), which covers ``valid``/``full``/``same`` and ``global_pool``;
* avg divides by the window clipped to the input plus the symmetric padding
  (``count_include_pad``) or to the input alone (0 elements count as 1);
* Lp: ``sum x**p`` then ``p``-th root keeping the sign (``p=1`` is ``sum``);
* max backward: the gradient goes to the first maximum of each window in
  row-major scan order (padding included in that scan, NaN windows get none).
  The window's first maximum is recomputed from ``x`` and the forward output
  ``y``: only threads whose own value equals ``y`` scan the window.

1-D and 2-D pooling run as 3-D with leading unit axes, so one compiled kernel per
(dtype, mode, index width) serves every shape.  Accumulation is in float32 for
float16 inputs.
"""
from __future__ import annotations

import numpy as np

from ._gpu_window import KernelText, decode, index_type, kernel, pack3, preamble

__all__ = ["usable", "forward_text", "backward_text", "forward", "backward", "pool_args"]

MODES = ("max", "avg", "sum", "lp")

_INTS = ("in0", "in1", "in2", "out0", "out1", "out2", "ke0", "ke1", "ke2",
         "st0", "st1", "st2", "lo0", "lo1", "lo2", "sp0", "sp1", "sp2", "incl", "pw")

# number of elements of output q's window along one axis, as the divisor of avg pooling
_COUNT = """
__device__ int gl_pool_count(int q, int st, int lo, int ke, int n, int sp, int incl) {
  const int a = q * st - lo;
  const int b = incl ? min(a + ke, n + sp) : min(a + ke, n);
  const int c = incl ? b - a : b - max(a, 0);
  return c > 0 ? c : 0;
}
__device__ int gl_pool_divisor(int q0, int q1, int q2, int in0, int in1, int in2,
    int ke0, int ke1, int ke2, int st0, int st1, int st2, int lo0, int lo1, int lo2,
    int sp0, int sp1, int sp2, int incl) {
  const int d = gl_pool_count(q0, st0, lo0, ke0, in0, sp0, incl)
      * gl_pool_count(q1, st1, lo1, ke1, in1, sp1, incl)
      * gl_pool_count(q2, st2, lo2, ke2, in2, sp2, incl);
  return d > 0 ? d : 1;
}
"""
_DIVISOR = ("gl_pool_divisor(q0, q1, q2, in0, in1, in2, ke0, ke1, ke2, st0, st1, st2, "
            "lo0, lo1, lo2, sp0, sp1, sp2, incl)")

_WINDOW = """
for (int j0 = 0; j0 < ke0; ++j0) {
const int a0 = b0 + j0;
const bool ok0 = a0 >= 0 && a0 < in0;
for (int j1 = 0; j1 < ke1; ++j1) {
const int a1 = b1 + j1;
const bool ok1 = ok0 && a1 >= 0 && a1 < in1;
for (int j2 = 0; j2 < ke2; ++j2) {
const int a2 = b2 + j2;
const bool real = ok1 && a2 >= 0 && a2 < in2;
const idx_t at = ((base * in0 + a0) * in1 + a1) * in2 + a2;
"""

_STEP = {
    # NaN propagates as in numpy.maximum: once acc is NaN no comparison replaces it
    "max": """const acc_t v = real ? (acc_t)x[at] : lowest;
if (!seen || v > acc || v != v) acc = v;
seen = 1;""",
    "avg": "if (real) acc += (acc_t)x[at];",
    "sum": "if (real) acc += (acc_t)x[at];",
    "lp": "if (real) acc += pow((acc_t)x[at], (acc_t)pw);",
}

_FINAL = {
    "max": "y = (val_t)acc;",
    "sum": "y = (val_t)acc;",
    "avg": f"y = (val_t)(acc / (acc_t){_DIVISOR});",
    "lp": """acc_t r = acc;
if (pw == 2) r = sqrt(acc);
else if (pw == 3) r = cbrt(acc);
else if (pw != 1) r = copysign(pow(fabs(acc), (acc_t)1 / (acc_t)pw), acc);
y = (val_t)r;""",
}


def forward_text(dtype: str, mode: str, idx: str) -> KernelText:
    """Forward kernel text: ``y`` ``(N*C, out0, out1, out2)`` from ``x`` ``(N*C, in*)``."""
    op = decode("i", [("q2", "out2"), ("q1", "out1"), ("q0", "out0"), ("qb", None)]) + f"""
const idx_t base = qb;
const int b0 = q0 * st0 - lo0, b1 = q1 * st1 - lo1, b2 = q2 * st2 - lo2;
acc_t acc = 0;
{"int seen = 0;" if mode == "max" else ""}
{_WINDOW}{_STEP[mode]}
}}}}}}
{_FINAL[mode]}
"""
    return KernelText(f"gl_pool_fwd_{mode}", ("x",), _INTS, ("lowest",), "y", op,
                      preamble(dtype, idx, _COUNT), dtype)


# per output window q containing this thread's input element (flat index ``o``)
_GATHER = {
    "sum": "g += (acc_t)dy[o];",
    "avg": f"g += (acc_t)dy[o] / (acc_t){_DIVISOR};",
    "lp": """const acc_t yv = (acc_t)y[o];
if (yv != (acc_t)0) g += (acc_t)dy[o] / pow(yv, (acc_t)(pw - 1));""",
    # scan q's window for its first maximum; only an element equal to y[o] can be it
    "max": """const acc_t yv = (acc_t)y[o];
if (xv == yv) {
const int b0 = q0 * st0 - lo0, b1 = q1 * st1 - lo1, b2 = q2 * st2 - lo2;
bool found = false;
int f0 = 0, f1 = 0, f2 = 0;
for (int j0 = 0; j0 < ke0 && !found; ++j0) {
const int a0 = b0 + j0;
const bool ok0 = a0 >= 0 && a0 < in0;
for (int j1 = 0; j1 < ke1 && !found; ++j1) {
const int a1 = b1 + j1;
const bool ok1 = ok0 && a1 >= 0 && a1 < in1;
for (int j2 = 0; j2 < ke2 && !found; ++j2) {
const int a2 = b2 + j2;
const bool real = ok1 && a2 >= 0 && a2 < in2;
const acc_t v = real ? (acc_t)x[((base * in0 + a0) * in1 + a1) * in2 + a2] : lowest;
if (v == yv) { found = true; f0 = a0; f1 = a1; f2 = a2; }
}}}
if (found && f0 == c0 && f1 == c1 && f2 == c2) g += (acc_t)dy[o];
}""",
}


def _first_out(c: str, ax: str) -> str:
    # outputs q with q * st - lo <= c <= q * st - lo + ke - 1 (c + lo >= 0 always)
    return f"""const int e{ax} = {c} + lo{ax} - ke{ax} + 1;
const int qa{ax} = e{ax} <= 0 ? 0 : (e{ax} + st{ax} - 1) / st{ax};
const int qz{ax} = min(out{ax} - 1, ({c} + lo{ax}) / st{ax});"""


def backward_text(dtype: str, mode: str, idx: str) -> KernelText:
    """Backward kernel text: ``dx`` ``(N*C, in*)`` from ``x``, ``y``, ``dy``."""
    ranges = "\n".join(_first_out(f"c{ax}", ax) for ax in "012")
    if mode == "lp":
        final = "dx = (val_t)(g * pow(xv, (acc_t)(pw - 1)));"
    else:
        final = "dx = (val_t)g;"
    op = decode("i", [("c2", "in2"), ("c1", "in1"), ("c0", "in0"), ("qb", None)]) + f"""
const idx_t base = qb;
const acc_t xv = (acc_t)x[i];
(void)xv;
{ranges}
acc_t g = 0;
for (int q0 = qa0; q0 <= qz0; ++q0) {{
for (int q1 = qa1; q1 <= qz1; ++q1) {{
for (int q2 = qa2; q2 <= qz2; ++q2) {{
const idx_t o = ((base * out0 + q0) * out1 + q1) * out2 + q2;
{_GATHER[mode]}
}}}}}}
{final}
"""
    return KernelText(f"gl_pool_bwd_{mode}", ("x", "y", "dy"), _INTS, ("lowest",), "dx", op,
                      preamble(dtype, idx, _COUNT), dtype)


def usable(xp, dtype) -> bool:
    """Whether these kernels serve ``dtype`` data on ``xp`` (real CuPy, float dtypes)."""
    return getattr(xp, "__name__", "") == "cupy" and np.dtype(dtype).char in "efd"


def kernel_mode(kind: str, p_value) -> str:
    """The kernel mode for a pool type (Lp with ``p=1`` is a plain sum)."""
    if kind == "lp" and p_value == 1:
        return "sum"
    return kind


def pool_args(plan, include_pad: bool, p_value) -> tuple:
    """The ``int32`` kernel arguments for a ``_PoolPlan`` (3-D, leading unit axes)."""
    return (pack3(plan.spatial, 1) + pack3(plan.out, 1) + pack3(plan.kernel, 1)
            + pack3(plan.stride, 1) + pack3(plan.lo, 0) + pack3(plan.sym_pad, 0)
            + (int(bool(include_pad)), int(p_value or 0)))


def _lowest(dtype) -> float:
    return float(np.finfo(dtype).min)


def forward(xp, x, plan, kind: str, include_pad: bool, p_value, out=None):
    """Pooled ``(N, C, *out)`` of ``x`` in one launch (into ``out`` when given)."""
    shape = tuple(x.shape[:2]) + tuple(plan.out)
    if out is None or out.dtype != x.dtype or tuple(out.shape) != shape:
        y = xp.empty(shape, x.dtype)
    else:
        y = out
    if y.size:
        mode = kernel_mode(kind, p_value)
        text = forward_text(x.dtype.name, mode, index_type(y.size, x.size))
        kernel(xp, text)(x, *pool_args(plan, include_pad, p_value), _lowest(x.dtype), y)
    if out is not None and y is not out:
        out[...] = y
        return out
    return y


def backward(xp, x, y, dy, plan, kind: str, include_pad: bool, p_value):
    """Gradient of ``x`` (a fresh array) in one launch; ``dy`` has ``x``'s dtype."""
    dx = xp.empty(x.shape, x.dtype)
    if dx.size == 0:
        return dx
    if y.size == 0:
        dx.fill(0)
        return dx
    mode = kernel_mode(kind, p_value)
    text = backward_text(x.dtype.name, mode, index_type(x.size, y.size))
    kernel(xp, text)(x, y, dy, *pool_args(plan, include_pad, p_value), _lowest(x.dtype), dx)
    return dx
