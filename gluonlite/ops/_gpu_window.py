"""One-launch CuPy kernels for the window copies of convolution (im2col, col2im).

On NumPy, ``_window.im2col`` copies one strided slice per kernel offset: that is
fast there, but on the GPU every CuPy call costs ~10 us of host time, so a 5x5
kernel would cost 25+ launches.  Here each of them is one generated
``cupy.ElementwiseKernel``:

* ``im2col``: one thread per column entry reads its input element (or writes 0
  where the window reads padding, so the input needs no padded copy);
* ``col2im``: the gather form of the scatter-add: one thread per (padded) input
  element sums the column entries that read it.  No atomics, so the result is
  deterministic.

Both serve the channel-first layouts (input ``(N, C, *S)``, columns ``(C, *kernel,
N, *out)``) and the batch-last ones of ``_batch_last`` (input ``(C, *S, N)``,
columns ``(C, *kernel, *out, N)``).  1-D and 2-D geometry is padded to 3-D with
leading unit axes (``pack3``), so one compiled kernel per (dtype, layout, index
width) serves every shape: sizes are kernel arguments, never part of the source.
Inputs are ``raw`` parameters indexed by their logical C-order position, which
CuPy maps through the strides of a non-contiguous array.

Used only when ``xp`` is the real CuPy (``usable``); the test stand-in for CuPy
has no ``ElementwiseKernel`` and keeps the generic slice-per-offset code.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["KernelText", "usable", "pack3", "im2col_text", "col2im_text", "im2col",
           "col2im", "kernel", "index_type", "kernel_cache_size"]

_VAL = {"float16": "float16", "float32": "float", "float64": "double"}
_ACC = {"float16": "float", "float32": "float", "float64": "double"}
_ACC_DTYPE = {"float16": "float32", "float32": "float32", "float64": "float64"}
_INT32_MAX = 2 ** 31 - 1
_KERNELS: dict = {}


def usable(xp, dtype) -> bool:
    """Whether the generated kernels serve ``dtype`` arrays of ``xp`` (real CuPy, floats)."""
    return getattr(xp, "__name__", "") == "cupy" and np.dtype(dtype).char in "efd"


def pack3(values, fill: int) -> tuple:
    """``values`` (1 to 3 per-axis entries) left-padded with ``fill`` to 3 entries."""
    values = tuple(int(v) for v in values)
    if not 1 <= len(values) <= 3:
        raise ValueError(f"expected 1 to 3 spatial entries, got {values}")
    return (fill,) * (3 - len(values)) + values


def index_type(*sizes: int) -> str:
    """``"int"`` when every flat index fits 32 bits, else ``"long long"`` (64-bit
    division is several times slower on the GPU, so it is used only when needed)."""
    return "int" if max(sizes, default=0) <= _INT32_MAX else "long long"


@dataclass(frozen=True)
class KernelText:
    """The text of one generated kernel (what ``cupy.ElementwiseKernel`` takes).

    Attributes
    ----------
    name : str
        Kernel name.
    raw : tuple of str
        Names of the ``raw`` array inputs (dtype ``dtype``), indexed by flat
        C-order position.
    ints : tuple of str
        Names of the ``int32`` scalar arguments, in call order after ``raw``.
    accs : tuple of str
        Names of scalar arguments of the accumulator dtype, after ``ints``.
    out : str
        Name of the output (one element per thread, dtype ``dtype``).
    operation : str
        C statements run for each output element ``i``.
    preamble : str
        Type aliases ``val_t`` (element), ``acc_t`` (accumulator) and ``idx_t``
        (flat index) and helper functions.
    dtype : str
        Element dtype name.
    """

    name: str
    raw: tuple
    ints: tuple
    accs: tuple
    out: str
    operation: str
    preamble: str
    dtype: str

    @property
    def in_params(self) -> str:
        """The ``in_params`` string of ``cupy.ElementwiseKernel``."""
        acc = _ACC_DTYPE[self.dtype]
        return ", ".join([f"raw {self.dtype} {n}" for n in self.raw]
                         + [f"int32 {n}" for n in self.ints]
                         + [f"{acc} {n}" for n in self.accs])

    @property
    def out_params(self) -> str:
        """The ``out_params`` string of ``cupy.ElementwiseKernel``."""
        return f"{self.dtype} {self.out}"


def preamble(dtype: str, idx: str, extra: str = "") -> str:
    """Type aliases for element, accumulator (float for float16) and flat index."""
    return (f"typedef {_VAL[dtype]} val_t;\ntypedef {_ACC[dtype]} acc_t;\n"
            f"typedef {idx} idx_t;\n{extra}")


def decode(index: str, parts) -> str:
    """C lines splitting flat ``index`` into ``int`` coordinates.

    ``parts``: ``(name, size)`` pairs from the innermost (fastest) axis outwards;
    the last name gets the remaining quotient (no size needed, give ``None``).
    """
    lines = [f"idx_t gl_r = {index};"]
    for name, size in parts[:-1]:
        lines.append(f"const int {name} = (int)(gl_r % {size}); gl_r /= {size};")
    lines.append(f"const int {parts[-1][0]} = (int)gl_r;")
    return "\n".join(lines)


_IM2COL_INT = ("nb", "nc", "in0", "in1", "in2", "out0", "out1", "out2", "ke0", "ke1", "ke2",
               "st0", "st1", "st2", "di0", "di1", "di2", "pa0", "pa1", "pa2")


def im2col_text(dtype: str, batch_last: bool, idx: str) -> KernelText:
    """Kernel text of ``im2col`` for one dtype, layout and index type.

    Channel-first: input ``x`` ``(nb, nc, in0, in1, in2)``, output ``col``
    ``(nc, ke0, ke1, ke2, nb, out0, out1, out2)``; batch-last: ``x`` ``(nc, in0,
    in1, in2, nb)``, ``col`` ``(nc, ke*, out*, nb)``.  The window of output ``q``
    at kernel offset ``j`` reads ``q * st + j * di - pa`` along each axis (0
    outside the input).
    """
    outs = [("q2", "out2"), ("q1", "out1"), ("q0", "out0")]
    kers = [("j2", "ke2"), ("j1", "ke1"), ("j0", "ke0")]
    if batch_last:
        parts = [("qn", "nb")] + outs + kers + [("qc", None)]
        src = "((((idx_t)qc * in0 + a0) * in1 + a1) * in2 + a2) * nb + qn"
    else:
        parts = outs + [("qn", "nb")] + kers + [("qc", None)]
        src = "((((idx_t)qn * nc + qc) * in0 + a0) * in1 + a1) * in2 + a2"
    op = decode("i", parts) + f"""
const int a0 = q0 * st0 + j0 * di0 - pa0;
const int a1 = q1 * st1 + j1 * di1 - pa1;
const int a2 = q2 * st2 + j2 * di2 - pa2;
val_t v = (val_t)0;
if (a0 >= 0 && a0 < in0 && a1 >= 0 && a1 < in1 && a2 >= 0 && a2 < in2) {{
  v = x[{src}];
}}
col = v;
"""
    name = "gl_im2col_" + ("bl" if batch_last else "cf")
    return KernelText(name, ("x",), _IM2COL_INT, (), "col", op, preamble(dtype, idx), dtype)


_COL2IM_INT = ("nb", "re0", "re1", "re2", "lo0", "lo1", "lo2", "out0", "out1", "out2",
               "ke0", "ke1", "ke2", "st0", "st1", "st2", "di0", "di1", "di2")


def col2im_text(dtype: str, batch_last: bool, idx: str) -> KernelText:
    """Kernel text of ``col2im`` (gather form) for one dtype, layout and index type.

    Output ``dx`` is the region ``[lo, lo + re)`` of the padded input, channel-first
    ``(nc, nb, re0, re1, re2)`` or batch-last ``(nc, re0, re1, re2, nb)``; columns
    ``dcol`` as ``im2col_text`` writes them.  Each thread sums, in acc_t, the
    column entries whose window reads its padded position ``a``: kernel offsets
    ``j`` with ``a - j * di = q * st`` for an output ``q`` in range.
    """
    reg = [("r2", "re2"), ("r1", "re1"), ("r0", "re0")]
    if batch_last:
        parts = [("qn", "nb")] + reg + [("qc", None)]
        src = ("(((((((idx_t)qc * ke0 + j0) * ke1 + j1) * ke2 + j2) * out0 + q0) * out1 + q1)"
               " * out2 + q2) * nb + qn")
    else:
        parts = reg + [("qn", "nb"), ("qc", None)]
        src = ("(((((((idx_t)qc * ke0 + j0) * ke1 + j1) * ke2 + j2) * nb + qn) * out0 + q0)"
               " * out1 + q1) * out2 + q2")
    # t = a - j * di only decreases with j: once negative, no later offset hits
    loops = ""
    for ax in "012":
        loops += f"""
for (int j{ax} = 0; j{ax} < ke{ax}; ++j{ax}) {{
const int t{ax} = a{ax} - j{ax} * di{ax};
if (t{ax} < 0) break;
if (t{ax} % st{ax} != 0) continue;
const int q{ax} = t{ax} / st{ax};
if (q{ax} >= out{ax}) continue;"""
    op = decode("i", parts) + f"""
const int a0 = r0 + lo0, a1 = r1 + lo1, a2 = r2 + lo2;
acc_t s = 0;{loops}
s += (acc_t)dcol[{src}];
}}}}}}
dx = (val_t)s;
"""
    name = "gl_col2im_" + ("bl" if batch_last else "cf")
    return KernelText(name, ("dcol",), _COL2IM_INT, (), "dx", op, preamble(dtype, idx), dtype)


def kernel(xp, text: KernelText):
    """The compiled ``ElementwiseKernel`` for ``text``, cached module-wide."""
    key = (text.name, text.dtype, text.preamble, text.operation)
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = xp.ElementwiseKernel(
            text.in_params, text.out_params, text.operation, text.name,
            preamble=text.preamble)
    return k


def kernel_cache_size() -> int:
    """Number of compiled kernels held (for tests)."""
    return len(_KERNELS)


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def im2col(xp, x, out_sizes, kernel_size, stride, dilate, pad, batch_last: bool = False):
    """Columns of ``x`` in one launch (a fresh contiguous array).

    Parameters
    ----------
    x : cupy.ndarray
        ``(N, C, *S)``, or ``(C, *S, N)`` when ``batch_last``; any strides.
    out_sizes, kernel_size, stride, dilate, pad : tuple of int
        Per spatial axis; ``pad`` is the (left) padding the window offsets are
        relative to: reads outside ``[0, S)`` give 0.

    Returns
    -------
    cupy.ndarray
        ``(C, *kernel, N, *out)``, or ``(C, *kernel, *out, N)`` when ``batch_last``.
    """
    if batch_last:
        c, n, spatial = x.shape[0], x.shape[-1], x.shape[1:-1]
        shape = (c,) + tuple(kernel_size) + tuple(out_sizes) + (n,)
    else:
        n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
        shape = (c,) + tuple(kernel_size) + (n,) + tuple(out_sizes)
    col = xp.empty(shape, x.dtype)
    if col.size == 0:
        return col
    text = im2col_text(x.dtype.name, batch_last, index_type(col.size, x.size))
    args = ((n, c) + pack3(spatial, 1) + pack3(out_sizes, 1) + pack3(kernel_size, 1)
            + pack3(stride, 1) + pack3(dilate, 1) + pack3(pad, 0))
    kernel(xp, text)(x, *args, col)
    return col


def col2im(xp, dcol, n: int, out_sizes, kernel_size, stride, dilate, lo, region,
           batch_last: bool = False):
    """The data gradient of ``im2col`` over a region of the padded input, in one launch.

    Parameters
    ----------
    dcol : cupy.ndarray
        ``(C, *kernel, N, *out)``, or ``(C, *kernel, *out, N)`` when ``batch_last``.
    n : int
        Batch size ``N``.
    lo, region : tuple of int
        The region's start and size in padded coordinates: ``lo = 0`` and the
        padded size give the whole scatter target; ``lo = pad`` and the input size
        give the gradient of the unpadded input directly.

    Returns
    -------
    cupy.ndarray
        ``(C, N, *region)``, or ``(C, *region, N)`` when ``batch_last`` (fresh,
        contiguous; every element written).
    """
    c = dcol.shape[0]
    shape = (c,) + tuple(region) + (n,) if batch_last else (c, n) + tuple(region)
    dx = xp.empty(shape, dcol.dtype)
    if dx.size == 0:
        return dx
    if dcol.size == 0:
        dx.fill(0)
        return dx
    text = col2im_text(dcol.dtype.name, batch_last, index_type(dx.size, dcol.size))
    args = ((n,) + pack3(region, 1) + pack3(lo, 0) + pack3(out_sizes, 1)
            + pack3(kernel_size, 1) + pack3(stride, 1) + pack3(dilate, 1))
    kernel(xp, text)(dcol, *args, dx)
    return dx
